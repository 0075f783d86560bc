/**
 * A small in-memory stand-in for the Kafka port (src/adapters/kafka/port.ts) and the schema source, to drive the
 * `Worker` in process: batches go in as an adapter hands them over, results come back, and `settled` is called
 * with what the test says was delivered. Nothing here knows the worker's internals.
 */
import { pino } from 'pino';
import { WorkerMetrics } from '../../../../src/adapters/metrics/metrics.js';
import type {
  BatchControl,
  BatchResult,
  InputRecord,
  KafkaStream,
  PartitionBatch,
  StreamHandler,
} from '../../../../src/adapters/kafka/port.js';
import type { WorkerTracing } from '../../../../src/adapters/tracing/worker-spans.js';
import { Worker, type WorkerSchemas } from '../../../../src/app/worker/worker.js';
import { loadConfig, type WorkerConfig } from '../../../../src/config/config.js';
import type { CompiledTool } from '../../../../src/core/schema/tool.js';

/** The port: keeps the handler the worker registers, and runs batches through it as an adapter does. */
export class FakeStream implements KafkaStream {
  readonly client = 'kafkajs' as const;
  handler: StreamHandler | undefined;
  heartbeats = 0;
  stopped = false;

  start(handler: StreamHandler): Promise<void> {
    this.handler = handler;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return Promise.resolve();
  }

  joined(): boolean {
    return this.handler !== undefined && !this.stopped;
  }

  /** One partition's batch through the handler; `live` says until which record the batch stays live. */
  process(batch: PartitionBatch, live: () => boolean = () => true): Promise<BatchResult> {
    const handler = this.#handler();
    const control: BatchControl = {
      isLive: live,
      heartbeat: () => {
        this.heartbeats += 1;
        return Promise.resolve();
      },
    };
    return handler.process(batch, control);
  }

  /** Ends a delivery: `delivered` are the results whose outputs the adapter wrote and committed. */
  settle(delivered: readonly BatchResult[]): void {
    this.#handler().settled(delivered);
  }

  /** Process, then settle as delivered: what an adapter does with a batch that goes through. */
  async deliver(batch: PartitionBatch): Promise<BatchResult> {
    const result = await this.process(batch);
    this.settle([result]);
    return result;
  }

  #handler(): StreamHandler {
    if (this.handler === undefined) throw new Error('the worker was not started');
    return this.handler;
  }
}

/**
 * The schema source: a registry of tools behind a cache. A tool is a cache miss until fetched once (`get`);
 * `available` false makes every fetch fail as an unreachable registry does; `gate` holds fetches until it settles.
 */
export class FakeSchemas implements WorkerSchemas {
  readonly #registered: ReadonlyMap<string, CompiledTool>;
  readonly #cache = new Map<string, CompiledTool | undefined>();
  readonly reasons = new Map<string, string>();
  fetches = 0;
  failure: Error | undefined;
  gate: Promise<void> | undefined;

  constructor(registered: ReadonlyMap<string, CompiledTool>, options: { cached?: boolean } = {}) {
    this.#registered = registered;
    if (options.cached === true) for (const [name, tool] of registered) this.#cache.set(name, tool);
  }

  peek(tool: string, version?: number): CompiledTool | undefined | 'miss' {
    const key = keyOf(tool, version);
    return this.#cache.has(key) ? this.#cache.get(key) : 'miss';
  }

  async get(tool: string, version?: number): Promise<CompiledTool | undefined> {
    this.fetches += 1;
    if (this.gate !== undefined) await this.gate;
    if (this.failure !== undefined) throw this.failure;
    const found = this.#registered.get(tool);
    this.#cache.set(keyOf(tool, version), found);
    return found;
  }

  unknownReason(tool: string): string | undefined {
    return this.reasons.get(tool);
  }
}

function keyOf(tool: string, version: number | undefined): string {
  return `${tool}\u0000${version ?? 'latest'}`;
}

/** A valid configuration as the environment gives it (nothing here connects), with `overrides` on top. */
export function workerConfig(overrides: Partial<WorkerConfig> = {}): WorkerConfig {
  const config = loadConfig({ KAFKA_BROKERS: '127.0.0.1:9', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9' });
  return { ...config, ...overrides };
}

export interface FakeWorker {
  readonly worker: Worker;
  readonly stream: FakeStream;
  readonly schemas: FakeSchemas;
  readonly metrics: WorkerMetrics;
  readonly config: WorkerConfig;
  readonly fatal: Error[];
}

/** A started worker on the fake port. */
export async function fakeWorker(
  schemas: FakeSchemas,
  overrides: Partial<WorkerConfig> = {},
  tracing?: WorkerTracing,
): Promise<FakeWorker> {
  const config = workerConfig(overrides);
  const stream = new FakeStream();
  const metrics = new WorkerMetrics({ toolLabels: [] });
  const fatal: Error[] = [];
  const worker = new Worker({
    config,
    stream,
    schemas,
    metrics,
    logger: pino({ level: 'silent' }),
    onFatal: (error) => fatal.push(error),
    tracing,
  });
  await worker.start();
  return { worker, stream, schemas, metrics, config, fatal };
}

/** A batch of one partition, offsets from `first`. */
export function batchOf(values: readonly (Buffer | string | null)[], options: { partition?: number; first?: number } = {}): PartitionBatch {
  const first = options.first ?? 0;
  const records: InputRecord[] = values.map((value, i) => ({
    key: Buffer.from(`k${String(i)}`),
    value: typeof value === 'string' ? Buffer.from(value) : value,
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    offset: String(first + i),
  }));
  return { topic: 'calls.raw', partition: options.partition ?? 0, records, lag: undefined };
}

/** A counter's value per label set, as `name{a=x,b=y}` keys (zero series left out). */
export async function counterValues(metrics: WorkerMetrics, name: string): Promise<Record<string, number>> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const out: Record<string, number> = {};
  for (const { labels, value } of (await metric.get()).values) {
    if (value === 0) continue;
    const key = Object.entries(labels)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    out[key] = value;
  }
  return out;
}
