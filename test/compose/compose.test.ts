/**
 * deploy/compose.yaml brought up for real, with deploy/compose.host.yaml (every service on the host network)
 * and the offline images of `npm run images` (KAFKA_IMAGE, REGISTRY_IMAGE, WORKER_IMAGE, PROMETHEUS_IMAGE from
 * the environment, else built or reused). Grafana stays out (its profile is not enabled): no image of it can
 * be built here.
 *
 * Checked: the schemas are pushed, examples/calls.jsonl flows through the worker onto the three output topics,
 * and Prometheus scrapes the worker and answers a query of a metric the dashboard uses, with the same counts as
 * the topics. The project is torn down (containers and volumes) whatever happens. Needs `docker compose` (v2):
 * scripts/ci-prereqs.sh builds it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, REPO_ROOT, RUN_ID } from '../integration/harness.js';
import { docker, dockerOk, engineOrSkip, offlineImages } from '../image/docker.js';

const FILE = 'test/compose/compose.test.ts';
const withEngine = engineOrSkip(FILE);

// The loopback ports deploy/compose.host.yaml gives the services.
const KAFKA = '127.0.0.1:29092';
const PORTS = [29092, 29093, 28080, 29000, 29464, 29090];
const PROMETHEUS = 'http://127.0.0.1:29090';
const TOPICS = { normalized: 'tool-calls.normalized', rejected: 'tool-calls.rejected', dead_lettered: 'tool-calls.dlq' } as const;
type Outcome = keyof typeof TOPICS;

async function portTaken(port: number): Promise<boolean> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/** Every record of the three output topics, by outcome, read from the beginning with a fresh group. */
async function readOutputs(expected: number, timeoutMs: number): Promise<Record<Outcome, number>> {
  const kafka = new Kafka({ clientId: `it-compose-${RUN_ID}`, brokers: [KAFKA], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `it-compose-reader-${RUN_ID}-${String(await freePort())}`, maxWaitTimeInMs: 200 });
  const counts: Record<Outcome, number> = { normalized: 0, rejected: 0, dead_lettered: 0 };
  const byTopic = new Map<string, Outcome>(Object.entries(TOPICS).map(([outcome, topic]) => [topic, outcome as Outcome]));
  let seen = 0;
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: Object.values(TOPICS), fromBeginning: true });
    await consumer.run({
      eachMessage: ({ topic }) => {
        const outcome = byTopic.get(topic);
        if (outcome !== undefined) counts[outcome]++;
        seen++;
        return Promise.resolve();
      },
    });
    await eventually(() => seen >= expected, `${expected} records on the output topics`, timeoutMs).catch(() => undefined);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  return counts;
}

interface PromVector {
  readonly status: string;
  readonly data: {
    readonly result: readonly { readonly metric: Readonly<Record<string, string>>; readonly value: readonly [number, string] }[];
  };
}

async function query(expr: string): Promise<PromVector> {
  const response = await fetch(`${PROMETHEUS}/api/v1/query?query=${encodeURIComponent(expr)}`, { signal: AbortSignal.timeout(5_000) });
  return (await response.json()) as PromVector;
}

