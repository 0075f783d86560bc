/**
 * Starts one MCP server over stdio and prints its tools/list answer as JSON: the schemas exactly as the server's
 * own SDK publishes them. Used by scripts/audit-corpus/regenerate.ts; not run in CI.
 *
 *   tsx scripts/audit-corpus/list-tools.ts [--cwd DIR] [--env K=V ...] -- COMMAND ARGS...
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
if (split < 0 || split === argv.length - 1) {
  process.stderr.write('usage: list-tools.ts [--cwd DIR] [--env K=V ...] -- COMMAND ARGS...\n');
  process.exit(2);
}
const options = argv.slice(0, split);
const [command, ...args] = argv.slice(split + 1) as [string, ...string[]];
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
let cwd: string | undefined;
for (let i = 0; i < options.length; i += 2) {
  const value = options[i + 1] ?? '';
  if (options[i] === '--cwd') cwd = value;
  else if (options[i] === '--env') {
    const eq = value.indexOf('=');
    env[value.slice(0, eq)] = value.slice(eq + 1);
  }
}

const transport = new StdioClientTransport({ command, args, env, ...(cwd === undefined ? {} : { cwd }), stderr: 'ignore' });
const client = new Client({ name: 'toolcall-normalizer-corpus', version: '1.0.0' });
const timer = setTimeout(() => {
  process.stderr.write('timed out waiting for tools/list\n');
  process.exit(1);
}, 120_000);
await client.connect(transport);
const tools: unknown[] = [];
let cursor: string | undefined;
do {
  const page = await client.listTools(cursor === undefined ? {} : { cursor });
  tools.push(...page.tools);
  cursor = page.nextCursor;
} while (cursor !== undefined);
clearTimeout(timer);
process.stdout.write(`${JSON.stringify({ server: client.getServerVersion(), tools }, null, 1)}\n`);
await client.close();
process.exit(0);
