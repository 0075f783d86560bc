/**
 * `npm run bench:worker`: the worker on a real broker and registry, side by side with a pass-through pipe on
 * the same client and with Kafka's own performance tools. See BENCHMARKS.md for what each figure means.
 *
 * Starts its own stack instance (scripts/stack.sh on its own ports and state dir, Kafka with the full JIT:
 * KAFKA_JVM_OPTS=""), and takes it down at the end, whatever happens. Suites (`--suite a,b,...`, default
 * `main`):
 *
 * - main:    for exactly-once and at-least-once, the worker (`node dist/cli.js run`) and the pipe
 *            (bench/pipe.ts) each drain a backlog of BENCH_CALLS calls (bench/corpus.ts: clean, repairable,
 *            invalid), then carry a paced load (BENCH_LATENCY_RATE calls/s for BENCH_LATENCY_SECONDS) while a
 *            read_committed reader measures produce-to-committed-output latency; then Kafka's
 *            ProducerPerformance / ConsumerPerformance on the same broker. Prints one table.
 * - scaling: worker and pipe (exactly-once) with 1, 2 and 4 input partitions, and two workers in one group.
 * - memory:  the worker draining a backlog of BENCH_MEMORY_CALLS (1M) records: peak RSS (VmHWM).
 * - soak:    the worker at BENCH_SOAK_RATE calls/s for BENCH_SOAK_SECONDS (default 600): RSS and latency
 *            per interval.
 * - clients: the worker and the pipe on kafkajs next to the pipe on each alternative client installed by hand
 *            (not dependencies): @platformatic/kafka with PLATFORMATIC_KAFKA_DIR, @confluentinc/kafka-javascript
 *            with CONFLUENT_KAFKA_DIR (bench/pipe-platformatic.ts, bench/pipe-confluent.ts say how to install
 *            them), same and output-shaped records, both modes.
 *
 * Throughput is the slope of the group's committed input offsets between 10% and 90% of the backlog (so
 * process start, group join and JIT warm-up are left out), sampled every 50 ms. CPU per call is the child's
 * utime+stime over that window (/proc/<pid>/stat), divided by the calls in it.
 *
 * Environment (all optional): BENCH_CALLS=50000 BENCH_PARTITIONS=3 BENCH_ROUNDS=1 BENCH_LATENCY_RATE=1000
 * BENCH_LATENCY_SECONDS=10 BENCH_PERF_RECORDS=200000 BENCH_MEMORY_CALLS=1000000 BENCH_SOAK_SECONDS=600
 * BENCH_SOAK_RATE=2000 BENCH_SCALING_CALLS=BENCH_CALLS BENCH_WARMUP=0 (skip the untimed broker warm-up drains)
 * BENCH_KAFKA_PORT=39092 BENCH_KAFKA_CONTROLLER_PORT=39093
 * BENCH_REGISTRY_PORT=38081 BENCH_REGISTRY_MANAGEMENT_PORT=39000 BENCH_KEEP_STACK=1 (leave it up, for repeated
 * runs; `bash scripts/stack.sh down` with the printed STACK_STATE_DIR ends it) BENCH_NODE_FLAGS (extra node
 * flags for the worker and pipe, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") BENCH_BASELINE_CLI (another build
 * of the worker, run beside this one) BENCH_BASELINE_NODE_FLAGS (node flags for that baseline instead of
 * BENCH_NODE_FLAGS: with BENCH_BASELINE_CLI=dist/cli.js it compares flags on one build) BENCH_WORKER_ENV (extra
 * worker variables, "NAME=value,NAME=value").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Kafka, logLevel, type Admin, type Message, type Producer } from 'kafkajs';
import { pushToolSchemas } from '../src/app/commands/schemas-command.js';
import { makeCorpus } from './corpus.js';
import { freePort } from '../scripts/free-port.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const PIPE = join(ROOT, 'bench', 'pipe.ts');
const STACK = join(ROOT, 'scripts', 'stack.sh');

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
};
const CALLS = num('BENCH_CALLS', 50_000);
const PARTITIONS = num('BENCH_PARTITIONS', 3);
const ROUNDS = num('BENCH_ROUNDS', 1);
const LATENCY_RATE = num('BENCH_LATENCY_RATE', 1_000);
const LATENCY_SECONDS = num('BENCH_LATENCY_SECONDS', 10);
const PERF_RECORDS = num('BENCH_PERF_RECORDS', 200_000);
const MEMORY_CALLS = num('BENCH_MEMORY_CALLS', 1_000_000);
const SOAK_SECONDS = num('BENCH_SOAK_SECONDS', 600);
const SOAK_RATE = num('BENCH_SOAK_RATE', 2_000);
const SCALING_CALLS = num('BENCH_SCALING_CALLS', CALLS);
const flags = (text: string | undefined): string[] => (text ?? '').split(/\s+/).filter((f) => f !== '');
const NODE_FLAGS = flags(process.env.BENCH_NODE_FLAGS);
/** Node flags for the baseline worker instead of BENCH_NODE_FLAGS: the same build with other flags, side by side. */
const BASELINE_NODE_FLAGS = process.env.BENCH_BASELINE_NODE_FLAGS === undefined ? NODE_FLAGS : flags(process.env.BENCH_BASELINE_NODE_FLAGS);
const EXTRA_WORKER_ENV = Object.fromEntries(
  (process.env.BENCH_WORKER_ENV ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

const { values: args } = parseArgs({ options: { suite: { type: 'string', default: 'main,kafka' } } });
const SUITES = new Set(args.suite.split(',').map((s) => s.trim()));
for (const s of SUITES) if (!['main', 'kafka', 'scaling', 'memory', 'soak', 'clients'].includes(s)) throw new Error(`unknown suite ${s}`);

type Delivery = 'exactly-once' | 'at-least-once';
type Kind = 'worker' | 'worker-baseline' | 'pipe' | 'pipe-shaped' | `pipe-${AltClient}` | `pipe-${AltClient}-shaped`;

/** Clients other than kafkajs that the pipe runs on (bench/pipe-<client>.ts), each found through its variable. */
type AltClient = 'platformatic' | 'confluent';
const ALT_CLIENT_DIRS: Record<AltClient, string> = { platformatic: 'PLATFORMATIC_KAFKA_DIR', confluent: 'CONFLUENT_KAFKA_DIR' };
const ALT_CLIENT_NAMES: Record<AltClient, string> = { platformatic: '@platformatic/kafka', confluent: '@confluentinc/kafka-javascript' };
/** Another build of the worker to run beside this one (before/after figures), e.g. a checkout of an earlier commit. */
const BASELINE_CLI = process.env.BENCH_BASELINE_CLI;
const SHAPED = process.env.BENCH_SHAPED !== '0';
const MODES = (process.env.BENCH_MODES ?? 'exactly-once,at-least-once').split(',').map((m) => {
  if (m !== 'exactly-once' && m !== 'at-least-once') throw new Error(`BENCH_MODES: unknown mode ${m}`);
  return m;
});
const HEADER_PRODUCED_AT = 'bench-produced-at';

const say = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-';
const RUN = `bench-${Date.now().toString(36)}`;
const LOG_DIR = join(tmpdir(), RUN);
mkdirSync(LOG_DIR, { recursive: true });

// ------------------------------------------------------------------------------------------------------ stack

interface Stack {
  brokers: string;
  registry: string;
  kafkaPid: number | undefined;
  down: () => void;
}

function startStack(): Stack {
  const stateDir = process.env.BENCH_STACK_STATE_DIR ?? join(tmpdir(), 'toolcall-bench-stack');
  const env = {
    ...process.env,
    KAFKA_PORT: String(num('BENCH_KAFKA_PORT', 39_092)),
    KAFKA_CONTROLLER_PORT: String(num('BENCH_KAFKA_CONTROLLER_PORT', 39_093)),
    REGISTRY_PORT: String(num('BENCH_REGISTRY_PORT', 38_081)),
    REGISTRY_MANAGEMENT_PORT: String(num('BENCH_REGISTRY_MANAGEMENT_PORT', 39_000)),
    STACK_STATE_DIR: stateDir,
    KAFKA_NUM_PARTITIONS: String(PARTITIONS),
    // The full JIT for the broker: the stack's default (C1 only) is for fast test starts, not throughput.
    KAFKA_JVM_OPTS: '',
    KAFKA_HEAP_OPTS: '-Xms1g -Xmx1g',
  };
  say(
    '== own stack instance (Kafka with the full JIT, KAFKA_JVM_OPTS=""): ' +
      `STACK_STATE_DIR=${stateDir} KAFKA_PORT=${env.KAFKA_PORT} REGISTRY_PORT=${env.REGISTRY_PORT}`,
  );
  const out = execFileSync('bash', [STACK, 'up'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const found: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) found[line.slice(0, eq)] = line.slice(eq + 1);
  }
  const brokers = found.KAFKA_BROKERS;
  const registry = found.SCHEMA_REGISTRY_URL;
  if (brokers === undefined || registry === undefined) throw new Error(`stack.sh up printed no KAFKA_BROKERS/SCHEMA_REGISTRY_URL:\n${out}`);
  const pidFile = join(stateDir, 'kafka', 'kafka.pid');
  const kafkaPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : undefined;
  let down = false;
  return {
    brokers,
    registry,
    kafkaPid,
    down: () => {
      if (down) return;
      down = true;
      if (process.env.BENCH_KEEP_STACK === '1') {
        say(`(stack left running: STACK_STATE_DIR=${stateDir} bash scripts/stack.sh down)`);
        return;
      }
      say('== taking the own stack instance down');
      execFileSync('bash', [STACK, 'down'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    },
  };
}

// ------------------------------------------------------------------------------------------------- processes

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

interface Topics {
  input: string;
  output: string;
  rejected: string;
  dlq: string;
  group: string;
}

let topicCounter = 0;
function topicsFor(label: string): Topics {
  const base = `${RUN}-${++topicCounter}-${label}`;
  return { input: `${base}-in`, output: `${base}-out`, rejected: `${base}-rej`, dlq: `${base}-dlq`, group: `${base}-group` };
}

interface Child {
  pid: number;
  exited: Promise<number | null>;
  stop: () => Promise<void>;
  log: string;
}

async function startChild(kind: Kind, delivery: Delivery, topics: Topics, ctx: Context, name: string = kind): Promise<Child> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    KAFKA_BROKERS: ctx.stack.brokers,
    INPUT_TOPIC: topics.input,
    OUTPUT_TOPIC: topics.output,
    REJECTED_TOPIC: topics.rejected,
    DLQ_TOPIC: topics.dlq,
    GROUP_ID: topics.group,
    DELIVERY: delivery,
  };
  let argv: string[];
  if (kind === 'worker' || kind === 'worker-baseline') {
    Object.assign(
      env,
      {
        SCHEMA_REGISTRY_URL: ctx.stack.registry,
        SUBJECT_TEMPLATE: ctx.subjectTemplate,
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
      },
      EXTRA_WORKER_ENV,
    );
    argv = kind === 'worker' ? [...NODE_FLAGS, CLI, 'run'] : [...BASELINE_NODE_FLAGS, BASELINE_CLI ?? CLI, 'run'];
  } else {
    const alt = (Object.keys(ALT_CLIENT_DIRS) as AltClient[]).find((client) => kind.startsWith(`pipe-${client}`));
    env.PIPE_CLIENT = alt ?? 'kafkajs';
    if (kind.endsWith('-shaped')) env.PIPE_SHAPE = 'output';
    for (const variable of Object.values(ALT_CLIENT_DIRS)) {
      const dir = process.env[variable];
      if (dir !== undefined) env[variable] = dir;
    }
    argv = ['--import', 'tsx', ...NODE_FLAGS, PIPE];
  }
  const log = join(LOG_DIR, `${topics.input}-${name}.log`);
  const stream = createWriteStream(log);
  const child = spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(stream);
  child.stderr.pipe(stream);
  children.add(child);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    });
  });
  return {
    pid: child.pid ?? -1,
    exited,
    log,
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** utime + stime of a process, in seconds (/proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memory(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

// ------------------------------------------------------------------------------------------------------ kafka

interface Context {
  stack: Stack;
  kafka: Kafka;
  admin: Admin;
  producer: Producer;
  corpus: readonly string[];
  subjectTemplate: string;
}

async function createTopics(ctx: Context, topics: Topics, partitions: number): Promise<void> {
  await ctx.admin.createTopics({
    topics: [topics.input, topics.output, topics.rejected, topics.dlq].map((topic) => ({
      topic,
      numPartitions: partitions,
      replicationFactor: 1,
    })),
    waitForLeaders: true,
  });
}

/** Produces `count` corpus calls (cycling through the corpus), spread evenly over the partitions. */
async function produceBacklog(ctx: Context, topic: string, count: number, partitions: number): Promise<void> {
  const CHUNK = 2_000;
  const PARALLEL = 4;
  const started = Date.now();
  for (let from = 0; from < count; from += CHUNK * PARALLEL) {
    const sends: Promise<unknown>[] = [];
    for (let c = from; c < Math.min(count, from + CHUNK * PARALLEL); c += CHUNK) {
      const messages: Message[] = [];
      const producedAt = String(Date.now());
      for (let i = c; i < Math.min(count, c + CHUNK); i++) {
        messages.push({
          key: `agent-${i % 64}`,
          value: ctx.corpus[i % ctx.corpus.length] ?? '',
          partition: i % partitions,
          headers: { [HEADER_PRODUCED_AT]: producedAt },
        });
      }
      sends.push(ctx.producer.send({ topic, messages, acks: -1 }));
    }
    await Promise.all(sends);
    if (count >= 200_000 && from % 100_000 < CHUNK * PARALLEL) process.stderr.write(`\r   produced ${fmt(from)} / ${fmt(count)}`);
  }
  if (count >= 200_000) process.stderr.write(`\r   produced ${fmt(count)} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

async function committed(ctx: Context, group: string, topic: string): Promise<number> {
  const answer = await ctx.admin.fetchOffsets({ groupId: group, topics: [topic] });
  let sum = 0;
  for (const entry of answer) for (const p of entry.partitions) sum += Math.max(0, Number(p.offset));
  return sum;
}

interface Drain {
  rate: number;
  /** CPU seconds per call of the children (summed) over the measured window, in µs. */
  cpuPerCall: number;
  brokerCpuPct: number;
  peakRssMb: number;
  seconds: number;
}

/**
 * Waits until `group` committed `total` offsets on `topic`; the rate is the slope between 10% and 90%. While
 * waiting, samples the children's RSS (`onSample` sees every sample).
 */
async function drain(
  ctx: Context,
  group: string,
  topic: string,
  total: number,
  pids: readonly number[],
  timeoutMs: number,
  onSample?: (t: number, done: number) => void,
  cancelled: () => boolean = () => false,
): Promise<Drain> {
  const started = Date.now();
  const lo = Math.floor(total * 0.1);
  const hi = Math.ceil(total * 0.9);
  let a: { t: number; n: number; cpu: number; broker: number } | undefined;
  let b: { t: number; n: number; cpu: number; broker: number } | undefined;
  let peak = 0;
  const cpu = (): number => pids.reduce((s, p) => s + cpuSeconds(p), 0);
  for (;;) {
    const t = performance.now();
    // The coordinator may not be there yet (a fresh broker creates __consumer_offsets on the first group).
    const n = await committed(ctx, group, topic).catch(() => 0);
    for (const pid of pids) peak = Math.max(peak, memory(pid).hwm);
    onSample?.(t, n);
    if (a === undefined && n >= lo) a = { t, n, cpu: cpu(), broker: cpuSeconds(ctx.stack.kafkaPid) };
    if (b === undefined && n >= hi) b = { t, n, cpu: cpu(), broker: cpuSeconds(ctx.stack.kafkaPid) };
    if (n >= total) break;
    if (Date.now() - started > timeoutMs) throw new Error(`${group}: only ${n} of ${total} committed after ${timeoutMs / 1000} s`);
    if (cancelled()) throw new Error(`${group}: drain cancelled`);
    await sleep(50);
  }
  if (a === undefined || b === undefined || b.n === a.n) throw new Error('drain too short to measure');
  const seconds = (b.t - a.t) / 1000;
  const calls = b.n - a.n;
  return {
    rate: calls / seconds,
    cpuPerCall: ((b.cpu - a.cpu) / calls) * 1e6,
    brokerCpuPct: ((b.broker - a.broker) / seconds) * 100,
    peakRssMb: peak,
    seconds: (Date.now() - started) / 1000,
  };
}

interface Latency {
  p50: number;
  p99: number;
  max: number;
  sent: number;
  received: number;
}

/**
 * Paced load: `rate` calls/s for `seconds` into `topics.input` (the child already consumes it), each with its
 * produce time in a header, which the worker and the pipe carry to the output. A read_committed reader of the
 * output topics takes now - produce time when a record arrives. The first second is left out (warm-up).
 */
async function latency(
  ctx: Context,
  topics: Topics,
  partitions: number,
  rate: number,
  seconds: number,
  perInterval?: { everyMs: number; report: (t: number, sample: Latency) => void },
): Promise<Latency> {
  const reader = ctx.kafka.consumer({
    groupId: `${topics.group}-reader-${randomUUID().slice(0, 6)}`,
    readUncommitted: false,
    maxWaitTimeInMs: 100,
  });
  const group = { joined: false };
  reader.on(reader.events.GROUP_JOIN, () => {
    group.joined = true;
  });
  const all: number[] = [];
  let window: number[] = [];
  let received = 0;
  const warmupEnd = Date.now() + 1_000 + 2_000; // reader start margin + 1 s of warm-up
  await reader.connect();
  await reader.subscribe({ topics: [topics.output, topics.rejected, topics.dlq], fromBeginning: false });
  await reader.run({
    eachBatch: async ({ batch }) => {
      const now = Date.now();
      for (const message of batch.messages) {
        const at = Number(message.headers?.[HEADER_PRODUCED_AT]?.toString());
        received++;
        if (at >= warmupEnd) {
          all.push(now - at);
          window.push(now - at);
        }
      }
      await Promise.resolve();
    },
  });
  while (!group.joined) await sleep(50);
  await sleep(2_000);
  let sent = 0;
  const start = Date.now();
  let nextReport = start + (perInterval?.everyMs ?? Infinity);
  let i = 0;
  while (Date.now() - start < seconds * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate);
    if (due > sent) {
      const messages: Message[] = [];
      const at = String(Date.now());
      for (; sent < due; sent++, i++)
        messages.push({
          key: `agent-${i % 64}`,
          value: ctx.corpus[i % ctx.corpus.length] ?? '',
          partition: i % partitions,
          headers: { [HEADER_PRODUCED_AT]: at },
        });
      await ctx.producer.send({ topic: topics.input, messages, acks: -1 });
    }
    if (perInterval !== undefined && Date.now() >= nextReport) {
      nextReport += perInterval.everyMs;
      perInterval.report((Date.now() - start) / 1000, summarize(window, sent, received));
      window = [];
    }
    await sleep(5);
  }
  const deadline = Date.now() + 15_000;
  while (received < sent && Date.now() < deadline) await sleep(50);
  await reader.disconnect();
  return summarize(all, sent, received);
}

function summarize(samples: number[], sent: number, received: number): Latency {
  const sorted = [...samples].sort((x, y) => x - y);
  const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return { p50: q(0.5), p99: q(0.99), max: sorted[sorted.length - 1] ?? NaN, sent, received };
}

// ----------------------------------------------------------------------------------------------------- suites

interface Row {
  kind: Kind;
  mode: Delivery;
  partitions: number;
  processes: number;
  drain: Drain;
  latency: Latency | undefined;
}

/** One subject end to end: fresh topics, backlog, child(ren), drain, optional paced load. */
async function measure(
  ctx: Context,
  kind: Kind,
  mode: Delivery,
  options: { calls: number; partitions: number; processes?: number; latency?: boolean },
): Promise<Row> {
  const processes = options.processes ?? 1;
  const topics = topicsFor(`${kind}-${mode === 'exactly-once' ? 'eos' : 'alo'}-p${options.partitions}x${processes}`);
  await createTopics(ctx, topics, options.partitions);
  await produceBacklog(ctx, topics.input, options.calls, options.partitions);
  const started = await Promise.all(Array.from({ length: processes }, (_, n) => startChild(kind, mode, topics, ctx, `${kind}${n}`)));
  let over = false;
  try {
    const result = await Promise.race([
      drain(
        ctx,
        topics.group,
        topics.input,
        options.calls,
        started.map((c) => c.pid),
        600_000,
        undefined,
        () => over,
      ),
      ...started.map(async (c) => {
        const code = await c.exited;
        throw new Error(`${kind} exited (${String(code)}) during the drain; log: ${c.log}`);
      }),
    ]);
    const lat = options.latency === true ? await latency(ctx, topics, options.partitions, LATENCY_RATE, LATENCY_SECONDS) : undefined;
    return { kind, mode, partitions: options.partitions, processes, drain: result, latency: lat };
  } finally {
    over = true;
    await Promise.all(started.map((c) => c.stop()));
  }
}

function median<T>(rows: readonly T[], key: (row: T) => number): T {
  const sorted = [...rows].sort((x, y) => key(x) - key(y));
  const pick = sorted[Math.floor(sorted.length / 2)];
  if (pick === undefined) throw new Error('no rows');
  return pick;
}

const LABEL: Record<Kind, string> = {
  worker: 'worker (node dist/cli.js run)',
  'worker-baseline': 'worker, baseline build (BENCH_BASELINE_CLI)',
  pipe: 'pipe, kafkajs (bench/pipe.ts)',
  'pipe-shaped': 'pipe, kafkajs, output-shaped records',
  'pipe-platformatic': 'pipe, @platformatic/kafka',
  'pipe-platformatic-shaped': 'pipe, @platformatic/kafka, output-shaped records',
  'pipe-confluent': 'pipe, @confluentinc/kafka-javascript',
  'pipe-confluent-shaped': 'pipe, @confluentinc/kafka-javascript, output-shaped records',
};

function printRows(rows: readonly Row[], withLatency: boolean): void {
  const header = [
    'subject',
    'mode',
    'parts',
    'procs',
    'calls/s',
    'CPU µs/call',
    'broker CPU',
    'peak RSS MB',
    ...(withLatency ? ['p50 ms', 'p99 ms', 'max ms'] : []),
  ];
  const table = rows.map((r) => [
    LABEL[r.kind],
    r.mode,
    String(r.partitions),
    String(r.processes),
    fmt(r.drain.rate),
    fmt(r.drain.cpuPerCall, 1),
    `${fmt(r.drain.brokerCpuPct)}%`,
    fmt(r.drain.peakRssMb),
    ...(withLatency ? [fmt(r.latency?.p50 ?? NaN), fmt(r.latency?.p99 ?? NaN), fmt(r.latency?.max ?? NaN)] : []),
  ]);
  printTable(header, table);
}

function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  say(line(header));
  say(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) say(line(r));
}

/**
 * A fresh broker runs its first minute on interpreted and C1 code: whichever subject comes first pays for it with
 * a slower round and a busier broker. One untimed pipe drain in each mode warms the broker's produce, fetch and
 * transaction paths first.
 */
async function warmBroker(ctx: Context): Promise<void> {
  if (process.env.BENCH_WARMUP === '0') return;
  process.stderr.write('   warming the broker up (untimed pipe drains)\n');
  for (const mode of MODES) await measure(ctx, 'pipe', mode, { calls: 30_000, partitions: PARTITIONS });
}

async function suiteMain(ctx: Context): Promise<void> {
  say(
    `\n== main: worker vs pipe, ${fmt(CALLS)} calls backlog, ${PARTITIONS} partitions, ${ROUNDS} round(s); ` +
      `then ${fmt(LATENCY_RATE)} calls/s for ${LATENCY_SECONDS} s (latency)`,
  );
  const rows: Row[] = [];
  const all: Kind[] = [
    'worker',
    'pipe',
    ...(SHAPED ? (['pipe-shaped'] as const) : []),
    ...(BASELINE_CLI === undefined ? [] : (['worker-baseline'] as const)),
  ];
  // BENCH_KINDS=worker,worker-baseline: a subset, for quick A/B runs while working on the code.
  const only = process.env.BENCH_KINDS?.split(',');
  const kinds = only === undefined ? all : all.filter((k) => only.includes(k));
  for (const mode of MODES) {
    const byKind = new Map<Kind, Row[]>(kinds.map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order between rounds, so no subject always runs first.
      const order = kinds.map((_, i) => kinds[(i + round) % kinds.length] as Kind);
      for (const kind of order) {
        const row = await measure(ctx, kind, mode, { calls: CALLS, partitions: PARTITIONS, latency: true });
        process.stderr.write(
          `   ${kind} ${mode} round ${round + 1}: ${fmt(row.drain.rate)} calls/s, ${fmt(row.drain.cpuPerCall, 1)} µs CPU/call, ` +
            `p50 ${fmt(row.latency?.p50 ?? NaN)} ms\n`,
        );
        byKind.get(kind)?.push(row);
      }
    }
    for (const kind of kinds) rows.push(median(byKind.get(kind) ?? [], (r) => r.drain.rate));
  }
  say();
  printRows(rows, true);
  say();
  for (const mode of MODES) {
    const get = (kind: Kind): Row | undefined => rows.find((r) => r.kind === kind && r.mode === mode);
    const w = get('worker');
    const p = get('pipe');
    if (w === undefined || p === undefined) continue;
    say(`ratio worker / pipe, ${mode}: ${(w.drain.rate / p.drain.rate).toFixed(2)} (goal >= 0.80)`);
    const s = get('pipe-shaped');
    if (s !== undefined) {
      say(
        `   CPU per call: pipe ${fmt(p.drain.cpuPerCall, 1)} µs; ` +
          `+ ${fmt(s.drain.cpuPerCall - p.drain.cpuPerCall, 1)} µs the client spends on output-shaped records; ` +
          `+ ${fmt(w.drain.cpuPerCall - s.drain.cpuPerCall, 1)} µs our code = worker ${fmt(w.drain.cpuPerCall, 1)} µs`,
      );
      say(`   ratio worker / output-shaped pipe: ${(w.drain.rate / s.drain.rate).toFixed(2)}`);
    }
    const b = get('worker-baseline');
    if (b !== undefined)
      say(
        `   worker / baseline build: ${(w.drain.rate / b.drain.rate).toFixed(2)} in calls/s, ` +
          `CPU per call ${fmt(b.drain.cpuPerCall, 1)} -> ${fmt(w.drain.cpuPerCall, 1)} µs`,
      );
  }
}

async function suiteKafkaTools(ctx: Context): Promise<void> {
  const libs = kafkaLibs();
  const java = process.env.KAFKA_JAVA ?? 'java';
  const payload = join(LOG_DIR, 'payloads.txt');
  writeFileSync(payload, `${ctx.corpus.slice(0, 5_000).join('\n')}\n`);
  const topic = `${RUN}-perf`;
  await ctx.admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });
  const runTool = (cls: string, toolArgs: string[]): string =>
    execFileSync(
      java,
      [
        '-Xmx512m',
        `-Dlog4j2.configurationFile=${join(ROOT, 'scripts', 'stack', 'tools-log4j2.xml')}`,
        '-cp',
        `${libs}/*`,
        cls,
        ...toolArgs,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 24 },
    );
  const producerRate = (out: string): number =>
    Number(/records sent, ([\d.]+) records\/sec/.exec(out.trim().split('\n').pop() ?? '')?.[1] ?? NaN);
  say(
    `\n== Kafka's own tools on the same broker (${libs}), ` +
      `${fmt(PERF_RECORDS)} records of the corpus (payload file), ${PARTITIONS} partitions`,
  );
  const results: string[][] = [];
  // Kafka's producer tool on the corpus; `extra` goes before the producer properties.
  const producerPerformance = (extra: string[]): string =>
    runTool('org.apache.kafka.tools.ProducerPerformance', [
      '--topic',
      topic,
      '--num-records',
      String(PERF_RECORDS),
      '--throughput',
      '-1',
      '--payload-file',
      payload,
      ...extra,
      '--producer-props',
      `bootstrap.servers=${ctx.stack.brokers}`,
      'acks=all',
    ]);
  const plain = producerPerformance([]);
  results.push(['ProducerPerformance acks=all', fmt(producerRate(plain))]);
  const txn = producerPerformance(['--transaction-duration-ms', '100']);
  results.push(['ProducerPerformance transactional (commit every 100 ms)', fmt(producerRate(txn))]);
  const config = join(LOG_DIR, 'consumer.properties');
  writeFileSync(config, 'isolation.level=read_committed\n');
  const consumed = runTool('org.apache.kafka.tools.ConsumerPerformance', [
    '--bootstrap-server',
    ctx.stack.brokers,
    '--topic',
    topic,
    '--messages',
    String(PERF_RECORDS * 2),
    '--group',
    `${RUN}-perf-group`,
    '--consumer.config',
    config,
    '--timeout',
    '60000',
  ]);
  const lines = consumed.trim().split('\n');
  const head = (lines[0] ?? '').split(',').map((s) => s.trim());
  const data = (lines[1] ?? '').split(',').map((s) => s.trim());
  const fetchRate = Number(data[head.indexOf('fetch.nMsg.sec')] ?? NaN);
  results.push(['ConsumerPerformance read_committed (fetch.nMsg.sec)', fmt(fetchRate)]);
  printTable(['Kafka tool', 'records/s'], results);
}

function kafkaLibs(): string {
  const cache = process.env.STACK_CACHE_DIR ?? join(process.env.HOME ?? '/tmp', '.cache', 'toolcall-normalizer-stack');
  const stackText = readFileSync(STACK, 'utf8');
  const version = /^KAFKA_VERSION=(\S+)/m.exec(stackText)?.[1] ?? '';
  const libs = join(cache, `kafka_2.13-${version}`, 'lib');
  if (!existsSync(libs)) throw new Error(`no Kafka libs at ${libs}`);
  return libs;
}

async function suiteScaling(ctx: Context): Promise<void> {
  say(
    `\n== scaling (exactly-once): ${fmt(SCALING_CALLS)} calls backlog; 1, 2, 4 input partitions; ` +
      `two workers in one group; ${ROUNDS} round(s), median`,
  );
  const rows: Row[] = [];
  const setups = [
    { partitions: 1, processes: 1 },
    { partitions: 2, processes: 1 },
    { partitions: 4, processes: 1 },
    { partitions: 4, processes: 2 },
  ];
  for (const setup of setups) {
    for (const kind of ['worker', 'pipe'] as const) {
      const runs: Row[] = [];
      for (let round = 0; round < ROUNDS; round++) runs.push(await measure(ctx, kind, 'exactly-once', { calls: SCALING_CALLS, ...setup }));
      rows.push(median(runs, (r) => r.drain.rate));
    }
  }
  say();
  printRows(rows, false);
}

async function suiteMemory(ctx: Context): Promise<void> {
  say(`\n== memory: the worker (exactly-once) draining a backlog of ${fmt(MEMORY_CALLS)} calls, ${PARTITIONS} partitions`);
  const topics = topicsFor('memory');
  await createTopics(ctx, topics, PARTITIONS);
  await produceBacklog(ctx, topics.input, MEMORY_CALLS, PARTITIONS);
  const worker = await startChild('worker', 'exactly-once', topics, ctx);
  const samples: { t: number; done: number; rss: number }[] = [];
  let lastSample = 0;
  try {
    const result = await drain(ctx, topics.group, topics.input, MEMORY_CALLS, [worker.pid], 1_800_000, (t, done) => {
      if (t - lastSample < 5_000) return;
      lastSample = t;
      samples.push({ t, done, rss: memory(worker.pid).rss });
    });
    const end = memory(worker.pid);
    say(`drained ${fmt(MEMORY_CALLS)} calls in ${fmt(result.seconds, 1)} s (${fmt(result.rate)} calls/s from 10% to 90%)`);
    say(`peak RSS (VmHWM) ${fmt(end.hwm)} MB (goal < 300 MB); RSS at the end ${fmt(end.rss)} MB`);
    say(`RSS every 5 s (MB): ${samples.map((s) => fmt(s.rss)).join(' ')}`);
  } finally {
    await worker.stop();
  }
}

async function suiteSoak(ctx: Context): Promise<void> {
  const intervalMs = Math.max(10_000, Math.min(60_000, (SOAK_SECONDS * 1000) / 10));
  say(
    `\n== soak: the worker (exactly-once) at ${fmt(SOAK_RATE)} calls/s for ${fmt(SOAK_SECONDS)} s, ` +
      `${PARTITIONS} partitions; RSS and latency every ${intervalMs / 1000} s`,
  );
  const topics = topicsFor('soak');
  await createTopics(ctx, topics, PARTITIONS);
  const worker = await startChild('worker', 'exactly-once', topics, ctx);
  const rows: string[][] = [];
  const rss: number[] = [];
  try {
    const total = await latency(ctx, topics, PARTITIONS, SOAK_RATE, SOAK_SECONDS, {
      everyMs: intervalMs,
      report: (t, s) => {
        const m = memory(worker.pid);
        rss.push(m.rss);
        rows.push([fmt(t), fmt(s.sent), fmt(s.received), fmt(s.p50), fmt(s.p99), fmt(m.rss), fmt(m.hwm)]);
        process.stderr.write(`   ${fmt(t)} s: RSS ${fmt(m.rss)} MB, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms\n`);
      },
    });
    printTable(['t (s)', 'sent', 'received', 'p50 ms', 'p99 ms', 'RSS MB', 'peak MB'], rows);
    const half = rss.slice(Math.floor(rss.length / 2));
    say(
      `overall: sent ${fmt(total.sent)}, received ${fmt(total.received)}, ` +
        `p50 ${fmt(total.p50)} ms, p99 ${fmt(total.p99)} ms, max ${fmt(total.max)} ms`,
    );
    say(
      `RSS second half: min ${fmt(Math.min(...half))} MB, max ${fmt(Math.max(...half))} MB; ` +
        `first sample ${fmt(rss[0] ?? NaN)} MB, last ${fmt(rss[rss.length - 1] ?? NaN)} MB`,
    );
  } finally {
    await worker.stop();
  }
}

async function suiteClients(ctx: Context): Promise<void> {
  const alts = (Object.keys(ALT_CLIENT_DIRS) as AltClient[]).filter((client) => process.env[ALT_CLIENT_DIRS[client]] !== undefined);
  if (alts.length === 0)
    throw new Error(
      `--suite clients needs at least one of ${Object.values(ALT_CLIENT_DIRS).join(', ')} ` +
        '(see bench/pipe-platformatic.ts, bench/pipe-confluent.ts)',
    );
  say(
    `\n== clients: the pipe on kafkajs and on ${alts.map((c) => ALT_CLIENT_NAMES[c]).join(' and ')}, ` +
      `same and output-shaped records, ${fmt(CALLS)} calls backlog, ${PARTITIONS} partitions, ${ROUNDS} round(s), median`,
  );
  const pairs: (readonly [Kind, Kind, string])[] = [
    ['pipe', 'pipe-shaped', 'kafkajs'],
    ...alts.map((c) => [`pipe-${c}`, `pipe-${c}-shaped`, ALT_CLIENT_NAMES[c]] as const),
  ];
  const kinds: Kind[] = ['worker', ...pairs.map(([same]) => same), ...(SHAPED ? pairs.map(([, shaped]) => shaped) : [])];
  const rows: Row[] = [];
  for (const mode of MODES) {
    const byKind = new Map<Kind, Row[]>(kinds.map((kind) => [kind, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round so that no subject always runs first (or last) on the shared machine.
      const order = kinds.map((_, i) => kinds[(i + round) % kinds.length] as Kind);
      for (const kind of order) {
        const row = await measure(ctx, kind, mode, { calls: CALLS, partitions: PARTITIONS, latency: true });
        process.stderr.write(
          `   ${kind} ${mode} round ${round + 1}: ${fmt(row.drain.rate)} calls/s, ${fmt(row.drain.cpuPerCall, 1)} µs CPU/call\n`,
        );
        byKind.get(kind)?.push(row);
      }
    }
    for (const kind of kinds) rows.push(median(byKind.get(kind) ?? [], (r) => r.drain.rate));
  }
  say();
  printRows(rows, true);
  if (!SHAPED) return;
  say('\nWhat the larger output costs each client (same-records pipe / output-shaped pipe, calls/s and CPU per call):');
  for (const mode of MODES) {
    const of = (kind: Kind): Row | undefined => rows.find((r) => r.kind === kind && r.mode === mode);
    for (const [same, shaped] of pairs) {
      const a = of(same);
      const b = of(shaped);
      if (a === undefined || b === undefined) continue;
      say(
        `  ${mode} ${LABEL[same]}: shaped/same calls/s ${fmt(b.drain.rate / a.drain.rate, 2)}; ` +
          `CPU µs/call ${fmt(a.drain.cpuPerCall, 1)} -> ${fmt(b.drain.cpuPerCall, 1)} ` +
          `(+${fmt(b.drain.cpuPerCall - a.drain.cpuPerCall, 1)})`,
      );
    }
    // Our own code's CPU per call is the worker minus the kafkajs pipe that writes the same-shaped output; on
    // another client the worker would cost that client's output-shaped pipe plus our code. A projection from
    // CPU per call (the single-threaded worker's throughput follows it), not a measurement of such a worker.
    const worker = of('worker');
    const shapedKafkajs = of('pipe-shaped');
    if (worker === undefined || shapedKafkajs === undefined) continue;
    const ours = worker.drain.cpuPerCall - shapedKafkajs.drain.cpuPerCall;
    say(`  ${mode}: our code ${fmt(ours, 1)} µs/call (worker minus kafkajs output-shaped pipe)`);
    for (const [same, shaped, name] of pairs.slice(1)) {
      const pipeAlt = of(same);
      const shapedAlt = of(shaped);
      if (pipeAlt === undefined || shapedAlt === undefined) continue;
      say(
        `  ${mode}: projected worker on ${name} ${fmt(shapedAlt.drain.cpuPerCall + ours, 1)} µs/call, ` +
          `worker / pipe there ~${fmt(pipeAlt.drain.cpuPerCall / (shapedAlt.drain.cpuPerCall + ours), 2)} (by CPU per call)`,
      );
    }
  }
}

// ------------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  say(
    `bench:worker ${[...SUITES].join(',')} at ${new Date().toISOString()}; node ${process.version}; ` +
      `${cpus().length} cores; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const stack = startStack();
  const onSignal = (): void => {
    for (const child of children) child.kill('SIGKILL');
    stack.down();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const kafka = new Kafka({ clientId: 'bench', brokers: [stack.brokers], logLevel: logLevel.NOTHING, retry: { retries: 8 } });
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  try {
    await admin.connect();
    await producer.connect();
    const subjectTemplate = `${RUN}-{tool}`;
    const errors: string[] = [];
    const report = await pushToolSchemas(
      { registry: stack.registry, dir: join(ROOT, 'examples', 'tools'), subjectTemplate },
      { out: () => undefined, err: (l) => errors.push(l) },
    );
    if (report.failed.length > 0) throw new Error(`schemas push failed:\n${errors.join('\n')}`);
    const corpus = makeCorpus(20_000);
    const avg = corpus.reduce((s, l) => s + Buffer.byteLength(l), 0) / corpus.length;
    say(`corpus: bench/corpus.ts, 20,000 distinct calls (cycled), average ${fmt(avg)} bytes; logs in ${LOG_DIR}`);
    const ctx: Context = { stack, kafka, admin, producer, corpus, subjectTemplate };
    if (SUITES.has('main') || SUITES.has('clients') || SUITES.has('scaling')) await warmBroker(ctx);
    if (SUITES.has('main')) await suiteMain(ctx);
    if (SUITES.has('kafka')) await suiteKafkaTools(ctx);
    if (SUITES.has('clients')) await suiteClients(ctx);
    if (SUITES.has('scaling')) await suiteScaling(ctx);
    if (SUITES.has('memory')) await suiteMemory(ctx);
    if (SUITES.has('soak')) await suiteSoak(ctx);
    say(
      `\nload average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await producer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
    stack.down();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:worker: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
