/**
 * The dashboard and the alert rules against a real Prometheus (Debian's /usr/bin/prometheus, installed by
 * scripts/ci-prereqs.sh) scraping a real worker on the local stack:
 *
 * 1. pushes the example tool schemas under a subject template unique to this run, produces
 *    examples/calls.jsonl (every outcome: normalized, rejected, dead-lettered; repairs; pass-throughs) plus one
 *    call whose array argument is not JSON, to fresh topics;
 * 2. starts the worker (`node dist/cli.js run`) and a Prometheus scraping it every second with
 *    deploy/prometheus/alerts.yaml loaded, and waits until Prometheus has seen every record processed;
 * 3. runs EVERY query of deploy/grafana/toolcall-normalizer.json (template variables substituted) and EVERY
 *    alert expression through Prometheus's HTTP API: each must parse (/api/v1/format_query) and evaluate
 *    without error, and each dashboard query must return data;
 * 4. checks that every metric name the dashboard and the rules refer to is one the worker really exports
 *    (its /metrics scraped directly), and that Prometheus evaluated every rule without error.
 *
 * KAFKA_BROKERS and SCHEMA_REGISTRY_URL come from the vitest global setup (which starts the local stack) or the
 * environment; without them, or without Prometheus, these tests fail: they never skip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushToolSchemas } from '../../src/app/commands/schemas-command.js';
import { DEFAULT_KAFKA_CLIENT } from '../../src/config/settings.js';
import { freePort } from '../../scripts/free-port.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const PROMETHEUS = '/usr/bin/prometheus';
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'toolcall-normalizer.json');
const ALERTS = join(ROOT, 'deploy', 'prometheus', 'alerts.yaml');
/** The job name the alert rules select (the chart's ServiceMonitor/PodMonitor and the compose file use it). */
const JOB = 'toolcall-normalizer';
const RUN = `prom-${Date.now().toString(36)}`;

/** Grafana's template variables, as a dashboard user would have them. */
const TEMPLATE_VARIABLES: Readonly<Record<string, string>> = {
  __rate_interval: '1m',
  __interval: '15s',
  __range: '5m',
  job: JOB,
  instance: '.+',
  datasource: 'prometheus',
};

/** Series Prometheus writes itself for every target; the worker cannot export them. */
const PROMETHEUS_SERIES = new Set(['up']);

// ------------------------------------------------------------------------------------------------- helpers

function stack(): { brokers: string[]; registry: string } {
  const brokers = (process.env.KAFKA_BROKERS ?? '').trim();
  const registry = (process.env.SCHEMA_REGISTRY_URL ?? '').trim();
  if (brokers === '' || registry === '') {
    throw new Error(
      'KAFKA_BROKERS and SCHEMA_REGISTRY_URL are not set: start the local stack (`npm run stack:up`) and export what ' +
        '`bash scripts/stack.sh env` prints, or let the vitest global setup start it (STACK_AUTO unset).',
    );
  }
  return { brokers: brokers.split(',').map((b) => b.trim()), registry };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function eventually(check: () => Promise<boolean>, what: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await sleep(250);
  }
}

interface Child {
  readonly process: ChildProcess;
  readonly exited: Promise<void>;
  output(): string;
}

const children: Child[] = [];

function start(command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
    child.once('error', () => {
      resolve();
    });
  });
  const handle: Child = { process: child, exited, output: () => Buffer.concat(chunks).toString('utf8').split('\n').slice(-40).join('\n') };
  children.push(handle);
  return handle;
}

async function stop(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 30_000);
  await child.exited;
  clearTimeout(timer);
}

process.once('exit', () => {
  for (const child of children) child.process.kill('SIGKILL');
});

