/**
 * The stream worker: consumes raw tool calls, looks up each tool's schema, runs the core pipeline, and
 * publishes to the normalized, rejected or dead-letter topic.
 *
 * Delivery (see README "Delivery guarantees"):
 * - exactly-once: each fetched batch of one input partition is processed and published in one Kafka
 *   transaction together with the consumed offsets. kafkajs has no KIP-447 fencing by consumer-group
 *   generation, so fencing is by transactional id: one transactional producer per input partition, with the
 *   id `<prefix>-<topic>-<partition>`. A worker that takes a partition over initialises that id, which aborts
 *   (or waits out) the previous owner's open transaction and fences it; only then does it read the committed
 *   offset, and it skips anything below it that the consumer fetched from a stale position.
 * - at-least-once: one idempotent producer; offsets are committed after the batch's messages are acknowledged.
 *
 * Records whose schema cannot be fetched (registry down) are never dead-lettered: the partition commits what
 * it finished, pauses, and retries from the blocked record after a backoff. Other partitions keep flowing.
 *
 * An output topic that is gone (deleted, and the broker does not auto-create it) or that this principal may not
 * write to is fatal: left to kafkajs, the consumer crashes and restarts every few seconds forever, fetching the
 * same batch and failing again, while /livez stays green. The worker checks, after a failed delivery, whether
 * its output topics are still there and writable; when not, it says which and why, commits nothing more and
 * exits 1, so Kubernetes restarts it with a growing backoff until an operator fixes the topic.
 */
import { Partitioners, type Admin, type Consumer, type EachBatchPayload, type Kafka, type KafkaMessage, type Producer, type TopicMessages } from 'kafkajs';
import type { Logger } from 'pino';
import { RegistryUnavailableError, RegistryError, type ToolSchemaSource } from '../../adapters/registry/client.js';
import type { WorkerMetrics } from '../../adapters/metrics/metrics.js';
import type { WorkerConfig } from '../../config/config.js';
import type { JsonValue } from '../../core/shared/json.js';
import { buildBoundedOutput, type FanOut, type InputMessage, type OutputMessage } from '../../core/records/output.js';
import { processCall, readCalls, unreadableRecord, type CallSlot } from '../../core/pipeline.js';
import { decodeRecordBytes } from '../../core/records/bytes.js';
import type { CompiledTool } from '../../core/schema/tool.js';
import type { DecodedCall, OutputRecord } from '../../core/shared/types.js';
import { unwrapWireFormat } from '../../core/records/wire.js';

/** Returned by record processing when the record must wait for the registry. */
const WAIT = Symbol('wait-for-schema');

interface PartitionState {
  producer: Producer | undefined;
  /** The committed offset read after claiming the partition in this generation; undefined until claimed. */
  claimedFrom: bigint | undefined;
  /** Backoff for the next schema wait (doubles per consecutive wait, reset on progress). */
  backoffMs: number;
  resumeTimer: NodeJS.Timeout | undefined;
}

export interface WorkerHealth {
  readonly joined: boolean;
  readonly crashed: string | undefined;
  readonly lastBatchAt: number | undefined;
}

export class Worker {
  readonly #config: WorkerConfig;
  readonly #kafka: Kafka;
  readonly #schemas: ToolSchemaSource;
  readonly #metrics: WorkerMetrics;
  readonly #log: Logger;
  readonly #consumer: Consumer;
  readonly #admin: Admin;
  #sharedProducer: Producer | undefined;
  readonly #partitions = new Map<string, PartitionState>();
  #joined = false;
  #crashed: string | undefined;
  #lastBatchAt: number | undefined;
  #stopping = false;
  readonly #fatal: (error: Error) => void;
  /** Counts of the batch in hand, added to the counters once per batch. */
  readonly #tally = new BatchTally();
  /** Failed deliveries in a row whose only answer was OPERATION_NOT_ATTEMPTED (see {@link outputRefusal}). */
  #notAttemptedInARow = 0;

