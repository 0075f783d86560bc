/**
 * What the Kubernetes tests share: kubectl and helm against the cluster of test/k8s/global-setup.ts (KUBECONFIG,
 * K8S_BIN), the chart's path, and a watch of every pod update of a namespace.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../integration/harness.js';
import { run, type DockerResult } from '../image/docker.js';

export const CHART = join(REPO_ROOT, 'helm', 'toolcall-normalizer');
export const env = (name: string): string => process.env[name] ?? '';

function helmBinary(): string {
  if (env('HELM') !== '') return env('HELM');
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).stdout.trim();
  return gopath === '' ? 'helm' : join(gopath, 'bin', 'helm');
}

export async function kubectl(args: readonly string[], timeoutMs = 120_000, input?: string): Promise<DockerResult> {
  const full = ['--kubeconfig', env('KUBECONFIG'), ...args];
  if (input === undefined) return run(join(env('K8S_BIN'), 'kubectl'), full, { timeoutMs });
  const result = spawnSync(join(env('K8S_BIN'), 'kubectl'), full, { input, encoding: 'utf8', timeout: timeoutMs });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export async function kubectlOk(args: readonly string[], timeoutMs = 120_000, input?: string): Promise<string> {
  const result = await kubectl(args, timeoutMs, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${String(result.code)}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

export async function helm(args: readonly string[], timeoutMs = 600_000): Promise<string> {
  const result = await run(helmBinary(), args, { timeoutMs, env: { ...process.env, KUBECONFIG: env('KUBECONFIG') } });
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${String(result.code)}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

interface PodRecord {
  name: string;
  deletion: string;
  grace: number;
  statuses: ContainerStatus[];
  /** Whether the worker container was ever created (kubelet gave it an id): a pod it never started has no exit to judge. */
  started: boolean;
}

export interface ContainerStatus {
  name: string;
  restartCount: number;
  ready: boolean;
  containerID?: string;
  state?: { running?: { startedAt?: string }; terminated?: { exitCode: number; reason?: string; finishedAt?: string } };
  lastState?: { terminated?: { exitCode: number; reason?: string; finishedAt?: string } };
}

/** The most of a pod's log a watch keeps: its last lines are what a failure needs. */
const POD_LOG_BYTES = 64 * 1024;

/**
 * Every update of every pod of a namespace, from `kubectl get pods -w -o json` (a poll could miss the last status),
 * and each pod's worker log from its start, kept after the pod is gone.
 */
export class PodWatch {
  readonly pods = new Map<string, PodRecord>();
  private readonly child: ChildProcess;
  private readonly namespace: string;
  private readonly followers = new Map<string, { child: ChildProcess; log: string }>();
  // The watch prints one indented JSON object per update: split them by brace depth, outside strings.
  private text = '';
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(namespace: string) {
    this.namespace = namespace;
    this.child = spawn(
      join(env('K8S_BIN'), 'kubectl'),
      ['--kubeconfig', env('KUBECONFIG'), 'get', 'pods', '-n', namespace, '-w', '-o', 'json'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    this.child.stdout?.on('data', (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) this.feed(char);
    });
  }

  private feed(char: string): void {
    if (this.depth === 0 && char !== '{') return;
    this.text += char;
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (char === '\\') this.escaped = true;
      else if (char === '"') this.inString = false;
      return;
    }
    if (char === '"') this.inString = true;
    else if (char === '{') this.depth += 1;
    else if (char === '}') {
      this.depth -= 1;
      if (this.depth === 0) {
        this.object(JSON.parse(this.text) as WatchedPod);
        this.text = '';
      }
    }
  }

  private object(pod: WatchedPod): void {
    const uid = pod.metadata?.uid ?? '';
    if (uid === '') return;
    const previous = this.pods.get(uid);
    const statuses = pod.status?.containerStatuses ?? [];
    this.pods.set(uid, {
      name: pod.metadata?.name ?? '',
      deletion: pod.metadata?.deletionTimestamp ?? previous?.deletion ?? '',
      grace: pod.spec?.terminationGracePeriodSeconds ?? 0,
      statuses: statuses.length > 0 ? statuses : (previous?.statuses ?? []),
      started: previous?.started === true || statuses.some((status) => status.name === 'worker' && status.containerID !== undefined),
    });
    const worker = statuses.find((status) => status.name === 'worker');
    if (worker?.containerID !== undefined && !this.followers.has(uid)) this.follow(uid, pod.metadata?.name ?? '');
  }