/** A record's JSON with its keys in order, to compare two records whatever order their keys were set in. */
function canonical(record: Readonly<Record<string, number>>): string {
  return JSON.stringify(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function getText(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.text() };
}

interface PromAnswer<T> {
  status: 'success' | 'error';
  data?: T;
  errorType?: string;
  error?: string;
}

interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

let promBase = '';

async function promApi<T>(path: string, params: Record<string, string> = {}): Promise<PromAnswer<T>> {
  const url = new URL(`${promBase}${path}`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return (await response.json()) as PromAnswer<T>;
}

async function instantQuery(query: string): Promise<PromAnswer<{ resultType: string; result: VectorSample[] }>> {
  return promApi('/api/v1/query', { query });
}

async function scalarOf(query: string): Promise<number> {
  const answer = await instantQuery(query);
  const value = answer.data?.result[0]?.value[1];
  return value === undefined ? Number.NaN : Number(value);
}

/** Replaces Grafana's `$name`, `${name}` and `[[name]]` variables. */
function substituteVariables(expr: string, variables: Readonly<Record<string, string>>): string {
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]/g, (whole, a?: string, b?: string, c?: string) => {
    const name = a ?? b ?? c ?? '';
    return variables[name] ?? whole;
  });
}

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
  'atan2',
]);

/**
 * Metric names a PromQL expression selects: identifiers left once strings, label matchers, range and
 * subquery brackets, grouping clauses, function calls and keywords are taken out.
 */
function metricNames(expr: string): Set<string> {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.:])[a-zA-Z_:][a-zA-Z0-9_:]*(?![\w(])(?!\s*\()/g)) {
    if (!PROMQL_KEYWORDS.has(match[0].toLowerCase())) names.add(match[0]);
  }
  return names;
}

/** Every sample name in a Prometheus text exposition (histograms: their _bucket, _sum and _count series). */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)/.exec(line);
    if (type?.[1] !== undefined) {
      const [, name, kind] = type;
      names.add(name);
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
      if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample?.[1] !== undefined) names.add(sample[1]);
  }
  return names;
}

interface DashboardQuery {
  readonly panel: string;
  readonly expr: string;
}

interface DashboardPanel {
  title?: string;
  type?: string;
  targets?: { expr?: string }[];
  panels?: DashboardPanel[];
}

function dashboardQueries(): { queries: DashboardQuery[]; variableQueries: string[] } {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: DashboardPanel[];
    templating: { list: { type: string; query?: string | { query?: string } }[] };
  };
  const queries: DashboardQuery[] = [];
  const walk = (panels: readonly DashboardPanel[]): void => {
    for (const panel of panels) {
      for (const target of panel.targets ?? [])
        if (target.expr !== undefined) queries.push({ panel: panel.title ?? '?', expr: target.expr });
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  const variableQueries = dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => (typeof v.query === 'string' ? v.query : (v.query?.query ?? '')));
  return { queries, variableQueries };
}

// ------------------------------------------------------------------------------------------------- the run

