/**
 * The worker binary under faults, against the real local stack (`npm run stack:up`; without KAFKA_BROKERS and
 * SCHEMA_REGISTRY_URL every test FAILS on purpose):
 *
 * - SIGKILL mid-stream, again and again: exactly-once must give every call id exactly once (read_committed);
 *   at-least-once must lose nothing (duplicates are counted and printed).
 * - The registry stopped for longer than the schema cache TTL, then started again: cached tools keep flowing,
 *   records needing an uncached schema wait, nothing is rejected or dead-lettered for the outage.
 * - The broker stopped and started again mid-stream: every id exactly once afterwards. The worker either rides
 *   the outage out or exits non-zero; the test restarts it then, as Kubernetes would, and prints which happened.
 *
 * These stop and start services of the shared local stack (`bash scripts/stack.sh stop-registry` ...): run them
 * when nothing else uses the stack. After a SIGKILL the group only rebalances once the dead member's session
 * (kafkajs default 30 s) expires, which is what most of the running time here is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  callId,
  committedInputRecords,
  committedOffsets,
  endOffsets,
  eventually,
  eventuallyWithLogs,
  freshTopics,
  json,
  killAllWorkers,
  metricValue,
  misplacedCalls,
  numberedCalls,
  numberedIds,
  orderViolations,
  produce,
  readAll,
  readOutputs,
  sleep,
  stackCommand,
  stackEnv,
  startReadyWorker,
  startWorker,
  tally,
  untilCommitted,
  type ReadMessage,
  type TestTopics,
  type WorkerHandle,
  TEST_KAFKA_CLIENT,
} from './harness.js';
import { expectExactlyOnce, workerSuite } from './worker-suite.js';

const suite = workerSuite('itf');
/** Set while a test has a stack service stopped, so afterEach starts it again whatever happened. */
const stopped = new Set<'kafka' | 'registry'>();

// The workers go first, then the stopped services come back (the suite's own afterEach then finds no worker left).
afterEach(async () => {
  await killAllWorkers();
  if (stopped.delete('registry')) await stackCommand('start-registry');
  if (stopped.delete('kafka')) await stackCommand('start-kafka');
}, 240_000);

interface KillRun {
  readonly kills: number;
  readonly records: number;
  readonly committedAtKills: number[];
  /** ms from each restart to its first commit (the dead member's session must expire first). */
  readonly rejoinMs: number[];
  readonly durationMs: number;
}

/**
 * Produces `total` numbered calls in `kills + 1` rounds. Each round: half of its records are produced as a
 * backlog, a worker is started, and as soon as it commits something new the other half is produced, five
 * records at a time, while the worker runs; it is SIGKILLed after a random 100-1500 ms. The last round's worker
 * runs to the end (every input offset committed) and is stopped with SIGTERM (exit 0).
 */
async function killRepeatedly(
  topics: TestTopics,
  prefix: string,
  total: number,
  kills: number,
  env: Record<string, string>,
): Promise<KillRun> {
  const started = Date.now();
  const rounds = kills + 1;
  const perRound = Math.ceil(total / rounds);
  let produced = 0;
  const produceNext = async (count: number): Promise<void> => {
    const upTo = Math.min(total, produced + count);
    const batch = numberedCalls(prefix, produced, upTo, 40);
    produced = upTo;
    await produce(topics.input, batch);
  };
  const committed = (): Promise<number> => committedInputRecords(topics);
  const committedAtKills: number[] = [];
  const rejoinMs: number[] = [];

  for (let round = 0; round < rounds; round++) {
    const roundEnd = Math.min(total, perRound * (round + 1));
    // Half the round as a backlog, half trickled in small sends while the worker runs, so that it is busy with
    // one small transaction after another when the kill comes.
    const trickle = Math.floor((roundEnd - produced) / 2);
    await produceNext(roundEnd - produced - trickle);
    const before = await committed();
    const worker = await startWorker(env);
    const startedAt = Date.now();
    await eventuallyWithLogs(
      async () => (await committed()) > before || !worker.running(),
      `progress of worker ${round + 1}`,
      90_000,
      20,
      () => worker.tail(),
    );
    if (!worker.running())
      throw new Error(`worker ${round + 1} exited (${String(await worker.exited)}) instead of processing\n${worker.tail()}`);
    rejoinMs.push(Date.now() - startedAt);
    // The rest of the round arrives while the worker processes its backlog.
    const producing = (async () => {
      for (let sent = 0; sent < trickle;) {
        const n = Math.min(5, trickle - sent);
        await produceNext(n);
        sent += n;
        await sleep(25);
      }
    })();
    producing.catch(() => undefined); // awaited below; this only keeps a failure from counting as unhandled meanwhile
    if (round < kills) {
      await sleep(100 + Math.floor(Math.random() * 1400));
      worker.kill('SIGKILL');
      await worker.exited;
      expect(worker.signal()).toBe('SIGKILL');
      committedAtKills.push(await committed());
      await producing;
    } else {
      await producing;
      await untilCommitted(topics, total, 'every input record committed', 120_000, () => worker.tail());
      expect(await worker.stop(), worker.tail()).toBe(0);
    }
  }
  expect(produced).toBe(total);
  return { kills, records: total, committedAtKills, rejoinMs, durationMs: Date.now() - started };
}

