/**
 * What every benchmark pipe shares (bench/pipe.ts runs one): its configuration, read from the worker's own
 * variables, and the output-shaped record. The pipes import this module only, never each other.
 */
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

/**
 * Bytes of the worker's output values over the bytes of its input values on the bench corpus, as the worker
 * writes them (outputs, rejections and dead letters), read back from the topics. To re-measure over the whole
 * corpus: `BENCH_KINDS=worker BENCH_CALLS=20000 npm run bench:worker -- --suite main` ("output / input bytes").
 */
export const OUTPUT_SIZE_FACTOR = 1.46;

/** `text` stretched to OUTPUT_SIZE_FACTOR times its length, as the output-shaped pipes write a value. */
export function outputShapedText(text: string): string {
  return text.repeat(Math.floor(OUTPUT_SIZE_FACTOR)) + text.slice(0, Math.round(text.length * (OUTPUT_SIZE_FACTOR % 1)));
}

/** A record shaped like the worker's output for `message` (see {@link PipeConfig.shape}). */
export function outputShaped(
  topic: string,
  message: { key: Buffer | null; value: Buffer | null; offset: string; headers?: OutputMessage['headers'] },
): OutputMessage {
  const value = outputShapedText(message.value?.toString('utf8') ?? '');
  return { topic, key: message.key, value, headers: { ...(message.headers ?? {}), 'idempotency-key': `pipe-${message.offset}` } };
}

/** What every client's pipe offers (kafkajs here; alternatives in bench/pipe-*.ts). */
export interface Pipe {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The pipe's configuration from the worker's variables. */
export function pipeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PipeConfig {
  const need = (name: string): string => {
    const value = env[name]?.trim();
    if (value === undefined || value === '') throw new Error(`${name} is required`);
    return value;
  };
  const delivery = env.DELIVERY?.trim() ?? 'exactly-once';
  if (delivery !== 'exactly-once' && delivery !== 'at-least-once')
    throw new Error(`DELIVERY must be exactly-once or at-least-once, got ${delivery}`);
  const groupId = need('GROUP_ID');
  return {
    brokers: need('KAFKA_BROKERS')
      .split(',')
      .map((b) => b.trim()),
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
