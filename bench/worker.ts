/**
 * `npm run bench:worker`: the worker on a real broker and registry, side by side with a pass-through pipe on
 * the same client and with Kafka's own performance tools. See BENCHMARKS.md for what each figure means.
 *
 * Starts its own stack instance (scripts/stack.sh on its own ports and state dir, Kafka with the full JIT:
 * KAFKA_JVM_OPTS=""), and takes it down at the end, whatever happens. Suites (`--suite a,b,...`, default
 * `main`):
 *
 * Every suite runs on each client of BENCH_CLIENTS (default `kafkajs,platformatic`): the worker with
 * KAFKA_CLIENT=<client>, the pipe (bench/pipe.ts) with PIPE_CLIENT=<client>.
 *
 * - main:    for exactly-once and at-least-once, on each client, the worker (`node dist/cli.js run`), the pipe
 *            and the output-shaped pipe each drain a backlog of BENCH_CALLS calls (bench/corpus.ts: clean,
 *            repairable, invalid), then carry a paced load (BENCH_LATENCY_RATE calls/s for
 *            BENCH_LATENCY_SECONDS) while a read_committed reader measures produce-to-committed-output latency.
 *            The worker's first drain per client and mode also reads its output back: the bytes of its output
 *            values over its input values (bench/pipe-common.ts OUTPUT_SIZE_FACTOR). With CONFLUENT_KAFKA_DIR
 *            (a hand-installed @confluentinc/kafka-javascript, see bench/pipe-confluent.ts) its pipes join.
 *            Prints one table and the ratios, all from this one run.
 * - kafka:   Kafka's ProducerPerformance / ConsumerPerformance on the same broker.
 * - scaling: worker and pipe (exactly-once) on each client with 1, 4 and 12 input partitions
 *            (BENCH_SCALING_PARTITIONS): calls/s, CPU, peak RSS, the broker connections the process holds (its
 *            own sockets to the broker's port, /proc/<pid>/fd and /proc/<pid>/net/tcp) and the transactional
 *            producers it used (the broker's list of transactional ids, Kafka's TransactionsCommand).
 * - memory:  the worker (exactly-once) on each client, one after the other, draining the same backlog of
 *            BENCH_MEMORY_CALLS (1M) records: peak RSS (VmHWM), and what the V8 heap, its young generation and
 *            the memory outside it (external) were, from the worker's /metrics every second. With
 *            BENCH_BASELINE_CLI the baseline drains it too, after the worker on each client; BENCH_MEMORY_FLAGS
 *            ("|"-separated sets of node flags, "" for none) runs this build once per set instead.
 * - soak:    the worker (exactly-once) on each client, side by side on their own topics, each at
 *            BENCH_SOAK_RATE calls/s for BENCH_SOAK_SECONDS (default 600): RSS, heap and latency per interval.
 *
 * Every worker and pipe runs with the image's NODE_OPTIONS, read from the Dockerfile's `ENV NODE_OPTIONS` line (the
 * node flags the image and the chart run it with); BENCH_WORKER_ENV or BENCH_BASELINE_WORKER_ENV "NODE_OPTIONS=" runs
 * a worker without.
 *
 * Throughput is the slope of the group's committed input offsets between 10% and 90% of the backlog (so
 * process start, group join and JIT warm-up are left out), sampled every 50 ms. CPU per call is the child's
 * utime+stime over that window (/proc/<pid>/stat), divided by the calls in it.
 *
 * Environment (all optional): BENCH_CALLS=50000 BENCH_PARTITIONS=3 BENCH_ROUNDS=1 BENCH_LATENCY_RATE=1000
 * BENCH_LATENCY_SECONDS=10 BENCH_PERF_RECORDS=200000 BENCH_MEMORY_CALLS=1000000 BENCH_SOAK_SECONDS=600
 * BENCH_SOAK_RATE=2000 BENCH_SCALING_CALLS=BENCH_CALLS BENCH_SCALING_PARTITIONS=1,4,12 BENCH_CLIENTS=kafkajs,platformatic
 * BENCH_KINDS=worker,pipe,pipe-shaped,worker-baseline (a subset of the main suite's subjects) BENCH_WARMUP=0
 * (skip the untimed broker warm-up drains) BENCH_KAFKA_PORT=39092 BENCH_KAFKA_CONTROLLER_PORT=39093
 * BENCH_REGISTRY_PORT=38081 BENCH_REGISTRY_MANAGEMENT_PORT=39000 BENCH_KEEP_STACK=1 (leave it up, for repeated
 * runs; `bash scripts/stack.sh down` with the printed STACK_STATE_DIR ends it) BENCH_NODE_FLAGS (extra node
 * flags for the worker and pipe, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") BENCH_BASELINE_CLI (another build
 * of the worker, run beside this one) BENCH_BASELINE_NODE_FLAGS (node flags for that baseline instead of
 * BENCH_NODE_FLAGS: with BENCH_BASELINE_CLI=dist/cli.js it compares flags on one build) BENCH_WORKER_ENV (extra
 * worker variables, "NAME=value,NAME=value") BENCH_BASELINE_WORKER_ENV (the baseline's, instead of BENCH_WORKER_ENV).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Kafka, logLevel, type Admin, type Message, type Producer } from 'kafkajs';
import { patchKafkajsRequestQueue } from '../src/adapters/kafka/kafkajs-request-queue.js';
import { pushToolSchemas } from '../src/app/commands/schemas-command.js';
import { makeCorpus } from './corpus.js';
import { OUTPUT_SIZE_FACTOR } from './pipe-common.js';
import { connectionsTo, cpuSeconds, memory } from './proc.js';
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
/** The memory suite's sets of node flags for this build, "|"-separated ("" for none), instead of worker and baseline. */
const MEMORY_FLAGS = process.env.BENCH_MEMORY_FLAGS?.split('|').map((set) => set.split(/\s+/).filter((f) => f !== ''));
const SOAK_RATE = num('BENCH_SOAK_RATE', 2_000);
const SCALING_CALLS = num('BENCH_SCALING_CALLS', CALLS);
const SCALING_PARTITIONS = (process.env.BENCH_SCALING_PARTITIONS ?? '1,4,12').split(',').map((p) => {
  const n = Number(p);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_SCALING_PARTITIONS: not a partition count: ${p}`);
  return n;
});
const flags = (text: string | undefined): string[] => (text ?? '').split(/\s+/).filter((f) => f !== '');
const NODE_FLAGS = flags(process.env.BENCH_NODE_FLAGS);
/** Node flags for the baseline worker instead of BENCH_NODE_FLAGS: the same build with other flags, side by side. */
const BASELINE_NODE_FLAGS = process.env.BENCH_BASELINE_NODE_FLAGS === undefined ? NODE_FLAGS : flags(process.env.BENCH_BASELINE_NODE_FLAGS);
/**
 * The image's NODE_OPTIONS (the Dockerfile's `ENV NODE_OPTIONS` line): every worker here runs with the node flags it
 * runs with in the image and the chart; BENCH_WORKER_ENV / BENCH_BASELINE_WORKER_ENV "NODE_OPTIONS=" runs without.
 */
const IMAGE_NODE_OPTIONS = /^ENV NODE_OPTIONS="([^"]*)"/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
const envList = (text: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (text ?? '')
      .split(',')
      .filter((kv) => kv.includes('='))
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
const EXTRA_WORKER_ENV = envList(process.env.BENCH_WORKER_ENV);
/** Worker variables for the baseline instead of BENCH_WORKER_ENV: one build with other settings, side by side. */
const BASELINE_WORKER_ENV =
  process.env.BENCH_BASELINE_WORKER_ENV === undefined ? EXTRA_WORKER_ENV : envList(process.env.BENCH_BASELINE_WORKER_ENV);

const { values: args } = parseArgs({ options: { suite: { type: 'string', default: 'main,kafka' } } });
const SUITES = new Set(args.suite.split(',').map((s) => s.trim()));
for (const s of SUITES) if (!['main', 'kafka', 'scaling', 'memory', 'soak'].includes(s)) throw new Error(`unknown suite ${s}`);

type Delivery = 'exactly-once' | 'at-least-once';
/** What runs: the worker (this build or BENCH_BASELINE_CLI's), the pipe with the input's records or output-shaped ones. */
type Kind = 'worker' | 'worker-baseline' | 'pipe' | 'pipe-shaped';
/** The worker's clients (KAFKA_CLIENT); the pipe runs on them too, and on @confluentinc/kafka-javascript by hand. */
type WorkerClient = 'kafkajs' | 'platformatic';
type Client = WorkerClient | 'confluent';
interface Subject {
  readonly kind: Kind;
  readonly client: Client;
}
const CLIENT_NAMES: Record<Client, string> = {
  kafkajs: 'kafkajs',
  platformatic: '@platformatic/kafka',
  confluent: '@confluentinc/kafka-javascript',
};
const CLIENTS: WorkerClient[] = (process.env.BENCH_CLIENTS ?? 'kafkajs,platformatic').split(',').map((c) => {
  if (c !== 'kafkajs' && c !== 'platformatic') throw new Error(`BENCH_CLIENTS: unknown client ${c}`);
  return c;
});
/** A hand-installed @confluentinc/kafka-javascript (not a dependency): its pipes join the main suite. */
const CONFLUENT_DIR = process.env.CONFLUENT_KAFKA_DIR;
const subjectKey = (s: Subject): string => `${s.kind}@${s.client}`;
/** Another build of the worker to run beside this one (before/after figures), e.g. a checkout of an earlier commit. */
const BASELINE_CLI = process.env.BENCH_BASELINE_CLI;
const SHAPED = process.env.BENCH_SHAPED !== '0';
const MODES = (process.env.BENCH_MODES ?? 'exactly-once,at-least-once').split(',').map((m) => {
  if (m !== 'exactly-once' && m !== 'at-least-once') throw new Error(`BENCH_MODES: unknown mode ${m}`);
  return m;
});
const HEADER_PRODUCED_AT = 'bench-produced-at';

const loadText = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
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
  brokerPort: number;
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
    `== own stack instance (Kafka with the full JIT, KAFKA_JVM_OPTS=""): ` +
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
    brokerPort: Number(brokers.slice(brokers.lastIndexOf(':') + 1)),
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
  /** The worker's METRICS_PORT (undefined for a pipe). */
  metricsPort: number | undefined;
  exited: Promise<number | null>;
  stop: () => Promise<void>;
  log: string;
}

async function startChild(
  subject: Subject,
  delivery: Delivery,
  topics: Topics,
  ctx: Context,
  name: string,
  nodeFlags?: readonly string[],
): Promise<Child> {
  const { kind, client } = subject;
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
  let metricsPort: number | undefined;
  if (kind === 'worker' || kind === 'worker-baseline') {
    metricsPort = await freePort();
    Object.assign(
      env,
      {
        SCHEMA_REGISTRY_URL: ctx.stack.registry,
        SUBJECT_TEMPLATE: ctx.subjectTemplate,
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'warn',
        KAFKA_CLIENT: client,
        ...(IMAGE_NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: IMAGE_NODE_OPTIONS }),
      },
      kind === 'worker' ? EXTRA_WORKER_ENV : BASELINE_WORKER_ENV,
    );
    argv =
      kind === 'worker' ? [...(nodeFlags ?? NODE_FLAGS), CLI, 'run'] : [...(nodeFlags ?? BASELINE_NODE_FLAGS), BASELINE_CLI ?? CLI, 'run'];
  } else {
    env.PIPE_CLIENT = client;
    // The pipes run on the workers' node flags too: the ratios compare the work done, not two heap sizings.
    if (IMAGE_NODE_OPTIONS !== undefined) env.NODE_OPTIONS = IMAGE_NODE_OPTIONS;
    if (kind === 'pipe-shaped') env.PIPE_SHAPE = 'output';
    if (CONFLUENT_DIR !== undefined) env.CONFLUENT_KAFKA_DIR = CONFLUENT_DIR;
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
    metricsPort,
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
  /** Most established connections to the broker's port the children held at once (summed), sampled every 0.5 s. */
  peakConnections: number;
  /** The machine's 1-minute load average when the measured window closed. */
  load: number;
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
  let peakConnections = 0;
  let load = NaN;
  let lastConnections = -Infinity;
  const cpu = (): number => pids.reduce((s, p) => s + cpuSeconds(p), 0);
  for (;;) {
    const t = performance.now();
    // The coordinator may not be there yet (a fresh broker creates __consumer_offsets on the first group).
    const n = await committed(ctx, group, topic).catch(() => 0);
    for (const pid of pids) peak = Math.max(peak, memory(pid).hwm);
    if (t - lastConnections >= 500 || n >= total) {
      lastConnections = t;
      peakConnections = Math.max(
        peakConnections,
        pids.reduce((sum, pid) => sum + connectionsTo(pid, ctx.stack.brokerPort), 0),
      );
    }
    onSample?.(t, n);
    if (a === undefined && n >= lo) a = { t, n, cpu: cpu(), broker: cpuSeconds(ctx.stack.kafkaPid) };
    if (b === undefined && n >= hi) {
      b = { t, n, cpu: cpu(), broker: cpuSeconds(ctx.stack.kafkaPid) };
      load = loadavg()[0] ?? NaN;
    }
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
    peakConnections,
    load,
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
      // At most 2,000 per request: a producer that fell behind catches up in requests the broker accepts.
      for (const last = Math.min(due, sent + 2_000); sent < last; sent++, i++)
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
  subject: Subject;
  mode: Delivery;
  partitions: number;
  processes: number;
  drain: Drain;
  latency: Latency | undefined;
  /** Transactional ids the subject used (scaling suite). */
  producers?: number;
  /** What the worker wrote, read back (main suite, first round). */
  outputs?: OutputCheck;
}

/** One subject end to end: fresh topics, backlog, child(ren), drain, optional paced load. */
async function measure(
  ctx: Context,
  subject: Subject,
  mode: Delivery,
  options: { calls: number; partitions: number; processes?: number; latency?: boolean; producers?: boolean; outputs?: boolean },
): Promise<Row> {
  const processes = options.processes ?? 1;
  const name = `${subject.kind}-${subject.client}`;
  const topics = topicsFor(`${name}-${mode === 'exactly-once' ? 'eos' : 'alo'}-p${options.partitions}x${processes}`);
  await createTopics(ctx, topics, options.partitions);
  await produceBacklog(ctx, topics.input, options.calls, options.partitions);
  const started = await Promise.all(Array.from({ length: processes }, (_, n) => startChild(subject, mode, topics, ctx, `${name}${n}`)));
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
        throw new Error(`${name} exited (${String(code)}) during the drain; log: ${c.log}`);
      }),
    ]);
    const outputs = options.outputs === true ? await readOutputs(ctx, topics, options.calls) : undefined;
    const lat = options.latency === true ? await latency(ctx, topics, options.partitions, LATENCY_RATE, LATENCY_SECONDS) : undefined;
    const producers = options.producers === true ? transactionalIds(ctx, `${topics.group}-`) : undefined;
    return {
      subject,
      mode,
      partitions: options.partitions,
      processes,
      drain: result,
      latency: lat,
      ...(producers === undefined ? {} : { producers }),
      ...(outputs === undefined ? {} : { outputs }),
    };
  } finally {
    over = true;
    await Promise.all(started.map((c) => c.stop()));
  }
}

interface OutputCheck {
  inputBytes: number;
  outputBytes: number;
  records: number;
  /** Input records (partition and offset) that at least one output names. */
  inputsCovered: number;
  /** Outputs whose source and idempotency key another output already had. */
  duplicates: number;
}

const SOURCE_MARK = '"source":{"partition":';

/**
 * Reads back, read_committed, what the subject wrote for a drained backlog of `calls` inputs: the bytes of the
 * values against the inputs' (OUTPUT_SIZE_FACTOR), and each output's input coordinates (`source` in the value,
 * the `__connect.errors.*` headers of a dead letter) with its `idempotency-key`: an input no output names is
 * lost, the same coordinates and key twice are a duplicate.
 */
async function readOutputs(ctx: Context, topics: Topics, calls: number): Promise<OutputCheck> {
  let inputBytes = 0;
  for (let i = 0; i < calls; i++) inputBytes += Buffer.byteLength(ctx.corpus[i % ctx.corpus.length] ?? '');
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const check: OutputCheck = { inputBytes, outputBytes: 0, records: 0, inputsCovered: 0, duplicates: 0 };
  const reader = ctx.kafka.consumer({ groupId: `${topics.group}-check`, readUncommitted: false, maxWaitTimeInMs: 200 });
  let lastArrival = Date.now();
  await reader.connect();
  await reader.subscribe({ topics: [topics.output, topics.rejected, topics.dlq], fromBeginning: true });
  await reader.run({
    eachBatch: async ({ batch }) => {
      lastArrival = Date.now();
      for (const message of batch.messages) {
        const value = message.value ?? Buffer.alloc(0);
        check.records++;
        check.outputBytes += value.length;
        const header = (name: string): string => message.headers?.[name]?.toString() ?? '';
        let where: string;
        if (batch.topic === topics.dlq) where = `${header('__connect.errors.partition')}:${header('__connect.errors.offset')}`;
        else {
          const text = value.toString('utf8');
          const at = text.lastIndexOf(SOURCE_MARK);
          const found = at < 0 ? null : /^(\d+),"offset":"(\d+)"/.exec(text.slice(at + SOURCE_MARK.length));
          where = found === null ? `?${String(check.records)}` : `${found[1] ?? ''}:${found[2] ?? ''}`;
        }
        inputs.add(where);
        const id = `${where}:${header('idempotency-key')}`;
        if (seen.has(id)) check.duplicates++;
        else seen.add(id);
      }
      await Promise.resolve();
    },
  });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && !(inputs.size >= calls && Date.now() - lastArrival > 2_000)) await sleep(200);
  await reader.disconnect();
  check.inputsCovered = inputs.size;
  return check;
}

/** Runs one of Kafka's own tools (the broker's jars) and returns its stdout. */
function runKafkaTool(cls: string, toolArgs: readonly string[]): string {
  return execFileSync(
    process.env.KAFKA_JAVA ?? 'java',
    [
      '-Xmx512m',
      `-Dlog4j2.configurationFile=${join(ROOT, 'scripts', 'stack', 'tools-log4j2.xml')}`,
      '-cp',
      `${kafkaLibs()}/*`,
      cls,
      ...toolArgs,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 24 },
  );
}

/** Transactional ids starting with `prefix` that the broker knows (Kafka's TransactionsCommand `list`). */
function transactionalIds(ctx: Context, prefix: string): number {
  const out = runKafkaTool('org.apache.kafka.tools.TransactionsCommand', ['--bootstrap-server', ctx.stack.brokers, 'list']);
  return out.split('\n').filter((line) => line.trim().split(/\s+/)[0]?.startsWith(prefix) === true).length;
}

function median<T>(rows: readonly T[], key: (row: T) => number): T {
  const sorted = [...rows].sort((x, y) => key(x) - key(y));
  const pick = sorted[Math.floor(sorted.length / 2)];
  if (pick === undefined) throw new Error('no rows');
  return pick;
}

const KIND_LABEL: Record<Kind, string> = {
  worker: 'worker',
  'worker-baseline': 'worker, baseline build (BENCH_BASELINE_CLI)',
  pipe: 'pipe',
  'pipe-shaped': 'pipe, output-shaped records',
};
const label = (s: Subject): string => `${KIND_LABEL[s.kind]}, ${CLIENT_NAMES[s.client]}`;

function printRows(rows: readonly Row[], columns: { latency?: boolean; scaling?: boolean }): void {
  const header = [
    'subject',
    'mode',
    'parts',
    'procs',
    'calls/s',
    'CPU µs/call',
    'broker CPU',
    'peak RSS MB',
    ...(columns.latency === true ? ['p50 ms', 'p99 ms', 'max ms'] : []),
    ...(columns.scaling === true ? ['broker conns', 'txn producers'] : []),
    'load 1m',
  ];
  const table = rows.map((r) => [
    label(r.subject),
    r.mode,
    String(r.partitions),
    String(r.processes),
    fmt(r.drain.rate),
    fmt(r.drain.cpuPerCall, 1),
    `${fmt(r.drain.brokerCpuPct)}%`,
    fmt(r.drain.peakRssMb),
    ...(columns.latency === true ? [fmt(r.latency?.p50 ?? NaN), fmt(r.latency?.p99 ?? NaN), fmt(r.latency?.max ?? NaN)] : []),
    ...(columns.scaling === true ? [fmt(r.drain.peakConnections), fmt(r.producers ?? NaN)] : []),
    fmt(r.drain.load, 2),
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
  for (const mode of MODES) await measure(ctx, { kind: 'pipe', client: 'kafkajs' }, mode, { calls: 30_000, partitions: PARTITIONS });
}

async function suiteMain(ctx: Context): Promise<void> {
  say(
    `\n== main: worker vs pipe on ${CLIENTS.map((c) => CLIENT_NAMES[c]).join(' and ')}, ${fmt(CALLS)} calls backlog, ` +
      `${PARTITIONS} partitions, ${ROUNDS} round(s), median by calls/s; ` +
      `then ${fmt(LATENCY_RATE)} calls/s for ${LATENCY_SECONDS} s (latency); load average ${loadText()}`,
  );
  const all: Subject[] = [
    ...CLIENTS.flatMap((client) =>
      [
        'worker' as const,
        'pipe' as const,
        ...(SHAPED ? (['pipe-shaped'] as const) : []),
        ...(BASELINE_CLI === undefined ? [] : (['worker-baseline'] as const)),
      ].map((kind) => ({ kind, client })),
    ),
    ...(CONFLUENT_DIR === undefined
      ? []
      : (['pipe', ...(SHAPED ? (['pipe-shaped'] as const) : [])] as const).map((kind) => ({ kind, client: 'confluent' as const }))),
  ];
  // BENCH_KINDS=worker,pipe: a subset, for quick A/B runs while working on the code.
  const only = process.env.BENCH_KINDS?.split(',');
  const subjects = only === undefined ? all : all.filter((s) => only.includes(s.kind));
  const rows: Row[] = [];
  for (const mode of MODES) {
    const bySubject = new Map<string, Row[]>(subjects.map((s) => [subjectKey(s), []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order between rounds, so no subject always runs first.
      const order = subjects.map((_, i) => subjects[(i + round) % subjects.length] as Subject);
      for (const subject of order) {
        const outputs = round === 0 && subject.kind === 'worker';
        const row = await measure(ctx, subject, mode, { calls: CALLS, partitions: PARTITIONS, latency: true, outputs });
        process.stderr.write(
          `   ${label(subject)} ${mode} round ${round + 1}: ${fmt(row.drain.rate)} calls/s, ` +
            `${fmt(row.drain.cpuPerCall, 1)} µs CPU/call, p50 ${fmt(row.latency?.p50 ?? NaN)} ms, load ${fmt(row.drain.load, 2)}\n`,
        );
        bySubject.get(subjectKey(subject))?.push(row);
      }
    }
    for (const subject of subjects) {
      const runs = bySubject.get(subjectKey(subject)) ?? [];
      const pick = median(runs, (r) => r.drain.rate);
      const outputs = runs.find((r) => r.outputs !== undefined)?.outputs;
      rows.push(outputs === undefined ? pick : { ...pick, outputs });
      if (ROUNDS > 1)
        say(
          `rounds, ${label(subject)}, ${mode}: ${runs.map((r) => `${fmt(r.drain.rate)} calls/s ${fmt(r.drain.cpuPerCall, 1)} µs`).join(' / ')}`,
        );
    }
  }
  say();
  printRows(rows, { latency: true });

  const get = (kind: Kind, client: Client, mode: Delivery): Row | undefined =>
    rows.find((r) => r.subject.kind === kind && r.subject.client === client && r.mode === mode);
  const ratio = (x: number, y: number): string => fmt(x / y, 2);
  const ratioRows: string[][] = [];
  const columns: string[] = [];
  for (const client of CLIENTS) for (const mode of MODES) columns.push(`${client} ${mode}`);
  const line = (name: string, value: (client: WorkerClient, mode: Delivery) => string): void => {
    const cells: string[] = [];
    for (const client of CLIENTS) for (const mode of MODES) cells.push(value(client, mode));
    ratioRows.push([name, ...cells]);
  };
  const of = (client: WorkerClient, mode: Delivery): { w: Row | undefined; p: Row | undefined; s: Row | undefined } => ({
    w: get('worker', client, mode),
    p: get('pipe', client, mode),
    s: get('pipe-shaped', client, mode),
  });
  line('worker / pipe, calls/s (goal >= 0.80)', (c, m) => {
    const { w, p } = of(c, m);
    return w === undefined || p === undefined ? '-' : ratio(w.drain.rate, p.drain.rate);
  });
  line('pipe / worker, CPU per call', (c, m) => {
    const { w, p } = of(c, m);
    return w === undefined || p === undefined ? '-' : ratio(p.drain.cpuPerCall, w.drain.cpuPerCall);
  });
  line('worker / output-shaped pipe, calls/s (goal >= 0.90)', (c, m) => {
    const { w, s } = of(c, m);
    return w === undefined || s === undefined ? '-' : ratio(w.drain.rate, s.drain.rate);
  });
  line('output-shaped pipe / worker, CPU per call', (c, m) => {
    const { w, s } = of(c, m);
    return w === undefined || s === undefined ? '-' : ratio(s.drain.cpuPerCall, w.drain.cpuPerCall);
  });
  line('µs/call: the client on the larger output (shaped - pipe)', (c, m) => {
    const { p, s } = of(c, m);
    return p === undefined || s === undefined ? '-' : fmt(s.drain.cpuPerCall - p.drain.cpuPerCall, 1);
  });
  line('µs/call: our code (worker - shaped pipe)', (c, m) => {
    const { w, s } = of(c, m);
    return w === undefined || s === undefined ? '-' : fmt(w.drain.cpuPerCall - s.drain.cpuPerCall, 1);
  });
  line('worker on this client / on kafkajs, calls/s', (c, m) => {
    const w = get('worker', c, m);
    const k = get('worker', 'kafkajs', m);
    return w === undefined || k === undefined ? '-' : ratio(w.drain.rate, k.drain.rate);
  });
  line('worker on this client / on kafkajs, CPU per call', (c, m) => {
    const w = get('worker', c, m);
    const k = get('worker', 'kafkajs', m);
    return w === undefined || k === undefined ? '-' : ratio(w.drain.cpuPerCall, k.drain.cpuPerCall);
  });
  say();
  printTable(['ratio (this run)', ...columns], ratioRows);

  const checks = rows.filter((r) => r.outputs !== undefined);
  if (checks.length > 0) {
    say(
      `\nWhat the worker wrote, read back (read_committed, first round): every input named by an output, no output twice; ` +
        `worker output values / input values (bench/pipe-common.ts OUTPUT_SIZE_FACTOR is ${String(OUTPUT_SIZE_FACTOR)})`,
    );
    printTable(
      ['subject', 'mode', 'inputs', 'outputs', 'inputs named', 'lost', 'duplicates', 'output MB', 'input MB', 'output / input bytes'],
      checks.map((r) => {
        const o = r.outputs as OutputCheck;
        return [
          label(r.subject),
          r.mode,
          fmt(CALLS),
          fmt(o.records),
          fmt(o.inputsCovered),
          fmt(Math.max(0, CALLS - o.inputsCovered)),
          fmt(o.duplicates),
          fmt(o.outputBytes / 1e6, 2),
          fmt(o.inputBytes / 1e6, 2),
          fmt(o.outputBytes / o.inputBytes, 3),
        ];
      }),
    );
  }
  for (const mode of MODES) {
    for (const client of CLIENTS) {
      const w = get('worker', client, mode);
      const b = get('worker-baseline', client, mode);
      if (w !== undefined && b !== undefined)
        say(
          `worker / baseline build, ${client} ${mode}: ${ratio(w.drain.rate, b.drain.rate)} in calls/s, ` +
            `CPU per call ${fmt(b.drain.cpuPerCall, 1)} -> ${fmt(w.drain.cpuPerCall, 1)} µs`,
        );
    }
  }
}

async function suiteKafkaTools(ctx: Context): Promise<void> {
  const libs = kafkaLibs();
  const payload = join(LOG_DIR, 'payloads.txt');
  writeFileSync(payload, `${ctx.corpus.slice(0, 5_000).join('\n')}\n`);
  const topic = `${RUN}-perf`;
  await ctx.admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });
  const producerRate = (out: string): number =>
    Number(/records sent, ([\d.]+) records\/sec/.exec(out.trim().split('\n').pop() ?? '')?.[1] ?? NaN);
  say(
    `\n== Kafka's own tools on the same broker (${libs}), ${fmt(PERF_RECORDS)} records of the corpus (payload file), ` +
      `${PARTITIONS} partitions`,
  );
  const results: string[][] = [];
  // Kafka's producer tool on the corpus; `extra` goes before the producer properties.
  const producerPerformance = (extra: string[]): string =>
    runKafkaTool('org.apache.kafka.tools.ProducerPerformance', [
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
  const consumed = runKafkaTool('org.apache.kafka.tools.ConsumerPerformance', [
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
    `\n== scaling (exactly-once): ${fmt(SCALING_CALLS)} calls backlog; ${SCALING_PARTITIONS.join(', ')} input partitions; ` +
      `one process; on ${CLIENTS.map((c) => CLIENT_NAMES[c]).join(' and ')}; ${ROUNDS} round(s), median; load average ${loadText()}`,
  );
  const rows: Row[] = [];
  for (const client of CLIENTS) {
    for (const partitions of SCALING_PARTITIONS) {
      for (const kind of ['worker', 'pipe'] as const) {
        const runs: Row[] = [];
        for (let round = 0; round < ROUNDS; round++)
          runs.push(await measure(ctx, { kind, client }, 'exactly-once', { calls: SCALING_CALLS, partitions, producers: true }));
        const row = median(runs, (r) => r.drain.rate);
        process.stderr.write(
          `   ${label(row.subject)} ${String(partitions)} partitions: ${fmt(row.drain.rate)} calls/s, ` +
            `${fmt(row.drain.peakConnections)} connections, ${fmt(row.producers ?? NaN)} transactional producers\n`,
        );
        rows.push(row);
      }
    }
  }
  say();
  printRows(rows, { scaling: true });
  say(
    "broker conns: the most established TCP connections the process held to the broker's port at once; txn producers: transactional ids it used (the broker's list)",
  );
}

/** The V8 heap (all spaces, and the young generation) and the memory outside it, in MB, from a worker's /metrics. */
interface HeapBreakdown {
  heap: number;
  young: number;
  external: number;
}

/** Reads prom-client's default metrics of a worker; undefined when they cannot be read (starting, stopping). */
async function heapBreakdown(port: number | undefined): Promise<HeapBreakdown | undefined> {
  if (port === undefined) return undefined;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2_000) });
    const text = await response.text();
    const read = (line: RegExp): number => Number(line.exec(text)?.[1] ?? NaN) / 1_048_576;
    const breakdown = {
      heap: read(/^nodejs_heap_size_total_bytes(?:\{[^}]*\})? (\S+)/m),
      young: read(/^nodejs_heap_space_size_total_bytes\{space="new"[^}]*\} (\S+)/m),
      external: read(/^nodejs_external_memory_bytes(?:\{[^}]*\})? (\S+)/m),
    };
    return Number.isFinite(breakdown.heap) ? breakdown : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Samples a worker every second while it runs: RSS, and the heap breakdown of its /metrics. `peak` is the
 * sample with the highest RSS (what made up the peak); `max` each part's own highest value.
 */
function memorySampler(child: Child): { stop: () => { rss: number[]; peak?: HeapBreakdown & { rss: number }; max: HeapBreakdown } } {
  const rss: number[] = [];
  const max: HeapBreakdown = { heap: 0, young: 0, external: 0 };
  let peak: (HeapBreakdown & { rss: number }) | undefined;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void heapBreakdown(child.metricsPort).then((b) => {
      busy = false;
      const now = memory(child.pid).rss;
      rss.push(now);
      if (b === undefined) return;
      max.heap = Math.max(max.heap, b.heap);
      max.young = Math.max(max.young, b.young);
      max.external = Math.max(max.external, b.external);
      if (peak === undefined || now > peak.rss) peak = { ...b, rss: now };
    });
  }, 1_000);
  return {
    stop: () => {
      clearInterval(timer);
      return { rss, ...(peak === undefined ? {} : { peak }), max };
    },
  };
}

