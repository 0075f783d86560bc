/**
 * Helpers shared by the worker's integration tests, against the real local stack (`npm run stack:up`):
 * topics and consumer groups unique per test, producing and reading records, pushing the example tool schemas
 * under a subject template unique per test file, and running the worker binary (`node dist/cli.js run`) as a
 * child process with its logs captured.
 *
 * Every client here logs nothing (kafkajs at NOTHING); every worker started is tracked, so a test file's
 * afterEach/afterAll can always kill what is left with {@link killAllWorkers}, and {@link closeClients}
 * disconnects the shared producer and admin.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, Partitioners, type Admin, type IHeaders, type Message, type Producer } from 'kafkajs';
import { pushToolSchemas, type PushedTool } from '../../src/app/commands/schemas-command.js';
import { kafkajsHeaders } from '../../src/adapters/kafka/headers.js';
import { patchKafkajsAbortedFilter } from '../../src/adapters/kafka/kafkajs-aborted.js';
import { patchKafkajsRequestQueue } from '../../src/adapters/kafka/kafkajs-request-queue.js';
import { DEFAULT_KAFKA_CLIENT, KAFKA_CLIENTS as ALL_KAFKA_CLIENTS } from '../../src/config/settings.js';
import { freePort } from '../../scripts/free-port.js';
import { containerStackCommand, containerStackInfo } from './testcontainers-stack.js';

export { freePort };

/** The repository root (this file is test/integration/harness.ts). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(REPO_ROOT, 'dist', 'cli.js');
export const EXAMPLE_TOOLS = join(REPO_ROOT, 'examples', 'tools');

// ------------------------------------------------------------------------------------------------ environment

export interface StackEnv {
  /** KAFKA_BROKERS as set (comma-separated host:port). */
  readonly kafkaBrokers: string;
  readonly brokers: readonly string[];
  /** SCHEMA_REGISTRY_URL: the Confluent-compatible API of the local Apicurio. */
  readonly registryUrl: string;
}

/** KAFKA_BROKERS and SCHEMA_REGISTRY_URL from the environment; throws (the test fails) when either is absent. */
export function stackEnv(): StackEnv {
  const missing = (['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL'] as const).filter((name) => (process.env[name] ?? '').trim() === '');
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(' and ')} not set: start the local stack with \`npm run stack:up\` (bash scripts/stack.sh up) and run ` +
        `eval "$(bash scripts/stack.sh env | sed 's/^/export /')" before these tests. Integration tests fail rather than skip.`,
    );
  }
  const kafkaBrokers = (process.env.KAFKA_BROKERS ?? '').trim();
  return {
    kafkaBrokers,
    brokers: kafkaBrokers
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b !== ''),
    registryUrl: (process.env.SCHEMA_REGISTRY_URL ?? '').trim(),
  };
}

/** Unique per process (test file): prefixes every topic, group and subject this file creates. */
type KafkaClient = (typeof ALL_KAFKA_CLIENTS)[number];

/**
 * The Kafka clients the suites run on (KAFKA_CLIENT of the worker), each suite once per client with
 * describe.each: `TEST_KAFKA_CLIENTS=kafkajs` (or `platformatic`) narrows a run to one.
 */
export const KAFKA_CLIENTS: readonly KafkaClient[] = (process.env.TEST_KAFKA_CLIENTS ?? 'kafkajs,platformatic')
  .split(',')
  .map((c) => c.trim())
  .filter(isKafkaClient);

/** The client of the suites not parameterised by client: TEST_KAFKA_CLIENT, else the worker's own default. */
export const TEST_KAFKA_CLIENT: KafkaClient = testKafkaClient(process.env.TEST_KAFKA_CLIENT);

/**
 * The group protocol every worker starts with: TEST_GROUP_PROTOCOL=consumer runs the suites on KIP-848 (with
 * TEST_KAFKA_CLIENT=platformatic: kafkajs refuses it); unset, the worker's default (classic).
 */
export const TEST_GROUP_PROTOCOL: string | undefined = process.env.TEST_GROUP_PROTOCOL;

function isKafkaClient(name: string): name is KafkaClient {
  return (ALL_KAFKA_CLIENTS as readonly string[]).includes(name);
}

