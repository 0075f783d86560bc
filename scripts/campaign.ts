/**
 * The fault campaign (RELIABILITY.md "Fault campaign"): the kill, zombie and rebalance scenarios, each run many
 * times with randomized timing, with and without busy-loop processes beside the workers, on each client, against
 * a running stack (KAFKA_BROKERS and SCHEMA_REGISTRY_URL, as the integration tests). Every run reads all outputs
 * back read_committed and prints calls in, out, missing, doubled and the time to drain (from the later of the
 * last call produced and the last fault to every input offset committed); a summary line ends the
 * campaign. Exit 1 when any run lost, doubled or invented a call, or failed to drain.
 *
 *   npm run build && npx tsx scripts/campaign.ts [--clients kafkajs,platformatic] [--scenarios zombie,kill,rebalance]
 *     [--group-protocol classic,consumer] [--runs 3] [--load 0,2] [--calls 12000] [--seed 1] [--drain-timeout 240]
 *     [--logs DIR] [--log-level warn]
 *
 * `--runs` runs of each scenario, client, group protocol and load (busy-loop processes beside the workers); `--seed`
 * makes the timings repeatable. `--group-protocol` defaults to classic; consumer (KIP-848) runs on platformatic
 * only, with the group's session set to the same 8 s (the group config consumer.session.timeout.ms). Scenarios (6 partitions, exactly-once, 8 s session; the calls stream in throughout):
 * - zombie: two workers; one is frozen (SIGSTOP) past its session twice, then thawed (SIGCONT).
 * - kill: two workers; one is killed (SIGKILL) twice and started again with the same worker id.
 * - rebalance: one worker; a second joins mid-stream and later leaves (SIGTERM), twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin } from '@platformatic/kafka';
import { GROUP_PROTOCOLS, type GroupProtocol } from '../src/core/shared/stream.js';
import {
  closeClients,
  committedInputRecords,
  freshTopics,
  killAllWorkers,
  metricValue,
  numberedIds,
  pushExampleSchemas,
  readOutputs,
  sleep,
  stackEnv,
  startReadyWorker,
  steadyStream,
  tally,
  topicEnv,
  uniqueSubjectTemplate,
  type TestTopics,
  type WorkerHandle,
} from '../test/integration/harness.js';

const SCENARIOS = ['zombie', 'kill', 'rebalance'] as const;
type Scenario = (typeof SCENARIOS)[number];
const CLIENTS = ['kafkajs', 'platformatic'] as const;
type Client = (typeof CLIENTS)[number];

const SESSION_MS = 8_000;
const PARTITIONS = 6;

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: CLIENTS.join(',') },
    scenarios: { type: 'string', default: SCENARIOS.join(',') },
    'group-protocol': { type: 'string', default: 'classic' },
    runs: { type: 'string', default: '3' },
    load: { type: 'string', default: '0,2' },
    calls: { type: 'string', default: '12000' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    'drain-timeout': { type: 'string', default: '240' },
    logs: { type: 'string', default: join(tmpdir(), 'toolcall-campaign') },
    'log-level': { type: 'string', default: 'warn' },
  },
});

function list<T extends string>(text: string, allowed: readonly T[], what: string): T[] {
  const items = text.split(',').map((s) => s.trim());
  for (const item of items) if (!(allowed as readonly string[]).includes(item)) throw new Error(`unknown ${what}: ${item}`);
  return items as T[];
}

function count(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${what} must be a whole number, got ${text}`);
  return n;
}

const clients = list(args.clients, CLIENTS, 'client');
const scenarios = list(args.scenarios, SCENARIOS, 'scenario');
const protocols = list(args['group-protocol'], GROUP_PROTOCOLS, 'group protocol');

/** A client and the group protocol it joins with; the consumer protocol only where the client has it. */
interface Variant {
  readonly client: Client;
  readonly protocol: GroupProtocol;
}
const variants: Variant[] = clients.flatMap((client) =>
  protocols.filter((protocol) => protocol === 'classic' || client === 'platformatic').map((protocol) => ({ client, protocol })),
);
if (variants.length === 0) throw new Error('--group-protocol consumer needs --clients to include platformatic (kafkajs has only classic)');

