/**
 * The port on @platformatic/kafka 2.x (docs/worker.md "Delivery guarantees", "Choosing a client").
 *
 * - exactly-once (KIP-447): one transactional producer per worker, id `<prefix>-<workerId>`. What one read of the
 *   stream brings, all partitions together, is published in one transaction with each partition's consumed offset,
 *   committed through TxnOffsetCommit with the consumer group's generation and member id, so a member the group
 *   has moved past (a zombie) cannot commit: its transaction fails (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID) and is
 *   aborted. A partition is claimed once per generation by reading its committed offset with `requireStable`: the
 *   broker answers UNSTABLE_OFFSET_COMMIT while a transaction holding offsets for it is open (a zombie's, or a
 *   killed worker's until its transaction times out), so the read waits that out; records below the offset (the
 *   stream reads committed offsets without waiting) are skipped.
 * - at-least-once: one idempotent producer; offsets are committed after the records are acknowledged.
 *
 * The roles live beside this file: reading (platformatic-fetch.ts), claims (platformatic-claims.ts), lag polling
 * (platformatic-lag.ts), holds (platformatic-holds.ts), delivery (platformatic-delivery.ts), failure
 * classification (platformatic-failures.ts), the clients' options (platformatic-client.ts). This file is the group
 * membership and the loop that ties them together.
 *
 * The client has no seek and no per-partition pause. A new stream is the seek: at every new generation, after a
 * failed delivery and when a held partition's hold ends, the worker opens a new stream (which starts at the
 * committed offsets) before closing the old one, whose records are dropped. A partition held for a schema has its
 * records dropped until then; when every partition is held, nothing is read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, Consumer, type BaseOptions } from '@platformatic/kafka';
import type { Logger } from 'pino';
import type { OutputMessage } from '../../core/records/output.js';
import { BACKOFF_POLICIES, backoffDelay } from '../shared/retry.js';
import type { KafkaConnectionOptions } from './client.js';
import { describeError, ensureTopics, OutputGuard } from './delivery.js';
import { claimPartition, type PartitionState } from './platformatic-claims.js';
import { platformaticBaseOptions, within } from './platformatic-client.js';
import { PlatformaticDelivery, type CommitPoint } from './platformatic-delivery.js';
import { connectionRefusal, fencedFailure } from './platformatic-failures.js';
import {
  byPartition,
  consumeOptions,
  heartbeatInterval,
  inputRecord,
  MAX_RECORDS_PER_READ,
  readUpTo,
  stampedBy,
  type InMessage,
  type InStream,
} from './platformatic-fetch.js';
import { Holds } from './platformatic-holds.js';
import { LagPoller } from './platformatic-lag.js';
import { markerSkips } from './platformatic-markers.js';
import type { BatchResult, DeliveryObserver, KafkaStream, StreamHandler, StreamOptions, TopicPartition } from './port.js';

/** A ConsumerGroupHeartbeat answer (KIP-848), as the client decodes it. */
interface GroupHeartbeatAnswer {
  readonly memberId?: string | null;
  readonly memberEpoch: number;
  readonly assignment?: {
    readonly topicPartitions: readonly { readonly topicId: string; readonly partitions: readonly number[] }[];
  } | null;
}

/**
 * Hands every ConsumerGroupHeartbeat answer to `onAnswer`. Under the consumer protocol the client keeps the member
 * epoch to itself and stamps records with generation 0, and a transaction's offsets must be committed with the
 * member epoch (the broker refuses any other as STALE_MEMBER_EPOCH): the answers are where the epoch, and the
 * assignment it goes with, can be read. False when the client's internals are not where 2.x keeps them.
 */
