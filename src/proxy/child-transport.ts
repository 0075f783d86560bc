/**
 * The upstream MCP server as a child process speaking MCP over its stdin/stdout, framed by the SDK's own stdio
 * code (`ReadBuffer`, `serializeMessage`). Unlike the SDK's `StdioClientTransport`, it tells how the child ended
 * (status or signal, or why it could not start) and what it wrote that was not JSON-RPC, so the proxy can say so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How the child ended: its exit status or signal, or the reason it never ran. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly spawnError: string | undefined;
}

export interface ChildTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/** The longest line kept of output that is not JSON-RPC, for the error that reports it. */
const MAX_NOISE_CHARS = 200;

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The last line the child wrote to stdout that was not a JSON-RPC message, cut short. */
  lastNoise: string | undefined;
  #child: ChildProcess | undefined;
  /** Bytes of a line not yet ended. */
  #pending: Buffer | undefined;
  #exit: ChildExit | undefined;
  readonly #exited: Promise<ChildExit>;
  #resolveExit!: (exit: ChildExit) => void;

  constructor(private readonly options: ChildTransportOptions) {
    this.#exited = new Promise((resolve) => {
      this.#resolveExit = resolve;
    });
  }

  /** Resolves once the child has ended (or could not start). */
  get exited(): Promise<ChildExit> {
    return this.#exited;
  }

  get exit(): ChildExit | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    // The child's stderr is ours: its messages reach whoever reads the proxy's stderr.
    const child = spawn(this.options.command, [...this.options.args], {
      env: this.options.env,
      stdio: ['pipe', 'pipe', 'inherit'],
      windowsHide: true,
    });
    this.#child = child;
    const ended = (exit: ChildExit): void => {
      if (this.#exit !== undefined) return;
      this.#exit = exit;
      this.#resolveExit(exit);
      this.onclose?.();
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      // Only a failure to start ends the transport here; a later error (a kill that failed) leaves it to 'close'.
      if (child.pid === undefined) ended({ code: null, signal: null, spawnError: error.message });
      else this.onerror?.(error);
    });
    child.on('close', (code, signal) => {
      ended({ code, signal, spawnError: undefined });
    });
    child.stdout.on('data', (chunk: Buffer) => {
      this.#read(chunk);
    });
    // A child that exits with our write in flight makes its stdin fail: the exit is reported, not this.
    child.stdin.on('error', () => undefined);
    child.stdout.on('error', () => undefined);
    return Promise.resolve();
  }

  /** Splits the child's output into lines, each read as the SDK reads a stdio message. */
  #read(chunk: Buffer): void {
    let buffer = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    for (let end = buffer.indexOf(10); end !== -1; end = buffer.indexOf(10)) {
      const line = buffer.toString('utf8', 0, end).replace(/\r$/, '');
      buffer = buffer.subarray(end + 1);
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        this.lastNoise = line.length > MAX_NOISE_CHARS ? `${line.slice(0, MAX_NOISE_CHARS)}...` : line;
        this.onerror?.(new Error(`the upstream wrote a line that is not a JSON-RPC message: ${errorText(error)}`));
        continue;
      }
      this.onmessage?.(message);
    }
    if (buffer.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.lastNoise = `${buffer.toString('utf8', 0, MAX_NOISE_CHARS)}...`;
      this.onerror?.(new Error(`the upstream wrote over ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes without a line end`));
      buffer = Buffer.alloc(0);
    }
    this.#pending = buffer.length === 0 ? undefined : buffer;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || this.#exit !== undefined || stdin.destroyed) {
      return Promise.reject(new Error('the upstream server is not running'));
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the child: its stdin closed first (how MCP asks a stdio server to stop), then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exit !== undefined) return;
    child.stdin?.end();
    const stopped = await Promise.race([this.#exited.then(() => true), delay(2_000).then(() => false)]);
    if (stopped) return;
    child.kill('SIGTERM');
    const terminated = await Promise.race([this.#exited.then(() => true), delay(2_000).then(() => false)]);
    if (!terminated) child.kill('SIGKILL');
    await this.#exited;
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n', 1)[0] ?? text;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