async function suiteMemory(ctx: Context): Promise<void> {
  // Each variant: a worker kind and its node flags (BENCH_MEMORY_FLAGS: several sets of flags on this build).
  const variants: { kind: Kind; flags: readonly string[] }[] =
    MEMORY_FLAGS !== undefined
      ? MEMORY_FLAGS.map((flags) => ({ kind: 'worker', flags }))
      : [
          { kind: 'worker', flags: NODE_FLAGS },
          ...(BASELINE_CLI === undefined ? [] : [{ kind: 'worker-baseline' as const, flags: BASELINE_NODE_FLAGS }]),
        ];
  say(
    `\n== memory: the worker (exactly-once) on ${CLIENTS.map((c) => CLIENT_NAMES[c]).join(', then ')}` +
      `${BASELINE_CLI === undefined ? '' : `, each beside the baseline ${BASELINE_CLI}`}, ` +
      `each draining the same backlog of ${fmt(MEMORY_CALLS)} calls, ${PARTITIONS} partitions; load average ${loadText()}`,
  );
  const shared = topicsFor('memory');
  await createTopics(ctx, shared, PARTITIONS);
  await produceBacklog(ctx, shared.input, MEMORY_CALLS, PARTITIONS);
  const rows: string[][] = [];
  const series: string[] = [];
  for (const client of CLIENTS) {
    for (const [index, { kind, flags: nodeFlags }] of variants.entries()) {
      // The same input for each worker, read by its own group into its own output topics.
      const own = topicsFor(`memory-${kind}-${index}-${client}`);
      const topics: Topics = { ...own, input: shared.input };
      await ctx.admin.createTopics({
        topics: [topics.output, topics.rejected, topics.dlq].map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 1 })),
        waitForLeaders: true,
      });
      const subject: Subject = { kind, client };
      const worker = await startChild(subject, 'exactly-once', topics, ctx, `${kind}-${index}-${client}`, nodeFlags);
      const sampler = memorySampler(worker);
      try {
        const result = await Promise.race([
          drain(ctx, topics.group, topics.input, MEMORY_CALLS, [worker.pid], 1_800_000),
          worker.exited.then((code) => {
            throw new Error(`worker on ${client} exited (${String(code)}) during the drain; log: ${worker.log}`);
          }),
        ]);
        const end = memory(worker.pid);
        const { rss, peak, max } = sampler.stop();
        const atPeak = peak === undefined ? 'n/a' : `${fmt(peak.heap)} / ${fmt(peak.young)} / ${fmt(peak.external)}`;
        rows.push([
          label(subject),
          nodeFlags.join(' ') || '(none)',
          fmt(result.seconds, 1),
          fmt(result.rate),
          fmt(result.cpuPerCall, 1),
          fmt(end.hwm),
          fmt(end.rss),
          atPeak,
          `${fmt(max.heap)} / ${fmt(max.young)} / ${fmt(max.external)}`,
          fmt(result.load, 2),
        ]);
        series.push(
          `RSS every 5 s, ${label(subject)} (MB): ${rss
            .filter((_, i) => i % 5 === 0)
            .map((r) => fmt(r))
            .join(' ')}`,
        );
      } finally {
        sampler.stop();
        await worker.stop();
      }
    }
  }
  say();
  printTable(
    [
      'subject',
      'node flags',
      'drained in s',
      'calls/s (10-90%)',
      'CPU µs/call',
      'peak RSS MB (goal < 300)',
      'RSS at the end MB',
      'at peak RSS: heap / young / external MB',
      'highest heap / young / external MB',
      'load 1m',
    ],
    rows,
  );
  say('heap: V8 heap, all spaces (committed); young: its new space; external: memory V8 counts outside the heap (Buffers)');
  for (const line of series) say(line);
}

