/**
 * The pass-through pipe (bench/pipe.ts) on @platformatic/kafka instead of kafkajs, for `npm run bench:worker --
 * --suite clients`: what a user switching clients would get. Not a dependency of the project: install it beside
 * the repository (`npm install --prefix /tmp/altclients @platformatic/kafka`, then PLATFORMATIC_KAFKA_DIR=
 * /tmp/altclients) or into node_modules with `npm install --no-save @platformatic/kafka`.
 *
 * Same delivery as the kafkajs pipe and the worker: exactly-once with one transactional producer per input
 * partition (`<prefix>-<topic>-<partition>`), each batch's records and its consumed offset in one transaction;
 * at-least-once with one idempotent producer, produce then commit. The client has no per-partition batch
 * callback: a batch is what the consumer stream holds when the pipe reads it (up to the stream's
 * highWaterMark, set to 5000 records here, about what one kafkajs fetch brings per partition), split by partition.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAX_REQUEST_BYTES } from '../src/app/worker/worker.js';
import type { Pipe, PipeConfig } from './pipe.js';
import { OUTPUT_SIZE_FACTOR } from './pipe.js';

/** The few parts of @platformatic/kafka's API used here (typed by hand: the package is not installed for CI). */
interface PlatformaticMessage {
  topic: string;
  partition: number;
  offset: bigint;
  key: Buffer | undefined;
  value: Buffer | undefined;
  headers: Map<Buffer, Buffer>;
  commit(): Promise<void> | undefined;
}
interface MessagesStream {
  read(): PlatformaticMessage | null;
  readonly readableLength: number;
  on(event: 'readable', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}
interface OutMessage {
  topic: string;
  key: Buffer | undefined;
  value: Buffer | string | undefined;
  headers: Map<Buffer | string, Buffer | string>;
}
interface Transaction {
  send(options: { messages: OutMessage[]; acks?: number }): Promise<unknown>;
  addConsumer(consumer: Consumer): Promise<void>;
  addOffset(message: PlatformaticMessage): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}
interface Producer {
  send(options: { messages: OutMessage[]; acks?: number }): Promise<unknown>;
  beginTransaction(): Promise<Transaction>;
  close(): Promise<void>;
}
interface Consumer {
  consume(options: Record<string, unknown>): Promise<MessagesStream>;
  close(force?: boolean): Promise<void>;
}
interface PlatformaticModule {
  Producer: new (options: Record<string, unknown>) => Producer;
  Consumer: new (options: Record<string, unknown>) => Consumer;
}

async function loadModule(): Promise<PlatformaticModule> {
  const dir = process.env.PLATFORMATIC_KAFKA_DIR;
  const specifier = '@platformatic/kafka';
  if (dir === undefined) return (await import(specifier)) as PlatformaticModule;
  const resolved = createRequire(join(dir, 'package.json')).resolve(specifier);
  return (await import(pathToFileURL(resolved).href)) as PlatformaticModule;
}

const HIGH_WATER_MARK = 5_000;

const IDEMPOTENCY_KEY = Buffer.from('idempotency-key');

// The worker's produce-request bound (MAX_REQUEST_BYTES, src/app/worker/worker.ts), split here for this client's
// messages (Map headers, one topic): without it a batch of output-shaped records (~2.4 MiB) is one record batch
// over the broker's 1 MiB `message.max.bytes`, and the send fails.

function splitRequests(messages: readonly OutMessage[]): OutMessage[][] {
  const requests: OutMessage[][] = [];
  let current: OutMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    let size = (message.key?.length ?? 0) + (message.value === undefined ? 0 : Buffer.byteLength(message.value));
    for (const [name, value] of message.headers) size += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (bytes > 0 && bytes + size > MAX_REQUEST_BYTES) {
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

/** The client nests its errors (an AggregateError of retries, each with a cause): print the whole tree. */
function describe(error: unknown, depth = 0): string {
  if (!(error instanceof Error) || depth > 4) return String(error);
  const pad = `\n${'  '.repeat(depth + 1)}`;
  const inner = [...(error instanceof AggregateError ? (error.errors as unknown[]) : []), ...(error.cause === undefined ? [] : [error.cause])];
  const extra = 'code' in error ? ` [${String(error.code)}]` : '';
  return `${error.name}: ${error.message}${extra}${inner.map((e) => pad + describe(e, depth + 1)).join('')}`;
}

export function platformaticPipe(config: PipeConfig): Pipe {
  let consumer: Consumer | undefined;
  let shared: Producer | undefined;
  const producers = new Map<string, Producer>();
  let lib: PlatformaticModule | undefined;
  let failed: ((error: Error) => void) | undefined;
  const base = { clientId: 'toolcall-normalizer', bootstrapBrokers: [...config.brokers], retries: 8 };

  function producerFor(key: string): Producer {
    let producer = producers.get(key);
    if (producer === undefined) {
      if (lib === undefined) throw new Error('not started');
      producer = new lib.Producer({ ...base, idempotent: true, transactionalId: `${config.transactionalIdPrefix}-${key.replace(':', '-')}` });
      producers.set(key, producer);
    }
    return producer;
  }

  function transform(message: PlatformaticMessage): OutMessage {
    const headers = new Map<Buffer | string, Buffer | string>(message.headers);
    if (config.shape === 'same') return { topic: config.output, key: message.key, value: message.value, headers };
    const text = message.value?.toString('utf8') ?? '';
    // Without serializers configured the client takes bytes only: the text becomes a Buffer here, as the
    // worker's output would on this client.
    headers.set(IDEMPOTENCY_KEY, Buffer.from(`pipe-${message.offset.toString()}`));
    const value = text.repeat(Math.floor(OUTPUT_SIZE_FACTOR)) + text.slice(0, Math.round(text.length * (OUTPUT_SIZE_FACTOR % 1)));
    return { topic: config.output, key: message.key, value: Buffer.from(value), headers };
  }

  async function deliver(key: string, batch: PlatformaticMessage[]): Promise<void> {
    const last = batch[batch.length - 1];
    if (last === undefined || consumer === undefined) return;
    const requests = splitRequests(batch.map(transform));
    if (config.delivery === 'at-least-once') {
      if (shared === undefined) throw new Error('at-least-once producer not started');
      for (const messages of requests) await shared.send({ messages, acks: -1 });
      await last.commit();
      return;
    }
    const transaction = await producerFor(key).beginTransaction();
    try {
      for (const messages of requests) await transaction.send({ messages, acks: -1 });
      await transaction.addConsumer(consumer);
      await transaction.addOffset(last);
      await transaction.commit();
    } catch (error) {
      await transaction.abort().catch(() => undefined);
      throw error;
    }
  }

  let processing = false;
  async function drain(stream: MessagesStream): Promise<void> {
    if (processing) return;
    processing = true;
    try {
      for (;;) {
        const byPartition = new Map<string, PlatformaticMessage[]>();
        let count = 0;
        for (let m = stream.read(); m !== null; m = count < HIGH_WATER_MARK ? stream.read() : null) {
          const key = `${m.topic}:${m.partition}`;
          let list = byPartition.get(key);
          if (list === undefined) byPartition.set(key, (list = []));
          list.push(m);
          count++;
        }
        if (count === 0) break;
        // One partition after the other, as kafkajs hands the worker its batches.
        for (const [key, batch] of byPartition) await deliver(key, batch);
      }
    } finally {
      processing = false;
    }
    if (stream.readableLength > 0) await drain(stream);
  }

  return {
    async start() {
      lib = await loadModule();
      consumer = new lib.Consumer({
        ...base,
        groupId: config.groupId,
        sessionTimeout: config.sessionTimeoutMs,
        heartbeatInterval: Math.max(1_000, Math.floor(config.sessionTimeoutMs / 10)),
        highWaterMark: HIGH_WATER_MARK,
      });
      if (config.delivery === 'at-least-once') shared = new lib.Producer({ ...base, idempotent: true });
      const stream = await consumer.consume({
        topics: [config.input],
        mode: 'committed',
        fallbackMode: 'earliest',
        autocommit: false,
        isolationLevel: 1, // READ_COMMITTED
        maxWaitTime: config.fetchMaxWaitMs,
        maxBytesPerPartition: 1_048_576, // kafkajs's default, as the worker's consumer has it
        highWaterMark: HIGH_WATER_MARK,
      });
      const fatal = new Promise<never>((_, reject) => {
        failed = reject;
      });
      fatal.catch((error: unknown) => {
        process.stderr.write(`pipe-platformatic: ${describe(error)}\n`);
        process.exit(1);
      });
      stream.on('error', (error) => failed?.(error));
      stream.on('readable', () => {
        drain(stream).catch((error: unknown) => failed?.(error instanceof Error ? error : new Error(String(error))));
      });
    },
    async stop() {
      await consumer?.close(true);
      await Promise.allSettled([...producers.values(), ...(shared === undefined ? [] : [shared])].map((p) => p.close()));
    },
  };
}
