/**
 * Aborted upstream transactions, against the real broker: a transaction that began first and was aborted last (a
 * producer killed mid-transaction, fenced later) interleaved with another aborted one. The broker lists aborted
 * transactions in the order they were aborted; a read_committed reader must still skip every record of both. Checked
 * on the harness's reader (kafkajs, as our tests and the campaign read outputs) and on the worker on each client:
 * only the committed calls are processed and delivered, once.
 */
import { describe, expect, it } from 'vitest';
import {
  KAFKA_CLIENTS,
  RUN_ID,
  callId,
  freshTopics,
  numberedCall,
  produce,
  readAll,
  readOutputs,
  startReadyWorker,
  transactionalProducer,
  untilCommitted,
  type TestTopics,
} from './harness.js';
import { workerSuite } from './worker-suite.js';

const suite = workerSuite('itab');

/**
 * Writes, on one partition: A begins (a0..a2), B begins (b0..b2) and aborts, committed c0..c4, A aborts, committed
 * c5..c9. Returns the committed calls' ids in order.
 */
async function interleavedAborts(topic: string): Promise<string[]> {
  const a = await transactionalProducer(`itab-a-${RUN_ID}-${topic}`);
  const b = await transactionalProducer(`itab-b-${RUN_ID}-${topic}`);
  const call = (prefix: string, i: number) => ({ key: 'k', value: numberedCall(prefix, i), partition: 0 });
  try {
    const ta = await a.transaction();
    await ta.send({ topic, messages: [0, 1, 2].map((i) => call('aborted-a', i)) });
    const tb = await b.transaction();
    await tb.send({ topic, messages: [0, 1, 2].map((i) => call('aborted-b', i)) });
    await tb.abort();
    await produce(
      topic,
      [0, 1, 2, 3, 4].map((i) => call('committed', i)),
    );
    await ta.abort();
    await produce(
      topic,
      [5, 6, 7, 8, 9].map((i) => call('committed', i)),
    );
  } finally {
    await Promise.all([a.disconnect(), b.disconnect()]);
  }
  return Array.from({ length: 10 }, (_, i) => `committed-${String(i)}`);
}

async function inputTopics(): Promise<{ topics: TestTopics; committed: string[] }> {
  const topics = await freshTopics('itab', 1);
  return { topics, committed: await interleavedAborts(topics.input) };
}

describe('aborted upstream transactions', () => {
  it('are skipped by the harness reader, whatever the order the broker lists them in', async () => {
    const { topics, committed } = await inputTopics();
    const read = await readAll([topics.input], { until: committed.length, timeoutMs: 30_000, settleMs: 1_500 });
    expect(read.map(callId)).toEqual(committed);
  }, 60_000);

  describe.each(KAFKA_CLIENTS)('the worker (%s)', (client) => {
    it("commits past a partition's closing markers and aborted records: nothing is left as lag once it is read", async () => {
      const topics = await freshTopics('itab', 1);
      const upstream = await transactionalProducer(`itab-c-${RUN_ID}-${topics.input}`);
      try {
        const transaction = await upstream.transaction();
        await transaction.send({
          topic: topics.input,
          messages: [0, 1, 2, 3, 4].map((i) => ({ key: 'k', value: numberedCall('committed', i), partition: 0 })),
        });
        await transaction.commit();
      } finally {
        await upstream.disconnect();
      }
      // Five calls and the commit marker after them: the group's offset is the partition's end, 6.
      const worker = await startReadyWorker(suite.env(topics, { KAFKA_CLIENT: client }));
      await untilCommitted(topics, 6, 'the offset past the marker', 60_000, () => worker.tail());
      // Then a fetch that brings nothing to read: an aborted transaction, three records and its marker.
      const aborting = await transactionalProducer(`itab-d-${RUN_ID}-${topics.input}`);
      try {
        const transaction = await aborting.transaction();
        await transaction.send({
          topic: topics.input,
          messages: [0, 1, 2].map((i) => ({ key: 'k', value: numberedCall('aborted', i), partition: 0 })),
        });
        await transaction.abort();
      } finally {
        await aborting.disconnect();
      }
      await untilCommitted(topics, 10, 'the offset past the aborted transaction', 60_000, () => worker.tail());
      const out = await readOutputs(topics, { until: 5, timeoutMs: 30_000, settleMs: 1_000 });
      expect(await worker.stop(), worker.tail()).toBe(0);
      expect(out.map(callId).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `committed-${String(i)}`));
    }, 120_000);

    it('processes only the committed calls, each once', async () => {
      const { topics, committed } = await inputTopics();
      const worker = await startReadyWorker(suite.env(topics, { KAFKA_CLIENT: client }));
      await untilCommitted(topics, 10 + 6 + 2, 'the input read to its end', 90_000, () => worker.tail());
      const out = await readOutputs(topics, { until: committed.length, timeoutMs: 30_000, settleMs: 1_500 });
      expect(await worker.stop(), worker.tail()).toBe(0);
      expect(out.map(callId).sort()).toEqual([...committed].sort());
    }, 150_000);
  });
});
