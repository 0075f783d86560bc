/**
 * Tracing's cost in the worker: calls/s and CPU µs per call through Worker.process (the bench corpus, schemas
 * cached), with tracing off, on at 100% sampling and on at 1% (parentbased_traceidratio, records carrying an
 * unsampled-root traceparent-less input), side by side in one run. Spans go over OTLP/HTTP to a sink in this
 * process that answers 200, so export and serialisation are counted too.
 */
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadSchemaDir } from '../src/adapters/files/schema-dir.js';
import type { BatchControl, BatchResult, KafkaStream, PartitionBatch } from '../src/adapters/kafka/port.js';
import { WorkerMetrics } from '../src/adapters/metrics/metrics.js';
import { startTracing } from '../src/adapters/tracing/sdk.js';
import { WorkerTracing } from '../src/adapters/tracing/worker-spans.js';
import { Worker } from '../src/app/worker/worker.js';
import { loadConfig } from '../src/config/config.js';
import { createSchemaCompiler } from '../src/core/validation/validate.js';
import { makeCorpus } from './corpus.js';

const { tools } = await loadSchemaDir(fileURLToPath(new URL('../examples/tools', import.meta.url)), createSchemaCompiler());
const CALLS = Number(process.argv[2] ?? 20_000);
const corpus = makeCorpus(CALLS).map((line) => Buffer.from(line));

const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const address = sink.address();
const port = typeof address === 'object' && address !== null ? address.port : 0;

const stream: KafkaStream = { client: 'kafkajs', start: () => Promise.resolve(), stop: () => Promise.resolve(), joined: () => true };
const control: BatchControl = { isLive: () => true, heartbeat: () => Promise.resolve() };
const schemas = {
  peek: (name: string) => tools.get(name),
  get: (name: string) => Promise.resolve(tools.get(name)),
  unknownReason: () => undefined,
};

async function run(mode: 'off' | '100%' | '1%'): Promise<{ callsPerSecond: number; cpuMicros: number; dropped: Record<string, number> }> {
  const env: Record<string, string> = { KAFKA_BROKERS: '127.0.0.1:9', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9' };
  if (mode !== 'off') {
    Object.assign(env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${String(port)}`,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: mode === '1%' ? '0.01' : '1',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      // Room for every span of a run, so the figures include exporting them all rather than dropping most.
      OTEL_BSP_MAX_QUEUE_SIZE: '100000',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048',
    });
  }
  const config = loadConfig(env);
  const metrics = new WorkerMetrics({ toolLabels: [] });
  const dropped: Record<string, number> = {};
  const tracing =
    config.tracing === undefined
      ? undefined
      : await startTracing(
          config.tracing,
          (reason, spans) => {
            dropped[reason] = (dropped[reason] ?? 0) + spans;
          },
          'bench',
        );
  const worker = new Worker({
    config,
    stream,
    schemas,
    metrics,
    logger: pino({ level: 'silent' }),
    onFatal: () => undefined,
    tracing:
      tracing === undefined ? undefined : new WorkerTracing(tracing.tracer, { groupId: 'bench', onMalformedContext: () => undefined }),
  });
  const BATCH = 500;
  const run = async (): Promise<void> => {
    for (let i = 0; i < corpus.length; i += BATCH) {
      const records = corpus.slice(i, i + BATCH).map((value, k) => ({ key: null, value, headers: {}, offset: String(i + k) }));
      const batch: PartitionBatch = { topic: 'bench', partition: 0, records, lag: undefined };
      const result: BatchResult = await worker.process(batch, control);
      worker.settled([result]);
    }
  };
  await run(); // warm-up
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1e3;
  const used = process.cpuUsage(cpu);
  await tracing?.shutdown(5_000);
  return { callsPerSecond: CALLS / seconds, cpuMicros: (used.user + used.system) / CALLS, dropped };
}

const rows: string[] = [];
for (const mode of ['off', '100%', '1%'] as const) {
  const r = await run(mode);
  rows.push(
    `| ${mode} | ${Math.round(r.callsPerSecond).toLocaleString('en')} | ${r.cpuMicros.toFixed(1)} | ${JSON.stringify(r.dropped)} |`,
  );
}
sink.close();
console.log(`tracing cost, ${String(CALLS)} calls per mode (bench corpus, schemas cached, one process)`);
console.log('| tracing | calls/s | CPU µs/call | spans dropped |\n| --- | --- | --- | --- |');
for (const row of rows) console.log(row);
