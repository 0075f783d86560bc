/**
 * A real Jaeger v2 all-in-one for the tracing tests: the binary scripts/jaeger.sh builds from the Go module proxy
 * (JAEGER_BIN, else its cache, built on first use as the stack's jars are fetched), started on free loopback ports
 * with scripts/jaeger/config.yaml, traces in memory, queried through its HTTP API.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/free-port.js';
import { REPO_ROOT } from './harness.js';

/** The version scripts/ci-prereqs.sh builds (the Go module's v1 tag of the v2 binary). */
export const JAEGER_VERSION = 'v1.76.0';

export function jaegerBinary(): string {
  if (process.env.JAEGER_BIN !== undefined && process.env.JAEGER_BIN !== '') return process.env.JAEGER_BIN;
  const cache =
    process.env.TOOLCALL_DEPLOY_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'toolcall-normalizer-deploy');
  return join(cache, `jaeger-${JAEGER_VERSION}`, 'jaeger');
}

export interface JaegerSpan {
  readonly traceID: string;
  readonly spanID: string;
  readonly operationName: string;
  readonly references: readonly { refType: string; traceID: string; spanID: string }[];
  readonly tags: readonly { key: string; value: unknown }[];
  readonly logs: readonly { fields: readonly { key: string; value: unknown }[] }[];
}

export class Jaeger {
  #child: ChildProcess | undefined;
  #log = '';

  private constructor(
    /** OTLP over HTTP (protobuf or JSON), without the `/v1/traces` path. */
    readonly otlpUrl: string,
    /** OTLP over gRPC. */
    readonly otlpGrpcUrl: string,
    readonly queryUrl: string,
    private readonly ports: Record<string, string>,
  ) {}

  static async start(): Promise<Jaeger> {
    const binary = jaegerBinary();
    if (!existsSync(binary)) await buildJaeger(binary);
    // A port is free when picked, not always when Jaeger binds it (another suite may take it in between): a bind
    // failure is tried again on fresh ports.
    for (let attempt = 1; ; attempt++) {
      const [otlp, otlpGrpc, query, grpc, health] = [
        await freePort(),
        await freePort(),
        await freePort(),
        await freePort(),
        await freePort(),
      ];
      const jaeger = new Jaeger(`http://127.0.0.1:${otlp}`, `http://127.0.0.1:${otlpGrpc}`, `http://127.0.0.1:${query}`, {
        JAEGER_OTLP_HTTP_PORT: String(otlp),
        JAEGER_OTLP_GRPC_PORT: String(otlpGrpc),
        JAEGER_QUERY_PORT: String(query),
        JAEGER_QUERY_GRPC_PORT: String(grpc),
        JAEGER_HEALTH_PORT: String(health),
      });
      try {
        await jaeger.#run(binary, health);
        return jaeger;
      } catch (error) {
        await jaeger.stop();
        if (attempt >= 3 || !/address already in use/.test(String(error))) throw error;
      }
    }
  }

  async #run(binary: string, health: number): Promise<void> {
    const child = spawn(binary, ['--config', join(REPO_ROOT, 'scripts', 'jaeger', 'config.yaml')], {
      env: { ...process.env, ...this.ports },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    const keep = (chunk: Buffer): void => {
      this.#log = (this.#log + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`jaeger exited (${String(child.exitCode)}):\n${this.#log}`);
      const ok = await fetch(`http://127.0.0.1:${health}/status`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`jaeger not healthy within 60 s:\n${this.#log}`);
  }

  tail(): string {
    return this.#log;
  }

  /** The spans of one trace as the query API returns them (none while it does not know the trace). */
  async trace(traceId: string): Promise<JaegerSpan[]> {
    const response = await fetch(`${this.queryUrl}/api/traces/${traceId}`);
    if (response.status === 404) return [];
    if (!response.ok) throw new Error(`jaeger query: HTTP ${String(response.status)}`);
    const body = (await response.json()) as { data?: { spans: JaegerSpan[] }[] | null };
    return (body.data ?? []).flatMap((t) => t.spans);
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

export function tag(span: JaegerSpan, key: string): unknown {
  return span.tags.find((t) => t.key === key)?.value;
}

/** The span's events (Jaeger logs) as `event` name plus fields. */
export function events(span: JaegerSpan): Record<string, unknown>[] {
  return span.logs.map((log) => Object.fromEntries(log.fields.map((f) => [f.key, f.value])));
}

/** Builds the cached binary once (`scripts/jaeger.sh build`); a JAEGER_BIN that names nothing is an error. */
async function buildJaeger(binary: string): Promise<void> {
  if (process.env.JAEGER_BIN !== undefined && process.env.JAEGER_BIN !== '') throw new Error(`JAEGER_BIN=${binary} is missing`);
  process.stderr.write('jaeger: building it once from the Go module proxy (scripts/jaeger.sh build; cached by version)\n');
  await new Promise<void>((resolve, reject) => {
    const script = join(REPO_ROOT, 'scripts', 'jaeger.sh');
    execFile('bash', [script, 'build'], { maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`scripts/jaeger.sh build failed: ${stderr.slice(-2000)}`));
    });
  });
  if (!existsSync(binary)) throw new Error(`scripts/jaeger.sh build left no ${binary}`);
}
