/**
 * KAFKA_COMPRESSION, on each client, against the real local stack: input produced compressed with a codec is read,
 * and every output batch the worker writes (normalized, rejected, dead letters) carries the configured codec in its
 * record-batch attributes as the broker stores it, each call delivered once. Input and output codecs differ in
 * each run (the input is the next codec round the list), so reading one codec and writing another are both proven.
 */
import { Consumer, Producer } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { registerKafkajsCodecs } from '../../src/adapters/kafka/compression.js';
import { COMPRESSIONS, type Compression } from '../../src/core/shared/stream.js';
import {
  KAFKA_CLIENTS,
  freshTopics,
  numberedCalls,
  numberedIds,
  outputTopics,
  readOutputs,
  stackEnv,
  startReadyWorker,
  tally,
  untilCommitted,
} from './harness.js';
import { expectExactlyOnce, workerSuite } from './worker-suite.js';

const suite = workerSuite('itcz');
// The harness reads the outputs with kafkajs, as the worker does: with the codecs the worker registers.
registerKafkajsCodecs();
const N = 120;

/** Kafka's record-batch attribute bits: the codec (0-2) and the control-batch flag (5). */
const CODEC_MASK = 0x07;
const CONTROL_BATCH = 0x20;

const producers: Producer[] = [];
afterAll(async () => {
  await Promise.allSettled(producers.map((p) => p.close()));
});

/** Produces `N` numbered calls to `topic`, compressed with `codec`, 20 to a batch. */
async function produceCompressed(topic: string, prefix: string, codec: Compression): Promise<void> {
  const producer = new Producer({
    clientId: `itcz-${codec}`,
    bootstrapBrokers: [...stackEnv().brokers],
    compression: codec,
    idempotent: true,
  });
  producers.push(producer);
  const calls = numberedCalls(prefix, 0, N, 6);
  for (let i = 0; i < calls.length; i += 20) {
    const messages = calls.slice(i, i + 20).map((m) => ({ topic, key: Buffer.from(String(m.key)), value: Buffer.from(String(m.value)) }));
    await producer.send({ messages, acks: -1 });
  }
}

/** The codec of every data batch the broker holds for `topics` (control batches left out), counted by name. */
async function batchCodecs(topics: readonly string[]): Promise<Record<string, number>> {
  const consumer = new Consumer({
    clientId: 'itcz-reader',
    groupId: `itcz-reader-${Date.now()}`,
    bootstrapBrokers: [...stackEnv().brokers],
  });
  const counts: Record<string, number> = {};
  try {
    const metadata = await consumer.metadata({ topics: [...topics] });
    // Read up to the high watermarks: a fetch at the end would wait its whole maxWaitTime for nothing.
    const ends = await consumer.listOffsets({ topics: [...topics] });
    for (const name of topics) {
      const topic = metadata.topics.get(name);
      if (topic === undefined) throw new Error(`no metadata for ${name}`);
      for (const [partition, { leader }] of topic.partitions.entries()) {
        let offset = 0n;
        const end = ends.get(name)?.[partition] ?? 0n;
        for (let round = 0; round < 100 && offset < end; round++) {
          const answer = await consumer.fetch({
            node: leader,
            topics: [
              {
                topicId: topic.id,
                partitions: [
                  { partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: 1_048_576 },
                ],
              },
            ],
          });
          const batches = answer.responses.flatMap((r) => r.partitions.flatMap((p) => p.records ?? []));
          if (batches.length === 0) break;
          for (const batch of batches) {
            offset = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
            if ((batch.attributes & CONTROL_BATCH) !== 0) continue;
            const codec = COMPRESSIONS[batch.attributes & CODEC_MASK] ?? `unknown-${batch.attributes & CODEC_MASK}`;
            counts[codec] = (counts[codec] ?? 0) + 1;
          }
        }
      }
    }
  } finally {
    await consumer.close();
  }
  return counts;
}

describe.each(KAFKA_CLIENTS)('compression (%s)', (client) => {
  it.each(COMPRESSIONS.map((codec, i) => [codec, COMPRESSIONS[(i + 1) % COMPRESSIONS.length] ?? 'none'] as const))(
    'writes %s batches, reading %s input; every call once',
    async (codec, inputCodec) => {
      const topics = await freshTopics(`itcz-${codec}`, 2);
      const prefix = `cz${codec}`;
      await produceCompressed(topics.input, prefix, inputCodec);
      expect(Object.keys(await batchCodecs([topics.input]))).toEqual([inputCodec]);
      const worker = await startReadyWorker(suite.env(topics, { KAFKA_CLIENT: client, KAFKA_COMPRESSION: codec }));
      await untilCommitted(topics, N, 'every input record committed', 120_000, () => worker.tail());
      const out = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 1_000 });
      expect(await worker.stop(), worker.tail()).toBe(0);
      const codecs = await batchCodecs(outputTopics(topics));
      console.log(`compression (${client}): input ${inputCodec}, KAFKA_COMPRESSION=${codec}: output batches ${JSON.stringify(codecs)}`);
      expect(Object.keys(codecs)).toEqual([codec]);
      await expectExactlyOnce(topics, prefix, out, tally(out, numberedIds(prefix, N)), N);
    },
    180_000,
  );
});
