/**
 * The command (package.json `bin`, dist/cli.js, as the image runs it) on a Node.js older than `engines.node`: one line naming the version
 * it needs, exit 1, no stack trace. Run with each older node this machine has (`/usr/bin/node`, Node.js 20 on this
 * kind of machine); on the current one it runs the CLI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './run-cli.js';

const BIN = join(
  ROOT,
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['toolcall-normalizer'] ?? '',
);
const MINIMUM = '24.11.0';

/** Node.js binaries on this machine other than the one running the tests, with their versions. */
function otherNodes(): { path: string; version: string }[] {
  const found = new Map<string, string>();
  for (const path of ['/usr/bin/node', '/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const result = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const version = result.stdout.trim();
    if (result.status === 0 && version !== process.versions.node) found.set(version, path);
  }
  return [...found].map(([version, path]) => ({ path, version }));
}

const older = otherNodes().filter(({ version }) => Number(version.split('.')[0]) < 24);

describe('the command on an unsupported Node.js', () => {
  it('package.json names dist/cli.js, and engines.node starts at the version the message names', () => {
    expect(BIN).toBe(join(ROOT, 'dist', 'cli.js'));
    expect((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node).toBe(
      `^${MINIMUM}`,
    );
  });

  it.runIf(older.length > 0).each(older)(
    'on Node.js $version ($path): one line naming the version it needs, exit 1',
    ({ path, version }) => {
      const result = spawnSync(path, [BIN, 'normalize', '--schemas', join(ROOT, 'examples', 'tools')], { input: '{}\n', encoding: 'utf8' });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `toolcall-normalizer: needs Node.js ${MINIMUM} or later (package.json engines), and this is Node.js ${version}\n`,
      );
    },
  );

  it('on this Node.js it runs the CLI', () => {
    const result = spawnSync(process.execPath, [BIN, 'help'], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: toolcall-normalizer <command>/);
  });
});
