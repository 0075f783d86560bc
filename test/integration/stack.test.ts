/**
 * Proves that the clients this project uses work against the local stack of scripts/stack.sh:
 * kafkajs 2.2.4 against Apache Kafka 4.x (KRaft) — admin, consumer groups, idempotent transactional producer with
 * sendOffsets, read_committed isolation — and @kafkajs/confluent-schema-registry against Apicurio Registry's
 * Confluent-compatible API.
 *
 * Needs KAFKA_BROKERS and SCHEMA_REGISTRY_URL: `npm run stack:up`, then `export $(bash scripts/stack.sh env)`.
 * Without them every test FAILS on purpose: an integration test that skips proves nothing.
 * Topic, group, transactional id and subject names are unique per run, so reruns never collide.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';

const RUN = `stack-it-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;

function requireEnv(name: 'KAFKA_BROKERS' | 'SCHEMA_REGISTRY_URL'): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(
      `${name} is not set: start the local stack with \`npm run stack:up\` (bash scripts/stack.sh up) and export the ` +
        'two lines it prints, e.g. `export $(bash scripts/stack.sh env)`, before running this test',
    );
  }
  return value;
}

let kafkaClient: Kafka | undefined;
function kafka(): Kafka {
  kafkaClient ??= new Kafka({
    clientId: RUN,
    brokers: requireEnv('KAFKA_BROKERS').split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 8 },
  });
  return kafkaClient;
}

/** Everything connected here is disconnected in afterAll, even when a test fails half way. */
const connected: (Admin | Producer | Consumer)[] = [];
async function connect<T extends Admin | Producer | Consumer>(client: T): Promise<T> {
  connected.push(client);
  await client.connect();
  return client;
}
async function disconnect(client: Admin | Producer | Consumer): Promise<void> {
  const index = connected.indexOf(client);
  if (index >= 0) connected.splice(index, 1);
  await client.disconnect();
}

afterAll(async () => {
  await Promise.allSettled(connected.map((client) => client.disconnect()));
});

async function eventually(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createTopic(admin: Admin, topic: string, numPartitions: number): Promise<void> {
  const created = await admin.createTopics({
    topics: [{ topic, numPartitions, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  expect(created).toBe(true);
}

/** Reads a topic from the beginning with a fresh group until `until` holds; returns the values seen in order. */
async function readAll(topic: string, readUncommitted: boolean, until: (values: string[]) => boolean): Promise<string[]> {
  const consumer = await connect(
    kafka().consumer({ groupId: `${RUN}-reader-${randomUUID().slice(0, 8)}`, readUncommitted, maxWaitTimeInMs: 200 }),
  );
  const values: string[] = [];
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: ({ message }) => {
      values.push(message.value?.toString() ?? '<null>');
      return Promise.resolve();
    },
  });
  await eventually(() => until(values), `${readUncommitted ? 'read_uncommitted' : 'read_committed'} reader of ${topic}`);
  await disconnect(consumer);
  return values;
}

async function committedOffsets(admin: Admin, groupId: string, topic: string): Promise<number> {
  const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
  return offsets.flatMap((entry) => entry.partitions).reduce((sum, partition) => sum + Math.max(0, Number(partition.offset)), 0);
}

describe('kafkajs 2.2.4 against the local Kafka', () => {
  it('sees a single KRaft broker and creates a topic through the admin client', async () => {
    const admin = await connect(kafka().admin());
    const cluster = await admin.describeCluster();
    expect(cluster.brokers).toHaveLength(1);

    const topic = `${RUN}-admin`;
    await createTopic(admin, topic, 3);
    expect(await admin.listTopics()).toContain(topic);
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(metadata.topics[0]?.partitions).toHaveLength(3);
    await disconnect(admin);
  });

  it('produces and consumes with a consumer group, and commits the group offsets', async () => {
    const admin = await connect(kafka().admin());
    const topic = `${RUN}-plain`;
    const groupId = `${RUN}-group`;
    await createTopic(admin, topic, 3);

    const producer = await connect(kafka().producer());
    const sent = Array.from({ length: 12 }, (_, i) => `message-${i}`);
    await producer.send({ topic, messages: sent.map((value, i) => ({ key: `key-${i % 4}`, value })) });
    await disconnect(producer);

    const consumer = await connect(kafka().consumer({ groupId, maxWaitTimeInMs: 200 }));
    const received: string[] = [];
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        received.push(message.value?.toString() ?? '<null>');
        return Promise.resolve();
      },
    });
    await eventually(() => received.length >= sent.length, 'the consumer group to receive every message');
    await disconnect(consumer); // commits the offsets it consumed

    expect([...received].sort()).toEqual([...sent].sort());
    expect(await committedOffsets(admin, groupId, topic)).toBe(sent.length);
    await disconnect(admin);
  });

  it('runs consume-transform-produce transactions with sendOffsets; read_committed skips an aborted transaction', async () => {
    const admin = await connect(kafka().admin());
    const input = `${RUN}-tx-in`;
    const output = `${RUN}-tx-out`;
    const groupId = `${RUN}-tx-group`;
    await createTopic(admin, input, 1);
    await createTopic(admin, output, 1);

    const seeder = await connect(kafka().producer());
    const inputs = ['a', 'b', 'c'];
    await seeder.send({ topic: input, messages: inputs.map((value) => ({ value })) });
    await disconnect(seeder);

    const producer = await connect(kafka().producer({ transactionalId: `${RUN}-tx`, idempotent: true, maxInFlightRequests: 1 }));

    // Committed: each consumed batch is written out and its offsets committed in the same transaction.
    const consumer = await connect(kafka().consumer({ groupId, maxWaitTimeInMs: 200 }));
    let processed = 0;
    await consumer.subscribe({ topic: input, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const last = batch.messages.at(-1);
        if (last === undefined) return;
        const transaction = await producer.transaction();
        try {
          await transaction.send({
            topic: output,
            messages: batch.messages.map((message) => ({ value: `committed-${message.value?.toString() ?? ''}` })),
          });
          await transaction.sendOffsets({
            consumerGroupId: groupId,
            topics: [
              {
                topic: batch.topic,
                partitions: [{ partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }],
              },
            ],
          });
          await transaction.commit();
        } catch (error) {
          await transaction.abort();
          throw error;
        }
        processed += batch.messages.length;
      },
    });
    await eventually(() => processed >= inputs.length, 'the transactional consume-transform-produce loop');
    await disconnect(consumer);
    expect(await committedOffsets(admin, groupId, input)).toBe(inputs.length);

    // Aborted: written to the log, but a read_committed reader must never see it.
    const aborted = await producer.transaction();
    await aborted.send({ topic: output, messages: [{ value: 'aborted-1' }, { value: 'aborted-2' }] });
    await aborted.abort();

    // Committed after the abort, so the reader has something to reach past the aborted records.
    const last = await producer.transaction();
    await last.send({ topic: output, messages: [{ value: 'committed-after-abort' }] });
    await last.commit();
    await disconnect(producer);

    const expected = [...inputs.map((value) => `committed-${value}`), 'committed-after-abort'];
    const committedView = await readAll(output, false, (values) => values.includes('committed-after-abort'));
    expect(committedView).toEqual(expected);

    // The aborted records really are in the log: a read_uncommitted reader sees them.
    const uncommittedView = await readAll(output, true, (values) => values.includes('committed-after-abort'));
    expect(uncommittedView).toEqual([...expected.slice(0, 3), 'aborted-1', 'aborted-2', 'committed-after-abort']);
    await disconnect(admin);
  });
});

