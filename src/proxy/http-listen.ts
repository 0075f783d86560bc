/**
 * `mcp-proxy --listen HOST:PORT`: the proxy served over Streamable HTTP at `/mcp` with the SDK's server transport,
 * one session per client, each with its own upstream (its own process, or its own upstream HTTP session). Requests
 * whose `Host` is not the listening host are refused by the SDK's DNS-rebinding check.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { PipelineOptions } from '../core/pipeline.js';
import { Relay, type CallEvent, type CallTracing, type UpstreamFactory } from './relay.js';

export interface HttpProxyOptions {
  readonly pipeline: PipelineOptions;
  readonly forwardInvalid: boolean;
  readonly timeoutMs: number;
  readonly onCall: (event: CallEvent) => void;
  readonly onWarning: (message: string, tool?: string) => void;
  readonly tracing?: CallTracing;
}

/** The largest request body read (the SDK's own limit for a POSTed message is 4 MB). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The host names a `Host` header may carry: the loopback names for a loopback address, else the one given. */
export function allowedHostnames(host: string): string[] {
  if (host === '127.0.0.1' || host === '::1' || host === 'localhost') return LOOPBACK_NAMES;
  return [host.includes(':') ? `[${host}]` : host];
}

/** Serves until SIGINT or SIGTERM; resolves with the exit status. */
export async function serveHttp(
  listen: { readonly host: string; readonly port: number },
  factory: UpstreamFactory,
  options: HttpProxyOptions,
  logger: Logger,
): Promise<number> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { hostHeaderValidation } = await import('@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const checkHost = hostHeaderValidation(allowedHostnames(listen.host)) as unknown as (
    req: IncomingMessage,
    res: unknown,
    next: () => void,
  ) => void;
  const sessions = new Map<string, { transport: InstanceType<typeof StreamableHTTPServerTransport>; relay: Relay }>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') {
      reply(res, 404, jsonRpcError('Not found: the MCP endpoint is /mcp'));
      return;
    }
    const host = { ok: false };
    checkHost(req, expressLike(res), () => {
      host.ok = true;
    });
    if (!host.ok) return;
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        reply(res, 404, jsonRpcError('Session not found'));
        return;
      }
      await session.transport.handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST') {
      reply(res, 400, jsonRpcError('Bad Request: No valid session ID provided'));
      return;
    }
    const body = await readJson(req);
    if (!body.ok) {
      reply(res, body.status, jsonRpcError(body.message, -32700));
      return;
    }
    const first: unknown = Array.isArray(body.value) ? body.value[0] : body.value;
    if (!isInitializeRequest(first)) {
      reply(res, 400, jsonRpcError('Bad Request: No valid session ID provided'));
      return;
    }
    const upstream = factory.create();
    upstream.transport.onerror = (error) => {
      options.onWarning(error.message);
    };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, relay });
      },
    });
    const relay = new Relay(transport, upstream.transport, {
      ...options,
      upstreamNoise: upstream.noise,
      upstreamGone: upstream.gone,
    });
    void relay.done.then(() => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      if (upstream.exit() !== undefined) logger.warn({ session: transport.sessionId }, upstream.gone());
    });
    await relay.start();
    await transport.handleRequest(req, res, body.value);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, 'cannot handle an HTTP request');
      if (!res.headersSent) reply(res, 500, jsonRpcError('Internal error'));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  logger.info({ url: `http://${shown}:${address.port}/mcp` }, 'mcp-proxy listening');

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.close();
  await Promise.all([...sessions.values()].map(({ relay }) => relay.close()));
  server.closeAllConnections();
  return 0;
}

function jsonRpcError(message: string, code = -32000): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}

/** The two methods of an Express response the SDK's host check uses. */
function expressLike(res: ServerResponse): unknown {
  return {
    status(code: number) {
      return {
        json(value: unknown) {
          reply(res, code, JSON.stringify(value));
        },
      };
    },
  };
}

async function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, message: `Request body over ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, message: 'Parse error: the body is not JSON' };
  }
}
