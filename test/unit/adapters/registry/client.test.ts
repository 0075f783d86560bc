/**
 * Our caching and retry behaviour against an in-process HTTP server we control (node:http on 127.0.0.1): it
 * answers what each test asks (200/404/5xx/429/401, delays for timeouts) and records every request, so counting
 * requests proves caching and de-duplication.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/core/shared/json.js';
import {
  RegistryAuthError,
  RegistryClient,
  RegistryError,
  RegistryUnavailableError,
  ToolSchemaSource,
  type RegistryConfig,
} from '../../../../src/adapters/registry/client.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

interface Reply {
  status: number;
  body?: unknown;
  /** Sent as is instead of JSON. */
  text?: string;
  delayMs?: number;
  headers?: Record<string, string>;
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

interface TestServer {
  url: string;
  requests: Seen[];
  reply: (seen: Seen) => Reply;
  close(): Promise<void>;
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => {
            resolve();
          });
        }),
    ),
  );
});

async function startServer(reply: (seen: Seen) => Reply): Promise<TestServer> {
  const state: TestServer = { url: '', requests: [], reply, close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    const seen: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
    state.requests.push(seen);
    req.resume();
    const answer = state.reply(seen);
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
    };
    if (answer.delayMs === undefined) send();
    else setTimeout(send, answer.delayMs);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/ccompat/v7`;
  return state;
}

const SCHEMA: JsonObject = {
  type: 'object',
  properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
  required: ['query'],
  'x-tool': { name: 'search', description: 'Search.' },
};

/** `schemaType: null` leaves the field out, as Confluent does for AVRO. */
function registered(subject: string, version: number, id: number, doc: unknown = SCHEMA, schemaType: string | null = 'JSON'): Reply {
  const body: Record<string, unknown> = { subject, version, id, schema: typeof doc === 'string' ? doc : JSON.stringify(doc) };
  if (schemaType !== null) body.schemaType = schemaType;
  return { status: 200, body };
}

/** The subject of a `/subjects/{subject}/versions/...` request, decoded. */
function subjectOf(url: string): string {
  return decodeURIComponent(/\/subjects\/([^/]*)\//.exec(url)?.[1] ?? '');
}

const NOT_FOUND: Reply = { status: 404, body: { error_code: 40401, message: 'Subject not found.' } };

const compiler = createSchemaCompiler();

function peekedId(result: ReturnType<ToolSchemaSource['peek']>): number | undefined {
  return result === 'miss' ? undefined : result?.identity?.id;
}

function source(url: string, clock: { now: number }, overrides: Partial<RegistryConfig> = {}): ToolSchemaSource {
  const config: RegistryConfig = {
    url,
    timeoutMs: 1_000,
    subjectTemplate: '{tool}',
    cacheTtlMs: 60_000,
    negativeTtlMs: 10_000,
    maxRetries: 2,
    retryBackoffMs: 1,
    staleRetryMs: 5_000,
    ...overrides,
  };
  return new ToolSchemaSource(config, compiler, { now: () => clock.now });
}

describe('ToolSchemaSource: fetching and caching', () => {
  it('fetches the latest version, compiles it, fills identity, then serves it from the cache', async () => {
    const server = await startServer(() => registered('search', 3, 42));
    const clock = { now: 0 };
    const tools = source(server.url, clock);

    const tool = await tools.get('search');
    expect(tool?.usable).toBe(true);
    expect(tool?.identity).toEqual({ subject: 'search', version: 3, id: 42 });
    if (tool?.usable !== true) throw new Error('unreachable');
    expect(tool.definition.name).toBe('search');
    expect(tool.definition.description).toBe('Search.');
    expect(Object.hasOwn(tool.definition.inputSchema, 'x-tool')).toBe(false);
    expect(tool.validate({ query: 'x', limit: 0 }).map((d) => d.code)).toEqual(['below_minimum']);

    expect(await tools.get('search')).toBe(tool);
    expect(tools.peek('search')).toBe(tool);
    // `latest` also answered for version 3: a call pinning it is a hit.
    expect(await tools.get('search', 3)).toBe(tool);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /apis/ccompat/v7/subjects/search/versions/latest']);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(tools.stats()).toEqual({ hits: 3, misses: 1, stale: 0, requests: { ok: 1, not_found: 0, error: 0 } });
  });

  it('fetches a pinned version by number, cached apart from latest', async () => {
    const server = await startServer((seen) =>
      seen.url.endsWith('/versions/1') ? registered('search', 1, 7) : registered('search', 2, 8),
    );
    const tools = source(server.url, { now: 0 });
    expect((await tools.get('search', 1))?.identity).toEqual({ subject: 'search', version: 1, id: 7 });
    expect((await tools.get('search'))?.identity).toEqual({ subject: 'search', version: 2, id: 8 });
    expect((await tools.get('search', 1))?.identity?.id).toBe(7);
    expect(server.requests).toHaveLength(2);
    expect(peekedId(tools.peek('search', 2))).toBe(8);
    await expect(tools.get('search', 0)).rejects.toThrow(RangeError);
  });

  it('refetches after the TTL', async () => {
    let id = 1;
    const server = await startServer(() => registered('search', id, id));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000 });
    expect((await tools.get('search'))?.identity?.id).toBe(1);
    clock.now = 999;
    expect((await tools.get('search'))?.identity?.id).toBe(1);
    expect(server.requests).toHaveLength(1);
    id = 2;
    clock.now = 1_000;
    expect((await tools.get('search'))?.identity?.id).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('a TTL of 0 keeps nothing fresh: every lookup asks the registry, even on an unmoving clock', async () => {
    const server = await startServer(() => registered('search', 1, 1));
    const tools = source(server.url, { now: 0 }, { cacheTtlMs: 0 });
    await tools.get('search');
    await tools.get('search');
    expect(server.requests).toHaveLength(2);
  });

  it('de-duplicates concurrent fetches of the same key into one request', async () => {
    const server = await startServer(() => ({ ...registered('search', 1, 1), delayMs: 100 }));
    const tools = source(server.url, { now: 0 });
    const results = await Promise.all(Array.from({ length: 20 }, () => tools.get('search')));
    expect(new Set(results).size).toBe(1);
    expect(results[0]?.usable).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(tools.stats().misses).toBe(20);
    // A different key is a different request.
    await tools.get('search', 5);
    expect(server.requests).toHaveLength(2);
  });

  it('encodes subject names in the URL', async () => {
    const server = await startServer(() => NOT_FOUND);
    const tools = source(server.url, { now: 0 }, { subjectTemplate: 'tools.{tool}' });
    await tools.get('a/b c?#%');
    expect(server.requests[0]?.url).toBe('/apis/ccompat/v7/subjects/tools.a%2Fb%20c%3F%23%25/versions/latest');
  });
});

describe('ToolSchemaSource: unknown tools', () => {
  it('returns undefined for 40401 and remembers it for negativeTtlMs', async () => {
    const server = await startServer(() => NOT_FOUND);
    const clock = { now: 0 };
    const tools = source(server.url, clock, { negativeTtlMs: 30_000 });
    expect(await tools.get('nope')).toBeUndefined();
    expect(await tools.get('nope')).toBeUndefined();
    expect(tools.peek('nope')).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    clock.now = 30_000;
    expect(tools.peek('nope')).toBe('miss');
    expect(await tools.get('nope')).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(tools.stats().requests).toEqual({ ok: 0, not_found: 2, error: 0 });
  });

  it('returns undefined for 40402 (no such version)', async () => {
    const server = await startServer(() => ({ status: 404, body: { error_code: 40402, message: 'Version 9 not found.' } }));
    const tools = source(server.url, { now: 0 });
    expect(await tools.get('search', 9)).toBeUndefined();
  });

  it('treats a 404 without a registry error code as a wrong URL, not an unknown tool', async () => {
    const server = await startServer(() => ({ status: 404, text: '<html>Not Found</html>' }));
    const tools = source(server.url, { now: 0 });
    const error: unknown = await tools.get('search').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect(error).not.toBeInstanceOf(RegistryUnavailableError);
    expect((error as Error).message).toMatch(/ccompat/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('ToolSchemaSource: retries and failure classification', () => {
  it('retries a 500 and succeeds', async () => {
    const server = await startServer(() =>
      server.requests.length === 1 ? { status: 500, body: { error_code: 50001, message: 'boom' } } : registered('search', 1, 1),
    );
    const tools = source(server.url, { now: 0 });
    expect((await tools.get('search'))?.usable).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(tools.stats().requests).toEqual({ ok: 1, not_found: 0, error: 1 });
  });

  it.each([408, 425, 429, 502, 503])('retries %i up to maxRetries, then throws RegistryUnavailableError', async (status) => {
    const server = await startServer(() => ({
      status,
      body: { error_code: status * 100, message: 'busy' },
      headers: { 'retry-after': '0' },
    }));
    const tools = source(server.url, { now: 0 }, { maxRetries: 2 });
    const error: unknown = await tools.get('search').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryUnavailableError);
    expect((error as RegistryUnavailableError).canRetry).toBe(true);
    expect((error as RegistryUnavailableError).status).toBe(status);
    expect((error as Error).message).toContain(`after 3 attempts: HTTP ${status}: busy`);
    expect(server.requests).toHaveLength(3);
  });

  it('honours maxRetries: 0 (one attempt)', async () => {
    const server = await startServer(() => ({ status: 503 }));
    const tools = source(server.url, { now: 0 }, { maxRetries: 0 });
    await expect(tools.get('search')).rejects.toThrow(/after 1 attempt: HTTP 503/);
    expect(server.requests).toHaveLength(1);
  });

  it('times out each attempt and retries', async () => {
    const server = await startServer(() => ({ ...registered('search', 1, 1), delayMs: 1_000 }));
    const tools = source(server.url, { now: 0 }, { timeoutMs: 50, maxRetries: 1 });
    const started = performance.now();
    const error: unknown = await tools.get('search').catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(RegistryUnavailableError);
    expect((error as Error).message).toContain('timed out after 50 ms');
    expect(server.requests).toHaveLength(2);
    expect(elapsed).toBeLessThan(900);
  });

  it('treats a refused connection as transient', async () => {
    const server = await startServer(() => NOT_FOUND);
    const url = server.url;
    await new Promise<void>((resolve) => {
      const s = servers.pop();
      s?.close(() => {
        resolve();
      });
    });
    const tools = source(url, { now: 0 }, { maxRetries: 1 });
    await expect(tools.get('search')).rejects.toThrow(/after 2 attempts: network error: fetch failed \(ECONNREFUSED\)/);
    expect(tools.stats().requests.error).toBe(2);
    expect(await tools.ping()).toBe(false);
  });

  it.each([401, 403])('does not retry %i: RegistryAuthError, and never shows the password', async (status) => {
    const server = await startServer(() => ({ status, body: { error_code: status * 100, message: 'Unauthorized' } }));
    const tools = source(
      server.url.replace('http://', 'http://url-user:url-secret@'),
      { now: 0 },
      { username: 'svc', password: 's3cr3t-pw' },
    );
    const error: unknown = await tools.get('search').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryAuthError);
    expect((error as RegistryAuthError).canRetry).toBe(false);
    expect((error as Error).message).toContain(`HTTP ${status}`);
    expect((error as Error).message).not.toMatch(/s3cr3t|url-secret|url-user/);
    expect(JSON.stringify(error)).not.toMatch(/s3cr3t|url-secret/);
    expect(server.requests).toHaveLength(1);
    // Explicit credentials win over the URL's.
    expect(server.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from('svc:s3cr3t-pw').toString('base64')}`);
  });

  it('takes credentials from the URL when none are configured', async () => {
    const server = await startServer(() => NOT_FOUND);
    const tools = source(server.url.replace('http://', 'http://u%40x:p%3Aw@'), { now: 0 });
    await tools.get('search');
    expect(server.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from('u@x:p:w').toString('base64')}`);
  });

  it.each([409, 422])('does not retry %i', async (status) => {
    const server = await startServer(() => ({ status, body: { error_code: 42202, message: 'Invalid version' } }));
    const tools = source(server.url, { now: 0 });
    const error: unknown = await tools.get('search').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).canRetry).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('quotes at most 200 characters of a registry message, never half of a surrogate pair', async () => {
    const message = `${'x'.repeat(198)}\u{1F600}${'y'.repeat(5_000)}`;
    const server = await startServer(() => ({ status: 422, body: { error_code: 42201, message } }));
    const error: unknown = await source(server.url, { now: 0 })
      .get('search')
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain(`HTTP 422: ${'x'.repeat(198)}…`);
    expect((error as Error).message).not.toMatch(/[\uD800-\uDFFF]/);
  });

  it('treats a 200 that is not a registry answer as unavailable', async () => {
    const server = await startServer(() => ({ status: 200, text: '<html>login</html>' }));
    const tools = source(server.url, { now: 0 });
    await expect(tools.get('search')).rejects.toThrow(RegistryUnavailableError);
    const other = await startServer(() => ({ status: 200, body: { hello: 'world' } }));
    await expect(source(other.url, { now: 0 }).get('search')).rejects.toThrow(/is this a schema registry/);
  });
});

describe('ToolSchemaSource: stale-while-error', () => {
  it('serves an expired entry while the registry is down, and backs off before asking again', async () => {
    let down = false;
    const server = await startServer(() => (down ? { status: 503 } : registered('search', 1, 1)));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000, staleRetryMs: 5_000, maxRetries: 1 });
    const tool = await tools.get('search');
    expect(server.requests).toHaveLength(1);

    down = true;
    clock.now = 2_000;
    expect(await tools.get('search')).toBe(tool);
    expect(server.requests).toHaveLength(3); // one attempt and one retry, then the stale entry
    // Within staleRetryMs: no request, the stale entry straight away.
    clock.now = 6_999;
    expect(await tools.get('search')).toBe(tool);
    expect(tools.peek('search')).toBe(tool);
    expect(server.requests).toHaveLength(3);
    // After it: asked again.
    clock.now = 7_000;
    expect(await tools.get('search')).toBe(tool);
    expect(server.requests).toHaveLength(5);
    expect(tools.stats().stale).toBe(4);

    down = false;
    clock.now = 12_000;
    const fresh = await tools.get('search');
    expect(fresh).not.toBe(tool);
    expect(fresh?.identity).toEqual({ subject: 'search', version: 1, id: 1 });
  });

  it('serves a remembered "unknown" while the registry is down, but throws with nothing cached', async () => {
    let down = false;
    const server = await startServer(() => (down ? { status: 500 } : NOT_FOUND));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { negativeTtlMs: 1_000, maxRetries: 0 });
    expect(await tools.get('nope')).toBeUndefined();
    down = true;
    clock.now = 5_000;
    expect(await tools.get('nope')).toBeUndefined();
    await expect(tools.get('never-seen')).rejects.toThrow(RegistryUnavailableError);
    expect(server.requests).toHaveLength(3);
  });

  it('does not fall back to stale entries on an auth error', async () => {
    let status = 200;
    const server = await startServer(() => (status === 200 ? registered('search', 1, 1) : { status }));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000 });
    await tools.get('search');
    status = 401;
    clock.now = 2_000;
    await expect(tools.get('search')).rejects.toThrow(RegistryAuthError);
  });

  it('peek serves a stale tool at once and refreshes it in the background', async () => {
    let id = 1;
    const server = await startServer(() => ({ ...registered('search', id, id), delayMs: 20 }));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000 });
    expect(tools.peek('search')).toBe('miss');
    const first = await tools.get('search');
    id = 2;
    clock.now = 1_500;
    expect(tools.peek('search')).toBe(first);
    expect(tools.peek('search')).toBe(first); // the refresh in flight is not started twice
    await expect.poll(() => peekedId(tools.peek('search'))).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('peek keeps serving a stale tool when the background refresh fails', async () => {
    let down = false;
    const server = await startServer(() => (down ? { status: 503 } : registered('search', 1, 1)));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000, maxRetries: 0, staleRetryMs: 5_000 });
    const tool = await tools.get('search');
    down = true;
    clock.now = 1_500;
    expect(tools.peek('search')).toBe(tool);
    await expect.poll(() => server.requests.length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The failed refresh set a backoff: no new request for a while.
    expect(tools.peek('search')).toBe(tool);
    expect(server.requests).toHaveLength(2);
  });
});

describe('ToolSchemaSource: registered data that cannot be used', () => {
  it.each([
    ['schema text that is not JSON', registered('search', 1, 5, '{not json'), /is not JSON/],
    ['an AVRO subject', registered('search', 1, 5, '{"type":"record","name":"x","fields":[]}', null), /AVRO schema, not a JSON Schema/],
    ['a schema that is not an object', registered('search', 1, 5, [1, 2]), /not a JSON object/],
    ['an invalid JSON Schema', registered('search', 1, 5, { type: 'object', properties: { q: { type: 12 } } }), /not a valid JSON Schema/],
    ['a PROTOBUF subject', registered('search', 1, 5, 'syntax = "proto3";', 'PROTOBUF'), /PROTOBUF schema, not a JSON Schema/],
  ])('%s becomes an unusable tool, cached like a success', async (_name, reply, message) => {
    const server = await startServer(() => reply);
    const tools = source(server.url, { now: 0 });
    const tool = await tools.get('search');
    expect(tool?.usable).toBe(false);
    if (tool === undefined || tool.usable) throw new Error('unreachable');
    expect(tool.diagnostic.code).toBe('tool_schema_unusable');
    expect(tool.diagnostic.message).toMatch(message);
    expect(tool.identity).toEqual({ subject: 'search', version: 1, id: 5 });
    expect(await tools.get('search')).toBe(tool);
    expect(server.requests).toHaveLength(1);
  });

  it('names a bare schema after the subject template', async () => {
    const server = await startServer(() => registered('tools.lookup', 1, 1, { type: 'object', description: 'Bare.' }));
    const tools = source(server.url, { now: 0 }, { subjectTemplate: 'tools.{tool}' });
    const tool = await tools.get('lookup');
    expect(tool?.usable === true && tool.definition).toMatchObject({ name: 'lookup', description: 'Bare.' });
  });
});

describe('ToolSchemaSource: configuration, bounds, readiness', () => {
  it('refuses bad configuration', () => {
    expect(() => source('http://127.0.0.1:1/x', { now: 0 }, { subjectTemplate: 'static' })).toThrow(/exactly once/);
    expect(() => source('ftp://host/x', { now: 0 })).toThrow(/http or https/);
    expect(() => source('not a url with secret', { now: 0 })).toThrow(/not a valid absolute URL$/);
    expect(() => source('http://127.0.0.1:1/x', { now: 0 }, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => source('http://127.0.0.1:1/x', { now: 0 }, { maxRetries: 1.5 })).toThrow(/maxRetries/);
  });

  it('keeps at most maxEntries tools, evicting the oldest', async () => {
    const server = await startServer((seen) => registered(subjectOf(seen.url), 1, 1));
    const tools = source(server.url, { now: 0 }, { maxEntries: 2 });
    await tools.get('a', 1);
    await tools.get('b', 1);
    await tools.get('c', 1);
    expect(tools.peek('a', 1)).toBe('miss');
    expect(peekedId(tools.peek('b', 1))).toBe(1);
    expect(peekedId(tools.peek('c', 1))).toBe(1);
    expect(server.requests).toHaveLength(3);
  });

  it('keeps at most maxNegativeEntries unknown tools, evicting the oldest, apart from the tools', async () => {
    const server = await startServer(() => NOT_FOUND);
    const tools = source(server.url, { now: 0 }, { maxEntries: 1, maxNegativeEntries: 2 });
    await tools.get('a');
    await tools.get('b');
    await tools.get('c');
    expect(tools.peek('a')).toBe('miss');
    expect(tools.peek('b')).toBeUndefined();
    expect(tools.peek('c')).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(() => source(server.url, { now: 0 }, { maxNegativeEntries: 0 })).toThrow(/maxNegativeEntries/);
  });

  it('ping answers true when GET /subjects answers, false on errors and timeouts', async () => {
    let reply: Reply = { status: 200, body: [] };
    const server = await startServer(() => reply);
    const tools = source(server.url, { now: 0 }, { timeoutMs: 50 });
    expect(await tools.ping()).toBe(true);
    expect(server.requests.at(-1)?.url).toBe('/apis/ccompat/v7/subjects');
    reply = { status: 500 };
    expect(await tools.ping()).toBe(false);
    reply = { status: 200, body: [], delayMs: 500 };
    expect(await tools.ping()).toBe(false);
    expect(tools.stats().requests).toEqual({ ok: 0, not_found: 0, error: 0 });
  });
});

describe('ToolSchemaSource: refused refreshes are bounded (no storm)', () => {
  it.each([
    [401, RegistryAuthError],
    [403, RegistryAuthError],
    [422, RegistryError],
  ])('after a refresh refused with %i, peeks serve the stale tool and ask again only after staleRetryMs', async (status, errorClass) => {
    let refused = false;
    const server = await startServer(() =>
      refused ? { status, body: { error_code: status * 100, message: 'no' } } : registered('search', 1, 1),
    );
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000, staleRetryMs: 5_000 });
    const tool = await tools.get('search');
    refused = true;
    clock.now = 1_500;
    expect(tools.peek('search')).toBe(tool); // starts the background refresh
    // get joins the refresh in flight, so it has settled when get has: refused, and thrown.
    await expect(tools.get('search')).rejects.toThrow(errorClass);
    expect(server.requests).toHaveLength(2);
    for (let i = 0; i < 50; i++) {
      expect(tools.peek('search')).toBe(tool);
      // Within the backoff get answers the refusal again without asking (auth errors are never hidden).
      const error: unknown = await tools.get('search').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(errorClass);
      expect((error as RegistryError).status).toBe(status);
    }
    expect(server.requests).toHaveLength(2);
    // After staleRetryMs: exactly one new request.
    clock.now = 1_500 + 5_000;
    expect(tools.peek('search')).toBe(tool);
    expect(tools.peek('search')).toBe(tool);
    await expect(tools.get('search')).rejects.toThrow(errorClass);
    expect(server.requests).toHaveLength(3);
    // Once the registry answers again, the tool is refreshed.
    refused = false;
    clock.now = 1_500 + 10_000;
    expect((await tools.get('search'))?.usable).toBe(true);
    expect(server.requests).toHaveLength(4);
  });

  it('bounds the requests for an expired unknown tool refused with 401', async () => {
    let status = 404;
    const server = await startServer(() => (status === 404 ? NOT_FOUND : { status }));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { negativeTtlMs: 1_000, staleRetryMs: 5_000 });
    expect(await tools.get('nope')).toBeUndefined();
    status = 401;
    clock.now = 2_000;
    for (let i = 0; i < 20; i++) {
      expect(tools.peek('nope')).toBe('miss');
      await expect(tools.get('nope')).rejects.toThrow(RegistryAuthError);
    }
    expect(server.requests).toHaveLength(2);
    clock.now = 7_000;
    await expect(tools.get('nope')).rejects.toThrow(RegistryAuthError);
    expect(server.requests).toHaveLength(3);
  });
});

describe('ToolSchemaSource: unknown tools never evict known ones', () => {
  it('keeps serving cached tools through an outage after thousands of unknown names', async () => {
    let down = false;
    const known = new Set(['search', 'lookup']);
    const server = await startServer((seen) => {
      if (down) return { status: 503 };
      const subject = subjectOf(seen.url);
      return known.has(subject) ? registered(subject, 1, subject.length) : NOT_FOUND;
    });
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000, maxRetries: 0, maxEntries: 4, maxNegativeEntries: 100 });
    const search = await tools.get('search');
    const lookup = await tools.get('lookup');
    for (let i = 0; i < 1_000; i++) expect(await tools.get(`invented-${i}`)).toBeUndefined();
    // The negative bound holds: the oldest unknown names are forgotten, the newest remembered.
    expect(tools.peek('invented-0')).toBe('miss');
    expect(tools.peek('invented-999')).toBeUndefined();
    // Both tools are still cached: hits, no request.
    const before = server.requests.length;
    expect(tools.peek('search')).toBe(search);
    expect(tools.peek('lookup')).toBe(lookup);
    expect(server.requests).toHaveLength(before);
    // And served stale through an outage.
    down = true;
    clock.now = 5_000;
    expect(await tools.get('search')).toBe(search);
    expect(await tools.get('lookup')).toBe(lookup);
  });

  it('a tool that becomes known replaces its "unknown" entry, and the reverse', async () => {
    let exists = false;
    const server = await startServer(() => (exists ? registered('search', 1, 1) : NOT_FOUND));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000, negativeTtlMs: 1_000 });
    expect(await tools.get('search')).toBeUndefined();
    exists = true;
    clock.now = 1_000;
    expect((await tools.get('search'))?.usable).toBe(true);
    expect(tools.peek('search')).not.toBe('miss');
    exists = false;
    clock.now = 2_000;
    expect(await tools.get('search')).toBeUndefined();
    expect(tools.peek('search')).toBeUndefined();
    expect(tools.peek('search', 1)).not.toBe('miss'); // version 1 was returned by latest: versions are immutable
  });
});

describe('ToolSchemaSource: names no registry subject can have', () => {
  it.each([
    ['a lone high surrogate', '\ud800x', /not well-formed Unicode/],
    ['a lone low surrogate', 'x\udc00', /not well-formed Unicode/],
    ['an empty name', '', /empty/],
    ['"."', '.', /cannot be addressed/],
    ['".."', '..', /cannot be addressed/],
    ['1,001 characters', 'x'.repeat(1_001), /1001 characters long, over the 1000-character limit/],
    ['100 KB', 'x'.repeat(100_000), /100000 characters long/],
  ])('%s is an unknown tool at once: no request, no wait, no throw', async (_name, tool, reason) => {
    const server = await startServer(() => registered('search', 1, 1));
    const tools = source(server.url, { now: 0 });
    expect(tools.peek(tool)).toBeUndefined();
    expect(await tools.get(tool)).toBeUndefined();
    expect(await tools.get(tool, 2)).toBeUndefined();
    expect(tools.unknownReason(tool)).toMatch(reason);
    expect(server.requests).toHaveLength(0);
    expect(tools.stats().misses).toBe(0);
  });

  it('applies the checks to the subject, and lets every well-formed name up to the bound through', async () => {
    const server = await startServer(() => NOT_FOUND);
    const tools = source(server.url, { now: 0 }, { subjectTemplate: 'tools.{tool}' });
    // "tools.." and "tools.x...x" (1,000 characters) are subjects a registry may hold.
    expect(await tools.get('.')).toBeUndefined();
    expect(await tools.get('x'.repeat(1_000 - 'tools.'.length))).toBeUndefined();
    expect(await tools.get('\ud83d\ude00')).toBeUndefined();
    expect(server.requests.map((r) => (r.url.length > 200 ? 'long' : r.url))).toEqual([
      '/apis/ccompat/v7/subjects/tools../versions/latest',
      'long',
      '/apis/ccompat/v7/subjects/tools.%F0%9F%98%80/versions/latest',
    ]);
    expect(tools.unknownReason('.')).toBeUndefined();
    expect(tools.peek('x'.repeat(1_001 - 'tools.'.length))).toBeUndefined();
    expect(server.requests).toHaveLength(3);
  });

  it.each([400, 414, 431])('HTTP %i for a subject means the subject cannot exist: unknown, remembered, not an outage', async (status) => {
    const server = await startServer(() => ({ status, text: 'Bad Request' }));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { negativeTtlMs: 10_000 });
    expect(await tools.get('weird')).toBeUndefined();
    expect(tools.peek('weird')).toBeUndefined();
    expect(await tools.get('weird')).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(tools.unknownReason('weird')).toMatch(new RegExp(`HTTP ${status}`));
    expect(tools.unknownReason('search')).toBeUndefined();
    clock.now = 10_000;
    expect(tools.peek('weird')).toBe('miss');
  });
});

describe('ToolSchemaSource: stale serves are counted only when the registry failed', () => {
  it('does not count a stale-while-revalidate serve while the registry is healthy', async () => {
    let id = 1;
    const server = await startServer(() => registered('search', id, id));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000 });
    const first = await tools.get('search');
    id = 2;
    clock.now = 1_500;
    expect(tools.peek('search')).toBe(first);
    expect(tools.peek('search')).toBe(first);
    await expect.poll(() => peekedId(tools.peek('search'))).toBe(2);
    expect(tools.stats().stale).toBe(0);
  });

  it('counts the serves after a refresh failed, and those of other tools while the registry is known down', async () => {
    let down = false;
    const server = await startServer((seen) => (down ? { status: 503 } : registered(subjectOf(seen.url), 1, 1)));
    const clock = { now: 0 };
    const tools = source(server.url, clock, { cacheTtlMs: 1_000, maxRetries: 0, staleRetryMs: 5_000 });
    const search = await tools.get('search');
    const lookup = await tools.get('lookup');
    down = true;
    clock.now = 1_500;
    expect(tools.peek('search')).toBe(search); // not known yet: the refresh starts now
    expect(tools.stats().stale).toBe(0);
    expect(await tools.get('search')).toBe(search); // joins the refresh, which fails: served stale
    expect(tools.stats().stale).toBe(1);
    expect(tools.peek('search')).toBe(search);
    expect(tools.stats().stale).toBe(2);
    // Another expired tool, never refreshed yet, while the registry is known to be down.
    expect(tools.peek('lookup')).toBe(lookup);
    expect(tools.stats().stale).toBe(3);
    expect(await tools.get('lookup')).toBe(lookup);
    expect(tools.stats().stale).toBe(4);
    // The registry answers again: a successful refresh clears it.
    down = false;
    clock.now = 10_000;
    expect((await tools.get('lookup'))?.identity?.id).toBe(1);
    const staleBefore = tools.stats().stale;
    clock.now = 20_000;
    expect(tools.peek('lookup')).not.toBe('miss');
    expect(tools.stats().stale).toBe(staleBefore);
  });
});

describe('RegistryClient.listSubjects', () => {
  const client = (url: string): RegistryClient => new RegistryClient({ url, timeoutMs: 1_000, maxRetries: 1, retryBackoffMs: 1 });

  it('answers every subject, sorted', async () => {
    const server = await startServer(() => ({ status: 200, body: ['tools.b', 'orders-value', 'tools.a'] }));
    expect(await client(server.url).listSubjects()).toEqual(['orders-value', 'tools.a', 'tools.b']);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /apis/ccompat/v7/subjects']);
  });

  it('refuses an answer that is not a list of subjects, and retries a failing registry like every read', async () => {
    const other = await startServer(() => ({ status: 200, body: { subjects: [] } }));
    await expect(client(other.url).listSubjects()).rejects.toThrow(/GET \/subjects answered a body that is not a list of subjects/);
    const failing = await startServer(() => ({ status: 503, body: { error_code: 50301, message: 'busy' } }));
    await expect(client(failing.url).listSubjects()).rejects.toThrow(RegistryUnavailableError);
    expect(failing.requests).toHaveLength(2);
  });
});