/** {@link killRepeatedly} in exactly-once mode: every call id exactly once (read_committed), in order, all committed. */
async function exactlyOnceUnderKills(topicPrefix: string, prefix: string, extraEnv: Record<string, string>): Promise<void> {
  const topics = await freshTopics(topicPrefix, 3);
  const N = 4000;
  const run = await killRepeatedly(topics, prefix, N, 10, suite.env(topics, extraEnv));
  const ids = numberedIds(prefix, N);
  const committed = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 3000 });
  const everything = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 3000, isolation: 'read_uncommitted' });
  const result = tally(committed, ids);
  const identity = Object.keys(extraEnv).length === 0 ? '' : ` (${Object.keys(extraEnv).join(', ')} kept)`;
  console.log(
    `exactly-once under SIGKILL${identity}: kills=${run.kills} records=${run.records} outputs(read_committed)=${result.records} ` +
      `duplicates=${result.duplicates} missing=${result.missing.length} unexpected=${result.unexpected.length} ` +
      `records in aborted transactions (read_uncommitted minus read_committed)=${everything.length - committed.length} ` +
      `committed input at each kill=[${run.committedAtKills.join(', ')}] restart-to-first-commit ms=[${run.rejoinMs.join(', ')}] ` +
      `duration=${(run.durationMs / 1000).toFixed(1)}s`,
  );
  await expectExactlyOnce(topics, prefix, committed, result, N);
}