const calls = readFileSync(join(ROOT, 'examples', 'calls.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');
// An array argument sent as text that is not JSON: a `not_json` pass-through (then rejected with wrong_type).
calls.push(JSON.stringify({ id: 'call_not_json', tool: 'search_issues', arguments: { query: 'q', labels: '[bug, "ci"' } }));
// A JSON list sent in a string parameter: a `string_declared` pass-through (the schema does not let us decode it).
calls.push(JSON.stringify({ id: 'call_string_declared', tool: 'search_issues', arguments: { query: '["flaky","ci"]' } }));

const topics = { input: `${RUN}.raw`, output: `${RUN}.normalized`, rejected: `${RUN}.rejected`, dlq: `${RUN}.dlq` };
let kafka: Kafka | undefined;
let admin: Admin | undefined;
let producer: Producer | undefined;
let worker: Child | undefined;
let prometheus: Child | undefined;
let workerPort = 0;
let scratch = '';
let workerMetrics = '';

beforeAll(async () => {
  const { brokers, registry } = stack();
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test builds before vitest)`);
  if (!existsSync(PROMETHEUS))
    throw new Error(`${PROMETHEUS} is missing: run \`bash scripts/ci-prereqs.sh\` (installs Debian's prometheus package)`);

  const subjectTemplate = `${RUN}-{tool}`;
  const errors: string[] = [];
  const report = await pushToolSchemas(
    { registry, dir: join(ROOT, 'examples', 'tools'), subjectTemplate },
    { out: () => undefined, err: (line) => errors.push(line) },
  );
  if (report.failed.length > 0) throw new Error(`schemas push failed:\n${errors.join('\n')}`);

  kafka = new Kafka({ clientId: RUN, brokers, logLevel: logLevel.NOTHING, retry: { retries: 6 } });
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: Object.values(topics).map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })),
    waitForLeaders: true,
  });
  producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({ topic: topics.input, acks: -1, messages: calls.map((value, i) => ({ key: `agent-${i % 5}`, value })) });

  workerPort = await freePort();
  worker = start(process.execPath, [CLI, 'run'], {
    PATH: process.env.PATH ?? '',
    KAFKA_BROKERS: brokers.join(','),
    SCHEMA_REGISTRY_URL: registry,
    SUBJECT_TEMPLATE: subjectTemplate,
    INPUT_TOPIC: topics.input,
    OUTPUT_TOPIC: topics.output,
    REJECTED_TOPIC: topics.rejected,
    DLQ_TOPIC: topics.dlq,
    GROUP_ID: `${RUN}-group`,
    // The client the suite runs on (`TEST_KAFKA_CLIENT`): the metrics are the same on both.
    KAFKA_CLIENT: process.env.TEST_KAFKA_CLIENT ?? DEFAULT_KAFKA_CLIENT,
    METRICS_PORT: String(workerPort),
    LOG_LEVEL: 'warn',
  });

  const promPort = await freePort();
  promBase = `http://127.0.0.1:${promPort}`;
  scratch = mkdtempSync(join(tmpdir(), 'prometheus-it-'));
  const config = join(scratch, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      'rule_files:',
      `  - ${JSON.stringify(ALERTS)}`,
      'scrape_configs:',
      `  - job_name: ${JOB}`,
      '    static_configs:',
      `      - targets: ["127.0.0.1:${workerPort}"]`,
      '',
    ].join('\n'),
  );
  prometheus = start(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(scratch, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
      '--storage.tsdb.retention.time=1h',
    ],
    { PATH: process.env.PATH ?? '' },
  );
  const prom = prometheus;
  await eventually(
    async () => (await getText(`${promBase}/-/ready`)).status === 200,
    () => `Prometheus to be ready\n${prom.output()}`,
    60_000,
  );

  const running = worker;
  const total = `sum(toolcall_calls_total{job="${JOB}"})`;
  await eventually(
    // At least: a transaction aborted and retried counts its records again (metrics are not transactional).
    async () => (await scalarOf(total)) >= calls.length,
    () =>
      `Prometheus to see all ${calls.length} records processed (${total})\n--- ` +
      `worker ---\n${running.output()}\n--- prometheus ---\n${prom.output()}`,
    120_000,
  );
  // A few more scrapes, so every series has several samples inside the rate windows.
  await sleep(4_000);
  workerMetrics = (await getText(`http://127.0.0.1:${workerPort}/metrics`)).body;
}, 240_000);

