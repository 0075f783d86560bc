/**
 * The CLI keeps its modules' compiled code in the user's own cache directory, and runs the same without it:
 * where the directory cannot be written, where it is turned off, and where NODE_COMPILE_CACHE names another.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-compile-cache-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const CALL = '{"id":"c1","tool":"write_file","arguments":{"path":"a.txt","content":"Tom &amp; Jerry"}}\n';
const ARGS = ['normalize', '--schemas', join(ROOT, 'examples', 'tools')];

/** The environment without any compile-cache setting of the caller's, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  delete env.XDG_CACHE_HOME;
  return { ...env, ...extra };
}

const files = (path: string): string[] => (existsSync(path) ? readdirSync(path, { recursive: true }).map(String) : []);

describe('the module compile cache', () => {
  const reference = runCli(ARGS, CALL, envWith({ NODE_DISABLE_COMPILE_CACHE: '1', HOME: join(dir, 'no-home') }));

  it('writes nothing with NODE_DISABLE_COMPILE_CACHE=1, and the output is the reference', () => {
    expect(reference.status).toBe(0);
    expect(reference.stdout).toContain('"disposition":"normalized"');
    expect(files(join(dir, 'no-home'))).toEqual([]);
  });

  it('goes under $XDG_CACHE_HOME/toolcall-normalizer/compile-cache, with the same output, cold and warm', () => {
    const xdg = join(dir, 'xdg');
    for (let run = 0; run < 2; run++) {
      const result = runCli(ARGS, CALL, envWith({ XDG_CACHE_HOME: xdg }));
      expect(result).toEqual(reference);
    }
    expect(files(join(xdg, 'toolcall-normalizer', 'compile-cache')).length).toBeGreaterThan(0);
  });

  it('goes under ~/.cache when XDG_CACHE_HOME is empty or relative', () => {
    const home = join(dir, 'home');
    for (const xdg of ['', 'relative/cache']) {
      expect(runCli(ARGS, CALL, envWith({ XDG_CACHE_HOME: xdg, HOME: home }))).toEqual(reference);
    }
    expect(files(join(home, '.cache', 'toolcall-normalizer', 'compile-cache')).length).toBeGreaterThan(0);
  });

  it('leaves the directory to NODE_COMPILE_CACHE when it is set', () => {
    const chosen = join(dir, 'chosen');
    const xdg = join(dir, 'xdg-unused');
    expect(runCli(ARGS, CALL, envWith({ NODE_COMPILE_CACHE: chosen, XDG_CACHE_HOME: xdg }))).toEqual(reference);
    expect(files(chosen).length).toBeGreaterThan(0);
    expect(files(xdg)).toEqual([]);
  });

  it('runs the same, silently, where the directory cannot be made (a file in the way)', () => {
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, 'not a directory');
    expect(runCli(ARGS, CALL, envWith({ XDG_CACHE_HOME: blocked }))).toEqual(reference);
  });
});
