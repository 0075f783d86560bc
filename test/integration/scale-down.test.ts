/**
 * Scale-down, against the real local stack: two workers share a topic, one is stopped (SIGTERM, as a scale-down
 * stops a pod) and the other takes its partitions. On TEST_KAFKA_CLIENT; on
 * @platformatic/kafka with static membership, as the chart's StatefulSet runs it (each pod's name as WORKER_ID and
 * KAFKA_GROUP_INSTANCE_ID; kafkajs has no static membership). The session is 60 s, so partitions that move well
 * before it show the stopped member left the group on its way out instead of being waited for as a member that may
 * come back. Every call is still delivered exactly once.
 */
import { describe, expect, it } from 'vitest';
import {
  eventually,
  freshTopics,
  metricValue,
  numberedCalls,
  numberedIds,
  produce,
  readOutputs,
  startReadyWorker,
  tally,
  untilCommitted,
  TEST_KAFKA_CLIENT,
} from './harness.js';
import { expectExactlyOnce, workerSuite } from './worker-suite.js';

const suite = workerSuite('itsd');
const SESSION_TIMEOUT_MS = 60_000;
const CLIENT = TEST_KAFKA_CLIENT;
/** A worker's identity: on platformatic a static member, as in the chart's StatefulSet. */
function identity(name: string): Record<string, string> {
  return CLIENT === 'platformatic' ? { WORKER_ID: name, KAFKA_GROUP_INSTANCE_ID: name } : {};
}

describe(`scale-down (${CLIENT}${CLIENT === 'platformatic' ? ', static membership' : ''})`, () => {
  it('the stopped worker leaves the group at once: its partitions move before the session ends, every call once', async () => {
    const topics = await freshTopics('itsd', 6);
    const run = Date.now().toString(36);
    const env = suite.env(topics, { KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) });
    const a = await startReadyWorker({ ...env, ...identity(`sm-${run}-0`) });
    const b = await startReadyWorker({ ...env, ...identity(`sm-${run}-1`) });
    await eventually(
      async () =>
        (await metricValue(a, 'toolcall_assigned_partitions')) === 3 && (await metricValue(b, 'toolcall_assigned_partitions')) === 3,
      'the two workers sharing the six partitions',
      SESSION_TIMEOUT_MS,
      200,
    );
    await produce(topics.input, numberedCalls('sm', 0, 600, 30));
    await untilCommitted(topics, 600, 'the first calls committed', 60_000, () => a.tail() + b.tail());

    const stopped = Date.now();
    expect(await b.stop(), b.tail()).toBe(0);
    await eventually(
      async () => (await metricValue(a, 'toolcall_assigned_partitions')) === 6,
      'the remaining worker owning all six partitions',
      SESSION_TIMEOUT_MS,
      100,
    );
    const movedAfterMs = Date.now() - stopped;
    await produce(topics.input, numberedCalls('sm', 600, 1200, 30));
    await untilCommitted(topics, 1200, 'every call committed', 60_000, () => a.tail());
    expect(await a.stop(), a.tail()).toBe(0);

    const out = await readOutputs(topics, { until: 1200, timeoutMs: 60_000, settleMs: 2000 });
    const result = tally(out, numberedIds('sm', 1200));
    console.log(
      `scale-down (${CLIENT}, 6 partitions, session ${SESSION_TIMEOUT_MS} ms): partitions moved ` +
        `${movedAfterMs} ms after SIGTERM; outputs=${result.records} duplicates=${result.duplicates} missing=${result.missing.length}`,
    );
    expect(movedAfterMs).toBeLessThan(SESSION_TIMEOUT_MS / 2);
    await expectExactlyOnce(topics, 'sm', out, result, 1200);
  }, 240_000);
});
