/**
 * The pass-through pipe (bench/pipe.ts) on @platformatic/kafka, with the worker's settings for that client
 * (src/adapters/kafka/platformatic.ts): exactly-once with one transactional producer per process (KIP-447: the
 * offsets go in the transaction with the consumer group's generation), what one read of the stream brings (up to
 * 5000 records, all partitions) in one transaction, each partition's offset added one after the other;
 * at-least-once with one idempotent producer, produce then commit. Same retry delay, producer id and partitioner
 * as the worker; requests split as the worker splits them (splitRequests, messageBytes).
 */
import { Consumer, FetchIsolationLevels, Producer, type Message, type MessagesStream, type MessageToProduce } from '@platformatic/kafka';
import { splitRequests } from '../src/adapters/kafka/delivery.js';
import { platformaticBaseOptions } from '../src/adapters/kafka/platformatic-client.js';
import { messageBytes } from '../src/adapters/kafka/platformatic-delivery.js';
import { outputShapedText, type Pipe, type PipeConfig } from './pipe-common.js';

type InMessage = Message;
type OutMessage = MessageToProduce;

const HIGH_WATER_MARK = 5_000;
const IDEMPOTENCY_KEY = Buffer.from('idempotency-key');

export function platformaticPipe(config: PipeConfig): Pipe {
  const base = platformaticBaseOptions({
    brokers: config.brokers,
    clientId: 'toolcall-normalizer',
    ssl: false,
    sasl: undefined,
    connectionTimeoutMs: 10_000,
  });
  const exactlyOnce = config.delivery === 'exactly-once';
  const consumer = new Consumer<Buffer, Buffer, Buffer, Buffer>({
    ...base,
    groupId: config.groupId,
    sessionTimeout: config.sessionTimeoutMs,
    rebalanceTimeout: config.sessionTimeoutMs,
    heartbeatInterval: Math.max(1_000, Math.floor(config.sessionTimeoutMs / 10)),
    autocommit: false,
  });
  const producer = new Producer<Buffer, Buffer, Buffer, Buffer>({
    ...base,
    idempotent: true,
    producerId: -1n,
    producerEpoch: -1,
    timeout: 10_000,
    ...(exactlyOnce ? { transactionalId: `${config.transactionalIdPrefix}-pipe-${String(process.pid)}` } : {}),
  });
  let failed: ((error: Error) => void) | undefined;

  function transform(message: InMessage): OutMessage {
    // The client's types promise a key and a value; a record without one has undefined there.
    const { key, value: bytes } = message as { key: Buffer | undefined; value: Buffer | undefined };
    const headers = new Map<Buffer, Buffer>(message.headers);
    if (config.shape === 'same')
      return { topic: config.output, ...(key === undefined ? {} : { key }), ...(bytes === undefined ? {} : { value: bytes }), headers };
    headers.set(IDEMPOTENCY_KEY, Buffer.from(`pipe-${message.offset.toString()}`));
    const value = Buffer.from(outputShapedText(bytes?.toString('utf8') ?? ''));
    return { topic: config.output, ...(key === undefined ? {} : { key }), value, headers };
  }

  async function deliver(batch: readonly InMessage[]): Promise<void> {
    const lastByPartition = new Map<number, InMessage>();
    for (const m of batch) lastByPartition.set(m.partition, m);
    const requests = splitRequests(batch.map(transform), messageBytes);
    if (!exactlyOnce) {
      for (const messages of requests) await producer.send({ messages });
      for (const last of lastByPartition.values()) await last.commit();
      return;
    }
    const transaction = await producer.beginTransaction();
    try {
      for (const messages of requests) await transaction.send({ messages });
      await transaction.addConsumer(consumer);
      for (const last of lastByPartition.values()) await transaction.addOffset(last);
      await transaction.commit();
    } catch (error) {
      await transaction.abort().catch(() => undefined);
      throw error;
    }
  }

  let processing = false;
  async function drain(stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>): Promise<void> {
    if (processing) return;
    processing = true;
    try {
      for (;;) {
        const batch: InMessage[] = [];
        for (
          let m = stream.read() as InMessage | null;
          m !== null;
          m = batch.length < HIGH_WATER_MARK ? (stream.read() as InMessage | null) : null
        )
          batch.push(m);
        if (batch.length === 0) break;
        await deliver(batch);
      }
    } finally {
      processing = false;
    }
    if (stream.readableLength > 0) await drain(stream);
  }

  return {
    async start() {
      const stream = await consumer.consume({
        topics: [config.input],
        mode: 'committed',
        fallbackMode: 'earliest',
        autocommit: false,
        isolationLevel: FetchIsolationLevels.READ_COMMITTED,
        maxWaitTime: config.fetchMaxWaitMs,
        maxBytesPerPartition: 1_048_576,
        highWaterMark: HIGH_WATER_MARK,
      });
      const fatal = new Promise<never>((_, reject) => {
        failed = reject;
      });
      fatal.catch((error: unknown) => {
        process.stderr.write(`pipe-platformatic: ${String(error)}\n`);
        process.exit(1);
      });
      stream.on('error', (error: Error) => failed?.(error));
      stream.on('readable', () => {
        drain(stream).catch((error: unknown) => failed?.(error instanceof Error ? error : new Error(String(error))));
      });
    },
    async stop() {
      await consumer.close(true);
      await producer.close();
    },
  };
}