function label(v: Variant): string {
  return v.protocol === 'classic' ? v.client : `${v.client}+${v.protocol}`;
}
const runs = count(args.runs, 'runs');
const loads = args.load.split(',').map((l) => count(l.trim(), 'load'));
const calls = count(args.calls, 'calls');
const drainTimeoutMs = count(args['drain-timeout'], 'drain-timeout') * 1000;
let seed = count(args.seed, 'seed');

/** mulberry32: small, seeded, good enough for timings. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** A whole number of milliseconds in [min, max). */
function between(min: number, max: number): number {
  return Math.floor(min + random() * (max - min));
}

/** `n` busy-loop processes (CPU contention beside the workers); kill them with {@link stopLoad}. */
function startLoad(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

function stopLoad(load: readonly ChildProcess[]): void {
  for (const child of load) child.kill('SIGKILL');
}

interface RunResult {
  readonly scenario: Scenario;
  readonly variant: Variant;
  readonly load: number;
  readonly in: number;
  readonly out: number;
  readonly missing: number;
  readonly doubled: number;
  readonly unexpected: number;
  /**
   * From the later of the last call produced and the last fault's end to every input offset committed; undefined
   * when it did not drain in time.
   */
  readonly drainMs: number | undefined;
  readonly totalMs: number;
  readonly faults: string;
  readonly error?: string;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return true;
    } catch {
      // not yet (a broker busy with a rebalance)
    }
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
}

async function owns(worker: WorkerHandle): Promise<boolean> {
  return (await metricValue(worker, 'toolcall_assigned_partitions').catch(() => 0)) > 0;
}

type Env = Record<string, string>;

/** The workers of the run in hand, for their logs when the run is not clean. */
let runWorkers: WorkerHandle[] = [];

async function worker(env: Env): Promise<WorkerHandle> {
  const handle = await startReadyWorker(env);
  runWorkers.push(handle);
  return handle;
}

/** Writes every worker's stdout and stderr of run `n` into the logs directory; returns the files. */
function saveLogs(n: number): string[] {
  mkdirSync(args.logs, { recursive: true });
  return runWorkers.map((w, i) => {
    const file = join(args.logs, `run-${String(n)}-worker-${String(i)}-${String(w.pid)}.log`);
    writeFileSync(file, `${w.stdout()}\n--- stderr ---\n${w.stderr()}`);
    return file;
  });
}

/** Two workers; one frozen past its session twice, at random moments and for random spans, then thawed. */
async function zombie(env: Env, topics: TestTopics, faults: string[]): Promise<void> {
  const a = await worker({ ...env, WORKER_ID: 'zombie-a' });
  const b = await worker({ ...env, WORKER_ID: 'zombie-b' });
  await until(async () => (await owns(a)) && (await owns(b)), 60_000);
  await until(async () => (await committedInputRecords(topics)) >= 300, 60_000, 100);
  for (let round = 0; round < 2; round++) {
    await sleep(between(200, 4_000));
    a.kill('SIGSTOP');
    const frozenMs = SESSION_MS + between(1_000, 7_000);
    await sleep(frozenMs);
    a.kill('SIGCONT');
    faults.push(`freeze ${(frozenMs / 1000).toFixed(1)}s`);
  }
}

