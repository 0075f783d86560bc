/**
 * Metrics joined to traces, against a real Prometheus (Debian's /usr/bin/prometheus, with exemplar storage on)
 * and a real Jaeger (test/integration/jaeger.ts): the worker, tracing on, is scraped as OpenMetrics; the
 * processing-time histogram's exemplars, read back through `/api/v1/query_exemplars`, carry the trace and span ids
 * of the worker's call spans, which Jaeger holds. A scrape that does not ask for OpenMetrics gets the text format
 * with no exemplar.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, freshTopics, numberedCalls, produce, startReadyWorker, untilCommitted } from './harness.js';
import { Jaeger } from './jaeger.js';
import { workerSuite } from './worker-suite.js';

const PROMETHEUS = '/usr/bin/prometheus';
const PARENT_SPAN = 'b7ad6b7169203331';
const suite = workerSuite('itex');
let jaeger: Jaeger | undefined;
let prometheus: ChildProcess | undefined;
let prometheusLog = '';
let scratch = '';

beforeAll(async () => {
  if (!existsSync(PROMETHEUS))
    throw new Error(`${PROMETHEUS} is missing: run \`bash scripts/ci-prereqs.sh\` (installs Debian's prometheus package)`);
  jaeger = await Jaeger.start();
}, 3_600_000);

afterAll(async () => {
  const child = prometheus;
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await jaeger?.stop();
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

/** Starts Prometheus with exemplar storage, scraping the worker every second; its base URL once ready. */
async function startPrometheus(workerPort: number): Promise<string> {
  const port = await freePort();
  scratch = mkdtempSync(join(tmpdir(), 'exemplars-it-'));
  const config = join(scratch, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: toolcall-normalizer',
      '    static_configs:',
      `      - targets: ["127.0.0.1:${workerPort}"]`,
      '',
    ].join('\n'),
  );
  const child = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(scratch, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--enable-feature=exemplar-storage',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus = child;
  const keep = (chunk: Buffer): void => {
    prometheusLog = (prometheusLog + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const base = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${base}/-/ready`)).status === 200, `Prometheus ready\n${prometheusLog}`, 60_000, 250);
  return base;
}

interface ExemplarSeries {
  seriesLabels: Record<string, string>;
  exemplars: { labels: Record<string, string>; value: string; timestamp: number }[];
}

describe('exemplars: the processing-time histogram links to the worker spans', () => {
  it('Prometheus stores exemplars whose trace and span ids are spans Jaeger holds', async () => {
    const backend = jaeger;
    if (backend === undefined) throw new Error('jaeger not started');
    const topics = await freshTopics('itex', 2);
    const N = 40;
    const traces = Array.from({ length: N }, () => randomBytes(16).toString('hex'));
    await produce(
      topics.input,
      numberedCalls('ex', 0, N, 4).map((m, i) => ({ ...m, headers: { traceparent: `00-${traces[i] ?? ''}-${PARENT_SPAN}-01` } })),
    );
    const worker = await startReadyWorker(
      suite.env(topics, {
        OTEL_EXPORTER_OTLP_ENDPOINT: backend.otlpUrl,
        OTEL_SERVICE_NAME: 'toolcall-normalizer-ex',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    );
    const base = await startPrometheus(worker.port);
    await untilCommitted(topics, N, 'every input record committed', 120_000, () => worker.tail());

    // What the scrape gets, by what it asks for.
    const open = await fetch(`http://127.0.0.1:${worker.port}/metrics`, { headers: { accept: 'application/openmetrics-text' } });
    expect(open.headers.get('content-type')).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    const openText = await open.text();
    expect(openText).toMatch(
      /^toolcall_processing_seconds_bucket\{le="[^"]+"\} \d+ # \{trace_id="[0-9a-f]{32}",span_id="[0-9a-f]{16}"\} \S+ \S+$/m,
    );
    expect(openText.endsWith('# EOF\n')).toBe(true);
    const plain = await worker.get('/metrics');
    expect(plain.body).toMatch(/^toolcall_processing_seconds_bucket\{le="\+Inf"\} \d+$/m);
    expect(plain.body).not.toContain('trace_id');
    expect(plain.body).toMatch(/^toolcall_calls_total\{/m);

    let found: ExemplarSeries[] = [];
    await eventually(
      async () => {
        const url = new URL(`${base}/api/v1/query_exemplars`);
        url.searchParams.set('query', 'toolcall_processing_seconds_bucket');
        url.searchParams.set('start', String(Date.now() / 1e3 - 600));
        url.searchParams.set('end', String(Date.now() / 1e3 + 60));
        const answer = (await (await fetch(url)).json()) as { status: string; data?: ExemplarSeries[] };
        found = answer.data ?? [];
        return answer.status === 'success' && found.some((s) => s.exemplars.length > 0);
      },
      `exemplars in Prometheus\n${prometheusLog}`,
      30_000,
      500,
    );
    const exemplars = found.flatMap((s) => s.exemplars.map((e) => ({ ...e, le: s.seriesLabels.le ?? '' })));
    expect(exemplars.length).toBeGreaterThan(0);
    for (const exemplar of exemplars) {
      const traceId = exemplar.labels.trace_id ?? '';
      const spanId = exemplar.labels.span_id ?? '';
      // The trace the record's producer started, and a value inside its bucket.
      expect(traces).toContain(traceId);
      expect(Number(exemplar.value)).toBeLessThanOrEqual(exemplar.le === '+Inf' ? Infinity : Number(exemplar.le));
      let spans: Awaited<ReturnType<Jaeger['trace']>> = [];
      await eventually(
        async () => (spans = await backend.trace(traceId)).some((s) => s.spanID === spanId),
        `span ${spanId} of trace ${traceId} in jaeger`,
        30_000,
        250,
      );
      const span = spans.find((s) => s.spanID === spanId);
      expect(span?.operationName).toBe(`process ${topics.input}`);
      expect(span?.references).toContainEqual(expect.objectContaining({ refType: 'CHILD_OF', traceID: traceId, spanID: PARENT_SPAN }));
    }
    process.stdout.write(`exemplars.test: ${exemplars.length} exemplars in Prometheus, each a worker span in Jaeger\n`);
    expect(await worker.stop(), worker.tail()).toBe(0);
  }, 300_000);
});
