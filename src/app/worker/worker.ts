/**
 * The stream worker: consumes raw tool calls, looks up each tool's schema, runs the core pipeline, and hands the
 * outputs (normalized, rejected or dead-letter) to the Kafka port (src/adapters/kafka/port.ts), which delivers
 * them with the consumed offsets on whichever client KAFKA_CLIENT names (README "Delivery guarantees").
 *
 * The worker keeps the lifecycle and the pipeline: records whose schema cannot be fetched (registry down) are
 * never dead-lettered: the batch stops before the record, what it finished is delivered, and the partition is
 * held for a growing backoff, then read again from that record. Other partitions keep flowing.
 */
import type { Logger } from 'pino';
import { RegistryUnavailableError, RegistryError, type ToolSchemaSource } from '../../adapters/registry/client.js';
import type { WorkerMetrics } from '../../adapters/metrics/metrics.js';
import { describeError } from '../../adapters/kafka/delivery.js';
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
import type { JsonValue } from '../../core/shared/json.js';
import { buildBoundedOutput, type FanOut, type InputMessage, type OutputMessage } from '../../core/records/output.js';
import { mayHoldReferences, processCall, readCalls, unreadableRecord, type CallSlot } from '../../core/pipeline.js';
import { decodeRecordBytes } from '../../core/records/bytes.js';
import type { CompiledTool } from '../../core/schema/tool.js';
import type { DecodedCall, OutputRecord } from '../../core/shared/types.js';
import { unwrapWireFormat } from '../../core/records/wire.js';

export { describeError };

