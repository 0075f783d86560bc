/**
 * Before the Kubernetes tests (vitest project `k8s`): a real single-node cluster (scripts/k8s.sh up) with the
 * worker image of `npm run images` in its containerd, and a broker and registry the pods reach: the local stack
 * started on the cluster's node address (scripts/stack.sh with STACK_HOST=K8S_HOST_IP and a state dir of its own).
 * Both are torn down again when the tests end, unless K8S_KEEP=1.
 *
 * KUBECONFIG, K8S_BIN, K8S_HOST_IP, K8S_CONTAINERD_ADDRESS, KAFKA_BROKERS and SCHEMA_REGISTRY_URL all set: those are
 * used and nothing is started. A machine that cannot run the cluster (not root, no cgroups, no containerd, ...):
 * under CI=true this fails with the script's line; elsewhere K8S_SKIP carries it and the tests skip, saying why.
 * Ports of this stack (on the node address, so they never clash with a stack on loopback): K8S_KAFKA_PORT=19192,
 * K8S_KAFKA_CONTROLLER_PORT=19193, K8S_REGISTRY_PORT=18181, K8S_REGISTRY_MANAGEMENT_PORT=19100.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const say = (line: string): void => {
  process.stderr.write(`k8s-setup: ${line}\n`);
};

const script = (name: string): string => fileURLToPath(new URL(`../../scripts/${name}`, import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

function bash(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): SpawnSyncReturns<string> {
  return spawnSync('bash', args, { cwd: REPO, env, encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'inherit'] });
}

function exportLines(stdout: string): void {
  for (const line of stdout.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) process.env[match[1]] = match[2];
  }
}

const GIVEN = ['KUBECONFIG', 'K8S_BIN', 'K8S_HOST_IP', 'K8S_CONTAINERD_ADDRESS', 'KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL'];

export default function setup(): (() => void) | undefined {
  if (GIVEN.every((name) => (process.env[name] ?? '') !== '')) return undefined;
  const check = spawnSync('bash', [script('k8s.sh'), 'check'], { encoding: 'utf8', timeout: 30_000 });
  if (check.status !== 0) {
    const why = (check.stderr.trim() || `scripts/k8s.sh check exited ${String(check.status)}`).split('\n')[0] ?? '';
    if (process.env.CI === 'true') throw new Error(`${why} (CI=true: the Kubernetes tests fail rather than skip)`);
    process.env.K8S_SKIP = why;
    say(`skipping: ${why}`);
    return undefined;
  }
  if ((process.env.WORKER_IMAGE ?? '') === '') {
    say('WORKER_IMAGE unset: building or reusing it with scripts/images.sh (IMAGES_ONLY=worker)');
    const images = bash([script('images.sh')], { ...process.env, IMAGES_ONLY: 'worker' }, 1_800_000);
    if (images.status !== 0) throw new Error(`scripts/images.sh failed (status ${String(images.status)})`);
    exportLines(images.stdout);
  }
  const started = Date.now();
  const up = bash([script('k8s.sh'), 'up'], process.env, 3_600_000);
  if (up.status !== 0) {
    bash([script('k8s.sh'), 'down'], process.env, 300_000);
    throw new Error(`scripts/k8s.sh up failed (status ${String(up.status)}; its last lines are above)`);
  }
  exportLines(up.stdout);
  say(`cluster up in ${String(Math.round((Date.now() - started) / 1000))}s: KUBECONFIG=${process.env.KUBECONFIG ?? ''}`);
  const stackEnv: NodeJS.ProcessEnv = {
    ...process.env,
    STACK_HOST: process.env.K8S_HOST_IP,
    STACK_STATE_DIR: `${REPO}/.stack-k8s`,
    KAFKA_PORT: process.env.K8S_KAFKA_PORT ?? '19192',
    KAFKA_CONTROLLER_PORT: process.env.K8S_KAFKA_CONTROLLER_PORT ?? '19193',
    REGISTRY_PORT: process.env.K8S_REGISTRY_PORT ?? '18181',
    REGISTRY_MANAGEMENT_PORT: process.env.K8S_REGISTRY_MANAGEMENT_PORT ?? '19100',
    KAFKA_SECURITY: '',
  };
  const down = (): void => {
    if (process.env.K8S_KEEP === '1') {
      say('K8S_KEEP=1: leaving the cluster and its stack running (scripts/k8s.sh down; STACK_STATE_DIR=.stack-k8s scripts/stack.sh down)');
      return;
    }
    bash([script('stack.sh'), 'down'], stackEnv, 300_000);
    bash([script('k8s.sh'), 'down'], process.env, 300_000);
  };
  const stack = bash([script('stack.sh'), 'up'], stackEnv, 600_000);
  if (stack.status !== 0) {
    down();
    throw new Error(`scripts/stack.sh up on ${process.env.K8S_HOST_IP ?? ''} failed (status ${String(stack.status)})`);
  }
  exportLines(stack.stdout);
  say(`stack for the pods: KAFKA_BROKERS=${process.env.KAFKA_BROKERS ?? ''} SCHEMA_REGISTRY_URL=${process.env.SCHEMA_REGISTRY_URL ?? ''}`);
  return down;
}
