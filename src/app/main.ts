/**
 * The one command, `toolcall-normalizer <command> [options]`, loaded by src/cli.ts once the Node.js is recent
 * enough. Each command lives in src/app; this file only dispatches and turns failures into exit codes (2: usage,
 * 1: the command failed).
 */
import { enableCompileCache } from 'node:module';
import { CommandIoError, forTerminal, ioReason, isBrokenPipe } from './commands/io.js';
import { UsageError } from './commands/usage.js';
import { compileCacheDirectory } from '../config/compile-cache.js';

// Output that cannot be written ends the command: quietly when the reader has gone (`normalize | head -1`), as a
// filter killed by SIGPIPE ends; in one line otherwise (a full disk), exit 1. Never Node.js's stack trace.
process.stdout.on('error', (error: unknown) => {
  if (isBrokenPipe(error)) diesOfBrokenPipe();
  process.stderr.write(`toolcall-normalizer: cannot write to standard output: ${ioReason(error)}\n`);
  process.exit(1);
});
// Messages that cannot be written are lost; the exit status still tells.
process.stderr.on('error', () => undefined);

/**
 * Ends the process as SIGPIPE's default action would (status 141 in a shell). Node.js ignores SIGPIPE; a listener
 * added and removed puts the default action back.
 */
function diesOfBrokenPipe(): never {
  const ignore = (): void => undefined;
  process.on('SIGPIPE', ignore);
  process.removeListener('SIGPIPE', ignore);
  process.kill(process.pid, 'SIGPIPE');
  process.exit(128 + 13);
}

// Spares most of the modules' compile time at start. Node.js never throws here: where the directory cannot be
// written (a read-only container), the command runs without the cache.
const cacheDirectory = compileCacheDirectory();
if (cacheDirectory !== undefined) enableCompileCache(cacheDirectory);

const USAGE = `Usage: toolcall-normalizer <command> [options]

Commands:
  normalize --schemas DIR [--input FILE] [--output FILE]   Normalize and validate JSON Lines tool calls
  schemas push --registry URL DIR                          Register tool definitions in a schema registry
  audit DIR | audit --registry URL                         Audit tool definitions: schema validity, prose vs schema
  replay --schemas DIR --golden FILE                       Replay golden model calls and check their results
  run                                                      Run the stream worker (configured by environment)
  redrive --from TOPIC [--to TOPIC] [filters] [--dry-run]  Send dead letters or rejected calls back, once
  mcp-proxy [options] -- <command> [args...]               Repair the tool calls an MCP server receives
  help                                                     Show this help

Run "toolcall-normalizer <command> --help" for a command's options.`;

type Command = (args: string[]) => Promise<number>;

// Each command is loaded when it runs: loading them all (the worker's Kafka, registry and metrics clients among
// them) would cost every start more CPU than a short `normalize` run takes.
const COMMANDS: Readonly<Record<string, Command>> = {
  normalize: async (args) => (await import('./commands/normalize-main.js')).normalizeMain(args),
  schemas: async (args) => (await import('./commands/schemas-command.js')).schemasMain(args),
  audit: async (args) => (await import('./commands/audit-command.js')).auditMain(args),
  replay: async (args) => (await import('./commands/replay-command.js')).replayMain(args),
  // The worker leaves client sockets and timers behind once stopped; its exit status is final, so exit now.
  run: async (args) => process.exit(await (await import('./worker/run-command.js')).runMain(args)),
  // Like run, the Kafka clients leave sockets and timers behind: the status is final once the summary is out.
  redrive: async (args) => process.exit(await (await import('./commands/redrive-command.js')).redriveMain(args)),
  // The proxy's status is final once its client or upstream has gone; stdin may still hold the event loop.
  'mcp-proxy': async (args) => process.exit(await (await import('./commands/mcp-proxy-command.js')).mcpProxyMain(args)),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) throw new UsageError(`unknown command "${name}"`, USAGE);
  return command(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (isBrokenPipe(error)) diesOfBrokenPipe();
    if (error instanceof UsageError) {
      process.stderr.write(`toolcall-normalizer: ${forTerminal(error.message)}\n${error.usage}\n`);
      process.exitCode = 2;
      return;
    }
    // One line whatever failed: a command's own I/O message, or the system's reason for anything else.
    const text = error instanceof Error ? error.message : String(error);
    const message = error instanceof CommandIoError ? text : (text.split('\n', 1)[0] ?? text);
    process.stderr.write(`toolcall-normalizer: ${forTerminal(message)}\n`);
    process.exitCode = 1;
  },
);
