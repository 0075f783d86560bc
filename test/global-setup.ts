/**
 * Before any test: make sure the integration tests have a real broker and registry. When KAFKA_BROKERS and
 * SCHEMA_REGISTRY_URL are not set, start the local stack (`scripts/stack.sh up`: idempotent, downloads cached)
 * and export what it prints, so `npm test` works on a fresh machine. Set STACK_AUTO=0 to forbid that; the
 * integration tests then fail with a message saying how to get a broker. The stack is left running for the
 * next run; `npm run stack:down` stops it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  if (process.env.KAFKA_BROKERS !== undefined && process.env.SCHEMA_REGISTRY_URL !== undefined) return;
  if (process.env.STACK_AUTO === '0') return;
  const script = fileURLToPath(new URL('../scripts/stack.sh', import.meta.url));
  process.stderr.write('global-setup: KAFKA_BROKERS/SCHEMA_REGISTRY_URL not set: starting the local stack (scripts/stack.sh up)\n');
  let out: string;
  try {
    out = execFileSync('bash', [script, 'up'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 });
  } catch (error) {
    process.stderr.write(`global-setup: could not start the local stack (${error instanceof Error ? error.message : String(error)}); integration tests will fail. Run "npm run stack:up" to see why.\n`);
    return;
  }
  for (const line of out.split('\n')) {
    const match = /^(KAFKA_BROKERS|SCHEMA_REGISTRY_URL)=(.+)$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) process.env[match[1]] = match[2];
  }
}
