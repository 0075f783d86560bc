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
 * The client has no seek and no per-partition pause. A new stream is the seek: at every new generation, after a
 * failed delivery and when a held partition's hold ends, the worker opens a new stream (which starts at the
 * committed offsets) before closing the old one, whose records are dropped. A partition held for a schema has its
 * records dropped until then; when every partition is held, nothing is read.
 */
import {
  Admin,
  Consumer,
  FetchIsolationLevels,
  Producer,
  type BaseOptions,
  type Message,
  type MessagesStream,
  type MessageToProduce,
  type SASLMechanismValue,
} from '@platformatic/kafka';
import type { Logger } from 'pino';
import type { OutputMessage } from '../../core/records/output.js';
import type { KafkaConnectionOptions } from './client.js';
import { describeError, ensureTopics, errorTypes, FENCED_TYPES, murmur2, OutputGuard, splitRequests } from './delivery.js';
import { headersFromPairs } from './headers.js';
import type { BatchResult, DeliveryObserver, InputRecord, KafkaStream, StreamHandler, StreamOptions, TopicPartition } from './port.js';

type InMessage = Message;
type OutMessage = MessageToProduce<Buffer, Buffer, Buffer | string>;
type Transaction = Awaited<ReturnType<Producer<Buffer, Buffer, Buffer | string>['beginTransaction']>>;

/** Most records taken from the stream for one delivery: about what one kafkajs fetch brings a partition. */
const MAX_RECORDS_PER_READ = 5_000;

/**
 * Most bytes one fetch brings, all partitions together (the client's default is 50 MB): what the stream buffers
 * beside the read in hand has one bound however many partitions the worker owns.
 */
const MAX_BYTES_PER_FETCH = 4 * 1_048_576;

/** Least time between two reads of the input's end offsets for the lag metric (the records carry no high watermark). */
const LAG_INTERVAL_MS = 1_000;

/** How long a claim waits for a partition's offsets to become stable before it gives up (the batch is read again). */
const STABLE_WAIT_MS = 120_000;

interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** First offset not yet delivered in this generation; undefined until claimed. */
  position: bigint | undefined;
  heldUntil: number | undefined;
}

/**
 * Retries: 50 ms doubling up to 2 s. The client's default, a flat second, would make each transaction wait about a
 * second (CONCURRENT_TRANSACTIONS after a commit is retried, and it is answered for a few ms after each one).
 */
function retryDelay(_client: unknown, _operation: string, attempt: number): number {
  return Math.min(2_000, 50 * 2 ** Math.max(0, attempt - 1));
}

/**
 * The Java client's partitioner on our murmur2 (the one kafkajs is given too): the same key lands on the same
 * partition on both clients. The client takes the result modulo the topic's partition count; keyless records
 * go round the partitions.
 */
export function platformaticPartitioner(): (message: OutMessage, key: Buffer | undefined) => number {
  let next = 0;
  return (_message, key) => (Buffer.isBuffer(key) ? murmur2(key) & 0x7fffffff : next++);
}

export function platformaticBaseOptions(connection: KafkaConnectionOptions): BaseOptions {
  const options: BaseOptions = {
    clientId: connection.clientId,
    bootstrapBrokers: [...connection.brokers],
    connectTimeout: connection.connectionTimeoutMs,
    retries: 8,
    retryDelay,
  };
  if (connection.ssl !== false) options.tls = { ...connection.ssl };
  const sasl = connection.sasl;
  if (sasl?.mechanism === 'oauthbearer') {
    options.sasl = { mechanism: 'OAUTHBEARER', token: () => sasl.token() };
  } else if (sasl !== undefined) {
    options.sasl = {
      mechanism: sasl.mechanism.toUpperCase() as SASLMechanismValue,
      username: sasl.username,
      password: sasl.password,
    };
  }
  return options;
}

/** Node's codes for a broker certificate that does not verify (the `code` of tls.connect's error). */
const CERTIFICATE_CODES =
  /^(?:SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * Why the brokers refuse this client for good (SASL credentials, a certificate that does not verify, TLS to a
 * listener without it), read from the client's error and its causes; undefined for anything else. The client
 * wraps these in a retriable network error and retries them like an outage: the worker stops on them instead.
 */
export function connectionRefusal(error: unknown): string | undefined {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 64; seen++) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null) continue;
    const { code, message, cause, errors } = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    const text = typeof message === 'string' ? message : '';
    if (code === 'PLT_KFK_AUTHENTICATION') return `SASL authentication failed: ${brokerMessage(cause) ?? text}`;
    if (typeof code === 'string' && CERTIFICATE_CODES.test(code)) return `the broker's TLS certificate does not verify: ${text} (${code})`;
    if (code === 'PLT_KFK_USER' && text.startsWith('TLS handshake failed')) return text;
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
  }
  return undefined;
}

