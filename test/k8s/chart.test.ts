/**
 * The Helm chart on a real single-node Kubernetes cluster (scripts/k8s.sh, started by test/k8s/global-setup.ts),
 * with the worker image of `npm run images` and the real broker and registry of the local stack, which listens
 * on the node's address so the pods reach it.
 *
 * Per Kafka client, as the chart runs it (kafkajs: a Deployment; @platformatic/kafka: a StatefulSet with static
 * membership): `helm install --wait` into a namespace enforcing the `restricted` Pod Security Standard; traffic
 * of every kind comes out on the right topics exactly once; a rolling update (a changed value) and a scale-down
 * while the stream flows, every terminated pod exiting 0 inside its grace period; a pod stopped (SIGSTOP from the
 * host) is killed by the kubelet for failing its liveness probe, comes back, and nothing is lost or doubled.
 * Then `kubectl apply --dry-run=server` of everything the chart renders for each values file in the repo.
 *
 * A machine that cannot run the cluster: skipped, saying why (K8S_SKIP); under CI=true the setup fails instead.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeClients,
  committedOffsets,
  createTopics,
  eventually,
  expectedTopic,
  json,
  misplacedCalls,
  numberedCall,
  numberedIds,
  produce,
  pushExampleSchemas,
  readOutputs,
  RUN_ID,
  sleep,
  stackEnv,
  sumOffsets,
  tally,
  uniqueSubjectTemplate,
  uniqueTopics,
  type ProduceMessage,
  type TestTopics,
} from '../integration/harness.js';
import { run } from '../image/docker.js';
import { CHART, env, helm, kubectl, kubectlOk, PodWatch, type ContainerStatus } from './cluster.js';

const SKIP = process.env.K8S_SKIP ?? '';
if (SKIP !== '') process.stderr.write(`test/k8s/chart.test.ts: skipped: ${SKIP}\n`);

/**
 * Call `i` of `prefix`: {@link numberedCall}'s dead letters (every 25th), rejections (every other 10th) and
 * repairable calls, and every other 3rd a clean call that needs no repair. Topics as {@link expectedTopic}.
 */
function heldOutCall(prefix: string, i: number): string {
  if (i % 25 !== 0 && i % 10 !== 0 && i % 3 === 0)
    return JSON.stringify({ id: `${prefix}-${i}`, tool: 'search_issues', arguments: { query: `clean ${i}`, labels: ['a'] } });
  return numberedCall(prefix, i);
}

function heldOutCalls(prefix: string, from: number, to: number): ProduceMessage[] {
  return Array.from({ length: to - from }, (_, k) => ({ key: `k${(from + k) % 7}`, value: heldOutCall(prefix, from + k) }));
}

/** Produces held-out calls `from`... in the background until stopped; resolves with the next unused number. */
function streamUntilStopped(topic: string, prefix: string, from: number): { stop: () => Promise<number> } {
  let next = from;
  const state = { stopped: false };
  const done = (async () => {
    while (!state.stopped) {
      await produce(topic, heldOutCalls(prefix, next, next + 20));
      next += 20;
      await sleep(250);
    }
    return next;
  })();
  return {
    stop: async () => {
      state.stopped = true;
      return done;
    },
  };
}

const CLIENTS = [
  { client: 'kafkajs', kind: 'deployment' },
  { client: 'platformatic', kind: 'statefulset' },
] as const;

const scratch = mkdtempSync(join(tmpdir(), 'k8s-chart-'));
const watches: PodWatch[] = [];
const namespaces: string[] = [];

