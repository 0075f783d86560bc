/**
 * The pass-through pipe the worker is measured against (bench/worker.ts): consumes the input topic and produces
 * every record's bytes unchanged (key, value, headers) to one output topic, on the same client (kafkajs) with
 * the same consumer and producer settings and the same delivery code path as src/app/worker/worker.ts:
 *
 * - exactly-once: one transactional producer per input partition (`<prefix>-<topic>-<partition>`), claimed
 *   with an empty transaction before the committed offset is read; each fetched batch is produced, its offsets
 *   sent with sendOffsets and committed in one transaction;
 * - at-least-once: one idempotent producer; sendBatch, then commitOffsets.
 *
 * Only the work in between differs: where the worker decodes, normalizes, validates and serializes, the pipe
 * copies. So worker / pipe is the cost of our code on this client. Not part of the product.
 *
 * Run as a process (as the worker is): `node --import tsx bench/pipe.ts`, configured by the worker's own
 * variables: KAFKA_BROKERS, INPUT_TOPIC, OUTPUT_TOPIC, GROUP_ID, DELIVERY, TRANSACTIONAL_ID_PREFIX,
 * KAFKA_FETCH_MAX_WAIT_MS, KAFKA_SESSION_TIMEOUT_MS; PIPE_CLIENT picks the client (kafkajs, the default;
 * platformatic: bench/pipe-platformatic.ts; confluent: bench/pipe-confluent.ts); PIPE_SHAPE=output writes records shaped like the worker's output. It prints `pipe ready` on stdout once it consumes, and stops
 * cleanly on SIGTERM.
 */
import { pathToFileURL } from 'node:url';
import { Kafka, logLevel, Partitioners, type EachBatchPayload, type KafkaMessage, type Producer } from 'kafkajs';
import { claimPartition, commitInTransaction, produceRequests } from '../src/app/worker/worker.js';
import type { OutputMessage } from '../src/core/records/output.js';

export type Delivery = 'exactly-once' | 'at-least-once';

export interface PipeConfig {
  readonly brokers: readonly string[];
  readonly input: string;
  readonly output: string;
  readonly groupId: string;
  readonly delivery: Delivery;
  readonly transactionalIdPrefix: string;
  /** As the worker's KAFKA_FETCH_MAX_WAIT_MS (default 1000). */
  readonly fetchMaxWaitMs: number;
  /** As the worker's KAFKA_SESSION_TIMEOUT_MS (default 30000). */
  readonly sessionTimeoutMs: number;
  /**
   * `same` (default): each record's bytes unchanged. `output`: records shaped like the worker's output (the value
   * as text, OUTPUT_SIZE_FACTOR times the input's length, and its extra header, `idempotency-key`), to split the worker's cost
   * into what the client spends on the bigger output and what our code spends (PIPE_SHAPE).
   */
  readonly shape: 'same' | 'output';
}

/** The worker's output value is ~2.34 times its input on the bench corpus (bench/worker.ts prints both sizes). */
export const OUTPUT_SIZE_FACTOR = 2.34;

/** A record shaped like the worker's output for `message` (see {@link PipeConfig.shape}). */
export function outputShaped(topic: string, message: KafkaMessage): OutputMessage {
  const text = message.value?.toString('utf8') ?? '';
  const value = text.repeat(Math.floor(OUTPUT_SIZE_FACTOR)) + text.slice(0, Math.round(text.length * (OUTPUT_SIZE_FACTOR % 1)));
  return { topic, key: message.key, value, headers: { ...message.headers, 'idempotency-key': `pipe-${message.offset}` } };
}

/** What every client's pipe offers (kafkajs here; alternatives in bench/pipe-*.ts). */
export interface Pipe {
  start(): Promise<void>;
  stop(): Promise<void>;
}

interface PartitionState {
  producer: Producer | undefined;
  claimedFrom: bigint | undefined;
}

/** The kafkajs pipe: src/app/worker/worker.ts's consumer, producers and delivery, with a copy for the processing. */
export function kafkajsPipe(config: PipeConfig): Pipe {
  const kafka = new Kafka({ clientId: 'toolcall-normalizer', brokers: [...config.brokers], connectionTimeout: 10_000, logLevel: logLevel.WARN });
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
      out.push(config.shape === 'same' ? { topic: config.output, key: message.key, value: message.value, headers: message.headers ?? {} } : outputShaped(config.output, message));
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
        shared = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
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

/** The pipe's configuration from the worker's variables. */
export function pipeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PipeConfig {
  const need = (name: string): string => {
    const value = env[name]?.trim();
    if (value === undefined || value === '') throw new Error(`${name} is required`);
    return value;
  };
  const delivery = env.DELIVERY?.trim() ?? 'exactly-once';
  if (delivery !== 'exactly-once' && delivery !== 'at-least-once') throw new Error(`DELIVERY must be exactly-once or at-least-once, got ${delivery}`);
  const groupId = need('GROUP_ID');
  return {
    brokers: need('KAFKA_BROKERS').split(',').map((b) => b.trim()),
    input: need('INPUT_TOPIC'),
    output: need('OUTPUT_TOPIC'),
    groupId,
    delivery,
    transactionalIdPrefix: env.TRANSACTIONAL_ID_PREFIX?.trim() ?? groupId,
    fetchMaxWaitMs: Number(env.KAFKA_FETCH_MAX_WAIT_MS ?? 1_000),
    sessionTimeoutMs: Number(env.KAFKA_SESSION_TIMEOUT_MS ?? 30_000),
    shape: env.PIPE_SHAPE === 'output' ? 'output' : 'same',
  };
}

async function main(): Promise<void> {
  const config = pipeConfigFromEnv();
  const client = process.env.PIPE_CLIENT ?? 'kafkajs';
  let pipe: Pipe;
  if (client === 'kafkajs') pipe = kafkajsPipe(config);
  else if (client === 'platformatic') pipe = (await import('./pipe-platformatic.js')).platformaticPipe(config);
  else if (client === 'confluent') pipe = (await import('./pipe-confluent.js')).confluentPipe(config);
  else throw new Error(`PIPE_CLIENT must be kafkajs, platformatic or confluent, got ${client}`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    pipe.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`pipe: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await pipe.start();
  process.stdout.write(`pipe ready (${client}, ${config.delivery}, ${config.shape})\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`pipe: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