function testKafkaClient(name: string | undefined): KafkaClient {
  if (name === undefined) return DEFAULT_KAFKA_CLIENT;
  if (!isKafkaClient(name)) throw new Error(`TEST_KAFKA_CLIENT: ${name} is none of ${ALL_KAFKA_CLIENTS.join(', ')}`);
  return name;
}

export const RUN_ID = `${Date.now().toString(36)}${randomUUID().slice(0, 4)}`;

/** A subject template unique to this run, e.g. `itw-lx3k9a1b2c-{tool}`; pass it as SUBJECT_TEMPLATE too. */
export function uniqueSubjectTemplate(prefix: string): string {
  return `${prefix}-${RUN_ID}-{tool}`;
}

// ------------------------------------------------------------------------------------------------------ kafka

let kafkaClient: Kafka | undefined;
function kafka(): Kafka {
  patchKafkajsRequestQueue(); // as the worker does: no 1 ms poll per connection, no TimeoutNegativeWarning
  patchKafkajsAbortedFilter(); // as the worker does: a killed worker's aborted outputs are not read as committed
  kafkaClient ??= new Kafka({
    clientId: `it-harness-${RUN_ID}`,
    brokers: [...stackEnv().brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    retry: { retries: 6 },
  });
  return kafkaClient;
}

let sharedAdmin: Promise<Admin> | undefined;
let sharedProducer: Promise<Producer> | undefined;

async function admin(): Promise<Admin> {
  sharedAdmin ??= (async () => {
    const client = kafka().admin();
    await client.connect();
    return client;
  })();
  try {
    return await sharedAdmin;
  } catch (error) {
    sharedAdmin = undefined;
    throw error;
  }
}

/** Runs `action` with the shared admin; on failure (a broker restart breaks connections) once more with a fresh one. */
async function withAdmin<T>(action: (client: Admin) => Promise<T>): Promise<T> {
  try {
    return await action(await admin());
  } catch {
    await resetAdmin();
    return action(await admin());
  }
}

async function resetAdmin(): Promise<void> {
  const old = sharedAdmin;
  sharedAdmin = undefined;
  if (old !== undefined) await old.then((c) => c.disconnect()).catch(() => undefined);
}

async function producer(): Promise<Producer> {
  sharedProducer ??= (async () => {
    // Idempotent: a retried send never duplicates an input record (which would look like a worker duplicate).
    const client = kafka().producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    await client.connect();
    return client;
  })();
  try {
    return await sharedProducer;
  } catch (error) {
    sharedProducer = undefined;
    throw error;
  }
}

async function resetProducer(): Promise<void> {
  const old = sharedProducer;
  sharedProducer = undefined;
  if (old !== undefined) await old.then((c) => c.disconnect()).catch(() => undefined);
}

/** A connected transactional producer of its own (the caller disconnects it): upstream transactions in a test. */
export async function transactionalProducer(transactionalId: string): Promise<Producer> {
  const client = kafka().producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await client.connect();
  return client;
}

/** Disconnects the shared admin and producer (call in afterAll). */
export async function closeClients(): Promise<void> {
  await Promise.allSettled([resetAdmin(), resetProducer()]);
}

export interface TestTopics {
  readonly input: string;
  readonly output: string;
  readonly rejected: string;
  readonly dlq: string;
  /** The worker's consumer group (and transactional id prefix). */
  readonly groupId: string;
}

let topicCounter = 0;

/** Fresh topic names and a group id for one test: `<prefix>-<run>-<n>-in`, `-out`, `-rej`, `-dlq`, `-group`. */
export function uniqueTopics(prefix: string): TestTopics {
  topicCounter++;
  const base = `${prefix}-${RUN_ID}-${topicCounter}`;
  return { input: `${base}-in`, output: `${base}-out`, rejected: `${base}-rej`, dlq: `${base}-dlq`, groupId: `${base}-group` };
}

/** {@link uniqueTopics} of `prefix`, created with `partitions` partitions each ({@link createTopics}). */
export async function freshTopics(prefix: string, partitions: number): Promise<TestTopics> {
  const topics = uniqueTopics(prefix);
  await createTopics(topics, partitions);
  return topics;
}

/** The four topics of a {@link TestTopics}. */
export function topicNames(topics: TestTopics): string[] {
  return [topics.input, topics.output, topics.rejected, topics.dlq];
}

/** The three topics the worker writes to. */
export function outputTopics(topics: TestTopics): string[] {
  return [topics.output, topics.rejected, topics.dlq];
}

/** The worker's environment for these topics: INPUT_TOPIC... GROUP_ID. */
export function topicEnv(topics: TestTopics): Record<string, string> {
  return {
    INPUT_TOPIC: topics.input,
    OUTPUT_TOPIC: topics.output,
    REJECTED_TOPIC: topics.rejected,
    DLQ_TOPIC: topics.dlq,
    GROUP_ID: topics.groupId,
  };
}

/** Creates the topics (or the four of a {@link TestTopics}) with `partitions` partitions each, waiting for leaders. */
export async function createTopics(topics: TestTopics | readonly string[], partitions: number): Promise<void> {
  const names = Array.isArray(topics) ? [...(topics as readonly string[])] : topicNames(topics as TestTopics);
  await withAdmin(async (client) => {
    const existing = new Set(await client.listTopics());
    const wanted = names.filter((t) => !existing.has(t));
    if (wanted.length === 0) return;
    await client.createTopics({
      topics: wanted.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })),
      waitForLeaders: true,
    });
  });
}