export function watchGroupHeartbeats(consumer: object, onAnswer: (answer: GroupHeartbeatAnswer) => void): boolean {
  let key: symbol | undefined;
  for (let proto: object | null = consumer; proto !== null && key === undefined; proto = Object.getPrototypeOf(proto) as object | null)
    key = Object.getOwnPropertySymbols(proto).find((s) => s.description === 'plt.kafka.base.getApi');
  const getApi: unknown = key === undefined ? undefined : Reflect.get(consumer, key);
  if (key === undefined || typeof getApi !== 'function') return false;
  type Callback = (error: unknown, value?: unknown) => void;
  Object.defineProperty(consumer, key, {
    configurable: true,
    value: (name: string, callback: Callback) => {
      (getApi as (name: string, callback: Callback) => void).call(consumer, name, (error: unknown, api?: unknown) => {
        if (name !== 'ConsumerGroupHeartbeat' || typeof api !== 'function') {
          callback(error, api);
          return;
        }
        const wrapped = (...args: unknown[]): unknown => {
          const done = args.pop() as Callback;
          return (api as (...a: unknown[]) => unknown)(...args, (e: unknown, answer?: unknown) => {
            if (e === null || e === undefined) onAnswer(answer as GroupHeartbeatAnswer);
            done(e, answer);
          });
        };
        callback(error, Object.assign(wrapped, api));
      });
    },
  });
  return true;
}

export class PlatformaticStream implements KafkaStream {
  readonly client = 'platformatic' as const;
  readonly #options: StreamOptions;
  readonly #observer: DeliveryObserver;
  readonly #log: Logger;
  readonly #consumer: Consumer;
  readonly #delivery: PlatformaticDelivery;
  /**
   * The group generation and member id of the assignment `#partitions` reflect (the last join). A record's
   * offset is committed with the generation and member id the client stamped on it when it was fetched, and the
   * client stamps the consumer's current ones, updated at JoinGroup, before the new assignment is known: a record
   * stamped with any other than these is not delivered.
   */
  #member: { readonly generationId: number; readonly memberId: string } | undefined;
  readonly #admin: Admin;
  readonly #base: BaseOptions;
  readonly #guard: OutputGuard;
  readonly #partitions = new Map<string, PartitionState>();
  readonly #holds: Holds;
  readonly #lag: LagPoller;
  #stream: InStream | undefined;
  /** One past the last record read from the current stream, by `topic:partition`. */
  readonly #readTo = new Map<string, bigint>();
  /** Set when the stream must be opened again before the next read (a new generation, a failure, a hold's end). */
  #rebuild = false;
  #wake: (() => void) | undefined;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #handler: StreamHandler | undefined;
  /** KIP-848: the member epoch stands for the generation, and assignments come with heartbeat answers. */
  readonly #consumerProtocol: boolean;
  /** The input topic's id, which the consumer protocol's assignments name it by. */
  #inputTopicId: string | undefined;

