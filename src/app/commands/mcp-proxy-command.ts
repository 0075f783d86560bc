/**
 * `toolcall-normalizer mcp-proxy`: an MCP server in front of another, repairing each `tools/call` by RT-TOOL-8
 * against the schema the upstream lists (src/proxy/relay.ts); docs/mcp-proxy.md. The upstream is a command over
 * stdio or a Streamable HTTP URL; the proxy serves stdio, or Streamable HTTP with `--listen`.
 */
import type { Server } from 'node:http';
import pino, { type Logger } from 'pino';
import { WorkerMetrics } from '../../adapters/metrics/metrics.js';
import { startHttpServer } from '../../adapters/http/server.js';
import { inheritedEnvironment } from '../../config/child-env.js';
import { pipelineFlags } from '../../config/flags.js';
import { pipelineOptions, type PipelineOptions } from '../../core/pipeline.js';
import { ChildTransport, type ChildExit } from '../../proxy/child-transport.js';
import { Relay, type CallEvent, type CallTracing, type UpstreamFactory } from '../../proxy/relay.js';
import type { Tracing } from '../../adapters/tracing/sdk.js';
import { loadTracingConfig } from '../../config/config.js';
import { packageVersion, TRACES_FLUSH_MS } from '../worker/run-command.js';
import { parseCommandArgs, positiveInt, UsageError } from './usage.js';

const FLAGS = pipelineFlags(['deep', 'entityExempt', 'maxRecordBytes', 'maxDepth', 'maxEntityPasses']);

const DEFAULT_TIMEOUT_MS = 55_000;

export const MCP_PROXY_USAGE = `Usage: toolcall-normalizer mcp-proxy [options] -- <command> [args...]
       toolcall-normalizer mcp-proxy --upstream-url URL [options]

An MCP server that forwards everything to the upstream MCP server unchanged, except the arguments of each
tools/call, repaired by RT-TOOL-8 against the input schema the upstream lists. A call still invalid after repair
is answered with isError and the diagnostics; the upstream is not called.

Upstream (one of):
  -- <command> [args...]     Start the upstream server and speak MCP over its stdin/stdout (its stderr is ours)
  --upstream-url URL         The upstream over Streamable HTTP
  --upstream-header 'N: V'   A header for every upstream HTTP request, e.g. Authorization (repeatable, never logged)

Serving:
  --listen HOST:PORT         Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST: loopback only
                             unless given; foreign Host headers refused)

Options:
  --forward-invalid          Forward a call still invalid after repair, unchanged, instead of answering it
  --log-arguments            Log the arguments as sent and as repaired (off: values are never logged)
  --metrics-port N           Serve Prometheus metrics at http://127.0.0.1:N/metrics
  --timeout MS               How long the upstream has to answer a request, reset by its progress notifications
                             (default ${DEFAULT_TIMEOUT_MS})
${FLAGS.usage}

Logs (JSON, one line per repaired or refused call) go to stderr; stdout is the protocol in stdio mode.
Exit status: the upstream's when it exits (1 when it exits 0 on its own), 0 when the client ends, 2 on a usage error.`;

export interface ProxySettings {
  readonly pipeline: PipelineOptions;
  readonly forwardInvalid: boolean;
  readonly logArguments: boolean;
  readonly timeoutMs: number;
  readonly upstream:
    | { readonly kind: 'command'; readonly command: string; readonly args: readonly string[] }
    | { readonly kind: 'url'; readonly url: URL; readonly headers: Readonly<Record<string, string>> };
  readonly listen: { readonly host: string; readonly port: number } | undefined;
  readonly metricsPort: number | undefined;
}