  constructor(deps: { config: WorkerConfig; kafka: Kafka; schemas: ToolSchemaSource; metrics: WorkerMetrics; logger: Logger; onFatal: (error: Error) => void }) {
    this.#config = deps.config;
    this.#kafka = deps.kafka;
    this.#schemas = deps.schemas;
    this.#metrics = deps.metrics;
    this.#log = deps.logger;
    this.#fatal = deps.onFatal;
    this.#admin = this.#kafka.admin();
    this.#consumer = this.#kafka.consumer({
      groupId: this.#config.groupId,
      // Read only committed input: an upstream transactional producer's aborted records are never processed.
      readUncommitted: false,
      allowAutoTopicCreation: false,
      sessionTimeout: this.#config.kafka.sessionTimeoutMs,
      // kafkajs wants heartbeats well inside the session timeout; a tenth leaves room for slow batches.
      heartbeatInterval: Math.max(1_000, Math.floor(this.#config.kafka.sessionTimeoutMs / 10)),
      maxWaitTimeInMs: this.#config.kafka.fetchMaxWaitMs,
      retry: { retries: 8 },
    });
    this.#consumer.on(this.#consumer.events.GROUP_JOIN, (event) => {
      this.#joined = true;
      this.#onAssignment(event.payload.memberAssignment);
    });
    this.#consumer.on(this.#consumer.events.CRASH, (event) => {
      const { error, restart } = event.payload;
      this.#joined = false;
      this.#log.error({ err: describeError(error), restart }, 'consumer crashed');
      if (!restart && !this.#stopping) {
        this.#crashed = error.message;
        this.#fatal(error);
      }
    });
    this.#consumer.on(this.#consumer.events.STOP, () => {
      this.#joined = false;
      this.#metrics.assigned(0);
    });
  }

  health(): WorkerHealth {
    return { joined: this.#joined, crashed: this.#crashed, lastBatchAt: this.#lastBatchAt };
  }

  async start(): Promise<void> {
    const { topics } = this.#config;
    await this.#admin.connect();
    await this.#ensureTopics();
    if (this.#config.delivery === 'at-least-once') {
      this.#sharedProducer = this.#kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
      await this.#sharedProducer.connect();
    }
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [topics.input], fromBeginning: true });
    await this.#consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.#onBatch(payload),
    });
    this.#log.info({ input: topics.input, groupId: this.#config.groupId, delivery: this.#config.delivery }, 'worker started');
  }

  /** Stops fetching, lets the batch in hand finish and commit, then disconnects. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const state of this.#partitions.values()) clearTimeout(state.resumeTimer);
    await this.#consumer.stop();
    await this.#consumer.disconnect();
    await Promise.allSettled([...this.#partitions.values()].flatMap((s) => (s.producer === undefined ? [] : [s.producer.disconnect()])));
    this.#partitions.clear();
    await this.#sharedProducer?.disconnect();
    await this.#admin.disconnect();
  }

  async #ensureTopics(): Promise<void> {
    const wanted = Object.values(this.#config.topics);
    const existing = new Set(await this.#admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t));
    if (missing.length === 0) return;
    if (!this.#config.createTopics) {
      throw new Error(`topics missing and CREATE_TOPICS=false: ${missing.join(', ')}`);
    }
    this.#log.info({ topics: missing }, 'creating missing topics');
    await this.#admin.createTopics({ topics: missing.map((topic) => ({ topic })), waitForLeaders: true });
  }

  #onAssignment(assignment: Record<string, number[]>): void {
    const assigned = new Set<string>();
    for (const [topic, partitions] of Object.entries(assignment)) for (const p of partitions) assigned.add(`${topic}:${p}`);
    for (const [key, state] of this.#partitions) {
      // A pending resume timer is left to fire: kafkajs keeps a partition paused across rebalances.
      // Every partition is claimed again in a new generation, with a new producer even when this worker keeps
      // it: kafkajs initialises a producer id (InitProducerId) once per producer, so only a new one fences and
      // waits out the transaction of whoever owned the partition meanwhile. Reusing the producer would read the
      // committed offset without that wait, possibly before a just-committed transaction's offsets are
      // visible, and produce its records a second time.
      state.claimedFrom = undefined;
      void state.producer?.disconnect().catch(() => undefined);
      state.producer = undefined;
      if (!assigned.has(key)) {
        this.#partitions.delete(key);
        const [topic = '', partition = ''] = key.split(/:(?=\d+$)/);
        this.#metrics.forgetPartition(topic, Number(partition));
      }
    }
    this.#metrics.assigned(assigned.size);
    this.#log.info({ assignment }, 'partitions assigned');
  }

  #state(topic: string, partition: number): PartitionState {
    const key = `${topic}:${partition}`;
    let state = this.#partitions.get(key);
    if (state === undefined) {
      state = { producer: undefined, claimedFrom: undefined, backoffMs: 0, resumeTimer: undefined };
      this.#partitions.set(key, state);
    }
    return state;
  }

  async #onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const { topic, partition } = batch;
    if (batch.messages.length === 0) return;
    const state = this.#state(topic, partition);
    this.#lastBatchAt = Date.now();
    this.#metrics.consumerLag.set({ topic, partition: String(partition) }, Number(batch.offsetLag()));

    let messages = batch.messages;
    if (this.#config.delivery === 'exactly-once') {
      const from = await this.#claim(topic, partition, state);
      messages = messages.filter((m) => BigInt(m.offset) >= from);
      // Already committed by a previous owner: mark as consumed without producing anything again.
      if (messages.length === 0) {
        payload.resolveOffset(batch.lastOffset());
        return;
      }
    }

    const timer = this.#metrics.batchSeconds.startTimer();
    this.#metrics.inFlight.inc(messages.length);
    const outputs: OutputMessage[] = [];
    let last: KafkaMessage | undefined;
    let blocked = false;
    try {
      for (const message of messages) {
        if (!payload.isRunning() || payload.isStale()) break;
        // Synchronous while the tool's schema is cached (almost always): no promise per record.
        const processed = this.#process(topic, partition, message);
        let output: OutputMessage[] | typeof WAIT;
        if (processed instanceof Promise) {
          output = await processed;
          // kafkajs heartbeats only when asked: a batch waiting on several registry lookups in a row must not
          // outlive the consumer session (the heartbeat is throttled to its interval, so this costs nothing).
          await payload.heartbeat();
        } else {
          output = processed;
        }
        if (output === WAIT) {
          blocked = true;
          break;
        }
        // All outputs of one input record (a whole message fans out) go in this batch's one delivery.
        outputs.push(...output);
        last = message;
      }
      if (last !== undefined) {
        try {
          await this.#deliver(topic, partition, state, outputs, last.offset, (offset) =>
            payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset }] }] }),
          );
        } catch (error) {
          const written = [...new Set(outputs.map((o) => o.topic))];
          const types = errorTypes(error);
          const stopped = await this.#stopIfOutputUnavailable(error, types, written, topic, partition, messages[0]?.offset ?? last.offset);
          // Once stopping, as kafkajs threw it: a retry would only fetch the batch again for nothing.
          throw stopped ? error : retriableIfNotAttempted(error, types);
        }
        this.#notAttemptedInARow = 0;
        payload.resolveOffset(last.offset);
        state.backoffMs = 0;
      }
      // Counted once the batch's outputs are delivered: a batch aborted and fetched again counts once.
      this.#tally.flush(this.#metrics);
    } finally {
      this.#tally.clear();
      this.#metrics.inFlight.dec(messages.length);
      timer();
    }
    // Paused before the heartbeat, which throws when the group rebalances: the backoff is never skipped.
    if (blocked) this.#waitForSchema(topic, partition, state, () => payload.pause());
    await payload.heartbeat();
  }

  /** The offset to resume the partition from, claiming it first in this generation ({@link claimPartition}). */
  async #claim(topic: string, partition: number, state: PartitionState): Promise<bigint> {
    if (state.claimedFrom !== undefined && state.producer !== undefined) return state.claimedFrom;
    const claimed = await claimPartition(this.#kafka, this.#admin, this.#config, topic, partition);
    state.producer = claimed.producer;
    state.claimedFrom = claimed.from;
    this.#log.debug({ topic, partition, from: claimed.from.toString() }, 'partition claimed');
    return claimed.from;
  }

  /**
   * Publishes a batch's outputs and commits the offset after `lastOffset`: in one transaction (exactly-once), or
   * produce then `commit` (at-least-once). `commit` is the batch's own commit: the consumer's `commitOffsets`
   * does nothing once `stop()` began, which would leave the batch in hand uncommitted on every SIGTERM.
   */
  async #deliver(topic: string, partition: number, state: PartitionState, outputs: OutputMessage[], lastOffset: string, commit: (offset: string) => Promise<void>): Promise<void> {
    const requests = produceRequests(outputs);
    const next = (BigInt(lastOffset) + 1n).toString();
    if (this.#config.delivery === 'at-least-once') {
      const producer = this.#sharedProducer;
      if (producer === undefined) throw new Error('at-least-once producer not started');
      for (const topicMessages of requests) await producer.sendBatch({ topicMessages, acks: -1 });
      await commit(next);
      this.#metrics.transactions.inc({ result: 'committed' });
      return;
    }
    const producer = state.producer;
    if (producer === undefined) throw new Error(`partition ${topic}:${partition} not claimed`);
    try {
      await commitInTransaction(producer, this.#config.groupId, topic, partition, requests, next);
      state.claimedFrom = BigInt(next);
      this.#metrics.transactions.inc({ result: 'committed' });
    } catch (error) {
      this.#metrics.transactions.inc({ result: 'aborted' });
      // The producer may be fenced (another worker took the partition) or broken: start over with a new one
      // and a fresh claim. kafkajs retries the batch from the last resolved offset.
      state.producer = undefined;
      state.claimedFrom = undefined;
      void producer.disconnect().catch(() => undefined);
      this.#log.warn({ topic, partition, err: describeError(error) }, 'transaction aborted; the batch will be retried');
      throw error;
    }
  }

  /**
   * After a failed delivery: when an output topic is missing or not writable by this principal, stops the worker
   * (fatal, exit 1) with a log line saying which topic and what to do, and answers true. Any other failure is left
   * to the retry.
   */
  async #stopIfOutputUnavailable(error: unknown, types: readonly string[], written: readonly string[], topic: string, partition: number, fromOffset: string): Promise<boolean> {
    if (this.#stopping) return true;
    const outputs = [this.#config.topics.output, this.#config.topics.rejected, this.#config.topics.dlq];
    let timer: NodeJS.Timeout | undefined;
    // listTopics only names the topics this principal may describe: "missing" also covers "not authorised".
    const existing = await Promise.race([
      this.#admin.listTopics().then((names) => new Set(names), () => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          resolve(undefined);
        }, 10_000);
      }),
    ]).finally(() => {
      clearTimeout(timer);
    });
    if (existing === undefined) return false; // the broker itself is unreachable: not this case, the retry handles it
    let unavailable = outputs.filter((t) => !existing.has(t));
    let reason: string | undefined;
    if (unavailable.length > 0) {
      reason = 'missing: deleted, or not visible to this principal, and the broker does not create it';
    } else {
      this.#notAttemptedInARow = types.includes('OPERATION_NOT_ATTEMPTED') ? this.#notAttemptedInARow + 1 : 0;
      const refusal = outputRefusal(types, this.#notAttemptedInARow);
      if (refusal !== undefined) {
        unavailable = [...written];
        reason = `not authorised: the broker refuses this principal writes to ${unavailable.length > 1 ? 'one of them' : 'it'} (${refusal})`;
      }
    }
    if (reason === undefined) return false;
    const message =
      `output topic unavailable (${unavailable.join(', ')}: ${reason}); stopping without committing ${topic}:${partition} ` +
      `from offset ${fromOffset}: nothing is dropped, the records are processed once the topic is writable again and the worker restarted`;
    this.#log.fatal({ topics: unavailable, input: { topic, partition, fromOffset }, err: describeError(error) }, message);
    this.#crashed = message;
    this.#fatal(new Error(message));
    return true;
  }

  /** Pauses the partition and resumes it after a growing backoff; the blocked record is fetched again. */
  #waitForSchema(topic: string, partition: number, state: PartitionState, pause: () => () => void): void {
    state.backoffMs = Math.min(this.#config.maxBackoffMs, state.backoffMs === 0 ? 500 : state.backoffMs * 2);
    this.#metrics.schemaWaits.inc();
    const resume = pause();
    this.#log.warn({ topic, partition, retryInMs: state.backoffMs }, 'schema registry unavailable: partition paused, records wait');
    clearTimeout(state.resumeTimer);
    state.resumeTimer = setTimeout(() => {
      state.resumeTimer = undefined;
      if (!this.#stopping) resume();
    }, state.backoffMs);
  }

  /**
   * One record: decode, look each call's tool up, normalize and validate, build one output message per call (a
   * whole message fans out; a record that cannot be read is one dead letter). Returns the messages synchronously
   * when no schema fetch is needed, else a promise (of WAIT when the registry cannot answer: then none of the
   * record's outputs is built, and the record is processed whole when the partition resumes).
   */
  #process(topic: string, partition: number, message: KafkaMessage): OutputMessage[] | Promise<OutputMessage[] | typeof WAIT> {
    const input: InputMessage = {
      key: message.key,
      value: message.value,
      headers: (message.headers ?? {}),
      source: { topic, partition, offset: message.offset },
    };
    const started = performance.now();
    const read = this.#read(input);
    if (!read.ok) {
      this.#tally.addRecord('unreadable');
      const output = this.#finish(input, read.record, undefined, read.raw, undefined);
      this.#metrics.processingSeconds.observe((performance.now() - started) / 1e3);
      return [output];
    }
    const tools = read.calls.map((slot) => (slot.read.ok ? this.#schemas.peek(slot.read.call.tool, slot.read.call.schemaVersion) : undefined));
    if (!tools.includes('miss')) return this.#outputs(input, read, tools as (CompiledTool | undefined)[], performance.now() - started);
    const decodeMs = performance.now() - started;
    return this.#lookupAll(read.calls, tools).then((resolved) => {
      if (resolved === WAIT) return WAIT;
      // The processing time leaves the schema fetches out (they have their own histogram).
      return this.#outputs(input, read, resolved, decodeMs);
    });
  }

  /** The tools of a record's calls, fetching those not cached, one after another; WAIT when one cannot be fetched. */
  async #lookupAll(calls: readonly CallSlot[], peeked: readonly (CompiledTool | undefined | 'miss')[]): Promise<(CompiledTool | undefined)[] | typeof WAIT> {
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

  /** The outputs of a record whose tools are all known; `elapsedMs`: the time already spent on it (decoding). */
  #outputs(input: InputMessage, read: { message: boolean; calls: readonly CallSlot[] }, tools: readonly (CompiledTool | undefined)[], elapsedMs: number): OutputMessage[] {
    const started = performance.now();
    const options = this.#config.pipeline;
    const outputs = read.calls.map((slot, i) => {
      const fanOut = read.message ? { index: slot.index, sharedId: slot.sharedId } : undefined;
      if (!slot.read.ok) return this.#finish(input, unreadableRecord(slot.read.error), undefined, slot.raw, fanOut);
      const { call } = slot.read;
      const tool = tools[i];
      return this.#finish(input, processCall(call, tool, options, this.#unknownReason(call, tool)), tool, slot.raw, fanOut);
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
  #read(input: InputMessage): { ok: false; record: OutputRecord; raw: JsonValue | undefined } | { ok: true; message: boolean; calls: readonly CallSlot[] } {
    if (input.value === null) {
      return { ok: false, record: unreadableRecord({ code: 'record_not_json', message: 'The record has no value (a tombstone).' }), raw: undefined };
    }
    const wire = unwrapWireFormat(input.value);
    if (!wire.ok) return { ok: false, record: unreadableRecord(wire.error), raw: undefined };
    const parsed = decodeRecordBytes(wire.payload, this.#config.pipeline.limits);
    if (!parsed.ok) return { ok: false, record: unreadableRecord(parsed.error), raw: undefined };
    const read = readCalls(parsed.value);
    if (!read.ok) return { ok: false, record: unreadableRecord(read.error), raw: parsed.value };
    return read;
  }

  #finish(input: InputMessage, record: OutputRecord, tool: CompiledTool | undefined, raw: JsonValue | undefined, fanOut: FanOut | undefined): OutputMessage {
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
      this.#log.error({ tool: this.#metrics.toolLabel(name, false), err: describeError(error) }, 'schema lookup failed on this tool name: the call is rejected as a call to an unknown tool');
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
 * the end of the batch: prom-client hashes and validates the labels on every `inc`, which cost ~2 µs per record
 * (a call, its repairs and pass-throughs) when done per record. Same series, same values, once per batch.
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

/**
 * Most bytes (keys, values, headers) put in one produce request. A request carries one record batch per output
 * partition, and the broker refuses a batch over its message.max.bytes (1 MiB by default). Outputs are ~2.3
 * times their input, so one full fetch (kafkajs's maxBytesPerPartition, 1 MiB) becomes ~2.4 MiB of output, all
 * of it in one batch when the output topic has one partition (or the keys hash alike): MESSAGE_TOO_LARGE, the
 * transaction aborts, and the worker crashes on the same batch after every restart. Half a MiB per request keeps
 * every batch under the default whatever the partitioning; the requests of one input batch still go in one
 * transaction (exactly-once) or before one offset commit (at-least-once), in order.
 */
export const MAX_REQUEST_BYTES = 512 * 1024;

/** The outputs grouped by topic, in order, split into produce requests of at most {@link MAX_REQUEST_BYTES}. */
export function produceRequests(outputs: readonly OutputMessage[], maxBytes = MAX_REQUEST_BYTES): TopicMessages[][] {
  const requests: TopicMessages[][] = [];
  let byTopic = new Map<string, TopicMessages>();
  let bytes = 0;
  for (const out of outputs) {
    const size = byteSize(out.key) + byteSize(out.value) + headersSize(out.headers);
    if (bytes > 0 && bytes + size > maxBytes) {
      requests.push([...byTopic.values()]);
      byTopic = new Map();
      bytes = 0;
    }
    bytes += size;
    let entry = byTopic.get(out.topic);
    if (entry === undefined) {
      entry = { topic: out.topic, messages: [] };
      byTopic.set(out.topic, entry);
    }
    entry.messages.push({ key: out.key, value: out.value, headers: out.headers });
  }
  if (byTopic.size > 0) requests.push([...byTopic.values()]);
  return requests;
}

function byteSize(value: Buffer | string | null): number {
  return value === null ? 0 : typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}

function headersSize(headers: OutputMessage['headers']): number {
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    size += name.length;
    if (Array.isArray(value)) for (const v of value) size += byteSize(v);
    else if (value !== undefined) size += byteSize(value);
  }
  return size;
}

/**
 * Takes ownership of an input partition's transactional id (`<prefix>-<topic>-<partition>`) with a new producer,
 * then reads the group's committed offset for the partition: where to resume. Initialising the producer id
 * (InitProducerId, sent by an empty transaction) fences any previous owner and waits out its open transaction,
 * so the offset read after it is final. kafkajs initialises a producer id once per producer: every claim needs a
 * new one. Exported so that the benchmark's pass-through pipe claims exactly as the worker does.
 */
export async function claimPartition(
  kafka: Kafka,
  admin: Admin,
  ids: { readonly groupId: string; readonly transactionalIdPrefix: string },
  topic: string,
  partition: number,
): Promise<{ producer: Producer; from: bigint }> {
  const producer = kafka.producer({
    transactionalId: `${ids.transactionalIdPrefix}-${topic}-${partition}`,
    idempotent: true,
    maxInFlightRequests: 1,
    transactionTimeout: 60_000,
    // Murmur2 on the key, as the Java client does: the same key lands on the same output partition.
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  try {
    await producer.connect();
    const claim = await producer.transaction();
    await claim.abort();
    const offsets = await admin.fetchOffsets({ groupId: ids.groupId, topics: [topic] });
    const committed = BigInt(offsets[0]?.partitions.find((p) => p.partition === partition)?.offset ?? '-1');
    return { producer, from: committed < 0n ? 0n : committed };
  } catch (error) {
    await producer.disconnect().catch(() => undefined);
    throw error;
  }
}

/**
 * One input batch's outputs and its consumed offset (`next`, the first offset not consumed) in one transaction:
 * committed together, or aborted (and the error rethrown) together. Exported for the benchmark's pipe, as
 * {@link claimPartition}.
 */
export async function commitInTransaction(producer: Producer, groupId: string, topic: string, partition: number, requests: readonly TopicMessages[][], next: string): Promise<void> {
  const transaction = await producer.transaction();
  try {
    for (const topicMessages of requests) await transaction.sendBatch({ topicMessages, acks: -1 });
    await withConcurrentTransactionRetry(() => transaction.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition, offset: next }] }] }));
    await transaction.commit();
  } catch (error) {
    await transaction.abort().catch(() => undefined);
    throw error;
  }
}

