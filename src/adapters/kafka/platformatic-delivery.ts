/**
 * Delivering a read's outputs on @platformatic/kafka. Exactly-once (KIP-447): one transactional producer, id
 * `<prefix>-<workerId>`; the outputs of a read, all partitions together, go in one transaction with each
 * partition's consumed offset (TxnOffsetCommit with the group's generation and member id, so a zombie cannot
 * commit). At-least-once: one idempotent producer; offsets are committed after the records are acknowledged.
 */
import { Producer, type BaseOptions, type Consumer, type MessageToProduce } from '@platformatic/kafka';
import type { Logger } from 'pino';
import type { OutputMessage } from '../../core/records/output.js';
import { describeError, splitRequests } from './delivery.js';
import { capAddPartitionsToTxn, platformaticPartitioner, within, type OutMessage } from './platformatic-client.js';
import type { InMessage } from './platformatic-fetch.js';
import { producerToRenew } from './platformatic-failures.js';
import type { StreamOptions } from './port.js';

type OutProducer = Producer<Buffer, Buffer, Buffer | string>;
type Transaction = Awaited<ReturnType<OutProducer['beginTransaction']>>;

/**
 * What a commit reads of a partition's last record: where it is, and the member it was fetched for
 * (`metadata.consumer`). A commit past transaction markers has no record there and makes one of these.
 */
export type CommitPoint = Pick<InMessage, 'topic' | 'partition' | 'offset' | 'leaderEpoch' | 'metadata'>;

/** A partition's part of a delivery: the last record whose offset is committed. */
export interface DeliveredPartition {
  readonly topic: string;
  readonly partition: number;
  readonly last: CommitPoint;
}

export class PlatformaticDelivery {
  readonly #options: StreamOptions;
  readonly #base: BaseOptions;
  readonly #log: Logger;
  readonly #consumer: Consumer;
  #producer: OutProducer;
  /** Failed deliveries in a row on the producer in hand. */
  #failures = 0;

  constructor(deps: { options: StreamOptions; base: BaseOptions; consumer: Consumer; log: Logger }) {
    this.#options = deps.options;
    this.#base = deps.base;
    this.#consumer = deps.consumer;
    this.#log = deps.log;
    this.#producer = this.#newProducer();
  }

  /**
   * Publishes `outputs` and commits each partition's offset past `last`, in one transaction (exactly-once) or
   * after the records are acknowledged (at-least-once). `offsetOf` stamps a record with the member its offset is
   * committed with. Throws on any failure, the transaction aborted.
   */
  async deliver(
    outputs: readonly OutputMessage[],
    done: readonly DeliveredPartition[],
    offsetOf: (last: CommitPoint) => CommitPoint,
  ): Promise<void> {
    const requests = splitRequests(outputs.map(outMessage), messageBytes);
    if (this.#options.delivery === 'at-least-once') {
      try {
        for (const messages of requests) await this.#producer.send({ messages });
      } catch (error) {
        await this.#failed(error, true);
        throw error;
      }
      this.#failures = 0;
      for (const { topic, partition, last } of done) {
        await this.#consumer.commit({ offsets: [{ topic, partition, offset: last.offset + 1n, leaderEpoch: last.leaderEpoch }] });
      }
      return;
    }
    const transaction: Transaction = await this.#producer.beginTransaction();
    try {
      for (const messages of requests) await transaction.send({ messages });
      await transaction.addConsumer(this.#consumer);
      // One after the other: concurrent addOffset calls are merged by the client and only the first is sent.
      // The client's addOffset reads only a CommitPoint's fields (TxnOffsetCommit), whatever its type says.
      for (const { last } of done) await transaction.addOffset(offsetOf(last) as InMessage);
      await transaction.commit();
      this.#failures = 0;
    } catch (error) {
      const aborted = await transaction.abort().then(
        () => true,
        () => false,
      );
      if (!aborted) await transaction.cancel().catch(() => undefined);
      await this.#failed(error, aborted);
      throw error;
    }
  }

  /** Counts a failed delivery and replaces the producer when {@link producerToRenew} says so. */
  async #failed(error: unknown, aborted: boolean): Promise<void> {
    this.#failures += 1;
    if (!producerToRenew(error, aborted, this.#failures)) return;
    this.#failures = 0;
    await this.#renewProducer(error);
  }

  async close(): Promise<void> {
    await within(this.#producer.close(), 5_000);
  }

  #newProducer(): OutProducer {
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
   * A new producer in place of one whose transaction could not be aborted, whose epoch the broker has moved past
   * (a transaction it timed out bumps the epoch: the client keeps the stale epoch for good, and every later
   * transaction fails with PRODUCER_FENCED), or that keeps failing. A transactional one's InitProducerId takes the
   * next epoch of the same transactional id, aborting whatever the old one left open.
   */
  async #renewProducer(error: unknown): Promise<void> {
    const old = this.#producer;
    this.#producer = this.#newProducer();
    this.#log.warn({ err: describeError(error) }, 'producer fenced, its transaction left open, or failing again: replaced');
    await within(old.close(), 5_000);
  }
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