/** Two workers; one killed twice at random moments, started again (same worker id) after a random pause. */
async function kill(env: Env, topics: TestTopics, faults: string[]): Promise<void> {
  const ids = ['kill-a', 'kill-b'];
  const workers = [await worker({ ...env, WORKER_ID: 'kill-a' }), await worker({ ...env, WORKER_ID: 'kill-b' })];
  await until(async () => (await committedInputRecords(topics)) >= 300, 60_000, 100);
  for (let round = 0; round < 2; round++) {
    await sleep(between(500, 5_000));
    const which = random() < 0.5 ? 0 : 1;
    workers[which]?.kill('SIGKILL');
    await workers[which]?.exited;
    const pauseMs = between(0, 4_000);
    await sleep(pauseMs);
    workers[which] = await worker({ ...env, WORKER_ID: ids[which] ?? 'kill-x' });
    faults.push(`kill ${ids[which] ?? '?'} +${(pauseMs / 1000).toFixed(1)}s`);
  }
}

/** One worker; a second joins at a random moment and leaves (SIGTERM) at another, twice. */
async function rebalance(env: Env, topics: TestTopics, faults: string[]): Promise<void> {
  await worker({ ...env, WORKER_ID: 'rebalance-a' });
  await until(async () => (await committedInputRecords(topics)) >= 300, 60_000, 100);
  for (let round = 0; round < 2; round++) {
    await sleep(between(200, 3_000));
    const b = await worker({ ...env, WORKER_ID: 'rebalance-b' });
    const stayMs = between(2_000, 8_000);
    await sleep(stayMs);
    const exit = await b.stop();
    faults.push(`join+leave ${(stayMs / 1000).toFixed(1)}s exit=${String(exit)}`);
  }
}

const SCENARIO_RUN: Record<Scenario, (env: Env, topics: TestTopics, faults: string[]) => Promise<void>> = { zombie, kill, rebalance };

/**
 * Under the consumer protocol the session is the group's (the broker's default is 45 s): the same 8 s as the
 * classic runs, so a frozen member is fenced as there. The stack lowers the bounds these must fall within.
 */
async function consumerGroupSession(groupId: string): Promise<void> {
  const admin = new Admin({ clientId: 'campaign', bootstrapBrokers: [...stackEnv().brokers] });
  try {
    await admin.incrementalAlterConfigs({
      resources: [
        {
          resourceType: 32, // GROUP
          resourceName: groupId,
          configs: [
            { name: 'consumer.session.timeout.ms', configOperation: 0, value: String(SESSION_MS) },
            { name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: String(SESSION_MS / 8) },
          ],
        },
      ],
    });
  } finally {
    await admin.close();
  }
}

async function runOnce(scenario: Scenario, variant: Variant, load: number, template: string, index: number): Promise<RunResult> {
  const started = Date.now();
  const topics = await freshTopics(`cp${scenario.slice(0, 2)}`, PARTITIONS);
  if (variant.protocol === 'consumer') await consumerGroupSession(topics.groupId);
  const prefix = `c${index}`;
  const env: Env = {
    ...topicEnv(topics),
    SUBJECT_TEMPLATE: template,
    KAFKA_CLIENT: variant.client,
    KAFKA_GROUP_PROTOCOL: variant.protocol,
    DELIVERY: 'exactly-once',
    KAFKA_SESSION_TIMEOUT_MS: String(SESSION_MS),
    REGISTRY_TIMEOUT_MS: '1500',
    LOG_LEVEL: args['log-level'],
  };
  const faults: string[] = [];
  runWorkers = [];
  const busy = startLoad(load);
  let drainMs: number | undefined;
  let error: string | undefined;
  let out = 0;
  let missing = 0;
  let doubled = 0;
  let unexpected = 0;
  try {
    // 400 to 600 calls a second (a random pause per run): 20 to 30 s of stream for 12,000 calls, as long as the faults.
    const stream = steadyStream(topics.input, prefix, { to: calls }, { perSend: 30, pauseMs: between(40, 70), keys: 60 });
    let streamEnd = 0;
    void stream.done.then(() => (streamEnd = Date.now()));
    await SCENARIO_RUN[scenario](env, topics, faults);
    const faultsEnd = Date.now();
    await stream.done;
    // From the later of the last call produced and the last fault's end (thaw, restart, leave).
    const from = Math.max(streamEnd, faultsEnd);
    if (await until(async () => (await committedInputRecords(topics)) === calls, drainTimeoutMs, 250)) drainMs = Date.now() - from;
    const read = await readOutputs(topics, { until: calls, timeoutMs: 60_000, settleMs: 3_000 });
    const result = tally(read, numberedIds(prefix, calls));
    out = result.records;
    missing = result.missing.length;
    doubled = result.duplicates;
    unexpected = result.unexpected.length;
  } catch (e) {
    error = e instanceof Error ? e.message.split('\n')[0] : String(e);
  } finally {
    stopLoad(busy);
    await killAllWorkers();
  }
  const result: RunResult = {
    scenario,
    variant,
    load,
    in: calls,
    out,
    missing,
    doubled,
    unexpected,
    drainMs,
    totalMs: Date.now() - started,
    faults: faults.join(', '),
    ...(error === undefined ? {} : { error }),
  };
  if (!clean(result)) console.log(`run ${String(index)}: worker logs in ${saveLogs(index).join(', ')}`);
  return result;
}

