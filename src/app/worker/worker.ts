/**
 * The stream worker: consumes raw tool calls, looks up each tool's schema, runs the core pipeline, and hands the
 * outputs (normalized, rejected or dead-letter) to the Kafka port (src/adapters/kafka/port.ts), which delivers
 * them with the consumed offsets on whichever client KAFKA_CLIENT names (docs/worker.md "Delivery guarantees").
 *
 * The worker keeps the lifecycle and the pipeline: records whose schema cannot be fetched (registry down) are
 * never dead-lettered: the batch stops before the record, what it finished is delivered, and the partition is
 * held for a growing backoff, then read again from that record. Other partitions keep flowing.
 */
import type { Logger } from 'pino';
import { RegistryUnavailableError, RegistryError, type ToolSchemaSource } from '../../adapters/registry/client.js';
import type { OutputTally, WorkerMetrics } from '../../adapters/metrics/metrics.js';
import { describeError } from '../../adapters/kafka/delivery.js';
import { BACKOFF_POLICIES, backoffDelay } from '../../adapters/shared/retry.js';
import type {
  BatchControl,
  BatchResult,
  DeliveryObserver,
  KafkaStream,
  PartitionBatch,
  StreamHandler,
  TopicPartition,
} from '../../adapters/kafka/port.js';
import type { WorkerConfig } from '../../config/config.js';
import type { BatchSpan, WorkerTracing } from '../../adapters/tracing/worker-spans.js';
import type { BoundedOutput, InputMessage, OutputMessage } from '../../core/records/output.js';
import {
  compiledTool,
  finishMessages,
  readRecord,
  type CallSlot,
  type FoundTool,
  type OutputTarget,
  type ReadRecordResult,
  type UnknownTool,
} from '../../core/pipeline.js';

export { describeError };

/** What the worker asks of its schema source (the registry's cache, {@link ToolSchemaSource}). */
export type WorkerSchemas = Pick<ToolSchemaSource, 'peek' | 'get' | 'unknownReason'>;

/** Returned by record processing when the record must wait for the registry. */
const WAIT = Symbol('wait-for-schema');

/** The tools of a record that holds no call. */
const NO_TOOLS: readonly FoundTool[] = Object.freeze([]);

export interface WorkerHealth {
  readonly joined: boolean;
  readonly crashed: string | undefined;
  readonly lastBatchAt: number | undefined;
}

/** The worker's metrics as the Kafka port reports into them. */
export function deliveryObserver(metrics: WorkerMetrics): DeliveryObserver {
  return {
    transaction: (result) => {
      metrics.transactions.inc({ result });
    },
    lag: (topic, partition, lag) => {
      metrics.consumerLag.set({ topic, partition: String(partition) }, lag);
    },
    forgetPartition: (topic, partition) => {
      metrics.forgetPartition(topic, partition);
    },
    inFlight: (delta) => {
      metrics.inFlight.inc(delta);
    },
    batchTimer: () => metrics.batchSeconds.startTimer(),
  };
}

export class Worker implements StreamHandler {
  readonly #config: WorkerConfig;
  readonly #stream: KafkaStream;
  readonly #schemas: WorkerSchemas;
  readonly #metrics: WorkerMetrics;
  readonly #log: Logger;
  #crashed: string | undefined;
  #lastBatchAt: number | undefined;
  #stopping = false;
  readonly #onFatal: (error: Error) => void;
  /** Consecutive schema waits per partition (the `schemaWait` backoff grows with them; progress resets them). */
  readonly #waits = new Map<string, number>();
  /** Spans (docs/tracing.md), undefined when tracing is off: then no span is made and no header rewritten. */
  readonly #tracing: WorkerTracing | undefined;
  /**
   * The spans of the batches processed and not yet settled. Both clients hand batches over one delivery at a time,
   * so a settled delivery accounts for every span open: those not among its delivered results were not delivered.
   */
  readonly #openBatches = new Map<BatchResult, BatchSpan>();

  constructor(deps: {
    config: WorkerConfig;
    stream: KafkaStream;
    schemas: WorkerSchemas;
    metrics: WorkerMetrics;
    logger: Logger;
    onFatal: (error: Error) => void;
    tracing?: WorkerTracing | undefined;
  }) {
    this.#config = deps.config;
    this.#stream = deps.stream;
    this.#schemas = deps.schemas;
    this.#metrics = deps.metrics;
    this.#log = deps.logger;
    this.#onFatal = deps.onFatal;
    this.#tracing = deps.tracing;
  }

