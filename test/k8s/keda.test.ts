/**
 * KEDA's operator scaling the worker on consumer lag, on the cluster of test/k8s/global-setup.ts: KEDA built from
 * the Go module proxy and installed from its own config (scripts/k8s.sh keda), the chart installed with
 * `keda.enabled` into a namespace enforcing the `restricted` Pod Security Standard.
 *
 * minReplicaCount 0: with no lag KEDA's operator scales the Deployment down to none; a lag produced on the input
 * topic is seen through the external metrics API (the aggregation layer to KEDA's metrics API server) and the
 * operator scales the Deployment up, the HPA it made takes it further while the lag lasts, and once the lag is
 * gone the operator scales it back down to none. Every call comes out exactly once; every pod stopped on the way
 * exits 0 within its grace period.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeClients,
  committedOffsets,
  createTopics,
  eventually,
  misplacedCalls,
  numberedCall,
  numberedIds,
  produce,
  pushExampleSchemas,
  readOutputs,
  REPO_ROOT,
  RUN_ID,
  stackEnv,
  sumOffsets,
  tally,
  uniqueSubjectTemplate,
  uniqueTopics,
  type TestTopics,
} from '../integration/harness.js';
import { CHART, env, helm, kedaDiagnostics, kubectl, kubectlOk, PodWatch } from './cluster.js';

const SKIP = process.env.K8S_SKIP ?? '';
if (SKIP !== '') process.stderr.write(`test/k8s/keda.test.ts: skipped: ${SKIP}\n`);

const PARTITIONS = 3;
const LAG_THRESHOLD = 100;
const release = 'tcn';
const namespace = `tcn-keda-${RUN_ID}`.toLowerCase().slice(0, 63);
const prefix = 'k8skeda';
const scratch = mkdtempSync(join(tmpdir(), 'k8s-keda-'));
let topics: TestTopics;
let watch: PodWatch | undefined;

/** A Kubernetes quantity as the metrics API writes it (`300`, `1500m`, `2k`). */
function quantity(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(m|k)?$/.exec(text);
  if (match?.[1] === undefined) throw new Error(`not a quantity: ${text}`);
  return Number(match[1]) * (match[2] === 'm' ? 0.001 : match[2] === 'k' ? 1000 : 1);
}

async function replicas(): Promise<number> {
  const out = await kubectlOk(['get', 'deployment', release, '-n', namespace, '-o', 'jsonpath={.spec.replicas}']);
  return Number(out);
}

