/**
 * Delivery rules both clients share: how a batch's outputs are split into produce requests, how a client error
 * is read (its Kafka error names, retriable or fatal), and when a failed delivery means the output topics are
 * gone or refuse this principal (fatal: see RELIABILITY.md "Output topic unavailable").
 */
import type { Logger } from 'pino';
import type { OutputMessage } from '../../core/records/output.js';
import { BACKOFF_POLICIES, retry } from '../shared/retry.js';
import type { StreamOptions } from './port.js';

/**
 * Most bytes (keys, values, headers) put in one produce request. A request carries one record batch per output
 * partition, and the broker refuses a batch over its message.max.bytes (1 MiB by default). One full fetch
 * (1 MiB per partition) of input can become more than twice that in output, all of it in one batch when the
 * output topic has one partition (or the keys hash alike): MESSAGE_TOO_LARGE, the transaction aborts, and the
 * worker fails on the same batch after every restart. Half a MiB per request keeps every batch under the default
 * whatever the partitioning; the requests of one delivery still go in one transaction (exactly-once) or before
 * one offset commit (at-least-once), in order.
 */
export const MAX_REQUEST_BYTES = 512 * 1024;

/**
 * The messages, in order, split into produce requests of at most `maxBytes` (a larger message alone). `bytesOf`
 * sizes one message as the client will write it (keys, values, headers), from the form the client is handed.
 */
export function splitRequests<T>(messages: readonly T[], bytesOf: (message: T) => number, maxBytes = MAX_REQUEST_BYTES): T[][] {
  const requests: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = bytesOf(message);
    if (bytes > 0 && bytes + size > maxBytes) {
      requests.push(current);
      current = [];
      bytes = 0;
    }
    bytes += size;
    current.push(message);
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/** The bytes of a message's headers (names and values) as given in an output message. */
export function headerBytes(headers: OutputMessage['headers']): number {
  let size = 0;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    size += name.length;
    if (Array.isArray(value)) for (const v of value) size += byteSize(v);
    else size += byteSize(value);
  }
  return size;
}

function byteSize(value: Buffer | string | null): number {
  return value === null ? 0 : typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}

/**
 * Kafka's murmur2 hash of a record key, as the Java client's partitioner computes it (32-bit integer arithmetic):
 * `(murmur2(key) & 0x7fffffff) % partitions` is the partition a key lands on, on every client.
 */
