/**
 * The port on kafkajs 2.2.4 (docs/worker.md "Delivery guarantees").
 *
 * - exactly-once: each fetched batch of one input partition is published in one transaction together with its
 *   consumed offset. kafkajs has no KIP-447 fencing by consumer-group generation (its TxnOffsetCommit stops at
 *   v1), so fencing is by transactional id: one transactional producer per input partition, id
 *   `<prefix>-<topic>-<partition>`. Taking a partition over initialises that id, which aborts (or waits out) the
 *   previous owner's open transaction and fences it; only then is the committed offset read, and anything below
 *   it that the consumer fetched from a stale position is skipped.
 * - at-least-once: one idempotent producer; offsets are committed after the batch's messages are acknowledged.
 * A partition held for a schema is paused (kafkajs pauses per partition) and resumed after the hold.
 */
import {
  type Admin,
  type CompressionTypes,
  type Consumer,
  type EachBatchPayload,
  type ICustomPartitioner,
  type Kafka,
  type Message,
  type Producer,
  type TopicMessages,
} from 'kafkajs';
import type { Logger } from 'pino';
import type { OutputMessage } from '../../core/records/output.js';
import { describeError, ensureTopics, errorTypes, headerBytes, murmur2, OutputGuard, splitRequests } from './delivery.js';
import { KAFKAJS_COMPRESSION } from './compression.js';
import { kafkajsHeaders } from './headers.js';
import { BACKOFF_POLICIES, retry } from '../shared/retry.js';
import type { BatchResult, DeliveryObserver, InputRecord, KafkaStream, StreamHandler, StreamOptions } from './port.js';

interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  producer: Producer | undefined;
  /** The committed offset read after claiming the partition in this generation; undefined until claimed. */
  claimedFrom: bigint | undefined;
  resumeTimer: NodeJS.Timeout | undefined;
  /** A commit past transaction markers in flight ({@link KafkajsStream#commitPastMarkers}); a batch waits for it. */
  markers: Promise<void> | undefined;
}

export class KafkajsStream implements KafkaStream {
  readonly client = 'kafkajs' as const;
  readonly #options: StreamOptions;
  readonly #kafka: Kafka;
  readonly #observer: DeliveryObserver;
  readonly #log: Logger;
  readonly #consumer: Consumer;
  readonly #admin: Admin;
  readonly #guard: OutputGuard;
  readonly #compression: CompressionTypes;
  #sharedProducer: Producer | undefined;
  readonly #partitions = new Map<string, PartitionState>();
  #handler: StreamHandler | undefined;
  #joined = false;
  #stopping = false;