export interface ProduceMessage {
  readonly key: string | Buffer | null;
  /** null: a tombstone. */
  readonly value: string | Buffer | null;
  /** A list: the header repeated, in order. Names may be anything (`__proto__`, `constructor`). */
  readonly headers?: Readonly<Record<string, string | Buffer | readonly (string | Buffer)[]>>;
  /** Explicit partition; by default the key's murmur2 partition (as the Java client). */
  readonly partition?: number;
}

/** Produces the messages in order (acks=all, idempotent), in chunks; retries once with a fresh producer. */
export async function produce(topic: string, messages: readonly ProduceMessage[]): Promise<void> {
  const CHUNK = 500;
  for (let i = 0; i < messages.length; i += CHUNK) {
    const chunk: Message[] = messages.slice(i, i + CHUNK).map((m) => {
      const message: Message = { key: m.key, value: m.value };
      if (m.headers !== undefined) message.headers = Object.assign(Object.create(null) as IHeaders, m.headers);
      if (m.partition !== undefined) message.partition = m.partition;
      return message;
    });
    try {
      await (await producer()).send({ topic, messages: chunk, acks: -1 });
    } catch {
      // A broker restart can leave the producer broken; the idempotent producer never wrote half a chunk twice
      // within one session, and a new session after a failure is what a real upstream would do too.
      await resetProducer();
      await (await producer()).send({ topic, messages: chunk, acks: -1 });
    }
  }
}

export interface ReadMessage {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly value: Buffer | null;
  /** Header values as UTF-8 text (the first value when a header repeats). */
  readonly headers: Readonly<Record<string, string>>;
  /** Every header as the record carries it: each value as UTF-8 text, a repeated name's values in order. */
  readonly allHeaders: Readonly<Record<string, readonly string[]>>;
}

export interface ReadOptions {
  /** Stop once this many records have been read (over all topics). */
  readonly until: number;
  /** Stop (returning what was read) after this long. */
  readonly timeoutMs: number;
  readonly isolation?: 'read_committed' | 'read_uncommitted';
  /**
   * After `until` records were read, keep reading until nothing new arrived for this long, so extra records
   * (duplicates) are seen too. Default 0: stop at once.
   */
  readonly settleMs?: number;
}

/**
 * Reads `topics` from the beginning with a fresh consumer group, in each partition's order, until `until`
 * records were read (then `settleMs` of quiet) or `timeoutMs` passed. Never throws on a timeout: the caller
 * asserts on what came back.
 */
export async function readAll(topics: readonly string[], options: ReadOptions): Promise<ReadMessage[]> {
  const consumer = kafka().consumer({
    groupId: `it-reader-${RUN_ID}-${randomUUID().slice(0, 8)}`,
    readUncommitted: options.isolation === 'read_uncommitted',
    maxWaitTimeInMs: 200,
    allowAutoTopicCreation: false,
  });
  const read: ReadMessage[] = [];
  let lastAt = Date.now();
  let crashed: Error | undefined;
  consumer.on(consumer.events.CRASH, (event) => {
    crashed = event.payload.error;
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: ({ topic, partition, message }) => {
        read.push({
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? null,
          value: message.value,
          headers: headerText(message.headers),
          allHeaders: allHeaderText(message.headers),
        });
        lastAt = Date.now();
        return Promise.resolve();
      },
    });
    const deadline = Date.now() + options.timeoutMs;
    const settleMs = options.settleMs ?? 0;
    for (;;) {
      const now = Date.now();
      if (now >= deadline) break;
      if (read.length >= options.until && now - lastAt >= settleMs) break;
      await sleep(50);
    }
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  if (crashed !== undefined && read.length < options.until)
    throw new Error(`reader crashed after ${read.length} records: ${crashed.message}`);
  return read;
}

