/**
 * A zombie, on each client, against the real local stack: two exactly-once workers share a group under a steady
 * stream; one (A) is frozen with SIGSTOP while it holds a batch (its records in flight, polled from its own
 * /metrics just before the signal), for longer than its session, so the group hands its partitions to the other
 * (B); then A is thawed (SIGCONT) and finishes what it held: its transaction must fail (fenced by generation on
 * @platformatic/kafka, KIP-447; by transactional id on kafkajs), and B must not read offsets that A's open
 * transaction was about to move. Every call id exactly once (read_committed), none missing.
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
} from './harness.js';
import { workerSuite } from './worker-suite.js';

const suite = workerSuite('itzb');
/** The broker's smallest session (group.min.session.timeout.ms): the freeze outlasts it by far. */
const SESSION_MS = 6_000;

describe.each(KAFKA_CLIENTS)('zombie (%s)', (client) => {
  it('one of two workers frozen while it holds a batch, past its session, then thawed: every call id exactly once', async () => {
    const topics = await freshTopics('itzb', 4);
    const N = 3000;
    const env = suite.env(topics, { KAFKA_CLIENT: client, KAFKA_SESSION_TIMEOUT_MS: String(SESSION_MS), REGISTRY_TIMEOUT_MS: '1500' });
    const started = Date.now();
    const a = await startReadyWorker({ ...env, WORKER_ID: 'zombie-a' });
    const b = await startReadyWorker({ ...env, WORKER_ID: 'zombie-b' });
    const stream = steadyStream(topics.input, 'zb', { to: N }, { perSend: 30, pauseMs: 40, keys: 40 });
    await eventually(
      async () => (await metricValue(a, 'toolcall_assigned_partitions')) > 0 && (await metricValue(b, 'toolcall_assigned_partitions')) > 0,
      'both workers own partitions',
      60_000,
      200,
    );
    await eventually(async () => (await committedInputRecords(topics)) >= 300, 'both at work', 60_000, 100);

    // Frozen the moment its /metrics says it holds records: a batch fetched and not yet committed.
    let polls = 0;
    for (;;) {
      polls++;
      if ((await metricValue(a, 'toolcall_records_in_flight')) > 0) break;
      if (polls > 5_000) throw new Error('worker A never held a batch');
    }
    a.kill('SIGSTOP');
    const frozenAt = Date.now();
    const committedAtFreeze = await committedInputRecords(topics);
    // B takes all four partitions once A's session expired.
    await eventuallyWithLogs(
      async () => (await metricValue(b, 'toolcall_assigned_partitions')) === 4,
      'B owns every partition',
      60_000,
      200,
      () => b.tail(),
    );
    const handedOverMs = Date.now() - frozenAt;
    await sleep(2_000);
    a.kill('SIGCONT');
    const frozenMs = Date.now() - frozenAt;

    await stream.done;
    await untilCommitted(topics, N, 'every input record committed', 180_000, () => `${a.tail()}\n${b.tail()}`);
    const aAborted = await metricValue(a, 'toolcall_transactions_total', { result: 'aborted' });
    const bAborted = await metricValue(b, 'toolcall_transactions_total', { result: 'aborted' });
    const aExit = await a.stop();
    const bExit = await b.stop();
    const out = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 3000 });
    const result = tally(out, numberedIds('zb', N));
    console.log(
      `zombie (${client}, exactly-once, 4 partitions, session ${SESSION_MS} ms): ` +
        `records=${N}; A frozen holding a batch at ${committedAtFreeze} committed ` +
        `for ${(frozenMs / 1000).toFixed(1)} s, ` +
        `B owned all partitions ${(handedOverMs / 1000).toFixed(1)} s after the freeze; transactions aborted: ` +
        `A ${aAborted}, B ${bAborted}; outputs(read_committed)=${result.records} ` +
        `duplicates=${result.duplicates} missing=${result.missing.length} ` +
        `unexpected=${result.unexpected.length}; exit codes A ${String(aExit)}, ` +
        `B ${String(bExit)}; duration=${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
    expect(result.duplicates).toBe(0);
    expect(aExit, a.tail()).toBe(0);
    expect(bExit, b.tail()).toBe(0);
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([]);
    expect(out).toHaveLength(N);
  }, 300_000);
});
