/**
 * `scripts/k8s.sh down` after an `up` that failed partway leaves nothing behind. The `up` is made to fail at its
 * last steps (WORKER_IMAGE names an image the Docker engine lacks, so the import fails after every component has
 * started); a pod is then run on the half-made cluster so that everything `down` must undo exists: processes, the
 * bridges and a veth, a network namespace, KUBE-/CNI- iptables chains, mounts and kubepods cgroups.
 *
 * Its own vitest project (`k8s-down`, asked for by name, run by .ci/run before `k8s`): it brings up and removes a
 * cluster of its own (own state dir, bridges and addresses), and one machine runs one cluster at a time, so it
 * refuses to start while another kube-apiserver runs. A machine that cannot run the cluster: skipped, saying why;
 * under CI=true it fails instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, REPO_ROOT, RUN_ID } from '../integration/harness.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'k8s.sh');
const STATE = join(REPO_ROOT, '.k8s-down');
const BRIDGE = 'tcnd0';
const SVC_BRIDGE = 'tcndsvc0';
const CLUSTER_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  K8S_STATE_DIR: STATE,
  K8S_BRIDGE: BRIDGE,
  K8S_SVC_BRIDGE: SVC_BRIDGE,
  K8S_POD_CIDR: '10.244.8.0/24',
  K8S_HOST_IP: '10.244.8.1',
  K8S_SERVICE_CIDR: '10.96.8.0/24',
  // The step that breaks: importing an image the Docker engine does not have.
  WORKER_IMAGE: `toolcall-normalizer-worker:absent-${RUN_ID}`,
};

function sh(command: string, args: readonly string[], timeoutMs = 60_000): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, [...args], { env: CLUSTER_ENV, encoding: 'utf8', timeout: timeoutMs, cwd: REPO_ROOT });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function skipReason(): string {
  const check = sh('bash', [SCRIPT, 'check']);
  if (check.code === 0) return '';
  const why = check.stderr.trim().split('\n')[0] ?? `scripts/k8s.sh check exited ${String(check.code)}`;
  if (process.env.CI === 'true') throw new Error(`${why} (CI=true: the Kubernetes tests fail rather than skip)`);
  return why;
}

const SKIP = skipReason();
if (SKIP !== '') process.stderr.write(`test/k8s-down: skipped: ${SKIP}\n`);

/** What a cluster leaves on the machine, each as a sorted list of names. */
interface Traces {
  links: string[];
  netns: string[];
  chains: string[];
  mounts: string[];
  cgroups: string[];
  processes: string[];
}

function traces(): Traces {
  const links = sh('ip', ['-o', 'link', 'show'])
    .stdout.split('\n')
    .map((line) => /^\d+: ([^:@]+)/.exec(line)?.[1] ?? '')
    .filter((name) => name !== '');
  const netns = existsSync('/var/run/netns') ? readdirSync('/var/run/netns').filter((n) => n.startsWith('cni-')) : [];
  const chains = ['filter', 'nat', 'mangle', 'raw'].flatMap((table) =>
    sh('iptables', ['-t', table, '-S'])
      .stdout.split('\n')
      .map((line) => /^-N ((?:KUBE-|CNI-)\S+)/.exec(line)?.[1])
      .filter((chain) => chain !== undefined)
      .map((chain) => `${table}/${chain}`),
  );
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((point) => point.startsWith(STATE) || /^\/(var\/)?run\/netns\/cni-/.test(point));
  const cgroups = readdirSync('/sys/fs/cgroup')
    .map((controller) => join('/sys/fs/cgroup', controller, 'kubepods'))
    .filter((dir) => existsSync(dir));
  // Processes whose command line names the cluster's state dir: its components, containerd and the shims.
  const processes = readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(STATE);
      } catch {
        return false;
      }
    });
  const sorted = (list: string[]): string[] => [...new Set(list)].sort();
  return {
    links: sorted(links),
    netns: sorted(netns),
    chains: sorted(chains),
    mounts: sorted(mounts),
    cgroups: sorted(cgroups),
    processes: sorted(processes),
  };
}