  constructor(deps: { options: StreamOptions; kafka: Kafka; observer: DeliveryObserver; logger: Logger }) {
    this.#options = deps.options;
    this.#kafka = deps.kafka;
    this.#observer = deps.observer;
    this.#log = deps.logger;
    this.#compression = KAFKAJS_COMPRESSION[this.#options.compression];
    this.#admin = this.#kafka.admin();
    const { topics } = this.#options;
    this.#guard = new OutputGuard([topics.output, topics.rejected, topics.dlq], () => this.#admin.listTopics(), this.#log);
    this.#consumer = this.#kafka.consumer({
      groupId: this.#options.groupId,
      // Read only committed input: an upstream transactional producer's aborted records are never processed.
      readUncommitted: false,
      allowAutoTopicCreation: false,
      sessionTimeout: this.#options.sessionTimeoutMs,
      // kafkajs wants heartbeats well inside the session timeout; a tenth leaves room for slow batches.
      heartbeatInterval: Math.max(1_000, Math.floor(this.#options.sessionTimeoutMs / 10)),
      maxWaitTimeInMs: this.#options.fetchMaxWaitMs,
      retry: { retries: 8 },
    });
    this.#consumer.on(this.#consumer.events.GROUP_JOIN, (event) => {
      this.#joined = true;
      this.#onAssignment(event.payload.memberAssignment);
    });
    this.#consumer.on(this.#consumer.events.CRASH, (event) => {
      const { error, restart } = event.payload;
      this.#joined = false;
      // A crash kafkajs restarts from by itself (no broker reachable while a sign-in is refused, say) is a warning;
      // one it gives up on stops the worker.
      if (restart) this.#log.warn({ err: describeError(error), restart }, 'consumer crashed');
      else this.#log.error({ err: describeError(error), restart }, 'consumer crashed');
      if (!restart && !this.#stopping) this.#handler?.fatal(error, error.message);
    });
    // A fetch that brings a partition only markers or aborted records reaches no eachBatch: kafkajs moves past them
    // without a commit (autoCommit is off), which would leave them as lag for good. Its batch event still comes.
    this.#consumer.on(this.#consumer.events.START_BATCH_PROCESS, (event) => {
      const { topic, partition, batchSize, lastOffset } = event.payload;
      const firstOffset = event.payload.firstOffset as string | null;
      if (batchSize === 0 && firstOffset !== null && !this.#stopping)
        this.#commitPastMarkers(topic, partition, BigInt(firstOffset), BigInt(lastOffset) + 1n);
    });
    this.#consumer.on(this.#consumer.events.STOP, () => {
      this.#joined = false;
      this.#handler?.assigned([]);
    });
  }

  joined(): boolean {
    return this.#joined;
  }

  async start(handler: StreamHandler): Promise<void> {
    this.#handler = handler;
    await this.#admin.connect();
    await ensureTopics(
      this.#options,
      () => this.#admin.listTopics(),
      (missing) => this.#admin.createTopics({ topics: missing.map((topic) => ({ topic })), waitForLeaders: true }).then(() => undefined),
      this.#log,
    );
    if (this.#options.delivery === 'at-least-once') {
      this.#sharedProducer = this.#kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: javaCompatiblePartitioner,
      });
      await this.#sharedProducer.connect();
    }
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [this.#options.topics.input], fromBeginning: true });
    await this.#consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.#onBatch(payload, handler),
    });
  }

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

  #onAssignment(assignment: Record<string, number[]>): void {
    const assigned = new Set<string>();
    const list: { topic: string; partition: number }[] = [];
    for (const [topic, partitions] of Object.entries(assignment)) {
      for (const partition of partitions) {
        assigned.add(`${topic}:${partition}`);
        list.push({ topic, partition });
      }
    }
    for (const [key, state] of this.#partitions) {
      // A pending resume timer is left to fire: kafkajs keeps a partition paused across rebalances.
      // Every partition is claimed again in a new generation, with a new producer even when this worker keeps
      // it: kafkajs initialises a producer id (InitProducerId) once per producer, so only a new one fences and
      // waits out the transaction of whoever owned the partition meanwhile.
      state.claimedFrom = undefined;
      void state.producer?.disconnect().catch(() => undefined);
      state.producer = undefined;
      if (!assigned.has(key)) {
        this.#partitions.delete(key);
        this.#observer.forgetPartition(state.topic, state.partition);
      }
    }
    this.#handler?.assigned(list);
    this.#log.info({ assignment }, 'partitions assigned');
  }

  #state(topic: string, partition: number): PartitionState {
    const key = `${topic}:${partition}`;
    let state = this.#partitions.get(key);
    if (state === undefined) {
      state = { topic, partition, producer: undefined, claimedFrom: undefined, resumeTimer: undefined, markers: undefined };
      this.#partitions.set(key, state);
    }
    return state;
  }

  async #onBatch(payload: EachBatchPayload, handler: StreamHandler): Promise<void> {
    const { batch } = payload;
    const { topic, partition } = batch;
    if (batch.messages.length === 0) return;
    const state = this.#state(topic, partition);
    if (state.markers !== undefined) await state.markers;
    let messages = batch.messages;
    if (this.#options.delivery === 'exactly-once') {
      const from = await this.#claim(topic, partition, state);
      // A batch is in offset order: only one that starts below the claimed offset needs a filter.
      if (BigInt(messages[0]?.offset ?? from) < from) messages = messages.filter((m) => BigInt(m.offset) >= from);
      // Already committed by a previous owner: mark as consumed without producing anything again.
      if (messages.length === 0) {
        payload.resolveOffset(batch.lastOffset());
        return;
      }
    }
    const records: InputRecord[] = messages.map((m) => ({
      key: m.key,
      value: m.value,
      headers: kafkajsHeaders(m.headers),
      offset: m.offset,
    }));
    const timer = this.#observer.batchTimer();
    this.#observer.inFlight(records.length);
    let delivered: BatchResult | undefined;
    let holdMs: number | undefined;
    try {
      const control = { isLive: () => payload.isRunning() && !payload.isStale(), heartbeat: () => payload.heartbeat() };
      const result = await handler.process({ topic, partition, records, lag: Number(batch.offsetLag()) }, control);
      holdMs = result.holdMs;
      if (result.lastOffset !== undefined) {
        // The whole batch handled: its offset goes past the markers and aborted records after its last record.
        const end = result.lastOffset === messages.at(-1)?.offset ? laterOffset(result.lastOffset, batch.lastOffset()) : result.lastOffset;
        const next = (BigInt(end) + 1n).toString();
        try {
          await this.#deliver(topic, partition, state, result.outputs, next, (offset) =>
            payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset }] }] }),
          );
        } catch (error) {
          const written = [...new Set(result.outputs.map((o) => o.topic))];
          const stopped =
            this.#stopping ||
            (await this.#stopIfOutputUnavailable(error, written, topic, partition, records[0]?.offset ?? result.lastOffset));
          // Once stopping, as kafkajs threw it: a retry would only fetch the batch again for nothing.
          throw stopped ? error : forKafkajsRunner(error, errorTypes(error));
        }
        this.#guard.delivered();
        payload.resolveOffset(end);
      }
      delivered = result;
    } finally {
      handler.settled(delivered === undefined ? [] : [delivered]);
      this.#observer.inFlight(-records.length);
      timer();
    }
    // Paused before the heartbeat, which throws when the group rebalances: the hold is never skipped.
    if (holdMs !== undefined) this.#hold(state, holdMs, () => payload.pause());
    await payload.heartbeat();
  }

  /**
   * Commits a partition past the markers and aborted records `first` to `next - 1` that kafkajs filtered out of a
   * fetch, once whatever came before them is committed: in a transaction of offsets only (exactly-once), or a plain
   * commit. Queued behind the partition's previous one; a failure is left to the next batch's commit.
   */
  #commitPastMarkers(topic: string, partition: number, first: bigint, next: bigint): void {
    const state = this.#state(topic, partition);
    const commit = async (): Promise<void> => {
      if (this.#stopping) return;
      if (this.#options.delivery === 'at-least-once') {
        await this.#consumer.commitOffsets([{ topic, partition, offset: next.toString() }]);
        return;
      }
      const from = await this.#claim(topic, partition, state);
      if (from < first || from >= next) return;
      await this.#deliver(topic, partition, state, [], next.toString(), () => Promise.resolve());
    };
    const queued = (state.markers ?? Promise.resolve()).then(commit).catch((error: unknown) => {
      this.#log.debug(
        { topic, partition, err: describeError(error) },
        'commit past transaction markers failed; the next batch commits past them',
      );
    });
    state.markers = queued;
    void queued.finally(() => {
      if (state.markers === queued) state.markers = undefined;
    });
  }

  /** The offset to resume the partition from, claiming it first in this generation ({@link claimPartition}). */
  async #claim(topic: string, partition: number, state: PartitionState): Promise<bigint> {
    if (state.claimedFrom !== undefined && state.producer !== undefined) return state.claimedFrom;
    const claimed = await claimPartition(this.#kafka, this.#admin, this.#options, topic, partition);
    state.producer = claimed.producer;
    state.claimedFrom = claimed.from;
    this.#log.debug({ topic, partition, from: claimed.from.toString() }, 'partition claimed');
    return claimed.from;
  }

  /**
   * Publishes a batch's outputs and commits `next` (the first offset not consumed): in one transaction
   * (exactly-once), or produce then `commit` (at-least-once). `commit` is the batch's own commit: the consumer's
   * `commitOffsets` does nothing once `stop()` began, which would leave the batch in hand uncommitted on every SIGTERM.
   */
  async #deliver(
    topic: string,
    partition: number,
    state: PartitionState,
    outputs: readonly OutputMessage[],
    next: string,
    commit: (offset: string) => Promise<void>,
  ): Promise<void> {
    const requests = produceRequests(outputs);
    if (this.#options.delivery === 'at-least-once') {
      const producer = this.#sharedProducer;
      if (producer === undefined) throw new Error('at-least-once producer not started');
      for (const topicMessages of requests) await producer.sendBatch({ topicMessages, acks: -1, compression: this.#compression });
      await commit(next);
      this.#observer.transaction('committed');
      return;
    }
    const producer = state.producer;
    if (producer === undefined) throw new Error(`partition ${topic}:${partition} not claimed`);
    try {
      await commitInTransaction(producer, this.#options.groupId, topic, partition, requests, next, this.#compression);
      state.claimedFrom = BigInt(next);
      this.#observer.transaction('committed');
    } catch (error) {
      this.#observer.transaction('aborted');
      // The producer may be fenced (another worker took the partition) or broken: start over with a new one
      // and a fresh claim. kafkajs retries the batch from the last resolved offset.
      state.producer = undefined;
      state.claimedFrom = undefined;
      void producer.disconnect().catch(() => undefined);
      this.#log.warn({ topic, partition, err: describeError(error) }, 'transaction aborted; the batch will be retried');
      throw error;
    }
  }

  async #stopIfOutputUnavailable(
    error: unknown,
    written: readonly string[],
    topic: string,
    partition: number,
    fromOffset: string,
  ): Promise<boolean> {
    const message = await this.#guard.check(error, written, [{ topic, partition, offset: fromOffset }]);
    if (message === undefined) return false;
    this.#handler?.fatal(new Error(message), message);
    return true;
  }

  /** Pauses the partition and resumes it after `holdMs`; the blocked record is fetched again. */
  #hold(state: PartitionState, holdMs: number, pause: () => () => void): void {
    const resume = pause();
    clearTimeout(state.resumeTimer);
    state.resumeTimer = setTimeout(() => {
      state.resumeTimer = undefined;
      if (!this.#stopping) resume();
    }, holdMs);
  }
}

/** The later of two offsets, as kafkajs writes them (decimal strings). */
function laterOffset(a: string, b: string): string {
  return BigInt(b) > BigInt(a) ? b : a;
}

/**
 * kafkajs's DefaultPartitioner, the same partition for every record: murmur2 of the key as the Java client
 * hashes it, or round robin over the partitions with a leader for a record without a key. kafkajs's own computes
 * the hash with a Long object per step and filters the partition list per record; this one allocates nothing for
 * a keyed record. Exported for the benchmark's pipe.
 */
export const javaCompatiblePartitioner: ICustomPartitioner = () => {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }) => {
    if (message.partition !== undefined) return message.partition;
    const partitions = partitionMetadata.length;
    if (message.key !== undefined && message.key !== null) {
      const key = typeof message.key === 'string' ? Buffer.from(message.key) : message.key;
      return (murmur2(key) & 0x7fffffff) % partitions;
    }
    const next = (counters.get(topic) ?? Math.floor(Math.random() * 2 ** 31)) + 1;
    counters.set(topic, next);
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    return available.length > 0 ? (available[next % available.length]?.partitionId ?? 0) : next % partitions;
  };
};

