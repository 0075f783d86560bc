/**
 * The four transport combinations: stdio or Streamable HTTP towards the client (`--listen`), a command or a
 * Streamable HTTP URL upstream (`--upstream-url`, server-everything's own HTTP transport), and the Host check.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connect,
  freePort,
  listeningProxy,
  resultText,
  serverScript,
  startUntil,
  stopStarted,
  tempDir,
  type Connected,
} from './harness.js';

const opened: Connected[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  await Promise.all(clients.splice(0).map((c) => c.close()));
  stopStarted();
});

/** server-everything over its own Streamable HTTP transport; its /mcp URL. */
async function everythingHttp(): Promise<string> {
  const port = await freePort();
  await startUntil([serverScript('everything'), 'streamableHttp'], /listening on port/, { ...process.env, PORT: String(port) });
  return `http://127.0.0.1:${port}/mcp`;
}

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'proxy-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe('mcp-proxy over Streamable HTTP', () => {
  it('stdio client, HTTP upstream (--upstream-url, with a header)', async () => {
    const url = await everythingHttp();
    const proxied = await connect('', [], {
      proxy: ['--upstream-url', url, '--upstream-header', 'Authorization: Bearer s3cret'],
    });
    opened.push(proxied);
    const result = await proxied.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(resultText(result)).toContain('3');
    const refused = await proxied.client.callTool({ name: 'get-sum', arguments: { a: 'one', b: 2 } });
    expect(refused.isError).toBe(true);
    expect(proxied.stderr()).not.toContain('s3cret');
  });

  it('HTTP client (--listen), stdio upstream: a session each, the repaired call stored', async () => {
    const file = join(tempDir('memory'), 'memory.jsonl');
    const url = await listeningProxy(['--', process.execPath, serverScript('memory')], { ...process.env, MEMORY_FILE_PATH: file });
    const a = await httpClient(url);
    const b = await httpClient(url);
    const entities = JSON.stringify([{ name: 'Ana', entityType: 'person', observations: [] }]);
    const created = await a.callTool({ name: 'create_entities', arguments: { entities } });
    expect(created.isError).not.toBe(true);
    expect(resultText(await a.callTool({ name: 'read_graph', arguments: {} }))).toContain('Ana');
    expect((await b.listTools()).tools.map((t) => t.name)).toContain('create_entities');
  });

  it('HTTP client (--listen), HTTP upstream', async () => {
    const upstream = await everythingHttp();
    const url = await listeningProxy(['--upstream-url', upstream]);
    const client = await httpClient(url);
    expect(resultText(await client.callTool({ name: 'echo', arguments: { message: 'a &amp; b' } }))).toContain('a & b');
    const refused = await client.callTool({ name: 'get-sum', arguments: { a: 'one', b: 2 } });
    expect(refused.isError).toBe(true);
  });

  it('--listen refuses a foreign Host header', async () => {
    const env = { ...process.env, MEMORY_FILE_PATH: join(tempDir('memory'), 'memory.jsonl') };
    const url = await listeningProxy(['--', process.execPath, serverScript('memory')], env);
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(status).toBe(403);
  });
});