  constructor(deps: { options: StreamOptions; connection: KafkaConnectionOptions; observer: DeliveryObserver; logger: Logger }) {
    this.#options = deps.options;
    this.#observer = deps.observer;
    this.#log = deps.logger;
    const base = platformaticBaseOptions(deps.connection);
    this.#base = base;
    const { sessionTimeoutMs } = this.#options;
    this.#consumerProtocol = this.#options.groupProtocol === 'consumer';
    const remoteAssignor = this.#options.groupRemoteAssignor;
    this.#consumer = new Consumer({
      ...base,
      groupId: this.#options.groupId,
      ...(this.#consumerProtocol ? { groupProtocol: 'consumer' as const } : {}),
      ...(this.#consumerProtocol && remoteAssignor !== undefined ? { groupRemoteAssignor: remoteAssignor } : {}),
      ...(this.#options.groupInstanceId === undefined ? {} : { groupInstanceId: this.#options.groupInstanceId }),
      sessionTimeout: sessionTimeoutMs,
      // Bounds how long a frozen or dead member can hold a rebalance: the session, and no more.
      rebalanceTimeout: sessionTimeoutMs,
      heartbeatInterval: heartbeatInterval(sessionTimeoutMs),
      autocommit: false,
    });
    this.#delivery = new PlatformaticDelivery({ options: this.#options, base, consumer: this.#consumer, log: this.#log });
    this.#admin = new Admin({ ...base });
    this.#holds = new Holds(this.#partitions, () => {
      // The held partitions' records were dropped: a new stream reads them again from the committed offset.
      if (!this.#stopping) this.#requestRebuild();
    });
    this.#lag = new LagPoller({
      partitions: this.#partitions,
      listOffsets: (request) => this.#consumer.listOffsets(request),
      observer: this.#observer,
      log: this.#log,
    });
    const { topics } = this.#options;
    this.#guard = new OutputGuard([topics.output, topics.rejected, topics.dlq], () => this.#admin.listTopics(), this.#log);
    this.#consumer.on(
      'consumer:group:join',
      (payload: { generationId?: number; memberId?: string | null; assignments?: { topic: string; partitions: number[] }[] }) => {
        // Under the consumer protocol the join carries no assignment: heartbeat answers do.
        if (!this.#consumerProtocol) this.#onAssignment(payload.generationId, payload.memberId ?? undefined, payload.assignments ?? []);
      },
    );
    if (
      this.#consumerProtocol &&
      !watchGroupHeartbeats(this.#consumer, (answer) => {
        this.#onHeartbeat(answer);
      })
    )
      throw new Error('KAFKA_GROUP_PROTOCOL=consumer: this @platformatic/kafka has its heartbeats where 2.x does not keep them');
    this.#consumer.on('consumer:group:rebalance', () => {
      this.#log.debug('group rebalancing: rejoining');
    });
    // Retried by the client (the coordinator moving or loading, a rebalance): not failures.
    this.#consumer.on('consumer:heartbeat:error', (payload: { error?: unknown }) => {
      this.#log.debug({ err: describeError(payload.error) }, 'heartbeat failed; retried');
    });
  }

  joined(): boolean {
    return this.#consumer.isActive();
  }

  /**
   * A heartbeat answer of the consumer protocol: a new assignment (the broker sends one only when it changed) is
   * taken as the classic protocol's join is, with the member epoch as its generation; a new epoch for the same
   * assignment is what the next commits go with.
   */
  #onHeartbeat(answer: GroupHeartbeatAnswer): void {
    const memberId = answer.memberId ?? this.#consumer.memberId ?? undefined;
    if (memberId === undefined || answer.memberEpoch <= 0) return;
    const mine = answer.assignment?.topicPartitions.filter((t) => t.topicId === this.#inputTopicId).flatMap((t) => t.partitions);
    // The broker sends the assignment again now and then, unchanged: only a change is a new assignment.
    const same =
      mine !== undefined &&
      this.#member !== undefined &&
      mine.length === this.#partitions.size &&
      mine.every((p) => this.#partitions.has(`${this.#options.topics.input}:${p}`));
    if (mine !== undefined && !same) {
      this.#onAssignment(answer.memberEpoch, memberId, [
        { topic: this.#options.topics.input, partitions: [...mine].sort((a, b) => a - b) },
      ]);
    } else if (this.#member !== undefined && (this.#member.generationId !== answer.memberEpoch || this.#member.memberId !== memberId)) {
      this.#member = { generationId: answer.memberEpoch, memberId };
    }
  }

  async start(handler: StreamHandler): Promise<void> {
    this.#handler = handler;
    await this.#checkAccess();
    await ensureTopics(
      this.#options,
      () => this.#admin.listTopics(),
      (missing) => this.#admin.createTopics({ topics: missing }).then(() => undefined),
      this.#log,
    );
    if (this.#consumerProtocol) {
      const metadata = await this.#consumer.metadata({ topics: [this.#options.topics.input] });
      this.#inputTopicId = metadata.topics.get(this.#options.topics.input)?.id;
    }
    this.#stream = await this.#openStream();
    this.#loop = this.#run(handler).catch((error: unknown) => {
      if (this.#stopping) return;
      const err = error instanceof Error ? error : new Error(String(error));
      this.#log.error({ err: describeError(err) }, 'consumer crashed');
      handler.fatal(err, err.message);
    });
  }

  /**
   * One request without retries before any other: a refusal ({@link connectionRefusal}) stops the worker at once,
   * with one failed login on the broker, not one per retry. Any other failure is left to the retries that follow.
   */
  async #checkAccess(): Promise<void> {
    const probe = new Admin({ ...this.#base, retries: 0 });
    try {
      await probe.listTopics();
    } catch (error) {
      const refusal = connectionRefusal(error);
      if (refusal !== undefined) throw new Error(`the brokers refuse this client: ${refusal}`, { cause: error });
    } finally {
      await within(probe.close(), 5_000);
    }
  }

  /** Stops the worker when `error` is a refusal ({@link connectionRefusal}); true when it did. */
  #stopIfRefused(error: unknown): boolean {
    const refusal = connectionRefusal(error);
    if (refusal === undefined) return false;
    const message = `the brokers refuse this client: ${refusal}`;
    this.#stopping = true;
    this.#log.fatal({ err: describeError(error) }, message);
    this.#handler?.fatal(new Error(message), message);
    return true;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#holds.stop();
    this.#lag.stop();
    this.#wake?.();
    // Bounded: a member the group has moved past (a thawed zombie) meets retried failures on every request, and
    // the delivery in hand would retry past the shutdown bound; what it did not commit is read again by the owner.
    await within(this.#loop ?? Promise.resolve(), 10_000);
    await within(this.#stream?.close() ?? Promise.resolve(), 5_000);
    await within(this.#consumer.close(true), 5_000, (error) => {
      this.#log.warn({ err: describeError(error) }, 'error while leaving the group');
    });
    await this.#delivery.close();
    await within(this.#admin.close(), 5_000);
    this.#handler?.assigned([]);
  }

  async #openStream(): Promise<InStream> {
    const stream = await this.#consumer.consume(consumeOptions(this.#options));
    stream.on('error', (error: Error) => {
      // A stream fails on a lost generation or a broker error: the loop opens a new one.
      if (stream !== this.#stream || this.#stopping || this.#stopIfRefused(error)) return;
      this.#log.warn({ err: describeError(error) }, 'consumer stream failed; opening a new one');
      this.#requestRebuild();
    });
    stream.on('readable', () => {
      this.#wake?.();
    });
    // A fetch that brings only markers pushes no record: the loop still looks at how far the stream has read,
    // after the response's records (pushed synchronously after this event) are in the buffer.
    stream.on('fetch', () => {
      setImmediate(() => this.#wake?.());
    });
    this.#readTo.clear();
    return stream;
  }

  #requestRebuild(): void {
    this.#rebuild = true;
    this.#wake?.();
  }

  #onAssignment(
    generationId: number | undefined,
    memberId: string | undefined,
    assignments: readonly { topic: string; partitions: number[] }[],
  ): void {
    this.#member = generationId === undefined || memberId === undefined ? undefined : { generationId, memberId };
    const assigned = new Map<string, TopicPartition>();
    for (const { topic, partitions } of assignments)
      for (const partition of partitions) assigned.set(`${topic}:${partition}`, { topic, partition });
    for (const [key, state] of this.#partitions) {
      if (!assigned.has(key)) {
        this.#partitions.delete(key);
        this.#observer.forgetPartition(state.topic, state.partition);
      } else {
        // Claimed again in every generation: someone else may have owned it meanwhile.
        state.position = undefined;
      }
    }
    for (const [key, { topic, partition }] of assigned)
      if (!this.#partitions.has(key)) this.#partitions.set(key, { topic, partition, position: undefined, heldUntil: undefined });
    this.#handler?.assigned([...assigned.values()]);
    this.#log.info(
      { assignment: Object.fromEntries(assignments.map((a) => [a.topic, a.partitions])), generationId },
      'partitions assigned',
    );
    this.#requestRebuild();
  }

  async #run(handler: StreamHandler): Promise<void> {
    while (!this.#stopping) {
      if (this.#rebuild) {
        this.#rebuild = false;
        const old = this.#stream;
        // The new stream first: closing the last one would leave the group's topics and rejoin.
        this.#stream = await this.#openStream();
        void old?.close().catch(() => undefined);
        continue;
      }
      const stream = this.#stream;
      if (stream === undefined) return;
      const messages = this.#holds.allHeld() ? [] : readUpTo(stream, MAX_RECORDS_PER_READ);
      if (messages.length === 0) {
        await this.#commitPastMarkers(stream);
        if (this.#interrupted()) continue;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          if (stream.readableLength > 0 && !this.#holds.allHeld()) resolve();
        });
        this.#wake = undefined;
        continue;
      }
      await this.#handle(handler, messages, stream);
    }
  }

  async #handle(handler: StreamHandler, messages: readonly InMessage[], stream: InStream): Promise<void> {
    const lists = byPartition(messages);
    const timer = this.#observer.batchTimer();
    const done: { topic: string; partition: number; first: bigint; last: InMessage; state: PartitionState }[] = [];
    const outputs: OutputMessage[] = [];
    const results: BatchResult[] = [];
    let inFlight = 0;
    let delivered = false;
    try {
      for (const [key, list] of lists) {
        const last = list.at(-1);
        if (last !== undefined && stream === this.#stream) this.#readTo.set(key, last.offset + 1n);
        const state = this.#partitions.get(key);
        if (state === undefined || state.heldUntil !== undefined || this.#rebuild || stream !== this.#stream) continue;
        const first = list[0];
        if (first === undefined) continue;
        const { topic, partition } = first;
        // The consumer protocol stamps no generation: a partition taken away is dropped from the state instead.
        if (!this.#consumerProtocol && !stampedBy(list, this.#member)) {
          // Fetched across a rebalance: read again from the committed offsets once the new assignment is known.
          this.#log.debug({ topic, partition }, 'records stamped with another generation than the assignment: read again');
          this.#requestRebuild();
          continue;
        }
        if (state.position === undefined) state.position = await this.#claim(topic, partition);
        const from = state.position;
        // A partition's records come in offset order: only a list that starts below the claimed offset needs a filter.
        const fresh = first.offset >= from ? list : list.filter((m) => m.offset >= from);
        if (fresh.length === 0) continue;
        inFlight += fresh.length;
        this.#observer.inFlight(fresh.length);
        const control = { isLive: () => !this.#stopping && !this.#rebuild, heartbeat: () => Promise.resolve() };
        const result = await handler.process({ topic, partition, records: fresh.map(inputRecord), lag: undefined }, control);
        if (result.lastOffset !== undefined) {
          const lastOffset = BigInt(result.lastOffset);
          const last = fresh.findLast((m) => m.offset === lastOffset);
          if (last !== undefined) {
            done.push({ topic, partition, first: fresh[0]?.offset ?? from, last, state });
            for (const output of result.outputs) outputs.push(output);
            results.push(result);
          }
        }
        if (result.holdMs !== undefined) this.#holds.hold(state, result.holdMs);
      }
      if (done.length > 0) await this.#deliver(outputs, done);
      delivered = true;
    } catch (error) {
      await this.#failed(error, outputs, done);
    } finally {
      handler.settled(delivered ? results : []);
      this.#observer.inFlight(-inFlight);
      timer();
      this.#lag.soon();
    }
  }

  /**
   * Commits each partition past the markers and aborted records at the end of what the stream fetched
   * ({@link markerSkips}), in a transaction of offsets only (exactly-once) or a plain commit, when the stream has
   * nothing buffered. A failure is left to the next look: nothing was delivered, and a new generation claims anew.
   */
  async #commitPastMarkers(stream: InStream): Promise<void> {
    const member = this.#member;
    if (stream.readableLength > 0 || stream !== this.#stream || this.#interrupted() || member === undefined) return;
    const first = markerSkips(this.#partitions.values(), stream.offsetsToFetch, this.#readTo);
    for (const state of first.unclaimed) {
      if (this.#interrupted()) return;
      try {
        const from = await this.#claim(state.topic, state.partition);
        // A new generation meanwhile claims anew: a position from this one would be stale there.
        if (this.#interrupted() || member !== this.#member) return;
        state.position = from;
      } catch (error) {
        this.#log.debug({ topic: state.topic, partition: state.partition, err: describeError(error) }, 'claim for a marker commit failed');
        return;
      }
    }
    const { skips } = first.unclaimed.length === 0 ? first : markerSkips(this.#partitions.values(), stream.offsetsToFetch, this.#readTo);
    // Anything read or any new generation while claiming: looked at again once the loop is idle.
    if (skips.length === 0 || stream.readableLength > 0 || stream !== this.#stream || this.#interrupted() || member !== this.#member)
      return;
    const stamp = { consumer: { groupId: this.#options.groupId, coordinatorId: this.#consumer.coordinatorId, ...member } };
    const done = skips.map(({ state, to }) => ({
      topic: state.topic,
      partition: state.partition,
      state,
      last: { topic: state.topic, partition: state.partition, offset: to - 1n, leaderEpoch: -1, metadata: stamp },
    }));
    try {
      // Not #deliver: a transaction without outputs says nothing of the output topics, so the guard's count stays.
      await this.#delivery.deliver([], done, (last) => last);
      for (const { state, last } of done) state.position = last.offset + 1n;
      this.#observer.transaction('committed');
      this.#log.debug(
        { partitions: done.map((d) => `${d.topic}:${d.partition}@${d.last.offset + 1n}`) },
        'committed past transaction markers',
      );
    } catch (error) {
      this.#observer.transaction('aborted');
      this.#log.debug({ err: describeError(error) }, 'commit past transaction markers failed; looked at again later');
    } finally {
      this.#lag.soon();
    }
  }

  /** True once stopping or when the stream must be opened again: a method, as both change across awaits. */
  #interrupted(): boolean {
    return this.#stopping || this.#rebuild;
  }

  /** Claims in this generation go through the admin client, which waits out open transactions (requireStable). */
  #claim(topic: string, partition: number): Promise<bigint> {
    return claimPartition(
      {
        listGroupOffsets: (request) => this.#admin.listConsumerGroupOffsets(request),
        groupId: this.#options.groupId,
        log: this.#log,
        stopping: () => this.#stopping,
      },
      topic,
      partition,
    );
  }

  async #deliver(
    outputs: readonly OutputMessage[],
    done: readonly { topic: string; partition: number; last: InMessage; state: PartitionState }[],
  ): Promise<void> {
    await this.#delivery.deliver(outputs, done, (last) => (this.#consumerProtocol ? withMember(last, this.#member) : last));
    for (const { last, state } of done) state.position = last.offset + 1n;
    this.#observer.transaction('committed');
    this.#guard.delivered();
  }

  /** A failed delivery: fatal when the output topics are unavailable, else read again from the committed offsets. */
  async #failed(
    error: unknown,
    outputs: readonly OutputMessage[],
    done: readonly { topic: string; partition: number; first: bigint; last: InMessage }[],
  ): Promise<void> {
    if (done.length > 0) this.#observer.transaction('aborted');
    for (const state of this.#partitions.values()) state.position = undefined;
    if (this.#stopping || this.#stopIfRefused(error)) return;
    if (!fencedFailure(error)) {
      const written = [...new Set(outputs.map((o) => o.topic))];
      const from = done.map(({ topic, partition, first }) => ({ topic, partition, offset: first.toString() }));
      const fatal = await this.#guard.check(error, written, from);
      if (fatal !== undefined) {
        this.#stopping = true;
        this.#handler?.fatal(new Error(fatal), fatal);
        return;
      }
    }
    this.#log.warn({ err: describeError(error) }, 'delivery failed; the records are read again from the committed offsets');
    await sleep(backoffDelay(BACKOFF_POLICIES.platformaticRedelivery, 0));
    this.#requestRebuild();
  }
}

/** A record stamped with `member` (the consumer protocol's member epoch as the generation), for its offset commit. */
function withMember(message: CommitPoint, member: { readonly generationId: number; readonly memberId: string } | undefined): CommitPoint {
  if (member === undefined) return message;
  const metadata = message.metadata as { consumer?: Record<string, unknown> } | undefined;
  const consumer = { ...metadata?.consumer, generationId: member.generationId, memberId: member.memberId };
  return { ...message, metadata: { ...metadata, consumer } };
}
