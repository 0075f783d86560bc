/**
 * The pass-through pipe (bench/pipe.ts) on `@confluentinc/kafka-javascript` (librdkafka under a KafkaJS-compatible
 * API) instead of kafkajs, for `npm run bench:worker -- --suite clients`: what a user switching clients would get.
 * Not a dependency of the project. Its install downloads a prebuilt librdkafka from outside the npm registry and
 * falls back to building the librdkafka it ships (C, node-gyp, about 5 minutes on 2 cores); with
 * `CKJS_LINKING=dynamic` that build links the system's OpenSSL and zlib instead of downloading their sources:
 *
 *     CKJS_LINKING=dynamic npm_config_nodedir=/usr npm_config_build_from_source=true \
 *       npm install --prefix /tmp/altclients-ck @confluentinc/kafka-javascript@1.10.1
 *
 * then CONFLUENT_KAFKA_DIR=/tmp/altclients-ck (`npm_config_nodedir`: the Node installation's prefix, whose
 * include/node holds the headers node-gyp would otherwise download).
 *
 * Same delivery as the kafkajs pipe and the worker: exactly-once with one transactional producer per input
 * partition (`<prefix>-<topic>-<partition>`), each batch's records and its consumed offset in one transaction
 * (sendOffsets with the consumer, as this client requires); at-least-once with one idempotent producer, produce
 * then commit; the worker's 512 KiB produce requests. This client forms batches itself from what librdkafka has
 * prefetched (`js.consumer.max.batch.size`): capped at 5,000 records here, about what one kafkajs fetch brings per
 * partition, as for the @platformatic/kafka pipe. librdkafka heartbeats on its own thread.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { produceRequests } from '../src/adapters/kafka/kafkajs.js';
import type { OutputMessage } from '../src/core/records/output.js';
import { outputShaped, type Pipe, type PipeConfig } from './pipe-common.js';

/** The few parts of the client's KafkaJS-compatible API used here (typed by hand: not installed for CI). */
interface Message {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
}
interface EachBatchPayload {
  batch: { topic: string; partition: number; messages: Message[] };
  resolveOffset(offset: string): void;
}
interface TopicOffsets {
  topic: string;
  partitions: { partition: number; offset: string }[];
}
interface Producer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  sendBatch(batch: { topicMessages: { topic: string; messages: unknown[] }[] }): Promise<unknown>;
  transaction(): Promise<Transaction>;
}
interface Transaction extends Producer {
  sendOffsets(args: { consumer: Consumer; topics: TopicOffsets[] }): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}
interface Consumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(options: { topics: string[] }): Promise<void>;
  run(options: { eachBatchAutoResolve: boolean; eachBatch: (payload: EachBatchPayload) => Promise<void> }): Promise<void>;
  commitOffsets(offsets: { topic: string; partition: number; offset: string }[]): Promise<void>;
}
interface Kafka {
  consumer(config: Record<string, unknown>): Consumer;
  producer(config: Record<string, unknown>): Producer;
}
interface ConfluentModule {
  KafkaJS: { Kafka: new (config: Record<string, unknown>) => Kafka; logLevel: Record<string, number> };
}

function loadModule(): ConfluentModule {
  const dir = process.env.CONFLUENT_KAFKA_DIR;
  const specifier = '@confluentinc/kafka-javascript';
  // A native addon in a CommonJS package: required, not imported.
  const require = createRequire(dir === undefined ? import.meta.url : join(dir, 'package.json'));
  return require(specifier) as ConfluentModule;
}

/** Records per batch: what the client hands over at most per partition (see the header). */
const MAX_BATCH = 5_000;

export function confluentPipe(config: PipeConfig): Pipe {
  const lib = loadModule().KafkaJS;
  const kafka = new lib.Kafka({
    kafkaJS: { clientId: 'toolcall-normalizer', brokers: [...config.brokers], connectionTimeout: 10_000, logLevel: lib.logLevel.WARN },
  });
  const consumer = kafka.consumer({
    kafkaJS: {
      groupId: config.groupId,
      fromBeginning: true,
      autoCommit: false,
      readUncommitted: false,
      sessionTimeout: config.sessionTimeoutMs,
      heartbeatInterval: Math.max(1_000, Math.floor(config.sessionTimeoutMs / 10)),
      maxWaitTimeInMs: config.fetchMaxWaitMs,
    },
    'js.consumer.max.batch.size': MAX_BATCH,
  });
  const producers = new Map<string, Producer>();
  let shared: Producer | undefined;

  async function producerFor(key: string): Promise<Producer> {
    let producer = producers.get(key);
    if (producer === undefined) {
      producer = kafka.producer({
        kafkaJS: { transactionalId: `${config.transactionalIdPrefix}-${key.replace(':', '-')}`, idempotent: true, maxInFlightRequests: 1 },
      });
      await producer.connect(); // initialises the transactional id, fencing an older holder
      producers.set(key, producer);
    }
    return producer;
  }

  async function onBatch(payload: EachBatchPayload): Promise<void> {
    const { topic, partition, messages } = payload.batch;
    const last = messages[messages.length - 1];
    if (last === undefined) return;
    const out: OutputMessage[] = messages.map((m) =>
      config.shape === 'same'
        ? { topic: config.output, key: m.key, value: m.value, headers: m.headers ?? {} }
        : outputShaped(config.output, m),
    );
    const next = (BigInt(last.offset) + 1n).toString();
    // The worker's own split into produce requests (each under the broker's default message.max.bytes).
    const requests = produceRequests(out);
    if (config.delivery === 'at-least-once') {
      if (shared === undefined) throw new Error('at-least-once producer not started');
      for (const topicMessages of requests) await shared.sendBatch({ topicMessages });
      await consumer.commitOffsets([{ topic, partition, offset: next }]);
    } else {
      const transaction = await (await producerFor(`${topic}:${partition}`)).transaction();
      try {
        for (const topicMessages of requests) await transaction.sendBatch({ topicMessages });
        await transaction.sendOffsets({ consumer, topics: [{ topic, partitions: [{ partition, offset: next }] }] });
        await transaction.commit();
      } catch (error) {
        await transaction.abort().catch(() => undefined);
        throw error;
      }
    }
    payload.resolveOffset(last.offset);
  }

  return {
    async start() {
      if (config.delivery === 'at-least-once') {
        shared = kafka.producer({ kafkaJS: { idempotent: true, maxInFlightRequests: 1 } });
        await shared.connect();
      }
      await consumer.connect();
      await consumer.subscribe({ topics: [config.input] });
      await consumer.run({ eachBatchAutoResolve: false, eachBatch: onBatch });
    },
    async stop() {
      // This client has no consumer.stop(): disconnecting stops the run.
      await consumer.disconnect();
      await Promise.allSettled([...producers.values(), ...(shared === undefined ? [] : [shared])].map((p) => p.disconnect()));
    },
  };
}
