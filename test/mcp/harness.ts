/**
 * Real MCP servers from npm (devDependencies), reached directly and through the built proxy (dist/cli.js
 * `mcp-proxy`), each by the SDK's own Client over stdio, as an MCP client application reaches them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from '../cli/run-cli.js';

export const CLI = join(ROOT, 'dist', 'cli.js');

/** The entry script of a reference server package (`memory`, `filesystem`, `everything`). */
export function serverScript(name: 'memory' | 'filesystem' | 'everything'): string {
  return join(ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `mcp-proxy-${prefix}-`));
}

export interface Connected {
  readonly client: Client;
  /** What the proxy (or the server) wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface ConnectOptions {
  readonly env?: Record<string, string>;
  /** Options of the proxy, before `--`; undefined connects to the server directly. */
  readonly proxy?: readonly string[] | undefined;
  readonly capabilities?: ConstructorParameters<typeof Client>[1] | undefined;
}

/** Connects the SDK's Client to `command args`, directly or through the proxy. */
export async function connect(command: string, args: readonly string[], options: ConnectOptions = {}): Promise<Connected> {
  if (options.proxy !== undefined && !existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
  // An empty command: the proxy's own options name the upstream (--upstream-url).
  const upstream = command === '' ? [] : ['--', command, ...args];
  const argv = options.proxy === undefined ? [...args] : [CLI, 'mcp-proxy', ...options.proxy, ...upstream];
  const transport = new StdioClientTransport({
    command: options.proxy === undefined ? command : process.execPath,
    args: argv,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'proxy-test', version: '1.0.0' }, options.capabilities);
  try {
    await client.connect(transport);
  } catch (error) {
    // What the proxy or server said on its way out tells why.
    throw new Error(`${error instanceof Error ? error.message : String(error)}; stderr: ${stderr}`);
  }
  return {
    client,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** The JSON lines the proxy logged on stderr (other lines, such as the server's own, skipped). */
export function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The text of a CallToolResult's content. */
export function resultText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? '').join('\n');
}

const started: ChildProcess[] = [];

/** Stops every process {@link startUntil} started. */
export function stopStarted(): void {
  for (const child of started.splice(0)) child.kill('SIGTERM');
}

/** A loopback port free at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/** Starts a process and resolves once `ready` matches its stderr, with what matched. */
export function startUntil(args: readonly string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    started.push(child);
    let stderr = '';
    const timer = setTimeout(() => {
      reject(new Error(`not ready within 30 s: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = ready.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.on('exit', (code) => {
      reject(new Error(`exited ${code}: ${stderr}`));
    });
  });
}

/** The proxy with --listen on a free loopback port; its /mcp URL. */
export async function listeningProxy(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const match = await startUntil([CLI, 'mcp-proxy', '--listen', '127.0.0.1:0', ...args], /"url":"(http:\/\/[^"]+)"/, env);
  return match[1] ?? '';
}
