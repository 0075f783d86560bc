/**
 * The worker's whole per-record path in one process, no broker: `Worker` on an in-memory port and schema source
 * (every tool cached, as a warm worker has them), fed the bench corpus as partition batches the way an adapter
 * hands them over, each batch settled as delivered. Prints calls per second (wall clock / CPU time) next to plain
 * JSON.parse + JSON.stringify of the same records, alternating rounds. For comparing builds and Node.js lines on
 * the same inputs (bench/node-lines.sh); the broker's share is in bench/worker.ts.
 */
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadSchemaDir } from '../src/adapters/files/schema-dir.js';
import type { BatchControl, InputRecord, KafkaStream, PartitionBatch, StreamHandler } from '../src/adapters/kafka/port.js';
import { WorkerMetrics } from '../src/adapters/metrics/metrics.js';
import { Worker, type WorkerSchemas } from '../src/app/worker/worker.js';
import { loadConfig } from '../src/config/config.js';
import { createSchemaCompiler } from '../src/core/validation/validate.js';
import { makeCorpus } from './corpus.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BATCH = 500;
const PARTITIONS = 3;

const { tools } = await loadSchemaDir(fileURLToPath(new URL('../examples/tools', import.meta.url)), createSchemaCompiler());
const corpus = makeCorpus(CALLS);
const schemas: WorkerSchemas = {
  peek: (tool) => tools.get(tool),
  get: (tool) => Promise.resolve(tools.get(tool)),
  unknownReason: () => undefined,
};

class InMemoryStream implements KafkaStream {
  readonly client = 'kafkajs' as const;
  handler: StreamHandler | undefined;
  start(handler: StreamHandler): Promise<void> {
    this.handler = handler;
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
  joined(): boolean {
    return true;
  }
}

const stream = new InMemoryStream();
const config = loadConfig({ KAFKA_BROKERS: '127.0.0.1:9', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9' });
const worker = new Worker({
  config,
  stream,
  schemas,
  metrics: new WorkerMetrics({ toolLabels: [] }),
  logger: pino({ level: 'silent' }),
  onFatal: (error) => {
    throw error;
  },
});
await worker.start();
const handler = stream.handler;
if (handler === undefined) throw new Error('the worker did not start its stream');

// The records as the client gives them: bytes, a key, one traceparent header; offsets of seven digits.
const batches: PartitionBatch[] = [];
for (let first = 0; first < corpus.length; first += BATCH) {
  const records: InputRecord[] = corpus.slice(first, first + BATCH).map((line, i) => ({
    key: Buffer.from(`agent-${String((first + i) % 97)}`),
    value: Buffer.from(line),
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    offset: String(1_000_000 + first + i),
  }));
  batches.push({ topic: config.topics.input, partition: (first / BATCH) % PARTITIONS, records, lag: undefined });
}
const values = corpus.map((line) => Buffer.from(line));
const control: BatchControl = { isLive: () => true, heartbeat: () => Promise.resolve() };
let sink = 0;

async function workerRound(): Promise<void> {
  for (const batch of batches) {
    const result = await (handler as StreamHandler).process(batch, control);
    for (const output of result.outputs) sink += output.value === null ? 0 : output.value.length;
    (handler as StreamHandler).settled([result]);
  }
}

function baselineRound(): void {
  for (const value of values) sink += Buffer.byteLength(JSON.stringify(JSON.parse(value.toString('utf8'))));
}

interface Sample {
  wall: number;
  cpu: number;
}

async function timeOnce(fn: () => unknown): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await fn();
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1e6 };
}

await workerRound();
baselineRound();
const runs = { baseline: [] as Sample[], worker: [] as Sample[] };
for (let round = 0; round < ROUNDS; round++) {
  runs.baseline.push(await timeOnce(baselineRound));
  runs.worker.push(await timeOnce(workerRound));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const rate = (samples: Sample[], by: keyof Sample): number => CALLS / median(samples.map((s) => s[by]));
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const base = { wall: rate(runs.baseline, 'wall'), cpu: rate(runs.baseline, 'cpu') };
const own = { wall: rate(runs.worker, 'wall'), cpu: rate(runs.worker, 'cpu') };
console.log(`corpus: ${CALLS} calls in batches of ${BATCH}, ${ROUNDS} rounds, median; calls/s by wall clock / by CPU time`);
console.log(`parse+stringify                      ${fmt(base.wall)} / ${fmt(base.cpu)} calls/s`);
console.log(
  `worker in process, batch to outputs ${fmt(own.wall)} / ${fmt(own.cpu)} calls/s; ratio ${(own.wall / base.wall).toFixed(2)} / ${(own.cpu / base.cpu).toFixed(2)}`,
);
await worker.stop();
if (sink === 0) console.log('');