export function murmur2(key: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = key.length;
  const tail = length & ~3;
  let h = 0x9747b28c ^ length;
  for (let i = 0; i < tail; i += 4) {
    let k = (key[i] ?? 0) | ((key[i + 1] ?? 0) << 8) | ((key[i + 2] ?? 0) << 16) | ((key[i + 3] ?? 0) << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    h = Math.imul(h, m) ^ Math.imul(k, m);
  }
  const rest = length - tail;
  if (rest === 3) h ^= (key[tail + 2] ?? 0) << 16;
  if (rest >= 2) h ^= (key[tail + 1] ?? 0) << 8;
  if (rest >= 1) h = Math.imul(h ^ (key[tail] ?? 0), m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  return h ^ (h >>> 15);
}

/**
 * The Kafka error names (`UNKNOWN_TOPIC_OR_PARTITION`...) in an error and its causes: kafkajs puts them in
 * `type`, @platformatic/kafka in `apiId`, nested in `cause` and in the `errors` of its retries.
 */
export function errorTypes(error: unknown): string[] {
  const types: string[] = [];
  const queue: { e: unknown; depth: number }[] = [{ e: error, depth: 0 }];
  for (let seen = 0; queue.length > 0 && seen < 64; seen++) {
    const { e, depth } = queue.shift() ?? { e: undefined, depth: 0 };
    if (typeof e !== 'object' || e === null || depth > 5) continue;
    const { type, apiId, cause, errors } = e as { type?: unknown; apiId?: unknown; cause?: unknown; errors?: unknown };
    for (const name of [type, apiId]) if (typeof name === 'string' && !types.includes(name)) types.push(name);
    if (cause !== undefined) queue.push({ e: cause, depth: depth + 1 });
    if (Array.isArray(errors)) for (const inner of errors as unknown[]) queue.push({ e: inner, depth: depth + 1 });
  }
  return types;
}

export function describeError(error: unknown): { name: string; message: string; type?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const types = errorTypes(error);
  const message =
    error instanceof AggregateError && error.errors.length > 0 ? `${error.message} (last: ${lastMessage(error)})` : error.message;
  return types.length > 0 ? { name: error.name, message, type: types.join(',') } : { name: error.name, message };
}

function lastMessage(error: AggregateError): string {
  const last: unknown = error.errors[error.errors.length - 1];
  return last instanceof Error ? last.message : String(last);
}

/** Errors that mean the transaction in hand belongs to a previous owner or generation: abort and claim again. */
export const FENCED_TYPES = [
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_EPOCH',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'FENCED_INSTANCE_ID',
  'REBALANCE_IN_PROGRESS',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  // The consumer protocol's (KIP-848) words for a member epoch the group has moved past.
  'STALE_MEMBER_EPOCH',
  'FENCED_MEMBER_EPOCH',
] as const;

/**
 * How many failed deliveries in a row answered only OPERATION_NOT_ATTEMPTED before the worker reads it as a
 * refusal. A transaction's AddPartitionsToTxn answers TOPIC_AUTHORIZATION_FAILED for the partitions refused and
 * OPERATION_NOT_ATTEMPTED for all the others, and a client reports whichever it reads first, so under a DENY the
 * worker often sees only the latter. But the same answer also follows a transient error of another partition
 * (one just added to an output topic, say), which the next attempt does not meet. Three attempts in a row tell
 * the two apart.
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
    return (
      `OPERATION_NOT_ATTEMPTED on ${String(notAttemptedInARow)} deliveries ` + 'in a row: another partition of each transaction was refused'
    );
  }
  return undefined;
}

/**
 * After a failed delivery: asks the broker which output topics exist (bounded to 10 s; a broker that does not
 * answer is an outage, left to the retry) and whether the failure is a refusal. A missing or refused output topic
 * is fatal: left to retries, the client fails on the same batch for ever while /livez stays green.
 */
export class OutputGuard {
  #notAttemptedInARow = 0;

  constructor(
    private readonly outputs: readonly string[],
    private readonly listTopics: () => Promise<readonly string[]>,
    private readonly log: Logger,
  ) {}

  /** A delivery went through: the refusal count starts again. */
  delivered(): void {
    this.#notAttemptedInARow = 0;
  }

  /** The fatal message when the failure is an unavailable output topic, else undefined (left to the retry). */
  async check(
    error: unknown,
    written: readonly string[],
    from: readonly { topic: string; partition: number; offset: string }[],
  ): Promise<string | undefined> {
    const types = errorTypes(error);
    let timer: NodeJS.Timeout | undefined;
    // A listing names only the topics this principal may describe: "missing" also covers "not authorised".
    const existing = await Promise.race([
      this.listTopics().then(
        (names) => new Set(names),
        () => undefined,
      ),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          resolve(undefined);
        }, 10_000);
      }),
    ]).finally(() => {
      clearTimeout(timer);
    });
    if (existing === undefined) return undefined;
    let unavailable = this.outputs.filter((t) => !existing.has(t));
    let reason: string | undefined;
    if (unavailable.length > 0) {
      reason = 'missing: deleted, or not visible to this principal, and the broker does not create it';
    } else {
      this.#notAttemptedInARow = types.includes('OPERATION_NOT_ATTEMPTED') ? this.#notAttemptedInARow + 1 : 0;
      const refusal = outputRefusal(types, this.#notAttemptedInARow);
      if (refusal !== undefined) {
        unavailable = [...written];
        reason =
          'not authorised: the broker refuses this principal writes ' + `to ${unavailable.length > 1 ? 'one of them' : 'it'} (${refusal})`;
      }
    }
    if (reason === undefined) return undefined;
    const positions = from.map((p) => `${p.topic}:${p.partition} from offset ${p.offset}`).join(', ');
    const message =
      `output topic unavailable (${unavailable.join(', ')}: ${reason}); stopping without committing ${positions}: ` +
      'nothing is dropped, the records are processed once the topic is writable again and the worker restarted';
    this.log.fatal({ topics: unavailable, input: from, err: describeError(error) }, message);
    return message;
  }
}

/**
 * Broker answers to creating topics that mean "not yet": a topic created a moment ago whose metadata has not reached
 * the broker asked, or one another client created at the same time.
 */
const TOPICS_NOT_READY = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'TOPIC_ALREADY_EXISTS', 'NOT_CONTROLLER']);

/** Retries of topic creation after a "not yet" answer (BACKOFF_POLICIES.topicCreation: about 30 s in all). */
export const TOPIC_CREATION_RETRIES = 7;

/**
 * Creates the topics that are missing (CREATE_TOPICS), or fails naming them. A "not yet" answer (a loaded broker
 * still spreading the new topics' metadata) is asked again, from the listing; any other failure ends it at once.
 * `sleep` is injectable for tests.
 */
export async function ensureTopics(
  options: StreamOptions,
  list: () => Promise<readonly string[]>,
  create: (missing: string[]) => Promise<void>,
  log: Logger,
  sleep?: (ms: number) => Promise<unknown>,
): Promise<void> {
  const { input, output, rejected, dlq } = options.topics;
  const wanted = [input, output, rejected, dlq];
  await retry<undefined, Error>(
    async () => {
      const existing = new Set(await list());
      const missing = wanted.filter((t) => !existing.has(t));
      if (missing.length === 0) return { done: true, value: undefined };
      if (!options.createTopics) throw new Error(`topics missing and CREATE_TOPICS=false: ${missing.join(', ')}`);
      log.info({ topics: missing }, 'creating missing topics');
      try {
        await create(missing);
        return { done: true, value: undefined };
      } catch (error) {
        if (!(error instanceof Error) || !errorTypes(error).some((t) => TOPICS_NOT_READY.has(t))) throw error;
        log.warn({ topics: missing, err: describeError(error) }, 'topics not ready yet; asking again');
        return { done: false, failure: error };
      }
    },
    {
      policy: BACKOFF_POLICIES.topicCreation,
      maxRetries: TOPIC_CREATION_RETRIES,
      giveUp: (error) => error,
      ...(sleep === undefined ? {} : { sleep }),
    },
  );
}
