/** One helper for the dev tooling (demo, benchmarks, tests) that starts servers on ports of their own. */
import { createServer } from 'node:net';

/** A port nobody listens on right now (bind port 0, read it, release it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}
