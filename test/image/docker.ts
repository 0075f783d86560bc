/**
 * Docker helpers for the tests that run images (test/image, test/compose): whether an engine answers, running
 * the docker CLI asynchronously (the test's event loop keeps going meanwhile), and the offline images of
 * `npm run images`.
 *
 * Without an engine these tests skip, saying why; under CI (CI=true) a missing engine fails them instead, since
 * .ci/run starts one (scripts/docker-engine.sh) and a skip there would hide that the images were never run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../integration/harness.js';

export interface DockerResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `docker ARGS`; never throws on a non-zero exit (the caller asserts on the result). */
export async function docker(
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<DockerResult> {
  return run('docker', args, options);
}

/** Runs `docker ARGS` and returns its stdout; throws with both outputs when it fails. */
export async function dockerOk(
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<string> {
  const result = await docker(args, options);
  if (result.code !== 0)
    throw new Error(`docker ${args.join(' ')} failed (status ${String(result.code)}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

export async function run(
  command: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<DockerResult> {
  const child = spawn(command, [...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const code = await new Promise<number | null>((resolve) => {
    child.once('close', (c) => {
      resolve(c);
    });
    child.once('error', (error) => {
      err.push(Buffer.from(String(error)));
      resolve(null);
    });
  }).finally(() => {
    clearTimeout(timer);
  });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

export interface Engine {
  readonly available: boolean;
  /** Why the tests skip, when no engine answers. */
  readonly reason: string;
}

/** Whether a Docker engine answers; checked once per test file, synchronously (describe.skipIf needs it at load). */
export function dockerEngine(): Engine {
  const probe = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 15_000 });
  if (probe.status === 0) return { available: true, reason: '' };
  const why =
    probe.error !== undefined
      ? `the docker CLI could not run (${probe.error.message})`
      : (probe.stderr.trim().split('\n').pop() ?? 'docker info failed');
  return {
    available: false,
    reason: `no Docker engine answers: ${why}. \`bash scripts/docker-engine.sh\` starts one (root; apt-get install docker.io first).`,
  };
}

/**
 * The engine for a test file that needs it: outside CI, a missing engine makes the file skip with a stated
 * reason (printed once); under CI it throws, so the file fails.
 */
export function engineOrSkip(file: string): boolean {
  const engine = dockerEngine();
  if (engine.available) return true;
  if (process.env.CI === 'true') throw new Error(`${file}: ${engine.reason} CI must run these tests, so this fails instead of skipping.`);
  process.stderr.write(`${file}: skipped: ${engine.reason}\n`);
  return false;
}

/**
 * The image `npm run images` prints as NAME (e.g. WORKER_IMAGE): the environment's value when set (CI exports
 * them), else built or found by `bash scripts/images.sh` with IMAGES_ONLY=`only` (seconds when nothing changed).
 */
export async function offlineImages(names: readonly string[], only: string): Promise<Record<string, string>> {
  const fromEnv = Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n]]] : []))) as Record<string, string>;
  if (Object.keys(fromEnv).length === names.length) return fromEnv;
  const result = await run('bash', [join(REPO_ROOT, 'scripts', 'images.sh')], {
    env: { ...process.env, IMAGES_ONLY: only },
    timeoutMs: 1_200_000,
  });
  if (result.code !== 0)
    throw new Error(`bash scripts/images.sh failed (status ${String(result.code)}):\n${result.stderr.split('\n').slice(-30).join('\n')}`);
  const built: Record<string, string> = {};
  for (const line of result.stdout.split('\n')) {
    const match = /^([A-Z_]+)=(\S+)$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) built[match[1]] = match[2];
  }
  const images: Record<string, string> = {};
  for (const name of names) {
    const image = fromEnv[name] ?? built[name];
    if (image === undefined) throw new Error(`scripts/images.sh printed no ${name}= line:\n${result.stdout}`);
    images[name] = image;
  }
  return images;
}
