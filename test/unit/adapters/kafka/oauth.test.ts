/**
 * The OAUTHBEARER token source against a real HTTP token endpoint on loopback (node:http): the client credentials
 * request as RFC 6749 has it, refresh before expiry, retries with backoff at start, a refused secret not retried, a
 * provider that goes away mid-stream, and no token or secret in any log line or error. Lifetimes are a few seconds;
 * waits poll for what the server saw, bounded.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { OAuthTokenError, OAuthTokenSource } from '../../../../src/adapters/kafka/oauth.js';
import type { OAuthClientSettings } from '../../../../src/core/shared/stream.js';

const SECRET = 'cl1ent s3cret&=+';
type Mode = 'ok' | 'down' | 'refuse';

interface Endpoint {
  readonly url: string;
  readonly requests: { at: number; auth: string; body: URLSearchParams }[];
  mode: Mode;
  /** Answers with 503 this many times before following `mode`. */
  failFirst: number;
  expiresIn: number;
  issued: string[];
}

const servers: Server[] = [];
const sources: OAuthTokenSource[] = [];
afterEach(async () => {
  for (const s of sources.splice(0)) s.stop();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function endpoint(): Promise<Endpoint> {
  const state: Omit<Endpoint, 'url'> = { requests: [], mode: 'ok', failFirst: 0, expiresIn: 60, issued: [] };
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests.push({
        at: Date.now(),
        auth: req.headers.authorization ?? '',
        body: new URLSearchParams(Buffer.concat(chunks).toString()),
      });
      if (state.failFirst > 0 || state.mode === 'down') {
        state.failFirst = Math.max(0, state.failFirst - 1);
        res.writeHead(503).end('unavailable');
        return;
      }
      if (state.mode === 'refuse') {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }));
        return;
      }
      const token = `tok-${state.issued.length + 1}-${'x'.repeat(20)}`;
      state.issued.push(token);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: state.expiresIn }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return Object.assign(state, { url });
}

function memoryLogger(): { logger: pino.Logger; text: () => string; lines: () => { level: number; msg: string }[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const text = (): string => chunks.join('');
  return {
    logger: pino({ level: 'trace' }, stream),
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { level: number; msg: string }),
  };
}

function source(url: string, logger: pino.Logger, overrides: Partial<OAuthClientSettings> = {}, noWait = false): OAuthTokenSource {
  const s = new OAuthTokenSource(
    {
      tokenUrl: url,
      clientId: 'tcn worker',
      clientSecret: SECRET,
      scope: 'kafka',
      audience: undefined,
      timeoutMs: 2_000,
      maxRetries: 3,
      ...overrides,
    },
    { logger, ...(noWait ? { sleep: () => Promise.resolve() } : {}) },
  );
  sources.push(s);
  return s;
}