describe('@kafkajs/confluent-schema-registry against the local Apicurio Registry', () => {
  it('registers a JSON schema and reads it back', async () => {
    const url = requireEnv('SCHEMA_REGISTRY_URL');
    const registry = new SchemaRegistry({ host: url });
    const subject = `${RUN}-tool-call-value`;
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'ToolCall',
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object' } },
      required: ['name', 'arguments'],
      additionalProperties: false,
    };

    const { id } = await registry.register({ type: SchemaType.JSON, schema: JSON.stringify(schema) }, { subject });
    expect(Number.isInteger(id)).toBe(true);
    expect(await registry.getLatestSchemaId(subject)).toBe(id);

    // The schema read back is the one registered. (isValid() without an errorHook always answers true in
    // @kafkajs/confluent-schema-registry 4.1.0, so pass one.)
    const readBack = await registry.getSchema(id);
    const errors: string[] = [];
    const errorHook = (path: string[]): void => {
      errors.push(path.join('.'));
    };
    expect(readBack.isValid({ name: 'get_weather', arguments: { city: 'Oslo' } }, { errorHook })).toBe(true);
    expect(readBack.isValid({ name: 'get_weather' }, { errorHook })).toBe(false);
    expect(errors).not.toHaveLength(0);

    const response = await fetch(`${url}/schemas/ids/${id}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { schema?: string; schemaType?: string };
    expect(body.schemaType).toBe('JSON');
    expect(JSON.parse(body.schema ?? 'null')).toEqual(schema);

    // Confluent wire format: magic byte 0, 4-byte big-endian schema id, JSON payload.
    const payload = { name: 'get_weather', arguments: { city: 'Oslo' } };
    const encoded = await registry.encode(id, payload);
    expect(encoded.readUInt8(0)).toBe(0);
    expect(encoded.readUInt32BE(1)).toBe(id);
    expect(await registry.decode(encoded)).toEqual(payload);
    await expect(registry.encode(id, { name: 'get_weather' })).rejects.toThrow(/invalid payload/);
  });
});