afterAll(async () => {
  for (const watch of watches) watch.stop();
  if (SKIP === '') for (const ns of namespaces) await kubectl(['delete', 'namespace', ns, '--wait=false']);
  await closeClients();
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(SKIP !== '').each(CLIENTS)('the chart on a real cluster: $client ($kind)', ({ client, kind }) => {
  const namespace = `tcn-${client}-${RUN_ID}`.toLowerCase().slice(0, 63);
  const release = 'tcn';
  const prefix = `k8s${client}`;
  const template = uniqueSubjectTemplate(prefix);
  let topics: TestTopics;
  let watch: PodWatch;
  let produced = 0;
  const PARTITIONS = 3;

  function values(overrides: Record<string, unknown>): string {
    const image = env('WORKER_IMAGE');
    const colon = image.lastIndexOf(':');
    const stack = stackEnv();
    const base = {
      fullnameOverride: release,
      image: { repository: image.slice(0, colon), tag: image.slice(colon + 1), pullPolicy: 'Never' },
      replicaCount: 2,
      kafka: { brokers: stack.kafkaBrokers, sessionTimeoutMs: 10_000, inputPartitions: PARTITIONS },
      registry: { url: stack.registryUrl, subjectTemplate: template, timeoutMs: 3000 },
      config: {
        topics: { input: topics.input, output: topics.output, rejected: topics.rejected, dlq: topics.dlq },
        groupId: topics.groupId,
        createTopics: false,
        kafkaClient: client,
        shutdownTimeoutMs: 10_000,
        logLevel: 'info',
      },
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
      readinessProbe: {
        httpGet: { path: '/readyz', port: 'metrics' },
        initialDelaySeconds: 2,
        periodSeconds: 3,
        timeoutSeconds: 3,
        failureThreshold: 3,
      },
      livenessProbe: {
        httpGet: { path: '/livez', port: 'metrics' },
        initialDelaySeconds: 10,
        periodSeconds: 5,
        timeoutSeconds: 3,
        failureThreshold: 3,
      },
      ...overrides,
    };
    const file = join(scratch, `${namespace}-${String(Date.now())}.json`);
    writeFileSync(file, JSON.stringify(base));
    return file;
  }

  const config = (logLevel: string): Record<string, unknown> => ({
    config: {
      topics: { input: topics.input, output: topics.output, rejected: topics.rejected, dlq: topics.dlq },
      groupId: topics.groupId,
      createTopics: false,
      kafkaClient: client,
      shutdownTimeoutMs: 10_000,
      logLevel,
    },
  });

  async function workerPods(): Promise<{ name: string; ready: boolean; restarts: number; containerID: string }[]> {
    const out = JSON.parse(
      await kubectlOk(['get', 'pods', '-n', namespace, '-l', 'app.kubernetes.io/name=toolcall-normalizer', '-o', 'json']),
    ) as { items: { metadata: { name: string; deletionTimestamp?: string }; status: { containerStatuses?: ContainerStatus[] } }[] };
    return out.items
      .filter((pod) => pod.metadata.deletionTimestamp === undefined)
      .map((pod) => {
        const status = pod.status.containerStatuses?.find((s) => s.name === 'worker');
        return {
          name: pod.metadata.name,
          ready: status?.ready ?? false,
          restarts: status?.restartCount ?? 0,
          containerID: (status?.containerID ?? '').replace(/^containerd:\/\//, ''),
        };
      });
  }

  /** Every call of 0..total-1 exactly once on its topic, with every input offset committed. */
  async function expectExactlyOnce(total: number): Promise<void> {
    await eventually(
      async () => sumOffsets(await committedOffsets(topics.groupId, topics.input)) === total,
      `${String(total)} committed input records`,
      240_000,
    );
    const outputs = await readOutputs(topics, { until: total, timeoutMs: 120_000, settleMs: 1_000 });
    expect(tally(outputs, numberedIds(prefix, total))).toMatchObject({ records: total, duplicates: 0, missing: [], unexpected: [] });
    expect(misplacedCalls(outputs, topics, prefix)).toEqual([]);
    for (const message of outputs.filter((m) => m.topic === topics.output)) {
      const args = json(message).arguments as { labels?: unknown; query?: unknown };
      expect(Array.isArray(args.labels), `${String(json(message).id)} repaired`).toBe(true);
      expect(String(args.query)).not.toContain('&amp;');
    }
  }

  beforeAll(async () => {
    topics = uniqueTopics(prefix);
    await createTopics(topics, PARTITIONS);
    await pushExampleSchemas(template);
    namespaces.push(namespace);
    await kubectlOk(['create', 'namespace', namespace]);
    await kubectlOk([
      'label',
      'namespace',
      namespace,
      'pod-security.kubernetes.io/enforce=restricted',
      'pod-security.kubernetes.io/enforce-version=latest',
    ]);
    watch = new PodWatch(namespace);
    watches.push(watch);
  }, 300_000);

  it('helm install into a restricted namespace: admitted, pods Ready through their probes, metrics scraped from the pod', async () => {
    // The namespace refuses what the restricted standard forbids: a privileged pod is not admitted.
    const refused = await kubectl(
      [
        'run',
        'privileged',
        '-n',
        namespace,
        `--image=${env('WORKER_IMAGE')}`,
        '--image-pull-policy=Never',
        '--privileged',
        '--dry-run=server',
      ],
      60_000,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/violates PodSecurity "restricted:latest"/);

    await helm(['install', release, CHART, '-n', namespace, '-f', values({}), '--wait', '--timeout', '5m']);
    const workload = JSON.parse(await kubectlOk(['get', kind, release, '-n', namespace, '-o', 'json'])) as {
      status: { readyReplicas?: number };
    };
    expect(workload.status.readyReplicas).toBe(2);
    const pods = await workerPods();
    expect(pods.map((p) => p.ready)).toEqual([true, true]);
    if (client === 'platformatic') {
      expect(pods.map((p) => p.name).sort()).toEqual([`${release}-0`, `${release}-1`]);
      const spec = await kubectlOk(['get', 'pod', `${release}-0`, '-n', namespace, '-o', 'json']);
      expect(spec).toMatch(/"KAFKA_GROUP_INSTANCE_ID"[\s\S]*"fieldPath": "metadata.name"/);
    }
    // No warning either: the pods meet the restricted standard, not only the enforced level of it.
    const audit = await kubectl(
      ['label', '--dry-run=server', '--overwrite', 'namespace', namespace, 'pod-security.kubernetes.io/warn=restricted'],
      60_000,
    );
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stderr).not.toMatch(/violate/);
    const first = pods[0]?.name ?? '';
    const metrics = await kubectlOk(['get', '--raw', `/api/v1/namespaces/${namespace}/pods/${first}:9464/proxy/metrics`]);
    expect(metrics).toMatch(/^# TYPE toolcall_records_total counter$/m);
    const ready = await kubectlOk(['get', '--raw', `/api/v1/namespaces/${namespace}/pods/${first}:9464/proxy/readyz`]);
    expect(ready.length).toBeGreaterThan(0);
  }, 600_000);

  it('clean, repairable, invalid and unprocessable calls come out on their topics exactly once', async () => {
    const N = 600;
    await produce(topics.input, heldOutCalls(prefix, 0, N));
    produced = N;
    await expectExactlyOnce(N);
    const outputs = await readOutputs(topics, { until: N, timeoutMs: 60_000 });
    for (const topic of [topics.output, topics.rejected, topics.dlq])
      expect(outputs.filter((m) => m.topic === topic).length, topic).toBe(
        numberedIds(prefix, N).filter((_, i) => expectedTopic(topics, i) === topic).length,
      );
  }, 600_000);

  it('a rolling update and a scale-down while the stream flows: terminated pods exit 0 within grace, every call once', async () => {
    const stream = streamUntilStopped(topics.input, prefix, produced);
    await sleep(3_000);
    // A changed value: the ConfigMap checksum rolls every pod.
    await helm(['upgrade', release, CHART, '-n', namespace, '-f', values(config('debug')), '--wait', '--timeout', '8m']);
    await kubectlOk(['rollout', 'status', `${kind}/${release}`, '-n', namespace, '--timeout=5m'], 330_000);
    await helm([
      'upgrade',
      release,
      CHART,
      '-n',
      namespace,
      '-f',
      values({ ...config('debug'), replicaCount: 1 }),
      '--wait',
      '--timeout',
      '5m',
    ]);
    await eventually(async () => (await workerPods()).length === 1, 'one pod left after the scale-down', 120_000);
    await sleep(3_000);
    produced = await stream.stop();
    await expectExactlyOnce(produced);
    const ended = watch.terminated();
    // Two replaced by the rollout, one removed by the scale-down.
    expect(ended.length).toBeGreaterThanOrEqual(3);
    for (const pod of ended) expect(pod, JSON.stringify(ended)).toMatchObject({ exitCode: 0, reason: 'Completed', inGrace: true });
  }, 1_200_000);

  it('a pod failing its liveness probe is killed by the kubelet, comes back, and loses nothing', async () => {
    const [victim] = await workerPods();
    if (victim === undefined) throw new Error('no worker pod');
    const ctr = ['--address', env('K8S_CONTAINERD_ADDRESS'), '-n', 'k8s.io'];
    // Every process of the container (tini, PID 1, and node under it), as `ctr tasks ps` lists them.
    const tasks = await run('ctr', [...ctr, 'tasks', 'ps', victim.containerID], { timeoutMs: 30_000 });
    const pids = [...tasks.stdout.matchAll(/^(\d+)\s/gm)].map((match) => Number(match[1]));
    expect(pids.length, tasks.stdout).toBeGreaterThanOrEqual(2);
    const stream = streamUntilStopped(topics.input, prefix, produced);
    await sleep(2_000);
    // Stopped, the worker answers no probe: only the kubelet's liveness check can bring it back.
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    await eventually(
      async () => (await workerPods()).some((p) => p.name === victim.name && p.restarts > victim.restarts && p.ready),
      `${victim.name} restarted by the kubelet and Ready again`,
      300_000,
    );
    produced = await stream.stop();
    const events = await kubectlOk([
      'get',
      'events',
      '-n',
      namespace,
      '--field-selector',
      `involvedObject.name=${victim.name}`,
      '-o',
      'json',
    ]);
    expect(events).toMatch(/Liveness probe failed/);
    expect(events).toMatch(/failed liveness probe, will be restarted/);
    await expectExactlyOnce(produced);
  }, 900_000);

  it('helm uninstall: every pod ends with exit 0 within its grace period', async () => {
    const before = watch.live();
    expect(before.length).toBeGreaterThan(0);
    await helm(['uninstall', release, '-n', namespace, '--wait', '--timeout', '3m']);
    await eventually(async () => (await workerPods()).length === 0, 'no pod left', 120_000);
    await eventually(
      () => Promise.resolve(watch.terminated(before).every((p) => p.exitCode !== undefined)),
      'the last statuses',
      60_000,
    ).catch(() => undefined);
    const ended = watch.terminated(before);
    expect(ended.length).toBe(before.length);
    for (const pod of ended) expect(pod, JSON.stringify(ended)).toMatchObject({ exitCode: 0, reason: 'Completed', inGrace: true });
  }, 300_000);
});

describe.skipIf(SKIP !== '')('kubectl apply --dry-run=server of everything the chart renders', () => {
  const namespace = `tcn-dryrun-${RUN_ID}`.toLowerCase();
  const valuesFiles = [
    '',
    ...readdirSync(join(CHART, 'ci'))
      .filter((f) => f.endsWith('-values.yaml'))
      .map((f) => join(CHART, 'ci', f)),
  ];

  beforeAll(async () => {
    namespaces.push(namespace);
    await kubectlOk(['create', 'namespace', namespace]);
    await kubectlOk(['label', 'namespace', namespace, 'pod-security.kubernetes.io/enforce=restricted']);
    // The custom resources the chart can render: KEDA's and the Prometheus Operator's definitions, from their
    // Go modules (the proxy serves the repositories' files).
    for (const [module, dir, files] of [
      ['github.com/kedacore/keda/v2@v2.20.2', 'config/crd/bases', ['keda.sh_scaledobjects.yaml', 'keda.sh_triggerauthentications.yaml']],
      [
        'github.com/prometheus-operator/prometheus-operator@v0.79.2',
        'example/prometheus-operator-crd',
        ['monitoring.coreos.com_servicemonitors.yaml', 'monitoring.coreos.com_podmonitors.yaml'],
      ],
    ] as const) {
      const download = spawnSync('go', ['mod', 'download', '-json', module], { encoding: 'utf8', timeout: 300_000 });
      const moduleDir = (JSON.parse(download.stdout || '{}') as { Dir?: string }).Dir;
      if (moduleDir === undefined) throw new Error(`go mod download ${module} failed:\n${download.stdout}${download.stderr}`);
      for (const file of files) await kubectlOk(['apply', '--server-side', '-f', join(moduleDir, dir, file)]);
    }
    await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
  }, 600_000);

  it.each(valuesFiles)(
    'values %s: every rendered object is accepted by the API server',
    async (file) => {
      // helm template renders for a Kubernetes version of its own unless told this API server's.
      const server = JSON.parse(await kubectlOk(['version', '-o', 'json'])) as { serverVersion: { gitVersion: string } };
      const args = ['template', 'tcn', CHART, '-n', namespace, '--kube-version', server.serverVersion.gitVersion];
      args.push('--set', `image.repository=${env('WORKER_IMAGE').replace(/:[^:]*$/, '')}`);
      if (file !== '') args.push('-f', file);
      const rendered = await helm(args, 120_000);
      const kinds = [...rendered.matchAll(/^kind: (\S+)$/gm)].map((m) => m[1]);
      expect(kinds.length).toBeGreaterThan(3);
      const result = await kubectl(['apply', '--dry-run=server', '-n', namespace, '-f', '-'], 120_000, rendered);
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stderr, 'no PodSecurity warning').not.toMatch(/violate/);
      expect(result.stdout.trim().split('\n')).toHaveLength(kinds.length);
      expect(result.stdout).toMatch(/\(server dry run\)/);
    },
    180_000,
  );
});
