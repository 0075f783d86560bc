/** The proxy when the upstream pages its tools, lists an unusable schema, dies, hangs, or is not an MCP server. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';
import { CLI, connect, logLines, resultText, type Connected } from './harness.js';

const PAGED = join(ROOT, 'test', 'mcp', 'fixtures', 'paged-server.ts');

const opened: Connected[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close().catch(() => undefined)));
});

async function paged(proxy: readonly string[]): Promise<Connected> {
  const connected = await connect(process.execPath, [PAGED], { proxy });
  opened.push(connected);
  return connected;
}

/** Runs the proxy with no client input to completion; resolves with its status and stderr. */
function runProxy(args: readonly string[], timeoutMs = 30_000): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'mcp-proxy', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the proxy did not exit within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

describe('mcp-proxy: tools listed in pages, unusable schemas, failing upstreams', () => {
  it('learns the schemas of every tools/list page', async () => {
    const proxied = await paged([]);
    const result = await proxied.client.callTool({ name: 'echo_items', arguments: { items: '["a","b"]' } });
    expect(JSON.parse(resultText(result))).toEqual({ items: ['a', 'b'] });
  });

  it('a tool with an unusable schema: its calls go on unchanged, one warning names it', async () => {
    const proxied = await paged([]);
    const result = await proxied.client.callTool({ name: 'broken', arguments: { items: '["a"]' } });
    expect(JSON.parse(resultText(result))).toEqual({ items: '["a"]' });
    const warnings = logLines(proxied.stderr()).filter((line) => line.tool === 'broken');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/input schema of tool "broken" cannot be used/);
  });

  it('an upstream that dies during a call: the call gets a JSON-RPC error saying so', async () => {
    const proxied = await paged([]);
    const error = await proxied.client.callTool({ name: 'die', arguments: {} }).then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(error).toMatch(/exited with status 7 before answering "tools\/call"/);
  });

  it('an upstream that hangs: the call gets a JSON-RPC error within --timeout', async () => {
    const proxied = await paged(['--timeout', '1500']);
    const error = await proxied.client.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 20_000 }).then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(error).toMatch(/did not answer "tools\/call" within 1500 ms/);
  });

  it('an upstream that is not an MCP server: initialize fails saying what it printed', async () => {
    const script = "console.log('hello, I am not an MCP server'); setInterval(() => {}, 1000)";
    const error = await connect(process.execPath, ['-e', script], { proxy: ['--timeout', '1500'] }).then(
      async (c) => {
        await c.close();
        return undefined;
      },
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(error).toMatch(/does not speak MCP on its standard output, which had: "hello, I am not an MCP server"/);
  });

  it('an upstream that exits: the proxy ends with one line and its status', async () => {
    const { status, stderr } = await runProxy(['--', process.execPath, '-e', 'process.exit(3)']);
    expect(status).toBe(3);
    expect(stderr.trim().split('\n')).toEqual([
      `toolcall-normalizer mcp-proxy: the upstream server "${process.execPath}" exited with status 3`,
    ]);
  });

  it('an upstream that cannot start: one line with the reason, status 1', async () => {
    const { status, stderr } = await runProxy(['--', '/nonexistent/mcp-server']);
    expect(status).toBe(1);
    expect(stderr).toMatch(/the upstream server "\/nonexistent\/mcp-server" could not start: .*ENOENT/);
  });

  it('a usage error: exit 2 with the usage', async () => {
    const { status, stderr } = await runProxy([]);
    expect(status).toBe(2);
    expect(stderr).toMatch(/the upstream is missing/);
  });
});