  health(): WorkerHealth {
    return { joined: this.#stream.joined(), crashed: this.#crashed, lastBatchAt: this.#lastBatchAt };
  }

  async start(): Promise<void> {
    await this.#stream.start(this);
    const { topics, groupId, delivery } = this.#config;
    this.#log.info({ input: topics.input, groupId, delivery, kafkaClient: this.#stream.client }, 'worker started');
  }

  /** Stops fetching, lets the batch in hand finish and commit, then disconnects. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#stream.stop();
  }

  fatal(error: Error, crashMessage: string): void {
    if (this.#stopping) return;
    this.#crashed = crashMessage;
    this.#onFatal(error);
  }

  assigned(partitions: readonly TopicPartition[]): void {
    this.#metrics.assigned(partitions.length);
  }

  settled(delivered: readonly BatchResult[]): void {
    // Counted once the outputs are delivered: a batch aborted and fetched again counts once. The tallies of one
    // delivery (one per partition batch) are summed first: one `inc` per series for the whole delivery.
    if (this.#openBatches.size > 0) this.#endBatchSpans(delivered);
    const [first] = delivered;
    if (first === undefined) return;
    for (let i = 1; i < delivered.length; i++) first.tally.absorb((delivered[i] as BatchResult).tally);
    this.#metrics.count(first.tally);
  }

  /**
   * One partition's records through the pipeline, in order, until one must wait for its schema. Each record
   * gives its outputs (one per call), pushed in order: all of them go in the same delivery, and the batch's
   * result carries what they count for.
   */
  async process(batch: PartitionBatch, control: BatchControl): Promise<BatchResult> {
    const { topic, partition } = batch;
    this.#lastBatchAt = Date.now();
    if (batch.lag !== undefined) this.#metrics.consumerLag.set({ topic, partition: String(partition) }, batch.lag);
    const tally = this.#metrics.tally();
    const target: OutputTarget = { topics: this.#config.topics, maxOutputBytes: this.#config.maxOutputBytes, topic, partition };
    const outputs: OutputMessage[] = [];
    let lastOffset: string | undefined;
    let blocked = false;
    const span = this.#tracing?.batch(topic, partition, batch.records.length, batch.records[0]?.offset, this.#config.delivery);
    try {
      for (const record of batch.records) {
        if (!control.isLive()) break;
        // Synchronous while the tool's schema is cached (almost always): no promise per record. All outputs of one
        // input record (a whole message fans out) go in this batch's one delivery.
        const processed = this.#process(record, target, tally, outputs, span);
        if (processed !== undefined) {
          const waited = await processed;
          // A batch waiting on several registry lookups in a row must not outlive the consumer session.
          await control.heartbeat();
          if (waited === WAIT) {
            blocked = true;
            break;
          }
        }
        lastOffset = record.offset;
      }
    } catch (error) {
      span?.end('failed', { outputs: outputs.length, lastOffset, held: false });
      throw error;
    }
    const key = `${topic}:${partition}`;
    if (lastOffset !== undefined) this.#waits.delete(key);
    if (!blocked) return this.#opened({ outputs, lastOffset, holdMs: undefined, tally }, span);
    const waits = this.#waits.get(key) ?? 0;
    const holdMs = backoffDelay({ ...BACKOFF_POLICIES.schemaWait, maxMs: this.#config.maxBackoffMs }, waits);
    this.#waits.set(key, waits + 1);
    this.#metrics.schemaWaits.inc();
    this.#log.warn({ topic, partition, retryInMs: holdMs }, 'schema registry unavailable: partition paused, records wait');
    return this.#opened({ outputs, lastOffset, holdMs, tally }, span);
  }

  /** The batch's result, its span (when tracing) kept open until its delivery settles. */
  #opened(result: BatchResult, span: BatchSpan | undefined): BatchResult {
    if (span !== undefined) this.#openBatches.set(result, span);
    return result;
  }

  /** Ends the open batch spans: committed when delivered, aborted otherwise (the batch is read again). */
  #endBatchSpans(delivered: readonly BatchResult[]): void {
    for (const [result, span] of this.#openBatches) {
      const details = { outputs: result.outputs.length, lastOffset: result.lastOffset, held: result.holdMs !== undefined };
      span.end(delivered.includes(result) ? 'committed' : 'aborted', details);
    }
    this.#openBatches.clear();
  }

  /**
   * One record through the core's two halves ({@link readRecord}, {@link finishMessages}), with what is Kafka's
   * between them: each call's schema from the registry cache, fetched on a miss. Its output messages go into
   * `sink`: at once when no fetch is needed (undefined is returned), else once the promise settles (WAIT when the
   * registry cannot answer: then none of the record's outputs is built, and the record is processed whole when
   * the partition resumes).
   */
  #process(
    input: InputMessage,
    target: OutputTarget,
    tally: OutputTally,
    sink: OutputMessage[],
    span: BatchSpan | undefined,
  ): undefined | Promise<undefined | typeof WAIT> {
    const started = performance.now();
    const read = readRecord(input.value, this.#config.pipeline.limits);
    if (!read.ok) {
      this.#outputs(input, read, NO_TOOLS, target, tally, sink, span, 0, started);
      return undefined;
    }
    const tools = new Array<FoundTool | 'miss'>(read.calls.length);
    let missed = false;
    for (let i = 0; i < read.calls.length; i++) {
      const slot = read.calls[i] as CallSlot;
      const found = slot.read.ok ? this.#peek(slot.read.call.tool, slot.read.call.schemaVersion) : undefined;
      if (found === 'miss') missed = true;
      tools[i] = found;
    }
    if (!missed) {
      this.#outputs(input, read, tools as FoundTool[], target, tally, sink, span, 0, started);
      return undefined;
    }
    const decodeMs = performance.now() - started;
    return this.#lookupAll(read.calls, tools).then((resolved) => {
      if (resolved === WAIT) return WAIT;
      // The processing time leaves the schema fetches out (they have their own histogram).
      this.#outputs(input, read, resolved, target, tally, sink, span, decodeMs);
      return undefined;
    });
  }

