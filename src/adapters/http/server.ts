/**
 * The worker's HTTP endpoints: `/metrics` (Prometheus text, or OpenMetrics with exemplars when the scrape asks
 * for it), `/livez` and `/readyz` (Kubernetes probes).
 * They expose counts and health only: no payload data and no configuration values.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { exposition } from '../metrics/metrics.js';

export interface HealthReport {
  readonly ok: boolean;
  /** Named checks, each true or a short reason; never a secret or a payload. */
  readonly checks: Readonly<Record<string, true | string>>;
}

export interface HttpHandlers {
  readonly metrics: Registry;
  live(): HealthReport;
  ready(): Promise<HealthReport>;
}

export async function startHttpServer(port: number, handlers: HttpHandlers, host = '0.0.0.0'): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, type: string, body: string): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const health = (report: HealthReport): void => {
      reply(report.ok ? 200 : 503, 'application/json', JSON.stringify(report));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      reply(405, 'text/plain', 'method not allowed\n');
    } else if (path === '/metrics') {
      exposition(handlers.metrics, req.headers.accept).then(
        ({ contentType, text }) => {
          reply(200, contentType, text);
        },
        () => {
          reply(500, 'text/plain', 'metrics unavailable\n');
        },
      );
    } else if (path === '/livez') {
      health(handlers.live());
    } else if (path === '/readyz') {
      handlers.ready().then(health, () => {
        health({ ok: false, checks: { ready: 'check failed' } });
      });
    } else {
      reply(404, 'text/plain', 'not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