export function parseProxyArgs(args: string[]): ProxySettings | 'help' {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      'upstream-url': { type: 'string' },
      'upstream-header': { type: 'string', multiple: true },
      listen: { type: 'string' },
      'forward-invalid': { type: 'boolean' },
      'log-arguments': { type: 'boolean' },
      'metrics-port': { type: 'string' },
      timeout: { type: 'string' },
      ...FLAGS.options,
      help: { type: 'boolean', short: 'h' },
    },
    MCP_PROXY_USAGE,
  );
  if (values.help === true) return 'help';
  const flags = FLAGS.read(values);
  if (!flags.ok) throw new UsageError(flags.message, MCP_PROXY_USAGE);
  const url = values['upstream-url'];
  const headerLines = values['upstream-header'] ?? [];
  let upstream: ProxySettings['upstream'];
  if (url !== undefined) {
    if (positionals.length > 0) throw new UsageError('give either --upstream-url or -- <command>, not both', MCP_PROXY_USAGE);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--upstream-url: "${url}" is not a URL`, MCP_PROXY_USAGE);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UsageError(`--upstream-url: "${parsed.protocol}" is not http: or https:`, MCP_PROXY_USAGE);
    }
    upstream = { kind: 'url', url: parsed, headers: parseHeaders(headerLines) };
  } else {
    const [command, ...rest] = positionals;
    if (command === undefined)
      throw new UsageError('the upstream is missing: -- <command> [args...] or --upstream-url URL', MCP_PROXY_USAGE);
    if (headerLines.length > 0) throw new UsageError('--upstream-header applies to --upstream-url only', MCP_PROXY_USAGE);
    upstream = { kind: 'command', command, args: rest };
  }
  const metrics = values['metrics-port'];
  return {
    pipeline: pipelineOptions(flags.settings),
    forwardInvalid: values['forward-invalid'] === true,
    logArguments: values['log-arguments'] === true,
    timeoutMs: positiveInt(values.timeout, 'timeout', DEFAULT_TIMEOUT_MS, MCP_PROXY_USAGE, 3_600_000),
    upstream,
    listen: values.listen === undefined ? undefined : parseListen(values.listen),
    metricsPort: metrics === undefined ? undefined : positiveInt(metrics, 'metrics-port', 0, MCP_PROXY_USAGE, 65_535),
  };
}

/** `Name: value` lines as headers; the values are secrets, so no message quotes them. */
function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError("--upstream-header: expected 'Name: value' with a valid header name", MCP_PROXY_USAGE);
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

function parseListen(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  const host = colon <= 0 ? '127.0.0.1' : text.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const portText = colon === -1 ? text : text.slice(colon + 1);
  // Port 0 asks the system for a free one; the proxy logs the address it got.
  const port = portText === '0' ? 0 : positiveInt(portText, 'listen', 0, MCP_PROXY_USAGE, 65_535);
  return { host, port };
}

/** One JSON line per repaired or refused call: tool, call id, repair kinds, codes; values only when asked. */
function callLogger(logger: Logger, logArguments: boolean): (event: CallEvent) => void {
  return (event) => {
    if (event.outcome === 'valid') return;
    const { record } = event;
    const line: Record<string, unknown> = {
      tool: event.tool,
      callId: event.id,
      outcome: event.outcome,
      repairs: record.repairs.map((repair) => ({ kind: repair.kind, pointer: repair.pointer })),
      codes: record.errors.map((error) => error.code),
      errors: record.errors.map((error) => ({ code: error.code, path: error.path })),
    };
    if (logArguments) {
      line.argumentsSent = event.sent;
      line.argumentsRepaired = record.arguments;
    }
    const msg =
      event.outcome === 'repaired'
        ? 'tools/call repaired'
        : event.outcome === 'refused'
          ? 'tools/call refused'
          : 'tools/call forwarded invalid';
    if (event.outcome === 'repaired') logger.info(line, msg);
    else logger.warn(line, msg);
  };
}

function describeExit(exit: ChildExit | undefined, command: string): string {
  if (exit === undefined) return `the upstream server "${command}" closed the connection`;
  if (exit.spawnError !== undefined) return `the upstream server "${command}" could not start: ${exit.spawnError}`;
  if (exit.signal !== null) return `the upstream server "${command}" was killed by ${exit.signal}`;
  return `the upstream server "${command}" exited with status ${exit.code ?? 'unknown'}`;
}

function exitStatus(exit: ChildExit | undefined): number {
  if (exit === undefined || exit.spawnError !== undefined) return 1;
  if (exit.signal !== null) return 128 + (signalNumber(exit.signal) ?? 1);
  return exit.code === null || exit.code === 0 ? 1 : exit.code;
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGKILL: 9,
    SIGTERM: 15,
    SIGPIPE: 13,
    SIGABRT: 6,
    SIGSEGV: 11,
  };
  return numbers[signal];
}

export async function upstreamFactory(settings: ProxySettings): Promise<UpstreamFactory> {
  const upstream = settings.upstream;
  if (upstream.kind === 'command') {
    const env = inheritedEnvironment();
    return {
      label: upstream.command,
      create() {
        const child = new ChildTransport({ command: upstream.command, args: upstream.args, env });
        return {
          transport: child,
          noise: () => (child.lastNoise === undefined ? undefined : JSON.stringify(child.lastNoise)),
          gone: () => describeExit(child.exit, upstream.command),
          exit: () => child.exit,
        };
      },
    };
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return {
    label: upstream.url.origin,
    create() {
      const transport = new StreamableHTTPClientTransport(upstream.url, { requestInit: { headers: { ...upstream.headers } } });
      return {
        transport,
        noise: () => undefined,
        gone: () => `the upstream server at ${upstream.url.origin} closed the session`,
        exit: () => undefined,
      };
    },
  };
}

export async function mcpProxyMain(args: string[]): Promise<number> {
  const settings = parseProxyArgs(args);
  if (settings === 'help') {
    process.stdout.write(`${MCP_PROXY_USAGE}\n`);
    return 0;
  }
  // stdout is the protocol in stdio mode: every log line goes to stderr, synchronously so none is lost at exit.
  const logger = pino({ base: { service: 'toolcall-normalizer', component: 'mcp-proxy' } }, pino.destination({ fd: 2, sync: true }));
  const metrics = new WorkerMetrics({ toolLabels: [] });
  let metricsServer: Server | undefined;
  if (settings.metricsPort !== undefined) {
    metricsServer = await startHttpServer(
      settings.metricsPort,
      { metrics: metrics.registry, live: () => ({ ok: true, checks: {} }), ready: () => Promise.resolve({ ok: true, checks: {} }) },
      '127.0.0.1',
    );
  }
  // Only the OTEL_* variables turn tracing on (docs/tracing.md); off, no SDK is loaded.
  const tracingConfig = loadTracingConfig();
  let tracing: { tracing: Tracing; calls: CallTracing } | undefined;
  if (tracingConfig !== undefined) {
    const [{ startTracing }, { ProxyTracing }] = await Promise.all([
      import('../../adapters/tracing/sdk.js'),
      import('../../adapters/tracing/proxy-spans.js'),
    ]);
    const sdk = await startTracing(
      tracingConfig,
      (reason, spans) => {
        metrics.spansDropped.inc({ reason }, spans);
      },
      packageVersion(),
      // stdout is the protocol in stdio mode: console spans go where the logs go.
      process.stderr,
    );
    tracing = {
      tracing: sdk,
      calls: new ProxyTracing(sdk.tracer, () => {
        metrics.traceContextInvalid.inc();
      }),
    };
  }
  const logCall = callLogger(logger, settings.logArguments);
  const onCall = (event: CallEvent): void => {
    const tally = metrics.tally();
    tally.input('call');
    tally.output(event.record, true);
    metrics.count(tally);
    logCall(event);
  };
  const onWarning = (message: string, tool?: string): void => {
    logger.warn(tool === undefined ? {} : { tool }, message);
  };
  const factory = await upstreamFactory(settings);
  try {
    if (settings.listen !== undefined) {
      const { serveHttp } = await import('../../proxy/http-listen.js');
      return await serveHttp(
        settings.listen,
        factory,
        { ...settings, onCall, onWarning, ...(tracing === undefined ? {} : { tracing: tracing.calls }) },
        logger,
      );
    }
    return await serveStdio(factory, { ...settings, onCall, onWarning, tracing: tracing?.calls });
  } finally {
    await tracing?.tracing.shutdown(TRACES_FLUSH_MS);
    metricsServer?.close();
  }
}

async function serveStdio(
  factory: UpstreamFactory,
  options: ProxySettings & {
    onCall: (event: CallEvent) => void;
    onWarning: (message: string, tool?: string) => void;
    tracing: CallTracing | undefined;
  },
): Promise<number> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const upstream = factory.create();
  const client = new StdioServerTransport();
  const relay = new Relay(client, upstream.transport, {
    pipeline: options.pipeline,
    forwardInvalid: options.forwardInvalid,
    timeoutMs: options.timeoutMs,
    onCall: options.onCall,
    onWarning: options.onWarning,
    ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
    upstreamNoise: upstream.noise,
    upstreamGone: upstream.gone,
  });
  const state = { clientEnded: false };
  // The SDK's stdio transport does not watch for the end of stdin, which is how a stdio client says it is done.
  process.stdin.once('end', () => {
    state.clientEnded = true;
    void relay.close();
  });
  upstream.transport.onerror = (error) => {
    options.onWarning(error.message);
  };
  client.onerror = (error) => {
    options.onWarning(`the client sent a message that is not JSON-RPC: ${error.message.split('\n', 1)[0] ?? ''}`);
  };
  try {
    await relay.start();
  } catch (error) {
    process.stderr.write(
      `toolcall-normalizer mcp-proxy: cannot reach the upstream server: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  await relay.done;
  if (state.clientEnded) return 0;
  process.stderr.write(`toolcall-normalizer mcp-proxy: ${upstream.gone()}\n`);
  return exitStatus(upstream.exit());
}