describe('worker under faults', () => {
  it('exactly-once: SIGKILLed 10 times mid-stream, every call id comes out exactly once', async () => {
    await exactlyOnceUnderKills('itf-eos', 'eos', {});
  }, 420_000);

  // The chart's StatefulSet for @platformatic/kafka: each replacement has the killed worker's name, as WORKER_ID
  // (its transactional id) and KAFKA_GROUP_INSTANCE_ID (static membership). Defined on that client only: kafkajs
  // has a transactional id per input partition and no static membership, so the case does not exist there.
  if (TEST_KAFKA_CLIENT === 'platformatic')
    it('exactly-once, stable identities (WORKER_ID and KAFKA_GROUP_INSTANCE_ID kept across restarts): SIGKILLed 10 times, every call id once', async () => {
      const slot = `faults-slot-${Date.now().toString(36)}`;
      await exactlyOnceUnderKills('itf-eos-slot', 'slot', { WORKER_ID: slot, KAFKA_GROUP_INSTANCE_ID: slot });
    }, 420_000);

  it('at-least-once: SIGKILLed 10 times mid-stream, nothing is missing (duplicates counted)', async () => {
    const topics = await freshTopics('itf-alo', 3);
    const N = 3000;
    const run = await killRepeatedly(topics, 'alo', N, 10, suite.env(topics, { DELIVERY: 'at-least-once' }));
    const ids = numberedIds('alo', N);
    const all = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 3000 });
    const result = tally(all, ids);
    console.log(
      `at-least-once under SIGKILL: kills=${run.kills} records=${run.records} outputs=${result.records} duplicates=${result.duplicates} ` +
        `missing=${result.missing.length} committed input at each ` +
        `kill=[${run.committedAtKills.join(', ')}] duration=${(run.durationMs / 1000).toFixed(1)}s`,
    );
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([]);
    expect(misplacedCalls(all, topics, 'alo')).toEqual([]);
    expect(await committedOffsets(topics.groupId, topics.input)).toEqual(await endOffsets(topics.input));
  }, 420_000);

  it('registry down longer than the cache TTL: cached tools flow, uncached ones wait, nothing rejected or dead-lettered', async () => {
    const topics = await freshTopics('itf-reg', 2);
    const { registryUrl } = stackEnv();
    const worker = await startReadyWorker(
      suite.env(topics, { REGISTRY_CACHE_TTL_MS: '2000', REGISTRY_TIMEOUT_MS: '1000', REGISTRY_MAX_RETRIES: '0', MAX_BACKOFF_MS: '2000' }),
    );
    const cached = (i: number): string =>
      JSON.stringify({ id: `reg-a-${i}`, tool: 'search_issues', arguments: { query: `a${i}`, labels: '["x"]' } });
    const uncached = (i: number): string =>
      JSON.stringify({
        id: `reg-b-${i}`,
        tool: 'transfer_funds',
        arguments: { from_account: 'AB12345678', to_account: 'CD12345678', amount: i + 1, currency: 'EUR' },
      });

    // search_issues gets cached; transfer_funds is never looked up before the outage.
    await produce(
      topics.input,
      Array.from({ length: 50 }, (_, i) => ({ key: 'a', value: cached(i), partition: 0 })),
    );
    expect(await readAll([topics.output], { until: 50, timeoutMs: 30_000 })).toHaveLength(50);

    stopped.add('registry');
    const outageStart = Date.now();
    await stackCommand('stop-registry');
    const registryAnswers = async (): Promise<boolean> =>
      fetch(`${registryUrl}/subjects`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.ok,
        () => false,
      );
    expect(await registryAnswers()).toBe(false);
    await sleep(3000); // past REGISTRY_CACHE_TTL_MS: the cached entry is stale now

    // Partition 0: the cached tool only. Partition 1: uncached calls, then cached ones queued behind them.
    await produce(topics.input, [
      ...Array.from({ length: 50 }, (_, i) => ({ key: 'a', value: cached(50 + i), partition: 0 })),
      ...Array.from({ length: 20 }, (_, i) => ({ key: 'b', value: uncached(i), partition: 1 })),
      ...Array.from({ length: 5 }, (_, i) => ({ key: 'b', value: cached(100 + i), partition: 1 })),
    ]);
    const during = await readOutputs(topics, { until: 100, timeoutMs: 30_000, settleMs: 2000 });
    expect(await registryAnswers()).toBe(false);
    const duringIds = during.map(callId);
    expect(duringIds.filter((id) => id.startsWith('reg-a-') && Number(id.slice(6)) < 100)).toHaveLength(100);
    // Nothing of partition 1 came out: the uncached calls wait, and the calls queued behind them too.
    expect(duringIds.filter((id) => id.startsWith('reg-b-') || Number(id.slice(6)) >= 100)).toEqual([]);
    expect(during.every((m) => m.topic === topics.output)).toBe(true);
    await eventually(async () => (await worker.get('/readyz')).status === 503, '/readyz to report the registry down', 15_000);
    expect((await worker.get('/livez')).status).toBe(200);
    // The waiting partition retries while the registry is down, and waits again each time.
    let waits = 0;
    await eventually(
      async () => (waits = await metricValue(worker, 'toolcall_schema_waits_total')) >= 2,
      'a second schema wait',
      30_000,
      500,
    );

    await stackCommand('start-registry');
    stopped.delete('registry');
    const outageMs = Date.now() - outageStart;
    const subject = suite.pushed().find((p) => p.tool === 'transfer_funds')?.subject ?? '';
    const kept = await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`);
    if (kept.status !== 200) {
      throw new Error(
        `after start-registry, subject ${subject} is gone (HTTP ${kept.status}): the registry did not keep its data across the restart ` +
          '(a stack started by an older scripts/stack.sh keeps it in memory: `npm run stack:down && npm run stack:up`)',
      );
    }

    const all = await readOutputs(topics, { until: 125, timeoutMs: 60_000, settleMs: 2000 });
    const result = tally(all, [...numberedIds('reg-a', 105), ...numberedIds('reg-b', 20)]);
    console.log(
      `registry outage: ${(outageMs / 1000).toFixed(1)}s down (cache TTL 2s); ${during.length} cached-tool records flowed during it; ` +
        `schema waits=${waits}; after restart outputs=${result.records} missing=${result.missing.length} duplicates=${result.duplicates}`,
    );
    expect(result.missing).toEqual([]);
    expect(result.duplicates).toBe(0);
    expect(all.filter((m) => m.topic !== topics.output).map((m) => `${m.topic}: ${show(m)}`)).toEqual([]);
    // Partition 1's records (key b) in their input order: the waiting ones first, then those queued behind them.
    const b = all.filter((m) => m.key === 'b');
    expect(b.map(callId)).toEqual([...numberedIds('reg-b', 20), ...numberedIds('reg-a', 5, 100)]);
    const transfer = suite.pushed().find((p) => p.tool === 'transfer_funds');
    const firstB = b[0];
    if (firstB === undefined) throw new Error('no output for partition 1');
    // The same schema id as before the restart: the registry kept its data.
    expect(json(firstB).schemaId).toBe(transfer?.id);
    expect(worker.logs().some((l) => l.msg === 'schema registry unavailable: partition paused, records wait')).toBe(true);
    expect(await metricValue(worker, 'toolcall_calls_total', { outcome: 'rejected' })).toBe(0);
    expect(await metricValue(worker, 'toolcall_calls_total', { outcome: 'dead_lettered' })).toBe(0);
    await eventually(async () => (await worker.get('/readyz')).status === 200, '/readyz 200 again', 20_000);
    expect(await worker.stop(), worker.tail()).toBe(0);
  }, 240_000);

  it('broker stopped and restarted mid-stream: every call id exactly once afterwards', async () => {
    const topics = await freshTopics('itf-kafka', 3);
    const N = 1500;
    const env = suite.env(topics);
    const records = (from: number, to: number) => numberedCalls('brk', from, to, 40);
    const committed = (): Promise<number> => committedInputRecords(topics);

    // Restarts the worker whenever it exits on its own, as Kubernetes would; records how each one ended.
    const exits: { code: number | null; signal: string | null; afterMs: number }[] = [];
    let current: WorkerHandle = await startWorker(env);
    const initial = current;
    const supervision = { on: true };
    const supervising = (): boolean => supervision.on;
    const supervisor = (async () => {
      for (;;) {
        const worker = current;
        const startedAt = Date.now();
        const code = await worker.exited;
        if (!supervising()) break;
        exits.push({ code, signal: worker.signal(), afterMs: Date.now() - startedAt });
        console.log(
          `broker outage: the worker exited with ${String(code)} (${worker.signal() ?? 'no signal'}); ` +
            `restarting it. Last log lines:\n${worker.tail(8)}`,
        );
        await sleep(1000);
        if (!supervising()) break;
        current = await startWorker(env);
      }
    })();

    let stopMs = 0;
    let outageMs = 0;
    try {
      await current.ready();
      await produce(topics.input, records(0, 500));
      await eventually(async () => (await committed()) > 0, 'first commit', 60_000, 20);
      // A burst the worker is still busy with when the broker goes down.
      await produce(topics.input, records(500, 1000));
      stopped.add('kafka');
      const outageStart = Date.now();
      await stackCommand('stop-kafka');
      stopMs = Date.now() - outageStart;
      await sleep(5000);
      await stackCommand('start-kafka');
      stopped.delete('kafka');
      outageMs = Date.now() - outageStart;

      await produce(topics.input, records(1000, N));
      await untilCommitted(topics, N, 'every input record committed after the broker restart', 150_000, () => current.tail(40), 500);
    } finally {
      // Whatever happened, no worker is started after this point (afterEach kills what runs).
      supervision.on = false;
    }
    const last = current;
    expect(await last.stop(), last.tail()).toBe(0);
    await supervisor;

    const all = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 3000 });
    const result = tally(all, numberedIds('brk', N));
    const rodeItOut = exits.length === 0 && last === initial;
    console.log(
      `broker outage: stop-kafka took ${(stopMs / 1000).toFixed(1)}s, broker down ${(outageMs / 1000).toFixed(1)}s in all; the worker ` +
        `${rodeItOut ? 'rode it out (same process throughout)' : `exited ${exits.length} time(s) [${exits.map((e) => `${String(e.code)}${e.signal === null ? '' : `/${e.signal}`} after ${(e.afterMs / 1000).toFixed(1)}s`).join(', ')}] and was restarted`}; ` +
        `records=${N} outputs=${result.records} duplicates=${result.duplicates} missing=${result.missing.length}`,
    );
    // A worker that gives up must say so with a non-zero status (never 0, which would mean "stopped on purpose").
    for (const exit of exits) expect(exit.code).not.toBe(0);
    expect(result.missing).toEqual([]);
    expect(result.duplicates).toBe(0);
    expect(result.unexpected).toEqual([]);
    expect(orderViolations(all, 'brk')).toEqual([]);
    expect(await committedOffsets(topics.groupId, topics.input)).toEqual(await endOffsets(topics.input));
  }, 360_000);
});

function show(message: ReadMessage): string {
  return message.value === null ? '<tombstone>' : message.value.toString('utf8');
}
