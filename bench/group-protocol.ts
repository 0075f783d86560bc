/**
 * `npx tsx bench/group-protocol.ts`: how long partitions take to move on scale-up and scale-down under a flowing
 * stream, for each KAFKA_GROUP_PROTOCOL side by side (@platformatic/kafka, 6 partitions, exactly-once, static
 * members as the chart's StatefulSet runs them). Per round: worker A owns all six partitions while about 500
 * calls/s stream in; B starts (scale-up: from B's spawn to three partitions each) and is later stopped by SIGTERM
 * (scale-down: from the signal to A owning all six); scale-up also from B's first /metrics answer, as the new
 * worker's start is most of it on a loaded machine. Also the longest stretch in each window with no input offset
 * committed (the stream's stall), and every call read back once. Variants: classic (session 10 s, heartbeat 1 s,
 * the worker's own from KAFKA_SESSION_TIMEOUT_MS), consumer at the broker's defaults (heartbeat 5 s), and consumer
 * with the group's heartbeat at 1 s (group config consumer.heartbeat.interval.ms). BENCH_ROUNDS (default 2).
 * Needs `npm run build` and a running stack (KAFKA_BROKERS, SCHEMA_REGISTRY_URL); prints one table.
 */
import { Admin } from '@platformatic/kafka';
import {
  committedInputRecords,
  freshTopics,
  killAllWorkers,
  metricValue,
  numberedCalls,
  numberedIds,
  produce,
  pushExampleSchemas,
  readOutputs,
  sleep,
  stackEnv,
  startReadyWorker,
  startWorker,
  stopWorkersAndCloseClients,
  tally,
  topicEnv,
  uniqueSubjectTemplate,
  type WorkerHandle,
} from '../test/integration/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PARTITIONS = 6;
const TIMEOUT_MS = 120_000;

interface Variant {
  readonly name: string;
  readonly protocol: 'classic' | 'consumer';
  /** The group's heartbeat interval under the consumer protocol (a group config); undefined: the broker's. */
  readonly heartbeatMs?: number;
}
const VARIANTS: readonly Variant[] = [
  { name: 'classic', protocol: 'classic' },
  { name: 'consumer (broker defaults)', protocol: 'consumer' },
  { name: 'consumer, heartbeat 1 s', protocol: 'consumer', heartbeatMs: 1_000 },
];

async function groupHeartbeat(groupId: string, ms: number): Promise<void> {
  const admin = new Admin({ clientId: 'bench-group-protocol', bootstrapBrokers: [...stackEnv().brokers] });
  try {
    await admin.incrementalAlterConfigs({
      resources: [
        {
          resourceType: 32 /* GROUP */,
          resourceName: groupId,
          configs: [{ name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: String(ms) }],
        },
      ],
    });
  } finally {
    await admin.close();
  }
}

async function owned(worker: WorkerHandle): Promise<number> {
  return metricValue(worker, 'toolcall_assigned_partitions').catch(() => -1);
}

/** Polls every 100 ms until `check`; returns the elapsed ms and the longest stretch with no input offset committed. */
async function timed(
  from: number,
  check: () => Promise<boolean>,
  commits: () => Promise<number>,
): Promise<{ ms: number; stallMs: number }> {
  let last = await commits();
  let lastAt = Date.now();
  let stallMs = 0;
  for (;;) {
    const done = await check();
    const now = await commits().catch(() => last);
    if (now > last) {
      last = now;
      lastAt = Date.now();
    }
    stallMs = Math.max(stallMs, Date.now() - lastAt);
    if (done) return { ms: Date.now() - from, stallMs };
    if (Date.now() - from > TIMEOUT_MS) throw new Error(`partitions did not move in ${TIMEOUT_MS / 1000}s`);
    await sleep(100);
  }
}

interface Round {
  readonly variant: string;
  readonly upMs: number;
  /** From B's first /metrics answer (its process started, before it joins) to the partitions moved. */
  readonly upAfterBootMs: number;
  readonly upStallMs: number;
  readonly downMs: number;
  readonly downStallMs: number;
  readonly calls: number;
  readonly missing: number;
  readonly doubled: number;
}