/** One output as kafkajs is handed it, with its size. */
interface Outgoing {
  readonly topic: string;
  readonly message: Message;
  readonly bytes: number;
}

/**
 * The outputs grouped by topic, in order, split into produce requests of at most MAX_REQUEST_BYTES. Values go to
 * the client as bytes, encoded here once: kafkajs sizes and writes a text value twice over, and the split needs
 * the size too.
 */
export function produceRequests(outputs: readonly OutputMessage[], maxBytes?: number): TopicMessages[][] {
  const outgoing = outputs.map((out): Outgoing => {
    const value = typeof out.value === 'string' ? Buffer.from(out.value) : out.value;
    const bytes = (out.key?.length ?? 0) + (value?.length ?? 0) + headerBytes(out.headers);
    return { topic: out.topic, message: { key: out.key, value, headers: out.headers }, bytes };
  });
  return splitRequests(outgoing, (o) => o.bytes, maxBytes).map((request) => {
    const byTopic = new Map<string, TopicMessages>();
    for (const { topic, message } of request) {
      let entry = byTopic.get(topic);
      if (entry === undefined) {
        entry = { topic, messages: [] };
        byTopic.set(topic, entry);
      }
      entry.messages.push(message);
    }
    return [...byTopic.values()];
  });
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
    createPartitioner: javaCompatiblePartitioner,
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
 * committed together, or aborted (and the error rethrown) together. Exported for the benchmark's pipe.
 */
export async function commitInTransaction(
  producer: Producer,
  groupId: string,
  topic: string,
  partition: number,
  requests: readonly TopicMessages[][],
  next: string,
  compression: CompressionTypes = KAFKAJS_COMPRESSION.none,
): Promise<void> {
  const transaction = await producer.transaction();
  try {
    for (const topicMessages of requests) await transaction.sendBatch({ topicMessages, acks: -1, compression });
    await withConcurrentTransactionRetry(() =>
      transaction.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition, offset: next }] }] }),
    );
    await transaction.commit();
  } catch (error) {
    await transaction.abort().catch(() => undefined);
    throw error;
  }
}