const alive = (pid: string): boolean => existsSync(`/proc/${pid}`);

describe.skipIf(SKIP !== '')('scripts/k8s.sh down after a failed up', () => {
  it('removes every process, bridge, network namespace, iptables chain, mount and cgroup the half-made cluster had', async () => {
    const others = sh('pgrep', ['-x', 'kube-apiserver']).stdout.trim();
    if (others !== '') throw new Error(`another cluster runs (kube-apiserver pid ${others}): one cluster per machine`);
    const before = traces();
    expect(before.processes).toEqual([]);

    const up = sh('bash', [SCRIPT, 'up'], 3_600_000);
    try {
      expect(up.code, up.stderr).not.toBe(0);
      expect(up.stderr).toMatch(/k8s: ERROR: WORKER_IMAGE toolcall-normalizer-worker:absent-\S+ is not in the Docker engine/);
      expect(up.stdout).not.toMatch(/^KUBECONFIG=/m);

      // The components it started keep running: let the node come up and run a pod on it.
      const bin = sh('bash', [SCRIPT, 'build'])
        .stdout.replace(/^K8S_BIN=/, '')
        .trim();
      const kubectl = (args: string[]): { code: number | null; stdout: string; stderr: string } =>
        sh(join(bin, 'kubectl'), ['--kubeconfig', join(STATE, 'admin.conf'), ...args], 120_000);
      await eventually(
        () => Promise.resolve(kubectl(['wait', '--for=condition=Ready', 'node/tcn-node', '--timeout=5s']).code === 0),
        'node Ready',
        120_000,
      );
      await eventually(
        () => Promise.resolve(kubectl(['get', 'serviceaccount', 'default']).code === 0),
        'the default service account',
        120_000,
      );
      const pod = kubectl(['run', 'pause', '--image=registry.k8s.io/pause:3.10', '--image-pull-policy=Never', '--restart=Never']);
      expect(pod.code, pod.stderr).toBe(0);
      const ready = kubectl(['wait', '--for=condition=Ready', 'pod/pause', '--timeout=120s']);
      expect(ready.code, ready.stderr).toBe(0);
      // kube-proxy writes its chains on its first sync.
      await eventually(() => Promise.resolve(traces().chains.some((c) => c === 'nat/KUBE-SERVICES')), 'KUBE-SERVICES', 60_000);
    } finally {
      const during = traces();
      const down = sh('bash', [SCRIPT, 'down'], 300_000);
      const after = traces();

      expect(down.code, down.stderr).toBe(0);
      // Each kind of trace existed before down, so each check below can fail.
      expect(during.processes.length, 'processes of the failed up').toBeGreaterThanOrEqual(7);
      expect(during.links).toEqual(expect.arrayContaining([BRIDGE, SVC_BRIDGE]));
      expect(
        during.links.filter((l) => !before.links.includes(l)).some((l) => l.startsWith('veth')),
        'a pod veth',
      ).toBe(true);
      expect(during.netns.filter((n) => !before.netns.includes(n)).length, 'a pod network namespace').toBeGreaterThan(0);
      expect(during.chains).toEqual(expect.arrayContaining(['nat/KUBE-SERVICES', 'nat/KUBE-POSTROUTING']));
      expect(
        during.mounts.some((m) => m.startsWith(STATE)),
        'mounts under the state dir',
      ).toBe(true);
      expect(during.cgroups.length, 'kubepods cgroups').toBeGreaterThan(0);

      expect(during.processes.filter(alive), 'processes left').toEqual([]);
      expect(after.processes).toEqual([]);
      expect(
        after.links.filter((l) => !before.links.includes(l)),
        'links left',
      ).toEqual([]);
      expect(
        after.netns.filter((n) => !before.netns.includes(n)),
        'network namespaces left',
      ).toEqual([]);
      expect(after.chains, 'iptables chains').toEqual(before.chains);
      expect(after.mounts, 'mounts left').toEqual([]);
      expect(after.cgroups, 'kubepods cgroups left').toEqual(before.cgroups);
      expect(existsSync(STATE), `${STATE} removed`).toBe(false);
    }
  }, 3_900_000);
});