afterAll(async () => {
  await Promise.allSettled(children.map((child) => stop(child)));
  await Promise.allSettled([producer?.disconnect(), admin?.disconnect()]);
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('the dashboard and the alert rules against a real Prometheus scraping the worker', () => {
  it('drove traffic of every outcome, repair kind and several pass-through reasons', () => {
    for (const outcome of ['normalized', 'rejected', 'dead_lettered'])
      expect(workerMetrics).toMatch(new RegExp(`^toolcall_calls_total\\{[^}]*outcome="${outcome}"`, 'm'));
    for (const kind of ['json_decoded', 'entities_decoded'])
      expect(workerMetrics).toMatch(new RegExp(`^toolcall_repairs_total\\{[^}]*kind="${kind}"`, 'm'));
    for (const reason of ['string_declared', 'shape_mismatch', 'not_json'])
      expect(workerMetrics).toMatch(new RegExp(`^toolcall_pass_throughs_total\\{[^}]*reason="${reason}"`, 'm'));
    expect(workerMetrics).toMatch(/^toolcall_dead_letters_total\{reason="record_not_json"\} [1-9]\d*$/m);
    expect(workerMetrics).toMatch(/^toolcall_validation_errors_total\{code="tool_unknown",tool="unknown"\} [1-9]\d*$/m);
  });

  it('reports the consumer lag of every input partition it read, 0 once everything is processed', async () => {
    if (admin === undefined) throw new Error('the test admin did not start (see beforeAll)');
    const ends = await admin.fetchTopicOffsets(topics.input);
    const read = ends.filter((p) => Number(p.high) > 0).map((p) => String(p.partition));
    expect(read.length).toBeGreaterThan(0);
    const lagOf = async (): Promise<Record<string, number>> => {
      const { body } = await getText(`http://127.0.0.1:${workerPort}/metrics`);
      const lag: Record<string, number> = {};
      for (const line of body.split('\n')) {
        const match = /^toolcall_consumer_lag\{([^}]*)\} (\S+)$/.exec(line);
        const labels = match?.[1] ?? '';
        const partition = /partition="(\d+)"/.exec(labels)?.[1];
        if (partition !== undefined && labels.includes(`topic="${topics.input}"`)) lag[partition] = Number(match?.[2]);
      }
      return lag;
    };
    const drained = Object.fromEntries(read.map((p) => [p, 0]));
    let last: Record<string, number> = {};
    await eventually(
      async () => canonical((last = await lagOf())) === canonical(drained),
      () => `toolcall_consumer_lag of ${topics.input} to be 0 on partitions ${read.join(', ')}; last: ${JSON.stringify(last)}`,
      15_000,
    );
    expect(last).toEqual(drained);
  }, 30_000);

  it('scrapes the worker: the target is up under the job the rules select', async () => {
    const answer = await instantQuery(`up{job="${JOB}"}`);
    expect(answer.status).toBe('success');
    expect(answer.data?.result.map((s) => s.value[1])).toEqual(['1']);
  });

  it('runs every dashboard query: each parses and returns data', async () => {
    const { queries, variableQueries } = dashboardQueries();
    expect(queries.length).toBeGreaterThanOrEqual(30);
    const problems: string[] = [];
    for (const { panel, expr } of queries) {
      const query = substituteVariables(expr, TEMPLATE_VARIABLES);
      if (query.includes('$')) problems.push(`${panel}: a template variable is left in ${query}`);
      const formatted = await promApi<string>('/api/v1/format_query', { query });
      if (formatted.status !== 'success') {
        problems.push(`${panel}: does not parse: ${formatted.error ?? '?'}\n    ${query}`);
        continue;
      }
      const answer = await instantQuery(query);
      if (answer.status !== 'success') problems.push(`${panel}: ${answer.errorType ?? ''} ${answer.error ?? ''}\n    ${query}`);
      else if ((answer.data?.result.length ?? 0) === 0) problems.push(`${panel}: no data\n    ${query}`);
    }
    // The variables' label_values(metric, label) queries: the label must have the value a user picks.
    for (const variable of variableQueries) {
      const match = /^label_values\((.+),\s*(\w+)\)$/.exec(substituteVariables(variable, TEMPLATE_VARIABLES));
      if (match?.[1] === undefined || match[2] === undefined) {
        problems.push(`template variable query not understood: ${variable}`);
        continue;
      }
      const answer = await promApi<string[]>(`/api/v1/label/${match[2]}/values`, { 'match[]': match[1] });
      if (answer.status !== 'success' || (answer.data?.length ?? 0) === 0)
        problems.push(`template variable query returns nothing: ${variable}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
    process.stdout.write(
      `prometheus.test: ${queries.length} dashboard queries and ${variableQueries.length} variable queries returned data\n`,
    );
  }, 60_000);

  it('runs every alert expression: each parses and evaluates, and Prometheus evaluates every rule without error', async () => {
    const declared = [...readFileSync(ALERTS, 'utf8').matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]);
    expect(declared.length).toBeGreaterThanOrEqual(5);
    type Rule = { name: string; query: string; health: string; lastError?: string; type: string };
    const rulesAnswer = await promApi<{ groups: { file: string; rules: Rule[] }[] }>('/api/v1/rules');
    expect(rulesAnswer.status).toBe('success');
    const rules = (rulesAnswer.data?.groups ?? []).flatMap((g) => g.rules).filter((r) => r.type === 'alerting');
    expect(rules.map((r) => r.name).sort()).toEqual([...declared].sort());

    const problems: string[] = [];
    for (const rule of rules) {
      const formatted = await promApi<string>('/api/v1/format_query', { query: rule.query });
      if (formatted.status !== 'success') problems.push(`${rule.name}: does not parse: ${formatted.error ?? '?'}`);
      const answer = await instantQuery(rule.query);
      if (answer.status !== 'success') problems.push(`${rule.name}: ${answer.error ?? '?'}`);
    }
    // The rule manager evaluates every second; wait until each rule has been evaluated at least once.
    await eventually(
      async () => {
        const again = await promApi<{ groups: { rules: Rule[] }[] }>('/api/v1/rules');
        return (again.data?.groups ?? []).flatMap((g) => g.rules).every((r) => r.health === 'ok');
      },
      () => 'every rule to be evaluated with health "ok"',
      15_000,
    ).catch((error: unknown) => problems.push(error instanceof Error ? error.message : String(error)));
    expect(problems, problems.join('\n')).toEqual([]);
    process.stdout.write(`prometheus.test: ${rules.length} alert expressions parsed and evaluated\n`);
  }, 60_000);

  it('refers only to metrics the running worker exports', async () => {
    const exported = exportedNames(workerMetrics);
    expect(exported.has('toolcall_calls_total')).toBe(true);
    const { queries, variableQueries } = dashboardQueries();
    const rulesAnswer = await promApi<{ groups: { rules: { name: string; query: string }[] }[] }>('/api/v1/rules');
    const expressions = [
      ...queries.map((q) => ({ where: `dashboard panel "${q.panel}"`, expr: q.expr })),
      ...variableQueries.map((q) => ({ where: 'dashboard variable', expr: q.replace(/^label_values\((.+),\s*\w+\)$/, '$1') })),
      ...(rulesAnswer.data?.groups ?? []).flatMap((g) => g.rules).map((r) => ({ where: `alert ${r.name}`, expr: r.query })),
    ];
    const referenced = new Set<string>();
    const unknown: string[] = [];
    for (const { where, expr } of expressions) {
      const names = metricNames(substituteVariables(expr, TEMPLATE_VARIABLES));
      if (names.size === 0) unknown.push(`${where}: no metric name found in ${expr}`);
      for (const name of names) {
        referenced.add(name);
        if (!exported.has(name) && !PROMETHEUS_SERIES.has(name)) unknown.push(`${where}: ${name} is not exported by the worker`);
      }
    }
    expect(unknown, unknown.join('\n')).toEqual([]);
    // The extraction itself finds what it should (a broken extractor would pass vacuously).
    expect(
      [...metricNames('histogram_quantile(0.99, sum by (le) (rate(a_bucket{x="y"}[5m]))) / on (job) group_left b_total offset 5m')].sort(),
    ).toEqual(['a_bucket', 'b_total']);
    expect(referenced.size).toBeGreaterThanOrEqual(15);
  }, 30_000);
});
