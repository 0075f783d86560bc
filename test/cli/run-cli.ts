/** The built CLI (dist/cli.js, which `npm test` builds first) run in a child process, as a user runs it. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/cli/run-cli.ts). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `toolcall-normalizer <args>` with `input` on stdin, to completion; `env` replaces the environment. */
export function runCli(args: readonly string[], input = '', env?: NodeJS.ProcessEnv): CliResult {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
  const result = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', maxBuffer: 64 << 20, env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