/** {@link readAll} of the three topics the worker writes to (normalized, rejected, dead letters). */
export async function readOutputs(topics: TestTopics, options: ReadOptions): Promise<ReadMessage[]> {
  return readAll(outputTopics(topics), options);
}

function headerText(headers: IHeaders | undefined): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [name, values] of Object.entries(allHeaderText(headers))) if (values[0] !== undefined) out[name] = values[0];
  return out;
}

/** kafkajs's decoded headers with the inherited values its decoder folds in removed (src/adapters/kafka/headers.ts). */
function allHeaderText(headers: IHeaders | undefined): Record<string, string[]> {
  const out = Object.create(null) as Record<string, string[]>;
  const repaired = kafkajsHeaders(headers);
  for (const name of Object.keys(repaired)) {
    const value = repaired[name];
    out[name] = (Array.isArray(value) ? value : [value]).map((v) => (v === undefined ? '' : v.toString()));
  }
  return out;
}

/** The record value as text (null for a tombstone). */
export function text(message: ReadMessage): string | null {
  return message.value === null ? null : message.value.toString('utf8');
}

/** The record value parsed as JSON (throws when it is not). */
export function json(message: ReadMessage): Record<string, unknown> {
  const value = text(message);
  if (value === null) throw new Error(`${message.topic}/${message.partition}@${message.offset} is a tombstone`);
  return JSON.parse(value) as Record<string, unknown>;
}

/**
 * Retries what kafkajs marks retriable (a group coordinator moving while a fresh broker loads its offsets topic
 * answers NOT_COORDINATOR), so a test reads the broker's state rather than failing on its transient answer.
 */