async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('OAuthTokenSource', () => {
  it('asks by client credentials (Basic, form-encoded parts, scope) and hands out the token; logs neither token nor secret', async () => {
    const idp = await endpoint();
    const { logger, text } = memoryLogger();
    const tokens = source(idp.url, logger);
    await tokens.start();
    expect(await tokens.token()).toBe(idp.issued[0]);
    expect(idp.requests).toHaveLength(1);
    const [request] = idp.requests;
    expect(request?.body.get('grant_type')).toBe('client_credentials');
    expect(request?.body.get('scope')).toBe('kafka');
    const decoded = Buffer.from((request?.auth ?? '').replace(/^Basic /, ''), 'base64').toString();
    expect(decoded).toBe(`tcn+worker:${encodeURIComponent(SECRET).replace(/%20/g, '+')}`);
    expect(text()).toMatch(/access token obtained/);
    expect(text()).not.toContain(idp.issued[0]);
    expect(text()).not.toContain('s3cret');
  });

  it('refreshes before the token expires, and hands out the new one', async () => {
    const idp = await endpoint();
    // Refreshed at 80% of its life: 8 s in, 2 s before it expires, a margin a loaded machine keeps.
    idp.expiresIn = 10;
    const tokens = source(idp.url, memoryLogger().logger);
    await tokens.start();
    const firstExpiry = tokens.expiresAt() ?? 0;
    // Installed, not only issued: the answer reaches the source a moment after the server has sent it.
    await until('a refresh', () => (tokens.expiresAt() ?? 0) > firstExpiry);
    expect(idp.requests[1]?.at).toBeLessThan(firstExpiry);
    expect(await tokens.token()).toBe(idp.issued[1]);
  }, 30_000);

  it('a provider down at start: retried with backoff, each failure reported, then the token', async () => {
    const idp = await endpoint();
    idp.failFirst = 2;
    const { logger, lines } = memoryLogger();
    const tokens = source(idp.url, logger, {}, true);
    await tokens.start();
    expect(idp.requests).toHaveLength(3);
    const retries = lines().filter((l) => /did not give a token; retrying/.test(l.msg));
    expect(retries).toHaveLength(2);
    expect(await tokens.token()).toBe(idp.issued[0]);
  });

  it('a provider that never answers: one clear error after the retries', async () => {
    const idp = await endpoint();
    idp.mode = 'down';
    const tokens = source(idp.url, memoryLogger().logger, { maxRetries: 2 }, true);
    const error = await tokens.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthTokenError);
    expect((error as Error).message).toBe('OAUTHBEARER: no token from the OIDC token endpoint after 3 attempts: HTTP 503');
    // A port nothing listens on any more.
    const gone = await endpoint();
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const closed = source(gone.url, memoryLogger().logger, { maxRetries: 0 }, true);
    await expect(closed.start()).rejects.toThrow(/after 1 attempt: ECONNREFUSED$/);
  });

  it('a wrong secret: refused at once, not retried, one line naming the client and the answer, no secret', async () => {
    const idp = await endpoint();
    idp.mode = 'refuse';
    const tokens = source(idp.url, memoryLogger().logger, {}, true);
    const error = await tokens.start().catch((e: unknown) => e);
    expect(idp.requests).toHaveLength(1);
    expect(error).toBeInstanceOf(OAuthTokenError);
    expect((error as OAuthTokenError).canRetry).toBe(false);
    expect((error as Error).message).toBe(
      'OAUTHBEARER: the OIDC token endpoint refused the client credentials of KAFKA_OAUTH_CLIENT_ID "tcn worker": HTTP 401 ' +
        'invalid_client (client authentication failed); check KAFKA_OAUTH_CLIENT_SECRET_FILE',
    );
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('a provider that goes away mid-stream: the current token stays in use until it expires, then sign-ins wait for the next', async () => {
    const idp = await endpoint();
    idp.expiresIn = 3;
    const { logger, lines } = memoryLogger();
    const tokens = source(idp.url, logger);
    await tokens.start();
    idp.mode = 'down';
    await until('a failed refresh', () => idp.requests.length >= 2);
    await until('the failure logged', () => lines().some((l) => /token refresh failed; the current token stays in use/.test(l.msg)));
    expect(await tokens.token()).toBe(idp.issued[0]);
    const retries = lines().filter((l) => /token refresh failed/.test(l.msg)) as unknown as { retryInMs: number; validForS: number }[];
    // Retries while the token is valid land before it expires, whatever the backoff has grown to.
    expect(retries.every((l) => l.retryInMs <= Math.max(500, (l.validForS + 1) * 500))).toBe(true);
    await until('the token to expire', () => Date.now() >= (tokens.expiresAt() ?? 0));
    await until('the expiry logged', () => lines().some((l) => /the access token expired/.test(l.msg)));
    let signedIn: string | undefined;
    const waiting = tokens.token().then((t) => (signedIn = t));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(signedIn).toBeUndefined(); // a sign-in after expiry waits...
    idp.mode = 'ok';
    await waiting; // ...for the token the refresh gets once the provider is back
    expect(signedIn).toBe(idp.issued[1]);
    expect(lines().filter((l) => /the access token expired/.test(l.msg))).toHaveLength(1);
    // A stopped source ends a wait.
    const stopped = source(idp.url, logger);
    const pending = stopped.token();
    stopped.stop();
    await expect(pending).rejects.toThrow('OAUTHBEARER: the token source is stopped');
  }, 60_000);
});