/** Returned by record processing when the record must wait for the registry. */
const WAIT = Symbol('wait-for-schema');

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
  readonly #schemas: ToolSchemaSource;
  readonly #metrics: WorkerMetrics;
  readonly #log: Logger;
  #crashed: string | undefined;
  #lastBatchAt: number | undefined;
  #stopping = false;
  readonly #onFatal: (error: Error) => void;
  /** Counts of the batches in hand, added to the counters once they are delivered. */
  readonly #tally = new BatchTally();
  /** Backoff of the next schema wait per partition (doubles per consecutive wait, reset on progress). */
  readonly #backoffMs = new Map<string, number>();

  constructor(deps: {
    config: WorkerConfig;
    stream: KafkaStream;
    schemas: ToolSchemaSource;
    metrics: WorkerMetrics;
    logger: Logger;
    onFatal: (error: Error) => void;
  }) {
    this.#config = deps.config;
    this.#stream = deps.stream;
    this.#schemas = deps.schemas;
    this.#metrics = deps.metrics;
    this.#log = deps.logger;
    this.#onFatal = deps.onFatal;
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

  settled(delivered: boolean): void {
    // Counted once the outputs are delivered: a batch aborted and fetched again counts once.
    if (delivered) this.#tally.flush(this.#metrics);
    else this.#tally.clear();
  }

  /**
   * One partition's records through the pipeline, in order, until one must wait for its schema. Each record
   * gives its outputs (one per call), pushed in order: all of them go in the same delivery.
   */
  async process(batch: PartitionBatch, control: BatchControl): Promise<BatchResult> {
    const { topic, partition } = batch;
    this.#lastBatchAt = Date.now();
    if (batch.lag !== undefined) this.#metrics.consumerLag.set({ topic, partition: String(partition) }, batch.lag);
    const outputs: OutputMessage[] = [];
    let lastOffset: string | undefined;
    let blocked = false;
    for (const record of batch.records) {
      if (!control.isLive()) break;
      const input: InputMessage = {
        key: record.key,
        value: record.value,
        headers: record.headers,
        source: { topic, partition, offset: record.offset },
      };
      // Synchronous while the tool's schema is cached (almost always): no promise per record.
      const processed = this.#process(input);
      let output: OutputMessage[] | typeof WAIT;
      if (processed instanceof Promise) {
        output = await processed;
        // A batch waiting on several registry lookups in a row must not outlive the consumer session.
        await control.heartbeat();
      } else {
        output = processed;
      }
      if (output === WAIT) {
        blocked = true;
        break;
      }
      // All outputs of one input record (a whole message fans out) go in this batch's one delivery.
      outputs.push(...output);
      lastOffset = record.offset;
    }
    const key = `${topic}:${partition}`;
    if (lastOffset !== undefined) this.#backoffMs.delete(key);
    if (!blocked) return { outputs, lastOffset, holdMs: undefined };
    const previous = this.#backoffMs.get(key) ?? 0;
    const holdMs = Math.min(this.#config.maxBackoffMs, previous === 0 ? 500 : previous * 2);
    this.#backoffMs.set(key, holdMs);
    this.#metrics.schemaWaits.inc();
    this.#log.warn({ topic, partition, retryInMs: holdMs }, 'schema registry unavailable: partition paused, records wait');
    return { outputs, lastOffset, holdMs };
  }

  /**
   * One record: decode, look each call's tool up, normalize and validate, build one output message per call (a
   * whole message fans out; a record that cannot be read is one dead letter). Returns the messages synchronously
   * when no schema fetch is needed, else a promise (of WAIT when the registry cannot answer: then none of the
   * record's outputs is built, and the record is processed whole when the partition resumes).
   */
  #process(input: InputMessage): OutputMessage[] | Promise<OutputMessage[] | typeof WAIT> {
    const started = performance.now();
    const read = this.#read(input);
    if (!read.ok) {
      this.#tally.addRecord('unreadable');
      const output = this.#finish(input, read.record, undefined, read.raw, undefined);
      this.#metrics.processingSeconds.observe((performance.now() - started) / 1e3);
      return [output];
    }
    const tools = read.calls.map((slot) =>
      slot.read.ok ? this.#schemas.peek(slot.read.call.tool, slot.read.call.schemaVersion) : undefined,
    );
    if (!tools.includes('miss')) return this.#outputs(input, read, tools as (CompiledTool | undefined)[], 0, started);
    const decodeMs = performance.now() - started;
    return this.#lookupAll(read.calls, tools).then((resolved) => {
      if (resolved === WAIT) return WAIT;
      // The processing time leaves the schema fetches out (they have their own histogram).
      return this.#outputs(input, read, resolved, decodeMs);
    });
  }

  /** The tools of a record's calls, fetching those not cached, one after another; WAIT when one cannot be fetched. */
  async #lookupAll(
    calls: readonly CallSlot[],
    peeked: readonly (CompiledTool | undefined | 'miss')[],
  ): Promise<(CompiledTool | undefined)[] | typeof WAIT> {
    const tools: (CompiledTool | undefined)[] = [];
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
   * The outputs of a record whose tools are all known; `elapsedMs`: the time spent on it before `started` and
   * counted (decoding, when schema fetches came between).
   */
  #outputs(
    input: InputMessage,
    read: { message: boolean; calls: readonly CallSlot[]; references: boolean },
    tools: readonly (CompiledTool | undefined)[],
    elapsedMs: number,
    started = performance.now(),
  ): OutputMessage[] {
    const options = this.#config.pipeline;
    const outputs = read.calls.map((slot, i) => {
      const fanOut = read.message ? { index: slot.index, sharedId: slot.sharedId } : undefined;
      if (!slot.read.ok) return this.#finish(input, unreadableRecord(slot.read.error), undefined, slot.raw, fanOut);
      const { call } = slot.read;
      const tool = tools[i];
      return this.#finish(
        input,
        processCall(call, tool, options, this.#unknownReason(call, tool), read.references),
        tool,
        slot.raw,
        fanOut,
      );
    });
    this.#tally.addRecord(read.message ? 'message' : 'call');
    this.#metrics.processingSeconds.observe((elapsedMs + performance.now() - started) / 1e3);
    return outputs;
  }

  /** Why no schema can exist for an unknown tool, when the schema source knows more than "not registered". */
  #unknownReason(call: DecodedCall, tool: CompiledTool | undefined): string | undefined {
    return tool === undefined ? this.#schemas.unknownReason(call.tool, call.schemaVersion) : undefined;
  }

  /** The envelope half: the record that could not be read (one dead letter), or the calls in it. */
  #read(
    input: InputMessage,
  ):
    | { ok: false; record: OutputRecord; raw: JsonValue | undefined }
    | { ok: true; message: boolean; calls: readonly CallSlot[]; references: boolean } {
    if (input.value === null) {
      return {
        ok: false,
        record: unreadableRecord({ code: 'record_not_json', message: 'The record has no value (a tombstone).' }),
        raw: undefined,
      };
    }
    const wire = unwrapWireFormat(input.value);
    if (!wire.ok) return { ok: false, record: unreadableRecord(wire.error), raw: undefined };
    const parsed = decodeRecordBytes(wire.payload, this.#config.pipeline.limits);
    if (!parsed.ok) return { ok: false, record: unreadableRecord(parsed.error), raw: undefined };
    const read = readCalls(parsed.value);
    if (!read.ok) return { ok: false, record: unreadableRecord(read.error), raw: parsed.value };
    // Scanned on the decoded text: cheaper than on the bytes.
    return { ...read, references: mayHoldReferences(parsed.text) };
  }

  #finish(
    input: InputMessage,
    record: OutputRecord,
    tool: CompiledTool | undefined,
    raw: JsonValue | undefined,
    fanOut: FanOut | undefined,
  ): OutputMessage {
    const output = buildBoundedOutput(input, record, tool?.identity, raw, this.#config.topics, this.#config.maxOutputBytes, fanOut);
    this.#tally.add(this.#metrics, output.record, tool !== undefined);
    return output.message;
  }

  async #lookup(name: string, version: number | undefined): Promise<CompiledTool | undefined | typeof WAIT> {
    const cached = this.#schemas.peek(name, version);
    if (cached !== 'miss') return cached;
    const stop = this.#metrics.registryRequestSeconds.startTimer();
    try {
      const tool = await this.#schemas.get(name, version);
      stop({ result: tool === undefined ? 'not_found' : 'ok' });
      return tool;
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
      return undefined;
    }
  }
}