async function retryRetriable<T>(action: () => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      const retriable = typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
      if (!retriable || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Committed offsets of `groupId` on `topic`, by partition (-1 where nothing is committed). */
export async function committedOffsets(groupId: string, topic: string): Promise<Record<number, number>> {
  const answer = await retryRetriable(() => withAdmin((client) => client.fetchOffsets({ groupId, topics: [topic] })));
  const out: Record<number, number> = {};
  for (const entry of answer) for (const p of entry.partitions) out[p.partition] = Number(p.offset);
  return out;
}

/**
 * End offsets of `topic`, by partition: the high watermarks of a topic written without transactions (such as the
 * input topics here); for a transactional topic, the last stable offsets (kafkajs's admin lists offsets read_committed).
 */
export async function endOffsets(topic: string): Promise<Record<number, number>> {
  const answer = await withAdmin((client) => client.fetchTopicOffsets(topic));
  const out: Record<number, number> = {};
  for (const p of answer) out[p.partition] = Number(p.high);
  return out;
}

/** The sum of the non-negative offsets (records committed, for a topic without transactions). */
export function sumOffsets(offsets: Readonly<Record<number, number>>): number {
  return Object.values(offsets).reduce((sum, o) => sum + Math.max(0, o), 0);
}

/** Input records the worker's group has committed so far: the sum of its committed offsets on the input topic. */
export async function committedInputRecords(topics: TestTopics): Promise<number> {
  return sumOffsets(await committedOffsets(topics.groupId, topics.input));
}

/** Waits (see {@link eventuallyWithLogs}) until the worker's group has committed `count` input records. */
export async function untilCommitted(
  topics: TestTopics,
  count: number,
  what: string,
  timeoutMs: number,
  logs: () => string,
  intervalMs = 250,
): Promise<void> {
  await eventuallyWithLogs(async () => (await committedInputRecords(topics)) === count, what, timeoutMs, intervalMs, logs);
}

// --------------------------------------------------------------------------------------------------- registry

/** Pushes examples/tools/*.json under `subjectTemplate` (unique per test file); throws when any push failed. */
export async function pushExampleSchemas(subjectTemplate: string): Promise<PushedTool[]> {
  return pushSchemaDir(EXAMPLE_TOOLS, subjectTemplate);
}

/** Pushes every tool definition of `dir` under `subjectTemplate`; throws when any push failed. */
export async function pushSchemaDir(dir: string, subjectTemplate: string): Promise<PushedTool[]> {
  const errors: string[] = [];
  const report = await pushToolSchemas(
    { registry: stackEnv().registryUrl, dir, subjectTemplate },
    { out: () => undefined, err: (line) => errors.push(line) },
  );
  if (report.failed.length > 0) throw new Error(`schemas push failed:\n${errors.join('\n')}`);
  return [...report.pushed];
}

// ------------------------------------------------------------------------------------------------------ stack

export type StackCommand = 'stop-registry' | 'start-registry' | 'stop-kafka' | 'start-kafka';

/**
 * Runs `bash scripts/stack.sh <command>`, or its container equivalent under testcontainers (asynchronously: the
 * test's event loop keeps draining the workers' output meanwhile); throws with its output when it fails or
 * overruns `timeoutMs`.
 */
export async function stackCommand(command: StackCommand, timeoutMs = 180_000): Promise<string> {
  // Under TEST_STACK=testcontainers the services are containers: docker stop / docker start instead.
  const containers = containerStackInfo();
  if (containers !== undefined) return containerStackCommand(containers, command, timeoutMs);
  const child = spawn('bash', [join(REPO_ROOT, 'scripts', 'stack.sh'), command], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('exit', (c, s) => {
      resolve([c, s]);
    });
    child.once('error', () => {
      resolve([null, null]);
    });
  }).finally(() => {
    clearTimeout(timer);
  });
  const output = Buffer.concat(chunks).toString('utf8');
  if (code !== 0) {
    throw new Error(`bash scripts/stack.sh ${command} failed (status ${String(code)}${signal === null ? '' : `, ${signal}`}):\n${output}`);
  }
  return output;
}

// ----------------------------------------------------------------------------------------------------- worker

/** Variables the worker reads (src/config/config.ts): never inherited from the shell running the tests. */
const WORKER_VARIABLES = [
  'KAFKA_BROKERS',
  'SCHEMA_REGISTRY_URL',
  'KAFKA_SSL',
  'KAFKA_SSL_CA_FILE',
  'KAFKA_SSL_CERT_FILE',
  'KAFKA_SSL_KEY_FILE',
  'KAFKA_SSL_REJECT_UNAUTHORIZED',
  'KAFKA_SASL_MECHANISM',
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
  'DELIVERY',
  'GROUP_ID',
  'MAX_DEPTH',
  'MAX_RECORD_BYTES',
  'NORMALIZE_DEEP',
  'MAX_ENTITY_PASSES',
  'ENTITY_EXEMPT',
  'SHUTDOWN_TIMEOUT_MS',
  'KAFKA_CLIENT_ID',
  'KAFKA_CONNECTION_TIMEOUT_MS',
  'INPUT_TOPIC',
  'OUTPUT_TOPIC',
  'REJECTED_TOPIC',
  'DLQ_TOPIC',
  'TRANSACTIONAL_ID_PREFIX',
  'CREATE_TOPICS',
  'SCHEMA_REGISTRY_USERNAME',
  'SCHEMA_REGISTRY_PASSWORD',
  'SUBJECT_TEMPLATE',
  'REGISTRY_TIMEOUT_MS',
  'REGISTRY_CACHE_TTL_MS',
  'REGISTRY_NEGATIVE_TTL_MS',
  'REGISTRY_MAX_RETRIES',
  'METRICS_PORT',
  'MAX_BACKOFF_MS',
  'LOG_LEVEL',
  'METRICS_TOOL_LABELS',
  'KAFKA_SESSION_TIMEOUT_MS',
  'KAFKA_FETCH_MAX_WAIT_MS',
  'MAX_OUTPUT_BYTES',
  'KAFKA_CLIENT',
  'WORKER_ID',
  'KAFKA_GROUP_INSTANCE_ID',
];

export interface LogLine {
  readonly level?: number;
  readonly msg?: string;
  readonly [field: string]: unknown;
}

export interface WorkerHandle {
  readonly pid: number;
  readonly port: number;
  /** Exit code once the process ended; null when a signal ended it. */
  readonly exited: Promise<number | null>;
  /** The signal that ended the process, once it ended by one. */
  signal(): NodeJS.Signals | null;
  running(): boolean;
  stdout(): string;
  stderr(): string;
  /** stdout parsed as pino JSON lines (non-JSON lines skipped). */
  logs(): LogLine[];
  /** The last `lines` lines of stdout and stderr, for failure messages. */
  tail(lines?: number): string;
  /** Polls /readyz until it answers 200; throws (with the log tail) on timeout or when the process exits. */
  ready(timeoutMs?: number): Promise<void>;
  /** GET on the worker's HTTP port. */
  get(path: string): Promise<{ status: number; body: string }>;
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM, then wait for the exit (SIGKILL after `timeoutMs`); the exit code (null when killed). */
  stop(timeoutMs?: number): Promise<number | null>;
}

const workers = new Set<WorkerHandle>();

/**
 * Starts `node dist/cli.js run` with the stack's KAFKA_BROKERS and SCHEMA_REGISTRY_URL, METRICS_PORT on a free
 * port, LOG_LEVEL=info, then `env` on top (a value of undefined removes the variable). Worker variables of the
 * shell running the tests are not inherited.
 */
export async function startWorker(
  env: Readonly<Record<string, string | undefined>>,
  options: { port?: number } = {},
): Promise<WorkerHandle> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test builds before vitest)`);
  const stack = stackEnv();
  const port = options.port ?? (await freePort());
  const childEnv: Record<string, string> = {};
  // NODE_ENV is not passed on: vitest sets it to "test", which switches kafkajs to its test-mode retries, and
  // the worker must be proven with the retries it runs with in production.
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== 'NODE_ENV' && !WORKER_VARIABLES.includes(name)) childEnv[name] = value;
  }
  // A short session so that rebalances in the tests take seconds; one registry lookup must fit in it (3 s x 3
  // attempts < 10 s: the worker refuses a configuration where a lookup could outlast the session).
  // Suites not parameterised by client run on TEST_KAFKA_CLIENT.
  Object.assign(childEnv, {
    KAFKA_CLIENT: TEST_KAFKA_CLIENT,
    ...(TEST_GROUP_PROTOCOL === undefined ? {} : { KAFKA_GROUP_PROTOCOL: TEST_GROUP_PROTOCOL }),
    KAFKA_BROKERS: stack.kafkaBrokers,
    SCHEMA_REGISTRY_URL: stack.registryUrl,
    METRICS_PORT: String(port),
    LOG_LEVEL: 'info',
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    REGISTRY_TIMEOUT_MS: '3000',
  });
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) Reflect.deleteProperty(childEnv, name);
    else childEnv[name] = value;
  }
  const child = spawn(process.execPath, [CLI, 'run'], { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  let ended = false;
  let endSignal: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = true;
      endSignal = signal;
      resolve(code);
    });
    child.once('error', () => {
      ended = true;
      resolve(null);
    });
  });
  const stdout = (): string => Buffer.concat(out).toString('utf8');
  const stderr = (): string => Buffer.concat(err).toString('utf8');
  const handle: WorkerHandle = {
    pid: child.pid ?? -1,
    port,
    exited,
    signal: () => endSignal,
    running: () => !ended,
    stdout,
    stderr,
    logs: () => parseLogs(stdout()),
    tail: (lines = 30) => {
      const last = (s: string): string => s.split('\n').slice(-lines).join('\n');
      return `--- worker ${String(child.pid)} stdout (last ${lines} lines) ---\n${last(stdout())}\n--- stderr ---\n${last(stderr())}`;
    },
    ready: async (timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (ended) throw new Error(`the worker exited before it was ready\n${handle.tail()}`);
        const answer = await handle.get('/readyz').catch(() => undefined);
        if (answer?.status === 200) return;
        if (Date.now() > deadline)
          throw new Error(
            `the worker was not ready within ${timeoutMs} ms (last ` +
              `/readyz: ${answer === undefined ? 'no answer' : `${answer.status} ${answer.body}`})\n${handle.tail()}`,
          );
        await sleep(200);
      }
    },
    get: async (path) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
      return { status: response.status, body: await response.text() };
    },
    kill: (signal = 'SIGTERM') => {
      if (!ended) child.kill(signal);
    },
    stop: async (timeoutMs = 40_000) => {
      handle.kill('SIGTERM');
      const timer = setTimeout(() => {
        handle.kill('SIGKILL');
      }, timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  workers.add(handle);
  void exited.then(() => workers.delete(handle));
  return handle;
}

/** {@link startWorker}, then waits until its /readyz answers 200 (see {@link WorkerHandle.ready}). */
export async function startReadyWorker(
  env: Readonly<Record<string, string | undefined>>,
  options: { port?: number } = {},
): Promise<WorkerHandle> {
  const worker = await startWorker(env, options);
  await worker.ready();
  return worker;
}

/** SIGKILLs every worker still running and waits for them (call in afterEach/afterAll). */
export async function killAllWorkers(): Promise<void> {
  const left = [...workers];
  for (const worker of left) worker.kill('SIGKILL');
  await Promise.all(left.map((w) => w.exited));
}

/** {@link killAllWorkers}, then {@link closeClients}: what every test file's afterAll starts with. */
export async function stopWorkersAndCloseClients(): Promise<void> {
  await killAllWorkers();
  await closeClients();
}

// Last resort: a crashed test runner must not leave workers behind.
process.once('exit', () => {
  for (const worker of workers) worker.kill('SIGKILL');
});

function parseLogs(stdout: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // not a log line
    }
  }
  return lines;
}

/** Fetches a worker's metric value (sum over label sets matching `labels`), or 0 when absent. */
export async function metricValue(worker: WorkerHandle, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  const { body } = await worker.get('/metrics');
  let total = 0;
  for (const line of body.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labelText = match[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) total += Number(match[3]);
  }
  return total;
}

// ------------------------------------------------------------------------------------------------- test data

/**
 * Canonical call number `i` with id `<prefix>-<i>`: every 25th matches no envelope (dead letter, its id kept in
 * the bytes), every other 10th is rejected (currency not in the enum), the rest are valid search_issues calls
 * with two repairs.
 */
export function numberedCall(prefix: string, i: number): string {
  const id = `${prefix}-${i}`;
  if (i % 25 === 0) return JSON.stringify({ id, note: 'matches no envelope' });
  if (i % 10 === 0)
    return JSON.stringify({
      id,
      tool: 'transfer_funds',
      arguments: { from_account: 'AB12345678', to_account: 'CD12345678', amount: 1, currency: 'XXX' },
    });
  return JSON.stringify({ id, tool: 'search_issues', arguments: { query: `q &amp; ${i}`, labels: '["a","b"]' } });
}

/** Which output topic {@link numberedCall} `i` belongs on. */
export function expectedTopic(topics: TestTopics, i: number): string {
  return i % 25 === 0 ? topics.dlq : i % 10 === 0 ? topics.rejected : topics.output;
}

/**
 * Records to produce for {@link numberedCall}s `from` (inclusive) to `to` (exclusive) of `prefix`, in order, call
 * `i` keyed `k<i % keys>` (so each key's calls are in increasing order on one partition).
 */
export function numberedCalls(prefix: string, from: number, to: number, keys: number): ProduceMessage[] {
  return Array.from({ length: to - from }, (_, k) => ({ key: `k${(from + k) % keys}`, value: numberedCall(prefix, from + k) }));
}

export interface Stream {
  /** How many calls have been produced so far. */
  produced(): number;
  /** Settles once every call is produced (a produce failure rejects it, and only when awaited). */
  readonly done: Promise<void>;
}

/**
 * A steady stream in the background: {@link numberedCalls} `from` to `to` of `prefix` on `keys` keys, `perSend`
 * at a time, `pauseMs` after each send.
 */
export function steadyStream(
  topic: string,
  prefix: string,
  range: { readonly from?: number; readonly to: number },
  pace: { readonly perSend: number; readonly pauseMs: number; readonly keys: number },
): Stream {
  let produced = range.from ?? 0;
  const done = (async () => {
    while (produced < range.to) {
      const upTo = Math.min(range.to, produced + pace.perSend);
      await produce(topic, numberedCalls(prefix, produced, upTo, pace.keys));
      produced = upTo;
      await sleep(pace.pauseMs);
    }
  })();
  done.catch(() => undefined); // awaited by the test; this only keeps a failure from counting as unhandled meanwhile
  return { produced: () => produced, done };
}

/** The ids of {@link numberedCall}s `first` to `first + count - 1` of `prefix`: `<prefix>-<i>`. */
export function numberedIds(prefix: string, count: number, first = 0): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${first + i}`);
}