/** kafkajs does not retry CONCURRENT_TRANSACTIONS from AddOffsetsToTxn (kafkajs issue #430). */
async function withConcurrentTransactionRetry(action: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await action();
      return;
    } catch (error) {
      const type = (error as { type?: unknown }).type;
      if (type !== 'CONCURRENT_TRANSACTIONS' || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** Math.min(attempt, 5)));
    }
  }
}

/**
 * How many failed deliveries in a row answered only OPERATION_NOT_ATTEMPTED before the worker reads it as a
 * refusal. A transaction's AddPartitionsToTxn answers TOPIC_AUTHORIZATION_FAILED for the partitions refused and
 * OPERATION_NOT_ATTEMPTED for all the others, and kafkajs throws whichever it reads first, so under a DENY the
 * worker often sees only the latter. But the same answer also follows a transient error of another partition
 * (one just added to an output topic, say), which the next attempt does not meet. Three attempts in a row, about
 * two seconds with kafkajs's retry back-off, tell the two apart.
 */
export const NOT_ATTEMPTED_LIMIT = 3;

/**
 * Why a failed delivery is the output topics refusing this principal, or undefined when it is not (yet) one.
 * `types`: the Kafka error types of the failure and its causes; `notAttemptedInARow`: failed deliveries in a row,
 * this one included, whose answer was OPERATION_NOT_ATTEMPTED.
 */