/** kafkajs does not retry CONCURRENT_TRANSACTIONS from AddOffsetsToTxn (kafkajs issue #430). */
async function withConcurrentTransactionRetry(action: () => Promise<void>): Promise<void> {
  await retry<undefined, unknown>(
    async () => {
      try {
        await action();
        return { done: true, value: undefined };
      } catch (error) {
        if ((error as { type?: unknown }).type !== 'CONCURRENT_TRANSACTIONS') throw error;
        return { done: false, failure: error };
      }
    },
    {
      policy: BACKOFF_POLICIES.concurrentTransactions,
      maxRetries: 10,
      giveUp: (failure) => (failure instanceof Error ? failure : new Error(String(failure))),
    },
  );
}

/** Producer answers for a transactional id that is no longer this worker's: another owns it, or it expired. */
const FENCED_TYPES = ['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED', 'INVALID_PRODUCER_ID_MAPPING'];

/**
 * A delivery failure as kafkajs's runner should act on it. kafkajs marks a fenced producer's answer and
 * OPERATION_NOT_ATTEMPTED not retriable: thrown from a batch as they are, the consumer crashes for good.
 * - Fenced: typed as a rebalance, so the runner rejoins the group before it fetches again. The partition is claimed
 *   again only if the new generation gives it back, never fenced back from its new owner within the old one.
 * - Not attempted: retriable, so the batch is fetched and delivered again, and the output guard decides when the
 *   repeats are a refusal.
 */
export function forKafkajsRunner(error: unknown, types: readonly string[]): unknown {
  const message = error instanceof Error ? error.message : String(error);
  // No `cause` on either: kafkajs judges a crash by the innermost cause's `retriable`, which is false in both.
  if (types.some((type) => FENCED_TYPES.includes(type)) && !types.includes('TRANSACTIONAL_ID_AUTHORIZATION_FAILED'))
    return Object.assign(new Error(`producer fenced, the partition is given up and the group rejoined: ${message}`), {
      retriable: true,
      type: 'REBALANCE_IN_PROGRESS',
    });
  if (!types.includes('OPERATION_NOT_ATTEMPTED') || types.includes('TOPIC_AUTHORIZATION_FAILED')) return error;
  return Object.assign(new Error(`delivery not attempted by the broker, will retry: ${message}`), {
    retriable: true,
    type: 'OPERATION_NOT_ATTEMPTED',
  });
}