async function round(variant: Variant, template: string, n: number): Promise<Round> {
  const topics = await freshTopics('bgp', PARTITIONS);
  if (variant.heartbeatMs !== undefined) await groupHeartbeat(topics.groupId, variant.heartbeatMs);
  const run = `${Date.now().toString(36)}-${String(n)}`;
  const env = {
    ...topicEnv(topics),
    SUBJECT_TEMPLATE: template,
    KAFKA_CLIENT: 'platformatic',
    KAFKA_GROUP_PROTOCOL: variant.protocol,
    LOG_LEVEL: 'warn',
  };
  const identity = (name: string): Record<string, string> => ({ WORKER_ID: `${name}-${run}`, KAFKA_GROUP_INSTANCE_ID: `${name}-${run}` });
  const prefix = `g${String(n)}`;
  let produced = 0;
  const flow = { on: true };
  const stream = (async () => {
    while (flow.on) {
      await produce(topics.input, numberedCalls(prefix, produced, produced + 30, 60));
      produced += 30;
      await sleep(50);
    }
  })();
  const commits = (): Promise<number> => committedInputRecords(topics);
  try {
    const a = await startReadyWorker({ ...env, ...identity('a') });
    await timed(Date.now(), async () => (await owned(a)) === PARTITIONS && (await commits()) >= 300, commits);
    await sleep(2_000);

    const upFrom = Date.now();
    const b = await startWorker({ ...env, ...identity('b') });
    let bUpAt: number | undefined;
    const up = await timed(
      upFrom,
      async () => {
        const ofB = await owned(b);
        if (ofB >= 0) bUpAt ??= Date.now();
        return (await owned(a)) === PARTITIONS / 2 && ofB === PARTITIONS / 2;
      },
      commits,
    );
    await sleep(5_000);

    const downFrom = Date.now();
    const stopped = b.stop();
    const down = await timed(downFrom, async () => (await owned(a)) === PARTITIONS, commits);
    await stopped;
    await sleep(2_000);
    flow.on = false;
    await stream;
    const deadline = Date.now() + TIMEOUT_MS;
    while ((await commits()) < produced && Date.now() < deadline) await sleep(200);
    await a.stop();
    const result = tally(await readOutputs(topics, { until: produced, timeoutMs: 60_000, settleMs: 2_000 }), numberedIds(prefix, produced));
    return {
      variant: variant.name,
      upMs: up.ms,
      upAfterBootMs: up.ms - ((bUpAt ?? upFrom) - upFrom),
      upStallMs: up.stallMs,
      downMs: down.ms,
      downStallMs: down.stallMs,
      calls: produced,
      missing: result.missing.length,
      doubled: result.duplicates,
    };
  } finally {
    flow.on = false;
    await stream.catch(() => undefined);
    await killAllWorkers();
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function main(): Promise<void> {
  const template = uniqueSubjectTemplate('bgp');
  await pushExampleSchemas(template);
  const rounds: Round[] = [];
  let n = 0;
  // Interleaved, so each variant sees the same machine load over the run.
  for (let r = 0; r < ROUNDS; r++)
    for (const variant of VARIANTS) {
      const result = await round(variant, template, ++n);
      rounds.push(result);
      console.error(JSON.stringify(result));
    }
  console.log(`\n@platformatic/kafka, ${PARTITIONS} partitions, exactly-once, static members, ~500 calls/s streaming, ${ROUNDS} rounds\n`);
  console.log(
    '| KAFKA_GROUP_PROTOCOL | scale-up: moved after spawn | after the new process is up | longest stall | scale-down: moved after SIGTERM | longest stall | calls | missing | doubled |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rounds)
    console.log(
      `| ${r.variant} | ${seconds(r.upMs)} | ${seconds(r.upAfterBootMs)} | ${seconds(r.upStallMs)} | ${seconds(r.downMs)} | ${seconds(r.downStallMs)} | ${r.calls} | ${r.missing} | ${r.doubled} |`,
    );
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => void stopWorkersAndCloseClients());
