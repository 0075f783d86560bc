/**
 * `npm run bench:mcp-proxy`: the latency the proxy adds to one `tools/call`. The SDK's Client calls the fixture
 * server's `echo_items` tool (test/mcp/fixtures/paged-server.ts, which echoes its arguments) directly and through
 * `dist/cli.js mcp-proxy`, one call at a time, with a small argument and with a 100 KB one (a stringified array,
 * which the proxy repairs); p50 and p99 per call of each, and the proxy's RSS at the end (from /proc).
 * Sizes: BENCH_MCP_CALLS (2000 per case).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 2_000);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = join(ROOT, 'test', 'mcp', 'fixtures', 'paged-server.ts');
const CLI = join(ROOT, 'dist', 'cli.js');

const small = { items: ['a', 'b'] };
const bigItems = Array.from({ length: 2_000 }, (_, i) => `item ${i} ${'x'.repeat(40)}`);
const big = { items: JSON.stringify(bigItems) };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function measure(proxied: boolean, args: Record<string, unknown>): Promise<{ p50: number; p99: number; rssMb: number | undefined }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: proxied ? [CLI, 'mcp-proxy', '--', process.execPath, SERVER] : [SERVER],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  for (let i = 0; i < 100; i++) await client.callTool({ name: 'echo_items', arguments: args });
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await client.callTool({ name: 'echo_items', arguments: args });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  let rssMb: number | undefined;
  const pid = transport.pid;
  if (proxied && pid !== null) {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    rssMb = kb === undefined ? undefined : Number(kb) / 1024;
  }
  await client.close();
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), rssMb };
}

const bigBytes = Buffer.byteLength(JSON.stringify(big));
console.log(`mcp-proxy: ${CALLS} sequential tools/call per case; large argument ${Math.round(bigBytes / 1024)} KB`);
for (const [label, args] of [
  ['small', small],
  ['100 KB', big],
] as const) {
  const direct = await measure(false, args);
  const proxied = await measure(true, args);
  console.log(
    `${label.padEnd(7)} direct p50 ${direct.p50.toFixed(3)} ms p99 ${direct.p99.toFixed(3)} ms | proxied p50 ${proxied.p50.toFixed(3)} ms ` +
      `p99 ${proxied.p99.toFixed(3)} ms | added p50 ${(proxied.p50 - direct.p50).toFixed(3)} ms p99 ${(proxied.p99 - direct.p99).toFixed(3)} ms | ` +
      `proxy RSS ${proxied.rssMb?.toFixed(1) ?? '?'} MB`,
  );
}
