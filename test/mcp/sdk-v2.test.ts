/**
 * The proxy between the MCP SDK's 2.x packages: a server on `@modelcontextprotocol/server` (the v2-server fixture)
 * behind it, over stdio and over the 2.x Streamable HTTP transport, and the Client of `@modelcontextprotocol/client`
 * in front of it, over stdio and over HTTP (`--listen`). Repaired calls stored, refusals with the upstream
 * untouched, pass-through equal to direct, elicitation during a call, and a server-to-client request sent while no
 * client request is open (over HTTP: the standalone GET streams on both sides).
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';
import { CLI, listeningProxy, resultText, startUntil, stopStarted } from './harness.js';

const FIXTURE = join(ROOT, 'test', 'mcp', 'fixtures', 'v2-server.ts');
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  stopStarted();
});

interface Session {
  readonly client: Client;
  /** Resolves when the server asked the client for its roots. */
  readonly rootsAsked: Promise<void>;
  readonly elicited: string[];
}

/** A 2.x Client with elicitation and roots, on stdio (a command) or Streamable HTTP (a URL). */
async function open(target: { command: readonly string[] } | { url: string }): Promise<Session> {
  const client = new Client(
    { name: 'v2-agent', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, roots: { listChanged: true } } },
  );
  const elicited: string[] = [];
  client.setRequestHandler('elicitation/create', (request) => {
    elicited.push(request.params.message);
    return { action: 'accept', content: { ok: true } };
  });
  let asked!: () => void;
  const rootsAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  client.setRequestHandler('roots/list', () => {
    asked();
    return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
  });
  const transport =
    'url' in target
      ? new StreamableHTTPClientTransport(new URL(target.url))
      : new StdioClientTransport({ command: process.execPath, args: [...target.command], stderr: 'ignore' });
  await client.connect(transport);
  clients.push(client);
  return { client, rootsAsked, elicited };
}

/** The fixture over its own 2.x Streamable HTTP transport; its /mcp URL. */
async function upstreamHttp(): Promise<string> {
  const match = await startUntil([FIXTURE, 'http', '0'], /listening on port (\d+)/);
  return `http://127.0.0.1:${match[1] ?? ''}/mcp`;
}

const STRINGIFIED = { name: 'create_event', arguments: { title: 'Ember &amp; Oak', tags: '["a","b"]' } };

async function events(client: Client): Promise<unknown> {
  return JSON.parse(resultText(await client.callTool({ name: 'read_events', arguments: {} })));
}

/** What every combination must show: repair stored, refusal with the upstream untouched, elicitation, roots. */
async function behaves(session: Session): Promise<void> {
  const { client } = session;
  expect((await client.callTool(STRINGIFIED)).isError).toBeFalsy();
  expect(await events(client)).toEqual([{ title: 'Ember & Oak', tags: ['a', 'b'] }]);
  const refused = await client.callTool({ name: 'create_event', arguments: { title: 3, tags: [] } });
  expect(refused.isError).toBe(true);
  expect(resultText(refused)).toContain('/title (wrong_type)');
  expect(resultText(refused)).toContain('Hint:');
  expect(await events(client)).toHaveLength(1);
  // The elicitation round trip inside the call, through the proxy, on every transport (direct: tens of milliseconds).
  const confirmed = await client.callTool({ name: 'confirm', arguments: { question: 'Book the room?' } }, { timeout: 5_000 });
  expect(JSON.parse(resultText(confirmed))).toEqual({ action: 'accept', content: { ok: true } });
  expect(session.elicited).toEqual(['Book the room?']);
  // The server asks for the roots on this notification: no client request is open until the client has answered.
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the 2025-era roots flow is what the proxy relays
  await client.sendRootsListChanged();
  await session.rootsAsked;
  const roots = await client.callTool({ name: 'read_roots', arguments: {} });
  expect(JSON.parse(resultText(roots))).toEqual([{ uri: 'file:///work/project', name: 'project' }]);
}

describe('mcp-proxy between the MCP SDK 2.x client and server', () => {
  it('direct, the 2.x server rejects the stringified array; tools/list and a clean call equal direct and proxied', async () => {
    const direct = await open({ command: [FIXTURE] });
    const rejected = await direct.client.callTool(STRINGIFIED);
    expect(rejected.isError).toBe(true);
    expect(resultText(rejected)).toMatch(/expected array, received string/);
    const proxied = await open({ command: [CLI, 'mcp-proxy', '--', process.execPath, FIXTURE] });
    expect(await proxied.client.listTools()).toEqual(await direct.client.listTools());
    const clean = { name: 'create_event', arguments: { title: 'Plain', tags: ['a'] } };
    expect(await proxied.client.callTool(clean)).toEqual(await direct.client.callTool(clean));
    expect(await events(proxied.client)).toEqual(await events(direct.client));
  });

  it("a client negotiating the protocol version ('auto': server/discover first) is repaired through the proxy too", async () => {
    const client = new Client({ name: 'v2-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp-proxy', '--', process.execPath, FIXTURE], stderr: 'ignore' }),
    );
    clients.push(client);
    expect((await client.callTool(STRINGIFIED)).isError).toBeFalsy();
    expect(await events(client)).toEqual([{ title: 'Ember & Oak', tags: ['a', 'b'] }]);
  });

  it('stdio client, stdio upstream', async () => {
    await behaves(await open({ command: [CLI, 'mcp-proxy', '--', process.execPath, FIXTURE] }));
  });

  it('stdio client, HTTP upstream (--upstream-url)', async () => {
    const upstream = await upstreamHttp();
    await behaves(await open({ command: [CLI, 'mcp-proxy', '--upstream-url', upstream] }));
  });

  it('HTTP client (--listen), stdio upstream', async () => {
    await behaves(await open({ url: await listeningProxy(['--', process.execPath, FIXTURE]) }));
  });

  it('HTTP client (--listen), HTTP upstream', async () => {
    const upstream = await upstreamHttp();
    await behaves(await open({ url: await listeningProxy(['--upstream-url', upstream]) }));
  });
});
