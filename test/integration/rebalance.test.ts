/**
 * Rebalance in exactly-once mode, against the real local stack (`npm run stack:up`; without KAFKA_BROKERS and
 * SCHEMA_REGISTRY_URL every test FAILS on purpose): while calls stream in, a second worker joins the group
 * (partitions move to it) and later leaves (SIGTERM: it finishes its batch, leaves the group, and its partitions
 * move back). Every call id must come out exactly once across normalized + rejected + dead-letter
 * (read_committed), on the right topic, in order per key, with every input offset committed.
 *
 * Partitions that change owner are claimed by transactional id (one per input partition): the new owner's
 * InitProducerId aborts or waits out the old owner's open transaction and fences it (docs/worker.md "Delivery
 * guarantees"); this test is the proof that nothing is lost or doubled across those hand-overs.
 */
import { describe, expect, it } from 'vitest';
import {
  KAFKA_CLIENTS,
  committedInputRecords,
  eventually,
  eventuallyWithLogs,
  freshTopics,
  metricValue,
  numberedIds,
  readOutputs,
  sleep,
  startReadyWorker,
  steadyStream,
  tally,
  untilCommitted,
  type WorkerHandle,
} from './harness.js';
import { expectExactlyOnce, workerSuite } from './worker-suite.js';

const suite = workerSuite('itrb');

interface Figures {
  calls: number;
  committedTransactions: number;
  abortedTransactions: number;
}

async function figures(worker: WorkerHandle): Promise<Figures> {
  return {
    calls: await metricValue(worker, 'toolcall_calls_total'),
    committedTransactions: await metricValue(worker, 'toolcall_transactions_total', { result: 'committed' }),
    abortedTransactions: await metricValue(worker, 'toolcall_transactions_total', { result: 'aborted' }),
  };
}

describe.each(KAFKA_CLIENTS)('rebalance (%s)', (client) => {
  it('exactly-once: a second worker joins mid-stream and later leaves; every call id exactly once, none missing', async () => {
    const topics = await freshTopics('itrb', 6);
    const N = 4000;
    const env = suite.env(topics, { KAFKA_CLIENT: client });
    const committed = (): Promise<number> => committedInputRecords(topics);
    const started = Date.now();

    // The harness never passes vitest's NODE_ENV=test on: the workers run with kafkajs's production retries.
    const a = await startReadyWorker(env);
    // A steady stream: 20 calls every 50 ms, over 40 keys, for the whole test.
    const stream = steadyStream(topics.input, 'rb', { to: N }, { perSend: 20, pauseMs: 50, keys: 40 });

    await eventually(async () => (await committed()) >= 600, 'the first worker at work', 60_000, 100);
    const committedAtJoin = await committed();
    const b = await startReadyWorker(env);
    // B has partitions and has committed transactions of its own: the hand-over happened under load.
    await eventuallyWithLogs(
      async () => (await metricValue(b, 'toolcall_assigned_partitions')) > 0 && (await figures(b)).committedTransactions >= 3,
      'the second worker at work',
      60_000,
      200,
      () => b.tail(),
    );
    const bAssigned = await metricValue(b, 'toolcall_assigned_partitions');
    const aAssignedWhileShared = await metricValue(a, 'toolcall_assigned_partitions');
    await sleep(1500); // both busy for a while
    const committedAtLeave = await committed();
    const bFigures = await figures(b);
    expect(stream.produced(), 'the stream must still be running when the second worker leaves').toBeLessThan(N);
    expect(await b.stop(), b.tail()).toBe(0);

    await stream.done;
    await untilCommitted(topics, N, 'every input record committed', 120_000, () => a.tail());
    const aFigures = await figures(a);
    const aRebalances = a.logs().filter((l) => l.msg === 'partitions assigned').length;
    expect(await a.stop(), a.tail()).toBe(0);

    const ids = numberedIds('rb', N);
    const out = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 3000 });
    const everything = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 3000, isolation: 'read_uncommitted' });
    const result = tally(out, ids);
    console.log(
      `rebalance (${client}, exactly-once, 6 partitions): records=${N}; ` +
        `worker B joined at ${committedAtJoin} committed and took ${bAssigned} partitions ` +
        `(A kept ${aAssignedWhileShared}), left (SIGTERM, exit 0) at ${committedAtLeave} committed; A: ${aFigures.calls} calls, ` +
        `${aFigures.committedTransactions} transactions committed, ${aFigures.abortedTransactions} aborted, ${aRebalances} assignments; ` +
        `B (sampled just before it left): ${bFigures.calls} calls, ${bFigures.committedTransactions} ` +
        `committed, ${bFigures.abortedTransactions} aborted; ` +
        `outputs(read_committed)=${result.records} duplicates=${result.duplicates} ` +
        `missing=${result.missing.length} unexpected=${result.unexpected.length}; ` +
        `records in aborted transactions=${everything.length - out.length}; duration=${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
    expect(bAssigned).toBeGreaterThan(0);
    expect(aAssignedWhileShared).toBeGreaterThan(0);
    expect(bFigures.calls).toBeGreaterThan(0);
    expect(aRebalances).toBeGreaterThanOrEqual(3); // alone, shared with B, alone again
    await expectExactlyOnce(topics, 'rb', out, result, N);
  }, 300_000);
});