export function outputRefusal(types: readonly string[], notAttemptedInARow: number): string | undefined {
  if (types.includes('TOPIC_AUTHORIZATION_FAILED')) return 'TOPIC_AUTHORIZATION_FAILED';
  if (types.includes('OPERATION_NOT_ATTEMPTED') && notAttemptedInARow >= NOT_ATTEMPTED_LIMIT) {
    return `OPERATION_NOT_ATTEMPTED on ${String(notAttemptedInARow)} deliveries in a row: another partition of each transaction was refused`;
  }
  return undefined;
}

/**
 * kafkajs marks OPERATION_NOT_ATTEMPTED not retriable: thrown from a batch as it is, the consumer crashes for good
 * on the first one, transient or not. Rethrown as an error kafkajs retries, the batch is fetched and delivered
 * again, and {@link outputRefusal} decides when the repeats are a refusal.
 */
function retriableIfNotAttempted(error: unknown, types: readonly string[]): unknown {
  if (!types.includes('OPERATION_NOT_ATTEMPTED') || types.includes('TOPIC_AUTHORIZATION_FAILED')) return error;
  const message = error instanceof Error ? error.message : String(error);
  // No `cause`: kafkajs judges a crash by the innermost cause's `retriable`, which is false here.
  return Object.assign(new Error(`delivery not attempted by the broker, will retry: ${message}`), { retriable: true, type: 'OPERATION_NOT_ATTEMPTED' });
}

/** The kafkajs error types (`UNKNOWN_TOPIC_OR_PARTITION`...) of an error and its causes. */
function errorTypes(error: unknown): string[] {
  const types: string[] = [];
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { type, cause } = e as { type?: unknown; cause?: unknown };
    if (typeof type === 'string') types.push(type);
    e = cause;
  }
  return types;
}

export function describeError(error: unknown): { name: string; message: string; type?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' ? { name: error.name, message: error.message, type } : { name: error.name, message: error.message };
}