describe.skipIf(SKIP !== '')('KEDA scales the worker on consumer lag', () => {
  beforeAll(async () => {
    // The operator logs at debug level here: a failed wait prints what it saw of the lag and what it did.
    const keda = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'k8s.sh'), 'keda'], {
      env: { ...process.env, KEDA_LOG_LEVEL: 'debug' },
      encoding: 'utf8',
      timeout: 3_600_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (keda.status !== 0) throw new Error(`scripts/k8s.sh keda failed (${String(keda.status)}):\n${keda.stderr}`);
    process.stderr.write(keda.stderr);
    topics = uniqueTopics(prefix);
    await createTopics(topics, PARTITIONS);
    await kubectlOk(['create', 'namespace', namespace]);
    await kubectlOk(['label', 'namespace', namespace, 'pod-security.kubernetes.io/enforce=restricted']);
    watch = new PodWatch(namespace);
  }, 3_900_000);

  afterAll(async () => {
    watch?.stop();
    if (SKIP === '') await kubectl(['delete', 'namespace', namespace, '--wait=false']);
    await closeClients();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('from none up on a lag of the input topic, and back to none once it is consumed: every call exactly once', async () => {
    const template = uniqueSubjectTemplate(prefix);
    await pushExampleSchemas(template);
    const image = env('WORKER_IMAGE');
    const colon = image.lastIndexOf(':');
    const stack = stackEnv();
    const values = join(scratch, 'values.json');
    writeFileSync(
      values,
      JSON.stringify({
        fullnameOverride: release,
        image: { repository: image.slice(0, colon), tag: image.slice(colon + 1), pullPolicy: 'Never' },
        kafka: { brokers: stack.kafkaBrokers, sessionTimeoutMs: 10_000, inputPartitions: PARTITIONS },
        registry: { url: stack.registryUrl, subjectTemplate: template, timeoutMs: 3000 },
        config: {
          topics: { input: topics.input, output: topics.output, rejected: topics.rejected, dlq: topics.dlq },
          groupId: topics.groupId,
          createTopics: false,
          shutdownTimeoutMs: 10_000,
        },
        resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '250m', memory: '512Mi' } },
        keda: {
          enabled: true,
          minReplicaCount: 0,
          maxReplicaCount: 10,
          pollingInterval: 5,
          cooldownPeriod: 20,
          lagThreshold: LAG_THRESHOLD,
          activationLagThreshold: 0,
          behavior: { scaleDown: { stabilizationWindowSeconds: 10 } },
        },
      }),
    );
    await helm(['install', release, CHART, '-n', namespace, '-f', values, '--timeout', '5m']);
    try {
      // KEDA made the HPA for 1..N, capped at the partitions; the operator owns 0 <-> 1.
      await eventually(async () => (await kubectl(['get', 'hpa', `keda-hpa-${release}`, '-n', namespace])).code === 0, 'the HPA', 120_000);
      const hpa = JSON.parse(await kubectlOk(['get', 'hpa', `keda-hpa-${release}`, '-n', namespace, '-o', 'json'])) as {
        spec: { minReplicas: number; maxReplicas: number; metrics: { type: string; external?: { metric: { name: string } } }[] };
      };
      expect(hpa.spec).toMatchObject({ minReplicas: 1, maxReplicas: PARTITIONS, metrics: [{ type: 'External' }] });
      // None left running either: a pod of the install still consuming would drain the lag before KEDA looks.
      await eventually(
        async () => (await replicas()) === 0 && (await kubectlOk(['get', 'pods', '-n', namespace, '-o', 'name'])).trim() === '',
        'no lag: scaled down to none, no pod left',
        300_000,
      );

      const N = 4000;
      await produce(
        topics.input,
        Array.from({ length: N }, (_, i) => ({ key: `k${i % 7}`, value: numberedCall(prefix, i) })),
      );
      // The lag as the HPA reads it, through the aggregation layer: per partition above the threshold it is capped
      // (allowIdleConsumers false), so at most PARTITIONS * LAG_THRESHOLD.
      const metric = hpa.spec.metrics[0]?.external?.metric.name ?? '';
      expect(metric).toMatch(/^s0-kafka-/);
      const selector = encodeURIComponent(`scaledobject.keda.sh/name=${release}`);
      const path = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${namespace}/${metric}?labelSelector=${selector}`;
      const metrics = JSON.parse(await kubectlOk(['get', '--raw', path])) as { items: { value: string }[] };
      const lag = quantity(metrics.items[0]?.value ?? '');
      expect(lag).toBeGreaterThan(0);
      expect(lag).toBeLessThanOrEqual(PARTITIONS * LAG_THRESHOLD);

      let most = 0;
      await eventually(
        async () => {
          most = Math.max(most, await replicas());
          return most > 0;
        },
        'scaled up from none on the lag',
        180_000,
      );
      await eventually(
        async () => {
          most = Math.max(most, await replicas());
          return sumOffsets(await committedOffsets(topics.groupId, topics.input)) === N;
        },
        `${String(N)} committed input records`,
        600_000,
      );
      process.stderr.write(`keda: at most ${String(most)} of ${String(PARTITIONS)} workers on a lag of ${String(N)} calls\n`);
      await eventually(async () => (await replicas()) === 0, 'lag gone: scaled back down to none', 300_000);

      const outputs = await readOutputs(topics, { until: N, timeoutMs: 120_000, settleMs: 1_000 });
      expect(tally(outputs, numberedIds(prefix, N))).toMatchObject({ records: N, duplicates: 0, missing: [], unexpected: [] });
      expect(misplacedCalls(outputs, topics, prefix)).toEqual([]);
      await eventually(
        () => Promise.resolve((watch?.terminated() ?? []).every((p) => p.exitCode !== undefined)),
        'the last pod statuses',
        60_000,
      ).catch(() => undefined);
      // A pod whose worker never started ("failed to sync configmap cache" on a loaded node) has no exit to judge.
      const ended = (watch?.terminated() ?? []).filter((pod) => pod.started);
      // At least the pod that consumed the lag; the install's pod too (scaled away) when its worker started.
      expect(ended.length).toBeGreaterThanOrEqual(1);
      for (const pod of ended) expect(pod, JSON.stringify(ended)).toMatchObject({ exitCode: 0, reason: 'Completed', inGrace: true });
    } catch (error) {
      process.stderr.write(`keda: diagnostics of the failed test:\n${await kedaDiagnostics(namespace)}\n${watch?.logs() ?? ''}\n`);
      throw error;
    }
  }, 1_800_000);
});
