/**
 * The chart, the alert rules and the dashboard, checked by scripts/check-deploy.sh: helm lint --strict,
 * helm template (default values and every helm/toolcall-normalizer/ci/*-values.yaml) validated by kubeconform
 * -strict, chart invariants, promtool check/test rules, dashboard and compose checks.
 *
 * The tools come from scripts/ci-prereqs.sh (which .ci/run runs first). When they are missing this test fails
 * and says so: it never skips.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function checkDeploy(root: string): SpawnSyncReturns<string> {
  return spawnSync('bash', [join(root, 'scripts', 'check-deploy.sh')], { cwd: root, encoding: 'utf8', timeout: 240_000 });
}

function explain(result: SpawnSyncReturns<string>): string {
  if (result.status === 2) {
    return `scripts/check-deploy.sh found tools missing; run \`bash scripts/ci-prereqs.sh\` first (it installs Debian's ` +
      `prometheus, helm and kubeconform via go install, and the Kubernetes JSON schemas):\n${result.stderr}`;
  }
  return 'scripts/check-deploy.sh ' +
    `exited ${String(result.status)}${result.signal === null ? '' : ` (${result.signal})`}:\n${result.stdout}\n${result.stderr}`;
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('scripts/check-deploy.sh', () => {
  it('lints, renders and validates the chart, and checks the rules, the dashboard and the compose file', () => {
    const result = checkDeploy(ROOT);
    expect(result.status, explain(result)).toBe(0);
    const summary = /^check-deploy: (\d+) passed, (\d+) failed$/m.exec(result.stdout);
    expect(summary, result.stdout).not.toBeNull();
    expect(Number(summary?.[2])).toBe(0);
    // 8 values files x 4 checks, caps, grace period, the two controllers, KEDA's OAuth credentials, 4 expected
    // render failures, 3 promtool, dashboard, its traces link, compose.
    expect(Number(summary?.[1])).toBeGreaterThanOrEqual(48);
    const valuesFiles = [
      'default values',
      'ci/keda-values.yaml',
      'ci/hpa-values.yaml',
      'ci/servicemonitor-pdb-values.yaml',
      'ci/sasl-tls-values.yaml',
      'ci/platformatic-values.yaml',
      'ci/oauth-values.yaml',
      'ci/keda-oauth-values.yaml',
    ];
    for (const values of valuesFiles) {
      expect(result.stdout).toContain(`ok    helm lint --strict (${values})`);
      expect(result.stdout).toContain(`ok    kubeconform -strict (${values})`);
      expect(result.stdout).toContain(`ok    chart invariants (${values})`);
    }
    // Both clients' controllers: a Deployment for kafkajs, a StatefulSet with stable identities for platformatic.
    expect(result.stdout).toContain('ok    kafkajs (default values): a Deployment, no static membership');
    expect(result.stdout).toContain('ok    platformatic: a StatefulSet, KAFKA_GROUP_INSTANCE_ID from the pod name, KEDA scaling it');
    expect(result.stdout).toContain(
      "ok    KEDA with OAUTHBEARER: the scaler's token URL, scope and client id from the ConfigMap, its secret from the Secret",
    );
    expect(result.stdout).toContain("ok    rendering fails with KEDA and an OAuth audience (KEDA's scaler sends none)");
    expect(result.stdout).toContain('ok    promtool test rules deploy/prometheus/alerts.test.yaml');
    expect(result.stdout).toContain(
      "ok    dashboard: the rejected-calls panel links to Jaeger's traces of rejected calls (service, error tag); exemplars go to Jaeger",
    );
  }, 240_000);

  it('fails, naming the checks, when an alert rule, a panel description or the traces link is broken', () => {
    const copy = mkdtempSync(join(tmpdir(), 'check-deploy-'));
    scratch.push(copy);
    // The settings table is read through tsx from the copy's own sources, with the checkout's node_modules.
    for (const path of ['scripts/check-deploy.sh', 'scripts/settings.ts', 'helm', 'deploy', 'src', 'package.json', 'tsconfig.json']) {
      cpSync(join(ROOT, path), join(copy, path), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const alerts = join(copy, 'deploy/prometheus/alerts.yaml');
    writeFileSync(alerts, readFileSync(alerts, 'utf8').replace('> 0.05', '> 0.5'));
    const dashboardPath = join(copy, 'deploy/grafana/toolcall-normalizer.json');
    // The link searches for spans without the error tag: no longer the rejected calls.
    const dashboard = JSON.parse(readFileSync(dashboardPath, 'utf8').replace('error%3Dtrue', 'error%3Dfalse')) as {
      panels: { description?: string }[];
    };
    const [first] = dashboard.panels;
    if (first !== undefined) delete first.description;
    writeFileSync(dashboardPath, JSON.stringify(dashboard));

    const result = checkDeploy(copy);
    expect(result.status, explain(result)).toBe(1);
    expect(result.stdout).toMatch(/^check-deploy: \d+ passed, 3 failed$/m);
    expect(result.stdout).toContain('failed: promtool test rules deploy/prometheus/alerts.test.yaml');
    expect(result.stdout).toContain('failed: dashboard: JSON');
    expect(result.stdout).toContain('failed: dashboard: the rejected-calls panel links');
  }, 240_000);
});
