/**
 * The pass-through pipe on kafkajs, with the worker's own kafkajs delivery code (src/adapters/kafka/kafkajs.ts):
 * exactly-once with one transactional producer per input partition (claimPartition, commitInTransaction),
 * at-least-once with one idempotent producer, sendBatch then commitOffsets. Run by bench/pipe.ts.
 */
import { Kafka, logLevel, type EachBatchPayload, type KafkaMessage, type Producer } from 'kafkajs';
import { claimPartition, commitInTransaction, javaCompatiblePartitioner, produceRequests } from '../src/adapters/kafka/kafkajs.js';
import { patchKafkajsRequestQueue } from '../src/adapters/kafka/kafkajs-request-queue.js';
import type { OutputMessage } from '../src/core/records/output.js';
import { outputShaped, type Pipe, type PipeConfig } from './pipe-common.js';

interface PartitionState {
  producer: Producer | undefined;
  claimedFrom: bigint | undefined;
}

/** The kafkajs pipe: src/app/worker/worker.ts's consumer, producers and delivery, with a copy for the processing. */
export function kafkajsPipe(config: PipeConfig): Pipe {
  patchKafkajsRequestQueue(); // as the worker's createKafka does
  const kafka = new Kafka({
    clientId: 'toolcall-normalizer',
    brokers: [...config.brokers],
    connectionTimeout: 10_000,
    logLevel: logLevel.WARN,
  });
  const admin = kafka.admin();
  const consumer = kafka.consumer({
    groupId: config.groupId,
    readUncommitted: false,
    allowAutoTopicCreation: false,
    sessionTimeout: config.sessionTimeoutMs,
    heartbeatInterval: Math.max(1_000, Math.floor(config.sessionTimeoutMs / 10)),
    maxWaitTimeInMs: config.fetchMaxWaitMs,
    retry: { retries: 8 },
  });
  const partitions = new Map<string, PartitionState>();
  let shared: Producer | undefined;

  consumer.on(consumer.events.GROUP_JOIN, () => {
    // As the worker: every partition is claimed again in a new generation, with a new producer.
    for (const state of partitions.values()) {
      void state.producer?.disconnect().catch(() => undefined);
      state.producer = undefined;
      state.claimedFrom = undefined;
    }
  });

  async function claim(topic: string, partition: number, state: PartitionState): Promise<bigint> {
    if (state.claimedFrom !== undefined && state.producer !== undefined) return state.claimedFrom;
    const claimed = await claimPartition(kafka, admin, config, topic, partition);
    state.producer = claimed.producer;
    state.claimedFrom = claimed.from;
    return claimed.from;
  }

  async function onBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const { topic, partition } = batch;
    if (batch.messages.length === 0) return;
    const key = `${topic}:${partition}`;
    let state = partitions.get(key);
    if (state === undefined) {
      state = { producer: undefined, claimedFrom: undefined };
      partitions.set(key, state);
    }
    let messages: KafkaMessage[] = batch.messages;
    if (config.delivery === 'exactly-once') {
      const from = await claim(topic, partition, state);
      messages = messages.filter((m) => BigInt(m.offset) >= from);
      if (messages.length === 0) {
        payload.resolveOffset(batch.lastOffset());
        return;
      }
    }
    const out: OutputMessage[] = [];
    let last: KafkaMessage | undefined;
    for (const message of messages) {
      if (!payload.isRunning() || payload.isStale()) break;
      out.push(
        config.shape === 'same'
          ? { topic: config.output, key: message.key, value: message.value, headers: message.headers ?? {} }
          : outputShaped(config.output, message),
      );
      last = message;
    }
    if (last === undefined) return;
    const next = (BigInt(last.offset) + 1n).toString();
    // The worker's own split into produce requests (each under the broker's default message.max.bytes).
    const requests = produceRequests(out);
    if (config.delivery === 'at-least-once') {
      if (shared === undefined) throw new Error('at-least-once producer not started');
      for (const topicMessages of requests) await shared.sendBatch({ topicMessages, acks: -1 });
      await payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: next }] }] });
    } else {
      const producer = state.producer;
      if (producer === undefined) throw new Error(`partition ${key} not claimed`);
      try {
        await commitInTransaction(producer, config.groupId, topic, partition, requests, next);
        state.claimedFrom = BigInt(next);
      } catch (error) {
        state.producer = undefined;
        state.claimedFrom = undefined;
        void producer.disconnect().catch(() => undefined);
        throw error;
      }
    }
    payload.resolveOffset(last.offset);
    await payload.heartbeat();
  }

  return {
    async start() {
      await admin.connect();
      if (config.delivery === 'at-least-once') {
        shared = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: javaCompatiblePartitioner });
        await shared.connect();
      }
      await consumer.connect();
      await consumer.subscribe({ topics: [config.input], fromBeginning: true });
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: onBatch });
    },
    async stop() {
      await consumer.stop();
      await consumer.disconnect();
      await Promise.allSettled([...partitions.values()].flatMap((s) => (s.producer === undefined ? [] : [s.producer.disconnect()])));
      await shared?.disconnect();
      await admin.disconnect();
    },
  };
}