function line(n: number, r: RunResult): string {
  const drain = r.drainMs === undefined ? `not drained in ${drainTimeoutMs / 1000}s` : `${(r.drainMs / 1000).toFixed(1)}s`;
  return (
    `run ${String(n).padStart(3)} ${r.scenario.padEnd(9)} ${label(r.variant).padEnd(21)} load=${r.load} in=${r.in} out=${r.out} ` +
    `missing=${r.missing} doubled=${r.doubled} unexpected=${r.unexpected} drain=${drain} total=${(r.totalMs / 1000).toFixed(0)}s ` +
    `[${r.faults}]${r.error === undefined ? '' : ` error: ${r.error}`}`
  );
}

function clean(r: RunResult): boolean {
  return r.error === undefined && r.missing === 0 && r.doubled === 0 && r.unexpected === 0 && r.drainMs !== undefined && r.out === r.in;
}

async function main(): Promise<void> {
  const template = uniqueSubjectTemplate('campaign');
  await pushExampleSchemas(template);
  console.log(
    `campaign: seed=${String(seed)} clients=${variants.map(label).join(',')} scenarios=${scenarios.join(',')} runs=${runs} ` +
      `load=${loads.join(',')} calls=${calls} partitions=${PARTITIONS} session=${SESSION_MS}ms`,
  );
  const results: RunResult[] = [];
  let n = 0;
  // Interleaved (run by run) so that a campaign cut short still covers every combination.
  for (let run = 0; run < runs; run++)
    for (const scenario of scenarios)
      for (const load of loads)
        for (const variant of variants) {
          const result = await runOnce(scenario, variant, load, template, ++n);
          results.push(result);
          console.log(line(n, result));
        }
  await closeClients();
  for (const scenario of scenarios)
    for (const variant of variants) {
      const mine = results.filter((r) => r.scenario === scenario && r.variant === variant);
      const drains = mine.flatMap((r) => (r.drainMs === undefined ? [] : [r.drainMs]));
      console.log(
        `summary ${scenario} ${label(variant)}: runs=${mine.length} clean=${mine.filter(clean).length} ` +
          `missing=${mine.reduce((s, r) => s + r.missing, 0)} doubled=${mine.reduce((s, r) => s + r.doubled, 0)} ` +
          `max-drain=${drains.length === 0 ? '-' : `${(Math.max(...drains) / 1000).toFixed(1)}s`}`,
      );
    }
  const bad = results.filter((r) => !clean(r)).length;
  console.log(
    `summary: runs=${results.length} clean=${results.length - bad} missing=${results.reduce((s, r) => s + r.missing, 0)} ` +
      `doubled=${results.reduce((s, r) => s + r.doubled, 0)} failed=${bad}`,
  );
  process.exitCode = bad === 0 ? 0 : 1;
}

await main();