/** The broker's own words in a refused request (SaslAuthenticate's `errorMessage`), when the error carries them. */
function brokerMessage(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 8; depth++) {
    const { response, errors, cause } = e as { response?: { errorMessage?: unknown }; errors?: unknown; cause?: unknown };
    if (typeof response?.errorMessage === 'string' && response.errorMessage !== '') return response.errorMessage;
    e = Array.isArray(errors) && errors.length > 0 ? (errors as unknown[])[0] : cause;
  }
  return undefined;
}

/**
 * AddPartitionsToTxn v4 and above are the brokers' own (KIP-890 batches): a broker with an authorizer answers them
 * CLUSTER_AUTHORIZATION_FAILED unless the principal may ClusterAction, so every transaction of an ordinary user
 * fails. The client takes the highest version the broker lists; the list it keeps is capped at v3, the client
 * version (as the Java client sends). False when the client's internals are not where 2.x keeps them.
 */
export function capAddPartitionsToTxn(client: object): boolean {
  const key = Object.getOwnPropertySymbols(client).find((s) => s.description === 'plt.kafka.base.apis');
  if (key === undefined || !Array.isArray(Reflect.get(client, key))) return false;
  type Api = { name?: unknown; maxVersion?: unknown };
  const capped = (list: unknown): unknown =>
    Array.isArray(list)
      ? (list as Api[]).map((api) =>
          api.name === 'AddPartitionsToTxn' && typeof api.maxVersion === 'number' && api.maxVersion > 3 ? { ...api, maxVersion: 3 } : api,
        )
      : list;
  let apis = capped(Reflect.get(client, key));
  Object.defineProperty(client, key, {
    configurable: true,
    get: () => apis,
    set: (value: unknown) => {
      apis = capped(value);
    },
  });
  return true;
}

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
  #producer: Producer<Buffer, Buffer, Buffer | string>;
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
  #stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  /** Set when the stream must be opened again before the next read (a new generation, a failure, a hold's end). */
  #rebuild = false;
  #wake: (() => void) | undefined;
  #holdTimer: NodeJS.Timeout | undefined;
  #lagTimer: NodeJS.Timeout | undefined;
  #lagReadAt = 0;
  #lagAgain = false;
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
      heartbeatInterval: Math.max(1_000, Math.floor(sessionTimeoutMs / 10)),
      autocommit: false,
    });
    this.#producer = this.#newProducer();
    this.#admin = new Admin({ ...base });
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

  #newProducer(): Producer<Buffer, Buffer, Buffer | string> {
    const exactlyOnce = this.#options.delivery === 'exactly-once';
    const producer = new Producer({
      ...this.#base,
      idempotent: true,
      compression: this.#options.compression,
      partitioner: platformaticPartitioner(),
      // InitProducerId must go out with producer id -1 and epoch -1 (a new session); the client's default (0, 0)
      // is refused with PRODUCER_FENCED once the transactional id has a history, i.e. on every restart.
      producerId: -1n,
      producerEpoch: -1,
      // Also the transaction timeout (InitProducerId): how long the broker keeps a dead worker's transaction open.
      timeout: 10_000,
      ...(exactlyOnce ? { transactionalId: `${this.#options.transactionalIdPrefix}-${this.#options.workerId}` } : {}),
    });
    if (exactlyOnce && !capAddPartitionsToTxn(producer))
      this.#log.warn(
        'cannot cap AddPartitionsToTxn at v3: transactions fail on brokers with an authorizer unless the user may ClusterAction',
      );
    return producer;
  }

  /**
   * A new transactional producer in place of one whose transaction could not be aborted or whose epoch the
   * broker has moved past (a transaction it timed out bumps the epoch): the client keeps such a producer's
   * stale epoch for good, and every later transaction fails with PRODUCER_FENCED. The new one's InitProducerId
   * takes the next epoch of the same transactional id, aborting whatever the old one left open.
   */
  async #renewProducer(error: unknown): Promise<void> {
    const old = this.#producer;
    this.#producer = this.#newProducer();
    this.#log.warn({ err: describeError(error) }, 'transactional producer fenced or its transaction left open: replaced');
    await within(old.close(), 5_000);
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
    clearTimeout(this.#holdTimer);
    clearTimeout(this.#lagTimer);
    this.#wake?.();
    // Bounded: a member the group has moved past (a thawed zombie) meets retried failures on every request, and
    // the delivery in hand would retry past the shutdown bound; what it did not commit is read again by the owner.
    await within(this.#loop ?? Promise.resolve(), 10_000);
    await within(this.#stream?.close() ?? Promise.resolve(), 5_000);
    await within(this.#consumer.close(true), 5_000, (error) => {
      this.#log.warn({ err: describeError(error) }, 'error while leaving the group');
    });
    await within(this.#producer.close(), 5_000);
    await within(this.#admin.close(), 5_000);
    this.#handler?.assigned([]);
  }

  async #openStream(): Promise<MessagesStream<Buffer, Buffer, Buffer, Buffer>> {
    const stream = await this.#consumer.consume({
      topics: [this.#options.topics.input],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
      // Read only committed input: an upstream transactional producer's aborted records are never processed.
      isolationLevel: FetchIsolationLevels.READ_COMMITTED,
      maxWaitTime: this.#options.fetchMaxWaitMs,
      maxBytesPerPartition: 1_048_576,
      maxBytes: MAX_BYTES_PER_FETCH,
      highWaterMark: MAX_RECORDS_PER_READ,
      sessionTimeout: this.#options.sessionTimeoutMs,
      rebalanceTimeout: this.#options.sessionTimeoutMs,
      heartbeatInterval: Math.max(1_000, Math.floor(this.#options.sessionTimeoutMs / 10)),
    });
    stream.on('error', (error: Error) => {
      // A stream fails on a lost generation or a broker error: the loop opens a new one.
      if (stream !== this.#stream || this.#stopping || this.#stopIfRefused(error)) return;
      this.#log.warn({ err: describeError(error) }, 'consumer stream failed; opening a new one');
      this.#requestRebuild();
    });
    stream.on('readable', () => {
      this.#wake?.();
    });
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
      const messages = this.#allHeld() ? [] : readUpTo(stream, MAX_RECORDS_PER_READ);
      if (messages.length === 0) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          if (stream.readableLength > 0 && !this.#allHeld()) resolve();
        });
        this.#wake = undefined;
        continue;
      }
      await this.#handle(handler, messages, stream);
    }
  }

  #allHeld(): boolean {
    if (this.#partitions.size === 0) return false;
    for (const state of this.#partitions.values()) if (state.heldUntil === undefined) return false;
    return true;
  }

  async #handle(
    handler: StreamHandler,
    messages: readonly InMessage[],
    stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>,
  ): Promise<void> {
    const byPartition = new Map<string, InMessage[]>();
    // The stream gives a partition's records in runs: the list is looked up once per run, not per record.
    let run: InMessage | undefined;
    let runList: InMessage[] = [];
    for (const m of messages) {
      if (run === undefined || m.partition !== run.partition || m.topic !== run.topic) {
        const key = `${m.topic}:${m.partition}`;
        const known = byPartition.get(key);
        if (known === undefined) byPartition.set(key, (runList = []));
        else runList = known;
        run = m;
      }
      runList.push(m);
    }
    const timer = this.#observer.batchTimer();
    const done: { topic: string; partition: number; first: bigint; last: InMessage; state: PartitionState }[] = [];
    const outputs: OutputMessage[] = [];
    const results: BatchResult[] = [];
    let inFlight = 0;
    let delivered = false;
    try {
      for (const [key, list] of byPartition) {
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
        if (result.holdMs !== undefined) this.#hold(state, result.holdMs);
      }
      if (done.length > 0) await this.#deliver(outputs, done);
      delivered = true;
    } catch (error) {
      await this.#failed(error, outputs, done);
    } finally {
      handler.settled(delivered ? results : []);
      this.#observer.inFlight(-inFlight);
      timer();
      this.#lagSoon();
    }
  }

  /** Reads the lag at most every {@link LAG_INTERVAL_MS}, and once more after the last delivery of a burst. */
  #lagSoon(): void {
    if (this.#stopping) return;
    if (this.#lagTimer !== undefined) {
      this.#lagAgain = true;
      return;
    }
    this.#lagTimer = setTimeout(
      () => {
        this.#lagAgain = false;
        void this.#readLag().finally(() => {
          this.#lagReadAt = Date.now();
          this.#lagTimer = undefined;
          // A delivery ended while the offsets were read: read them again, so the last figure is the latest.
          if (this.#lagAgain) this.#lagSoon();
        });
      },
      Math.max(0, this.#lagReadAt + LAG_INTERVAL_MS - Date.now()),
    );
  }

  /** Records behind each owned partition's end offset, from its first offset not yet delivered. */
  async #readLag(): Promise<void> {
    const owned = new Map<string, { state: PartitionState; position: bigint }>();
    for (const [key, state] of this.#partitions) if (state.position !== undefined) owned.set(key, { state, position: state.position });
    if (owned.size === 0) return;
    const partitions: Record<string, number[]> = {};
    for (const { state } of owned.values()) (partitions[state.topic] ??= []).push(state.partition);
    try {
      const ends = await this.#consumer.listOffsets({ topics: Object.keys(partitions), partitions });
      for (const [key, { state, position }] of owned) {
        const { topic, partition } = state;
        const end = ends.get(topic)?.[partition];
        // Not reported for a partition given away meanwhile: its new owner reports it.
        if (end === undefined || this.#partitions.get(key) !== state) continue;
        this.#observer.lag(topic, partition, Number(end > position ? end - position : 0n));
      }
    } catch (error) {
      this.#log.debug(
        { err: describeError(error) },
        'reading the end offsets for the lag metric failed; read again after the next delivery',
      );
    }
  }

  /**
   * The committed offset of a partition, once no open transaction holds offsets for it (requireStable). The
   * stream's own read does not wait, so it may start below this; those records are skipped.
   */
  async #claim(topic: string, partition: number): Promise<bigint> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        const groups = await this.#admin.listConsumerGroupOffsets({
          groups: [{ groupId: this.#options.groupId, topics: [{ name: topic, partitionIndexes: [partition] }] }],
          requireStable: true,
        });
        const offset =
          groups[0]?.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === partition)?.committedOffset ?? -1n;
        if (attempt > 0)
          this.#log.info({ topic, partition, waitedMs: Date.now() - started }, 'partition offsets stable: an open transaction ended');
        this.#log.debug({ topic, partition, from: offset.toString() }, 'partition claimed');
        return offset < 0n ? 0n : offset;
      } catch (error) {
        const unstable = errorTypes(error).includes('UNSTABLE_OFFSET_COMMIT');
        if (!unstable || this.#stopping || Date.now() - started > STABLE_WAIT_MS) throw error;
        if (attempt === 0)
          this.#log.info({ topic, partition }, 'waiting for an open transaction on this partition to end before reading its offset');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  async #deliver(
    outputs: readonly OutputMessage[],
    done: readonly { topic: string; partition: number; last: InMessage; state: PartitionState }[],
  ): Promise<void> {
    const requests = splitRequests(outputs.map(outMessage), messageBytes);
    if (this.#options.delivery === 'at-least-once') {
      for (const messages of requests) await this.#producer.send({ messages });
      for (const { topic, partition, last } of done) {
        await this.#consumer.commit({ offsets: [{ topic, partition, offset: last.offset + 1n, leaderEpoch: last.leaderEpoch }] });
      }
    } else {
      const transaction: Transaction = await this.#producer.beginTransaction();
      try {
        for (const messages of requests) await transaction.send({ messages });
        await transaction.addConsumer(this.#consumer);
        // One after the other: concurrent addOffset calls are merged by the client and only the first is sent.
        for (const { last } of done) await transaction.addOffset(this.#consumerProtocol ? withMember(last, this.#member) : last);
        await transaction.commit();
      } catch (error) {
        const aborted = await transaction.abort().then(
          () => true,
          () => false,
        );
        if (!aborted) await transaction.cancel().catch(() => undefined);
        if (!aborted || errorTypes(error).some((t) => t === 'PRODUCER_FENCED' || t === 'INVALID_PRODUCER_EPOCH'))
          await this.#renewProducer(error);
        throw error;
      }
    }
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
    const types = errorTypes(error);
    if (!types.some((t) => (FENCED_TYPES as readonly string[]).includes(t))) {
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
    // A little pause so a broker outage is not met with a busy loop of new streams.
    await new Promise((resolve) => setTimeout(resolve, 500));
    this.#requestRebuild();
  }

  #hold(state: PartitionState, holdMs: number): void {
    state.heldUntil = Date.now() + holdMs;
    this.#scheduleHoldEnd();
  }

  #scheduleHoldEnd(): void {
    clearTimeout(this.#holdTimer);
    let earliest: number | undefined;
    for (const state of this.#partitions.values())
      if (state.heldUntil !== undefined) earliest = Math.min(earliest ?? Infinity, state.heldUntil);
    if (earliest === undefined) return;
    this.#holdTimer = setTimeout(
      () => {
        const now = Date.now();
        for (const state of this.#partitions.values())
          if (state.heldUntil !== undefined && state.heldUntil <= now) state.heldUntil = undefined;
        this.#scheduleHoldEnd();
        // The held partitions' records were dropped: a new stream reads them again from the committed offset.
        if (!this.#stopping) this.#requestRebuild();
      },
      Math.max(0, earliest - Date.now()),
    );
  }
}

/** A record stamped with `member` (the consumer protocol's member epoch as the generation), for its offset commit. */
function withMember(message: InMessage, member: { readonly generationId: number; readonly memberId: string } | undefined): InMessage {
  if (member === undefined) return message;
  const metadata = message.metadata as { consumer?: Record<string, unknown> } | undefined;
  const consumer = { ...metadata?.consumer, generationId: member.generationId, memberId: member.memberId };
  return { ...message, metadata: { ...metadata, consumer } };
}

/** Waits for `work` at most `ms`; its failure goes to `onError` (ignored by default), never thrown. */
async function within(work: Promise<unknown>, ms: number, onError: (error: unknown) => void = () => undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.then(() => undefined, onError), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * True when every record carries `member`'s generation and member id, the ones its offset would be committed
 * with (the client stamps each fetch response's records with the consumer's ids at the time it arrives).
 */
export function stampedBy(
  list: readonly Pick<InMessage, 'metadata'>[],
  member: { readonly generationId: number; readonly memberId: string } | undefined,
): boolean {
  if (member === undefined) return false;
  let seen: unknown;
  for (const m of list) {
    // One metadata object per fetch response: each is looked at once.
    if (m.metadata === seen) continue;
    seen = m.metadata;
    const stamp = (m.metadata as { consumer?: { generationId?: unknown; memberId?: unknown } } | undefined)?.consumer;
    if (stamp?.generationId !== member.generationId || stamp.memberId !== member.memberId) return false;
  }
  return true;
}

function readUpTo(stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>, max: number): InMessage[] {
  const out: InMessage[] = [];
  for (let m = stream.read() as InMessage | null; m !== null; m = out.length < max ? (stream.read() as InMessage | null) : null)
    out.push(m);
  return out;
}

function inputRecord(message: InMessage): InputRecord {
  // The client's types promise a key and a value; a record without one has undefined there.
  const { key, value } = message as { key: Buffer | undefined; value: Buffer | undefined };
  return { key: key ?? null, value: value ?? null, headers: headersFromPairs(message.headers), offset: message.offset.toString() };
}

/** Header names as the client takes them (bytes), made once per name; bounded, as incoming names are anyone's. */
const headerNames = new Map<string, Buffer>();
const MAX_HEADER_NAMES = 1_000;

function headerName(name: string): Buffer {
  let bytes = headerNames.get(name);
  if (bytes === undefined) {
    if (headerNames.size >= MAX_HEADER_NAMES) headerNames.clear();
    bytes = Buffer.from(name);
    headerNames.set(name, bytes);
  }
  return bytes;
}

/** An output as the client's message: bytes only (header names too). */
export function outMessage(out: OutputMessage): OutMessage {
  const headers = new Map<Buffer, Buffer>();
  for (const name of Object.keys(out.headers)) {
    const value = out.headers[name];
    if (value === undefined) continue;
    if (!Array.isArray(value)) headers.set(headerName(name), toBuffer(value));
    // The map is keyed by identity: every value of a repeated header needs a name Buffer of its own.
    else for (const [i, v] of value.entries()) headers.set(i === 0 ? headerName(name) : Buffer.from(name), toBuffer(v));
  }
  return {
    topic: out.topic,
    ...(out.key === null ? {} : { key: out.key }),
    ...(out.value === null ? {} : { value: toBuffer(out.value) }),
    headers,
  };
}

/** The bytes of a message the client is handed (key, value, header names and values), for the request split. */
export function messageBytes(message: MessageToProduce<Buffer, Buffer, Buffer | string, Buffer | string>): number {
  let size = (message.key?.length ?? 0) + (message.value?.length ?? 0);
  if (message.headers instanceof Map) for (const [name, value] of message.headers) size += name.length + value.length;
  return size;
}

function toBuffer(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value) : value;
}