  /** A call's tool from the cache, with why none can exist when the source knows; 'miss' when it must be fetched. */
  #peek(name: string, version: number | undefined): FoundTool | 'miss' {
    const tool = this.#schemas.peek(name, version);
    return tool === undefined ? this.#unknown(name, version) : tool;
  }

  /** No tool: with the reason, when the schema source knows more than "not registered". */
  #unknown(name: string, version: number | undefined): UnknownTool | undefined {
    const unknownReason = this.#schemas.unknownReason(name, version);
    return unknownReason === undefined ? undefined : { unknownReason };
  }

  /** The tools of a record's calls, fetching those not cached, one after another; WAIT when one cannot be fetched. */
  async #lookupAll(calls: readonly CallSlot[], peeked: readonly (FoundTool | 'miss')[]): Promise<FoundTool[] | typeof WAIT> {
    const tools: FoundTool[] = [];
    for (const [i, slot] of calls.entries()) {
      const tool = peeked[i];
      if (tool !== 'miss' || !slot.read.ok) {
        tools.push(tool === 'miss' ? undefined : tool);
        continue;
      }
      const fetched = await this.#lookup(slot.read.call.tool, slot.read.call.schemaVersion);
      if (fetched === WAIT) return WAIT;
      tools.push(fetched);
    }
    return tools;
  }

  /**
   * The output messages of a record whose tools are all known, counted in the batch's tally; `elapsedMs`: the
   * time spent on it before `started` and counted (decoding, when schema fetches came between).
   */
  #outputs(
    input: InputMessage,
    read: ReadRecordResult,
    tools: readonly FoundTool[],
    target: OutputTarget,
    tally: OutputTally,
    sink: OutputMessage[],
    span: BatchSpan | undefined,
    elapsedMs: number,
    started = performance.now(),
  ): void {
    const outputs = finishMessages(input, read, tools, this.#config.pipeline, target);
    for (let i = 0; i < outputs.length; i++) {
      const output = outputs[i] as BoundedOutput;
      tally.output(output.record, compiledTool(tools[i]) !== undefined);
      if (this.#tracing === undefined) sink.push(output.message);
    }
    tally.input(!read.ok ? 'unreadable' : read.message ? 'message' : 'call');
    const ended = performance.now();
    const seconds = (elapsedMs + ended - started) / 1e3;
    if (this.#tracing === undefined) {
      this.#metrics.processingSeconds.observe(seconds);
      return;
    }
    const schemas = outputs.map((_, i) => compiledTool(tools[i])?.identity);
    const startMs = performance.timeOrigin + started - elapsedMs;
    const { messages, sampled } = this.#tracing.calls(input, outputs, schemas, target, startMs, performance.timeOrigin + ended, span);
    for (const message of messages) sink.push(message);
    this.#metrics.processingSeconds.observe(seconds, sampled);
  }

  async #lookup(name: string, version: number | undefined): Promise<FoundTool | typeof WAIT> {
    const cached = this.#peek(name, version);
    if (cached !== 'miss') return cached;
    const stop = this.#metrics.registryRequestSeconds.startTimer();
    try {
      const tool = await this.#schemas.get(name, version);
      stop({ result: tool === undefined ? 'not_found' : 'ok' });
      return tool ?? this.#unknown(name, version);
    } catch (error) {
      stop({ result: 'error' });
      if (error instanceof RegistryUnavailableError || error instanceof RegistryError) {
        // Transient or operator-fixable (auth): the record waits; it is never dead-lettered for this.
        this.#log.warn({ tool: this.#metrics.toolLabel(name, false), err: describeError(error) }, 'schema lookup failed');
        return WAIT;
      }
      // Anything else is about this name, not the registry (a name no URL can carry, say): thrown, it would fail
      // the batch on every retry and stall the partition for good. The call goes out as a call to no known tool.
      this.#log.error(
        { tool: this.#metrics.toolLabel(name, false), err: describeError(error) },
        'schema lookup failed on this tool name: the call is rejected as a call to an unknown tool',
      );
      return this.#unknown(name, version);
    }
  }
}
