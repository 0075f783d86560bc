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
 */
import { Partitioners, type Admin, type Consumer, type EachBatchPayload, type Kafka, type KafkaMessage, type Producer, type TopicMessages } from 'kafkajs';
import type { Logger } from 'pino';
import { RegistryUnavailableError, RegistryError, type ToolSchemaSource } from '../adapters/registry.js';
import type { WorkerMetrics } from '../adapters/metrics.js';
import type { WorkerConfig } from '../config/config.js';
import type { JsonValue } from '../core/json.js';
import { buildOutputMessage, type InputMessage, type OutputMessage } from '../core/output.js';
import { processCall, readCall, unreadableRecord } from '../core/pipeline.js';
import { decodeRecordBytes } from '../core/record.js';
import type { CompiledTool } from '../core/tool.js';
import type { OutputRecord } from '../core/types.js';
import { unwrapWireFormat } from '../core/wire.js';

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
      // Every partition is claimed again in a new generation: another worker may have owned it meanwhile.
      state.claimedFrom = undefined;
      if (!assigned.has(key)) {
        this.#partitions.delete(key);
        void state.producer?.disconnect().catch(() => undefined);
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
        const output = await this.#process(topic, partition, message);
        if (output === WAIT) {
          blocked = true;
          break;
        }
        outputs.push(output);
        last = message;
      }
      if (last !== undefined) {
        await this.#deliver(topic, partition, state, outputs, last.offset);
        payload.resolveOffset(last.offset);
        state.backoffMs = 0;
      }
    } finally {
      this.#metrics.inFlight.dec(messages.length);
      timer();
    }
    await payload.heartbeat();
    if (blocked) this.#waitForSchema(topic, partition, state, () => payload.pause());
  }

  /**
   * Takes ownership of a partition's transactional id (fencing any previous owner and waiting for its open
   * transaction to finish), then reads the group's committed offset for the partition.
   */
  async #claim(topic: string, partition: number, state: PartitionState): Promise<bigint> {
    if (state.claimedFrom !== undefined && state.producer !== undefined) return state.claimedFrom;
    if (state.producer === undefined) {
      state.producer = this.#kafka.producer({
        transactionalId: `${this.#config.transactionalIdPrefix}-${topic}-${partition}`,
        idempotent: true,
        maxInFlightRequests: 1,
        transactionTimeout: 60_000,
        // Murmur2 on the key, as the Java client does: the same key lands on the same output partition.
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await state.producer.connect();
    }
    // An empty transaction initialises the producer id (InitProducerId) without writing anything.
    const claim = await state.producer.transaction();
    await claim.abort();
    const offsets = await this.#admin.fetchOffsets({ groupId: this.#config.groupId, topics: [topic] });
    const committed = offsets[0]?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
    state.claimedFrom = BigInt(committed) < 0n ? 0n : BigInt(committed);
    this.#log.debug({ topic, partition, from: state.claimedFrom.toString() }, 'partition claimed');
    return state.claimedFrom;
  }

  async #deliver(topic: string, partition: number, state: PartitionState, outputs: OutputMessage[], lastOffset: string): Promise<void> {
    const topicMessages = groupByTopic(outputs);
    const next = (BigInt(lastOffset) + 1n).toString();
    if (this.#config.delivery === 'at-least-once') {
      const producer = this.#sharedProducer;
      if (producer === undefined) throw new Error('at-least-once producer not started');
      if (topicMessages.length > 0) await producer.sendBatch({ topicMessages, acks: -1 });
      await this.#consumer.commitOffsets([{ topic, partition, offset: next }]);
      this.#metrics.transactions.inc({ result: 'committed' });
      return;
    }
    const producer = state.producer;
    if (producer === undefined) throw new Error(`partition ${topic}:${partition} not claimed`);
    const transaction = await producer.transaction();
    try {
      if (topicMessages.length > 0) await transaction.sendBatch({ topicMessages, acks: -1 });
      await withConcurrentTransactionRetry(() =>
        transaction.sendOffsets({ consumerGroupId: this.#config.groupId, topics: [{ topic, partitions: [{ partition, offset: next }] }] }),
      );
      await transaction.commit();
      state.claimedFrom = BigInt(next);
      this.#metrics.transactions.inc({ result: 'committed' });
    } catch (error) {
      this.#metrics.transactions.inc({ result: 'aborted' });
      await transaction.abort().catch(() => undefined);
      // The producer may be fenced (another worker took the partition) or broken: start over with a new one
      // and a fresh claim. kafkajs retries the batch from the last resolved offset.
      state.producer = undefined;
      state.claimedFrom = undefined;
      void producer.disconnect().catch(() => undefined);
      this.#log.warn({ topic, partition, err: describeError(error) }, 'transaction aborted; the batch will be retried');
      throw error;
    }
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

  async #process(topic: string, partition: number, message: KafkaMessage): Promise<OutputMessage | typeof WAIT> {
    const input: InputMessage = {
      key: message.key,
      value: message.value,
      headers: (message.headers ?? {}),
      source: { topic, partition, offset: message.offset },
    };
    const started = process.hrtime.bigint();
    const outcome = await this.#evaluate(input);
    if (outcome === WAIT) return WAIT;
    const { record, tool, raw } = outcome;
    this.#metrics.processingSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    this.#metrics.record(record, tool !== undefined);
    return buildOutputMessage(input, record, tool?.identity, raw, this.#config.topics);
  }

  async #evaluate(input: InputMessage): Promise<{ record: OutputRecord; tool: CompiledTool | undefined; raw: JsonValue | undefined } | typeof WAIT> {
    const options = this.#config.pipeline;
    if (input.value === null) {
      return { record: unreadableRecord({ code: 'record_not_json', message: 'The record has no value (a tombstone).' }), tool: undefined, raw: undefined };
    }
    const wire = unwrapWireFormat(input.value);
    if (!wire.ok) return { record: unreadableRecord(wire.error), tool: undefined, raw: undefined };
    const parsed = decodeRecordBytes(wire.payload, options.limits);
    if (!parsed.ok) return { record: unreadableRecord(parsed.error), tool: undefined, raw: undefined };
    const read = readCall(parsed.value);
    if (!read.ok) return { record: unreadableRecord(read.error), tool: undefined, raw: parsed.value };
    const tool = await this.#lookup(read.call.tool, read.call.schemaVersion);
    if (tool === WAIT) return WAIT;
    return { record: processCall(read.call, tool, options), tool, raw: parsed.value };
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
      throw error;
    }
  }
}

function groupByTopic(outputs: readonly OutputMessage[]): TopicMessages[] {
  const byTopic = new Map<string, TopicMessages>();
  for (const out of outputs) {
    let entry = byTopic.get(out.topic);
    if (entry === undefined) {
      entry = { topic: out.topic, messages: [] };
      byTopic.set(out.topic, entry);
    }
    entry.messages.push({ key: out.key, value: out.value, headers: out.headers });
  }
  return [...byTopic.values()];
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

export function describeError(error: unknown): { name: string; message: string; type?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' ? { name: error.name, message: error.message, type } : { name: error.name, message: error.message };
}