async function suiteSoak(ctx: Context): Promise<void> {
  const intervalMs = Math.max(10_000, Math.min(60_000, (SOAK_SECONDS * 1000) / 10));
  say(
    `\n== soak: the worker (exactly-once) on ${CLIENTS.map((c) => CLIENT_NAMES[c]).join(' and ')} side by side, ` +
      `each at ${fmt(SOAK_RATE)} calls/s on its own topics for ${fmt(SOAK_SECONDS)} s, ${PARTITIONS} partitions; ` +
      `RSS and latency every ${intervalMs / 1000} s; load average ${loadText()}`,
  );
  const rows: string[][] = [];
  const summaries: string[] = [];
  await Promise.all(
    CLIENTS.map(async (client) => {
      const topics = topicsFor(`soak-${client}`);
      await createTopics(ctx, topics, PARTITIONS);
      const worker = await startChild({ kind: 'worker', client }, 'exactly-once', topics, ctx, `worker-${client}`);
      const rss: number[] = [];
      try {
        const total = await latency(ctx, topics, PARTITIONS, SOAK_RATE, SOAK_SECONDS, {
          everyMs: intervalMs,
          report: (t, s) => {
            const m = memory(worker.pid);
            rss.push(m.rss);
            const row = [
              fmt(t),
              client,
              fmt(s.sent),
              fmt(s.received),
              fmt(s.p50),
              fmt(s.p99),
              fmt(m.rss),
              fmt(m.hwm),
              'n/a',
              fmt(loadavg()[0] ?? NaN, 2),
            ];
            rows.push(row);
            void heapBreakdown(worker.metricsPort).then((b) => {
              if (b !== undefined) row[8] = `${fmt(b.heap)} / ${fmt(b.young)} / ${fmt(b.external)}`;
            });
            process.stderr.write(`   ${client} ${fmt(t)} s: RSS ${fmt(m.rss)} MB, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms\n`);
          },
        });
        const half = rss.slice(Math.floor(rss.length / 2));
        summaries.push(
          `${CLIENT_NAMES[client]}: sent ${fmt(total.sent)}, received ${fmt(total.received)}, p50 ${fmt(total.p50)} ms, ` +
            `p99 ${fmt(total.p99)} ms, max ${fmt(total.max)} ms; peak RSS ${fmt(memory(worker.pid).hwm)} MB; ` +
            `RSS second half min ${fmt(Math.min(...half))} MB, max ${fmt(Math.max(...half))} MB; first sample ${fmt(rss[0] ?? NaN)} MB, ` +
            `last ${fmt(rss[rss.length - 1] ?? NaN)} MB`,
        );
      } finally {
        await worker.stop();
      }
    }),
  );
  rows.sort(
    (x, y) => Number((x[0] ?? '').replace(/,/g, '')) - Number((y[0] ?? '').replace(/,/g, '')) || (x[1] ?? '').localeCompare(y[1] ?? ''),
  );
  say();
  printTable(
    ['t (s)', 'client', 'sent', 'received', 'p50 ms', 'p99 ms', 'RSS MB', 'peak MB', 'heap / young / external MB', 'load 1m'],
    rows,
  );
  for (const line of summaries) say(line);
}
// ------------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  say(
    `bench:worker ${[...SUITES].join(',')} at ${new Date().toISOString()}; node ${process.version}; ${cpus().length} cores; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  say(`worker NODE_OPTIONS (the Dockerfile's, unless BENCH_WORKER_ENV sets them): "${IMAGE_NODE_OPTIONS ?? ''}"`);
  const stack = startStack();
  const onSignal = (): void => {
    for (const child of children) child.kill('SIGKILL');
    stack.down();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  patchKafkajsRequestQueue(); // as the worker does: no 1 ms poll per connection, no TimeoutNegativeWarning
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
    if (SUITES.has('main') || SUITES.has('scaling')) await warmBroker(ctx);
    if (SUITES.has('main')) await suiteMain(ctx);
    if (SUITES.has('kafka')) await suiteKafkaTools(ctx);
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