/** The call id of an output record: `id` of a normalized or rejected value, the `id` inside a dead letter's bytes. */
export function callId(message: ReadMessage): string {
  return String(json(message).id);
}

/** The number `i` of a {@link numberedCall}'s output record, from its id `<prefix>-<i>`. */
export function callNumber(message: ReadMessage, prefix: string): number {
  return Number(callId(message).slice(prefix.length + 1));
}

/**
 * Output records of {@link numberedCall}s that are not on the topic {@link expectedTopic} names for them, as
 * `<id>: on <topic>, expected <topic>` (none when every record is where it belongs).
 */
export function misplacedCalls(messages: readonly ReadMessage[], topics: TestTopics, prefix: string): string[] {
  const problems: string[] = [];
  for (const message of messages) {
    const expected = expectedTopic(topics, callNumber(message, prefix));
    if (message.topic !== expected) problems.push(`${callId(message)}: on ${message.topic}, expected ${expected}`);
  }
  return problems;
}

/**
 * Order per key: within each output topic, the records of one key (one partition) in offset order must carry
 * increasing {@link numberedCall} numbers, as they were produced. Returns the violations (none when in order).
 */
export function orderViolations(messages: readonly ReadMessage[], prefix: string): string[] {
  const last = new Map<string, number>();
  const problems: string[] = [];
  const sorted = [...messages].sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)) : a.topic < b.topic ? -1 : 1,
  );
  for (const message of sorted) {
    const slot = `${message.topic}/${message.key ?? ''}`;
    const n = callNumber(message, prefix);
    const before = last.get(slot);
    if (before !== undefined && n <= before) problems.push(`${slot}: ${prefix}-${n} at offset ${message.offset} after ${prefix}-${before}`);
    last.set(slot, n);
  }
  return problems;
}