describe.skipIf(!withEngine)('deploy/compose.yaml on the host network with the offline images', () => {
  const project = `tcn-compose-${RUN_ID}`.toLowerCase();
  const files = ['-f', join(REPO_ROOT, 'deploy', 'compose.yaml'), '-f', join(REPO_ROOT, 'deploy', 'compose.host.yaml')];
  let env: NodeJS.ProcessEnv = {};
  let up = false;
  // One output per call: a line that is a whole message fans out, so count what `normalize` makes of the file.
  const calls = execFileSync(
    process.execPath,
    [
      join(REPO_ROOT, 'dist', 'cli.js'),
      'normalize',
      '--schemas',
      join(REPO_ROOT, 'examples', 'tools'),
      '--input',
      join(REPO_ROOT, 'examples', 'calls.jsonl'),
    ],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter((line) => line.trim() !== '').length;

  const compose = (args: readonly string[], timeoutMs = 300_000) =>
    docker(['compose', '-p', project, ...files, ...args], { env, timeoutMs });
  const composeLogs = async (): Promise<string> => {
    const logs = await compose(['logs', '--no-color', '--tail', '25']);
    return `${logs.stdout}${logs.stderr}`;
  };

  beforeAll(async () => {
    const version = await docker(['compose', 'version', '--short']);
    if (version.code !== 0)
      throw new Error(
        `docker compose is not installed (scripts/ci-prereqs.sh builds Compose v2 into ~/.docker/cli-plugins): ${version.stderr}`,
      );
    const busy: number[] = [];
    for (const port of PORTS) if (await portTaken(port)) busy.push(port);
    if (busy.length > 0)
      throw new Error(`ports ${busy.join(', ')} of deploy/compose.host.yaml are in use (another compose project up? docker compose ls)`);
    const images = await offlineImages(
      ['KAFKA_IMAGE', 'REGISTRY_IMAGE', 'WORKER_IMAGE', 'PROMETHEUS_IMAGE'],
      'kafka registry worker prometheus',
    );
    env = { ...process.env, ...images };
    up = true;
    const result = await compose(['up', '-d', '--no-build', '--pull', 'never'], 600_000);
    if (result.code !== 0)
      throw new Error(`docker compose up failed (status ${String(result.code)}):\n${result.stderr}\n${await composeLogs()}`);
  }, 900_000);

  afterAll(async () => {
    if (!up) return;
    const down = await compose(['down', '--volumes', '--remove-orphans', '--timeout', '35'], 300_000);
    const left = await dockerOk(['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}']);
    expect(down.code, down.stderr).toBe(0);
    expect(left.trim()).toBe('');
  }, 400_000);

  it('starts no Grafana and puts every service on the host network', async () => {
    const ps = await compose(['ps', '-a', '--format', '{{.Service}}']);
    const services = ps.stdout.trim().split('\n').sort();
    expect(services).toEqual(['kafka', 'prometheus', 'registry', 'schemas', 'traffic', 'worker']);
    const ids = (await compose(['ps', '-a', '-q'])).stdout.trim().split('\n');
    const modes = await dockerOk(['inspect', '--format', '{{.HostConfig.NetworkMode}}', ...ids]);
    expect(new Set(modes.trim().split('\n'))).toEqual(new Set(['host']));
  });

  it('pushes the example schemas and produces the example traffic (both one-shot services exit 0)', async () => {
    for (const service of ['schemas', 'traffic']) {
      await eventually(
        async () => {
          const id = (await compose(['ps', '-a', '-q', service])).stdout.trim();
          if (id === '') return false;
          const state = (await dockerOk(['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', id])).trim();
          if (state.startsWith('exited') && state !== 'exited 0' && service === 'traffic') throw new Error(`${service}: ${state}`);
          return state === 'exited 0';
        },
        `the ${service} service to finish with exit 0`,
        240_000,
        1_000,
      ).catch(async (error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\n${await composeLogs()}`);
      });
    }
    const subjects = (await (await fetch('http://127.0.0.1:28080/apis/ccompat/v7/subjects')).json()) as string[];
    expect(subjects.length).toBeGreaterThan(0);
  }, 300_000);

  let counts: Record<Outcome, number> = { normalized: 0, rejected: 0, dead_lettered: 0 };
  it('runs every example call through the worker onto the output topics', async () => {
    counts = await readOutputs(calls, 120_000);
    expect(counts.normalized + counts.rejected + counts.dead_lettered, await composeLogs()).toBe(calls);
    expect(counts.normalized).toBeGreaterThan(0);
    expect(counts.rejected).toBeGreaterThan(0);
    expect(counts.dead_lettered).toBeGreaterThan(0);
  }, 180_000);

  it("Prometheus scrapes the worker and answers a query of a dashboard metric with the topics' counts", async () => {
    const dashboard = readFileSync(join(REPO_ROOT, 'deploy', 'grafana', 'toolcall-normalizer.json'), 'utf8');
    expect(dashboard).toContain('toolcall_calls_total{');
    const expr = 'sum by (outcome) (toolcall_calls_total{job="toolcall-normalizer"})';
    let last: PromVector | undefined;
    await eventually(
      async () => {
        last = await query(expr);
        const total = last.data.result.reduce((sum, r) => sum + Number(r.value[1]), 0);
        return last.status === 'success' && total === calls;
      },
      `Prometheus to answer ${expr} with ${calls} calls in all`,
      120_000,
      1_000,
    ).catch(() => undefined);
    const byOutcome = Object.fromEntries((last?.data.result ?? []).map((r) => [r.metric.outcome ?? '', Number(r.value[1])]));
    expect(byOutcome).toEqual(Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)));
    const upResult = await query('up{job="toolcall-normalizer"}');
    expect(upResult.data.result.map((r) => r.value[1])).toEqual(['1']);
  }, 180_000);
});