  private follow(uid: string, name: string): void {
    const child = spawn(
      join(env('K8S_BIN'), 'kubectl'),
      ['--kubeconfig', env('KUBECONFIG'), 'logs', '-f', '--timestamps', '-n', this.namespace, name, '-c', 'worker'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const follower = { child, log: '' };
    const append = (chunk: Buffer): void => {
      follower.log = (follower.log + chunk.toString('utf8')).slice(-POD_LOG_BYTES);
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    this.followers.set(uid, follower);
  }

  /** The worker log of every pod seen, by name, for a failed test. */
  logs(): string {
    return [...this.followers.entries()].map(([uid, { log }]) => `--- log of pod ${this.pods.get(uid)?.name ?? uid}\n${log}`).join('\n');
  }

  /** Uids of the pods not being deleted. */
  live(): string[] {
    return [...this.pods.entries()].filter(([, pod]) => pod.deletion === '').map(([uid]) => uid);
  }

  /** Pods deleted (rollout, scale-down, uninstall), of `uids` when given, and how their worker container ended. */
  terminated(
    uids?: readonly string[],
  ): { name: string; exitCode: number | undefined; reason: string; inGrace: boolean; started: boolean }[] {
    return [...this.pods.entries()]
      .filter(([uid, pod]) => pod.deletion !== '' && (uids === undefined || uids.includes(uid)))
      .map(([, pod]) => {
        const end = pod.statuses.find((s) => s.name === 'worker')?.state?.terminated;
        // deletionTimestamp is the moment of the delete plus the grace period: the kubelet's SIGKILL deadline.
        const inGrace = end?.finishedAt !== undefined && Date.parse(end.finishedAt) <= Date.parse(pod.deletion);
        return {
          name: pod.name,
          exitCode: end?.exitCode,
          reason: end?.reason ?? 'no terminated state seen',
          inGrace,
          started: pod.started,
        };
      });
  }

  stop(): void {
    this.child.kill('SIGTERM');
    for (const { child } of this.followers.values()) child.kill('SIGTERM');
  }
}

interface WatchedPod {
  metadata?: { uid?: string; name?: string; deletionTimestamp?: string };
  spec?: { terminationGracePeriodSeconds?: number };
  status?: { containerStatuses?: ContainerStatus[] };
}

/**
 * What KEDA saw and did for a namespace, for a failed wait: its pods (restarts), the ScaledObject's conditions, the
 * HPA's status, the namespace's events and the last lines of the operator's log (and of its previous container).
 */
export async function kedaDiagnostics(namespace: string): Promise<string> {
  const sections: [string, string[]][] = [
    ['KEDA pods', ['get', 'pods', '-n', 'keda', '-o', 'wide']],
    ['ScaledObjects', ['get', 'scaledobject', '-n', namespace, '-o', 'yaml']],
    ['HPAs', ['get', 'hpa', '-n', namespace, '-o', 'yaml']],
    ['events', ['get', 'events', '-n', namespace, '--sort-by=.lastTimestamp']],
    ['operator log', ['logs', '-n', 'keda', 'deployment/keda-operator', '--tail=400']],
    ['previous operator log', ['logs', '-n', 'keda', 'deployment/keda-operator', '--previous', '--tail=50']],
    ['metrics API server log', ['logs', '-n', 'keda', 'deployment/keda-metrics-apiserver', '--tail=30']],
  ];
  const parts = await Promise.all(
    sections.map(async ([title, args]) => {
      const result = await kubectl(args, 30_000);
      return `--- ${title} (kubectl ${args.join(' ')}, exit ${String(result.code)})\n${result.stdout}${result.stderr}`;
    }),
  );
  return parts.join('\n');
}