export interface Tally {
  /** Output records read. */
  readonly records: number;
  readonly distinct: number;
  /** Extra copies: records minus distinct ids among the expected. */
  readonly duplicates: number;
  readonly missing: readonly string[];
  /** Ids read that were never produced. */
  readonly unexpected: readonly string[];
}

/** Counts how often each expected id was read. */
export function tally(messages: readonly ReadMessage[], expected: readonly string[]): Tally {
  const wanted = new Set(expected);
  const seen = new Map<string, number>();
  const unexpected: string[] = [];
  for (const message of messages) {
    const id = callId(message);
    if (!wanted.has(id)) unexpected.push(id);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  let duplicates = 0;
  for (const [id, count] of seen) if (wanted.has(id)) duplicates += count - 1;
  return {
    records: messages.length,
    distinct: [...seen.keys()].filter((id) => wanted.has(id)).length,
    duplicates,
    missing: expected.filter((id) => !seen.has(id)),
    unexpected,
  };
}

// ------------------------------------------------------------------------------------------------------ misc

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : JSON.stringify(error);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * One step of a long setup: logs how long it took, and throws naming it (with `logs()`, when given) once it
 * overruns `timeoutMs`, so a setup that runs out of time says which step held it up and what the worker printed.
 */
export async function step<T>(what: string, timeoutMs: number, action: () => Promise<T>, logs?: () => string): Promise<T> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`setup step "${what}" did not finish in ${timeoutMs} ms${logs === undefined ? '' : `\n${logs()}`}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([action(), overrun]);
  } finally {
    clearTimeout(timer);
    console.log(`setup step "${what}": ${Date.now() - started} ms`);
  }
}

/**
 * Polls `check` every `intervalMs` until it returns true; throws naming `what` (and the last error `check`
 * threw, if any: a check that throws counts as "not yet", as while a broker restarts) after `timeoutMs`.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs: number,
  intervalMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${errorText(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * {@link eventually}, and when it times out the error also carries `logs()` (evaluated then), typically a
 * worker's {@link WorkerHandle.tail}, so a failure shows what the worker was doing.
 */
export async function eventuallyWithLogs(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs: number,
  intervalMs: number,
  logs: () => string,
): Promise<void> {
  try {
    await eventually(check, what, timeoutMs, intervalMs);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs()}`);
  }
}