type Counts = Map<string, number>;

function bump(counts: Counts, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * The series {@link WorkerMetrics.record} increments, counted per batch and added with one `inc` per series at
 * the end of the batch: prom-client hashes and validates the labels on every `inc`, a cost per record (a call, its
 * repairs and pass-throughs) that this pays once per batch. Same series, same values.
 */
class BatchTally {
  /** By tool label: outcomes, repair kinds, pass-through reasons, validation error codes. */
  readonly #byTool = new Map<string, { calls: Counts; repairs: Counts; passThroughs: Counts; errors: Counts }>();
  readonly #deadLetters: Counts = new Map();
  /** Input records by shape: one call, a whole message (fanned out), unreadable. */
  readonly #records: Counts = new Map();

  addRecord(shape: 'call' | 'message' | 'unreadable'): void {
    bump(this.#records, shape);
  }

  add(metrics: WorkerMetrics, record: OutputRecord, known: boolean): void {
    const tool = metrics.toolLabel(record.tool, known);
    let counts = this.#byTool.get(tool);
    if (counts === undefined) {
      counts = { calls: new Map(), repairs: new Map(), passThroughs: new Map(), errors: new Map() };
      this.#byTool.set(tool, counts);
    }
    bump(counts.calls, record.disposition === 'dead_letter' ? 'dead_lettered' : record.disposition);
    for (const repair of record.repairs) bump(counts.repairs, repair.kind);
    for (const pass of record.passThroughs) bump(counts.passThroughs, pass.reason);
    if (record.disposition === 'rejected') for (const error of record.errors) bump(counts.errors, error.code);
    if (record.disposition === 'dead_letter') bump(this.#deadLetters, record.errors[0]?.code ?? 'unknown');
  }

  flush(metrics: WorkerMetrics): void {
    for (const [tool, counts] of this.#byTool) {
      for (const [outcome, n] of counts.calls) metrics.calls.inc({ outcome, tool }, n);
      for (const [kind, n] of counts.repairs) metrics.repairs.inc({ kind, tool }, n);
      for (const [reason, n] of counts.passThroughs) metrics.passThroughs.inc({ reason, tool }, n);
      for (const [code, n] of counts.errors) metrics.validationErrors.inc({ code, tool }, n);
    }
    for (const [reason, n] of this.#deadLetters) metrics.deadLetters.inc({ reason }, n);
    for (const [shape, n] of this.#records) metrics.records.inc({ shape }, n);
    this.clear();
  }

  /** Forgets the counts of a batch that was not delivered (it is fetched and counted again). */
  clear(): void {
    this.#byTool.clear();
    this.#deadLetters.clear();
    this.#records.clear();
  }
}
