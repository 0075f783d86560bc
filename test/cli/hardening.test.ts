/**
 * The built CLI on bad files and pipes, and on hostile names: every I/O failure is one line on stderr and the
 * documented exit status, never a Node.js stack trace; one bad definition file never stops the other tools;
 * symbolic links are followed as Kubernetes mounts them; text meant for a terminal is escaped.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './run-cli.js';

const CLI = join(ROOT, 'dist', 'cli.js');
const TOOLS = join(ROOT, 'examples', 'tools');
const CALL = readFileSync(join(ROOT, 'examples', 'calls.jsonl'), 'utf8').split('\n')[0] ?? '';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'tcn-hardening-'));
}

/** A file of many calls: more output than a pipe holds, so a reader that leaves early breaks the pipe. */
function manyCalls(): string {
  const file = join(scratch(), 'calls.jsonl');
  writeFileSync(file, `${CALL}\n`.repeat(20_000));
  return file;
}

/** One message line, no stack trace. */
function expectOneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/^\s+at /m);
}

/** Runs the CLI with stdout on /dev/full. */
function toFullDisk(args: readonly string[]): { status: number | null; stderr: string } {
  const full = openSync('/dev/full', 'w');
  try {
    const result = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
    return { status: result.status, stderr: result.stderr };
  } finally {
    closeSync(full);
  }
}

describe('I/O failures', () => {
  it('normalize | head -1: quiet, ends as a filter killed by SIGPIPE does', () => {
    const result = spawnSync(
      'bash',
      [
        '-c',
        'node "$0" normalize --schemas "$1" --input "$2" | head -1 >/dev/null; echo "status=${PIPESTATUS[0]}"',
        CLI,
        TOOLS,
        manyCalls(),
      ],
      { encoding: 'utf8', env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}` } },
    );
    expect(result.stdout.trim()).toBe('status=141');
    expect(result.stderr).toBe('');
  });

  it('--output into a missing directory: one line, exit 1, before reading any input', () => {
    const result = runCli(['normalize', '--schemas', TOOLS, '--output', join(scratch(), 'missing', 'out.jsonl')], `${CALL}\n`);
    expect(result.status).toBe(1);
    expectOneLine(result.stderr, /^toolcall-normalizer: cannot write --output ".*out\.jsonl": no such file or directory \(ENOENT\)$/);
  });

  it('--output on a full disk: one line, exit 1', () => {
    const result = runCli(['normalize', '--schemas', TOOLS, '--input', manyCalls(), '--output', '/dev/full']);
    expect(result.status).toBe(1);
    expectOneLine(result.stderr, /^toolcall-normalizer: cannot write --output "\/dev\/full": no space left on device \(ENOSPC\)$/);
  });

  it.each([
    ['normalize', ['normalize', '--schemas', TOOLS, '--input', join(ROOT, 'examples', 'calls.jsonl')]],
    ['replay', ['replay', '--schemas', TOOLS, '--golden', join(ROOT, 'examples', 'golden.jsonl')]],
    ['audit', ['audit', join(ROOT, 'test', 'fixtures', 'audit', 'real')]],
    ['help', ['help']],
  ])('%s with stdout on a full disk: one line, exit 1', (_name, args) => {
    const result = toFullDisk(args);
    expect(result.status).toBe(1);
    expectOneLine(result.stderr, /^toolcall-normalizer: cannot write to standard output: no space left on device \(ENOSPC\)$/);
  });

  it('an input that fails while read: one line, exit 1', () => {
    // Opening /proc/self/mem succeeds; reading its first page fails with EIO.
    const result = runCli(['normalize', '--schemas', TOOLS, '--input', '/proc/self/mem']);
    expect(result.status).toBe(1);
    expectOneLine(result.stderr, /^toolcall-normalizer: cannot read --input "\/proc\/self\/mem": i\/o error \(EIO\)$/);
  });

  it('an input that cannot be opened: a usage error naming the reason, exit 2', () => {
    const dir = scratch();
    symlinkSync('b', join(dir, 'a'));
    symlinkSync('a', join(dir, 'b'));
    const result = runCli(['normalize', '--schemas', TOOLS, '--input', join(dir, 'a')]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^toolcall-normalizer: --input: ".*" is not a readable file \(too many symbolic links encountered \(ELOOP\)\)\n/,
    );
  });

  it('audit --update-baseline into a missing directory: one line, exit 1', () => {
    const result = runCli(['audit', TOOLS, '--baseline', join(scratch(), 'missing', 'b.json'), '--update-baseline']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^toolcall-normalizer: cannot write --baseline ".*b\.json": no such file or directory \(ENOENT\)$/m);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it("run's start-up with its metrics port taken: one line, exit 1", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const result = runCli(['run'], '', {
        PATH: process.env.PATH,
        KAFKA_BROKERS: '127.0.0.1:1',
        SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
        METRICS_PORT: String(port),
        LOG_LEVEL: 'silent',
      });
      expect(result.status).toBe(1);
      expectOneLine(result.stderr, /EADDRINUSE/);
    } finally {
      server.close();
    }
  });
});

describe('run: a signal while it starts', () => {
  /** A server that accepts connections and never answers: the start-up waits on it. */
  async function silentServer(): Promise<{ port: number; close: () => void }> {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    return { port: typeof address === 'object' && address !== null ? address.port : 0, close: () => silent.close() };
  }

  /** Starts `run`, sends SIGTERM once it logged that it starts, and says how it ended. */
  async function stopWhileStarting(
    env: Readonly<Record<string, string>>,
  ): Promise<{ code: number | null; signal: string | null; tookMs: number; stdout: string }> {
    const child = spawn(process.execPath, [CLI, 'run'], {
      env: { PATH: process.env.PATH, METRICS_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let sent = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (sent === 0 && stdout.includes('"msg":"starting"')) {
        sent = Date.now();
        child.kill('SIGTERM');
      }
    });
    const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (exitCode, exitSignal) => {
        resolve({ code: exitCode, signal: exitSignal });
      }),
    );
    return { code, signal, tookMs: sent === 0 ? Number.NaN : Date.now() - sent, stdout };
  }

  it('SIGTERM before the worker is in its group: exit 0 within seconds, not at the end of the shutdown bound', async () => {
    const broker = await silentServer();
    try {
      const ended = await stopWhileStarting({
        KAFKA_BROKERS: `127.0.0.1:${String(broker.port)}`,
        SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
      });
      expect({ code: ended.code, signal: ended.signal }, ended.stdout).toEqual({ code: 0, signal: null });
      expect(ended.tookMs).toBeLessThan(5_000);
      // Through the worker's shutdown, or before the connection settled if the signal came first.
      expect(ended.stdout).toMatch(/"msg":"stopped( while connecting)?"/);
    } finally {
      broker.close();
    }
  });

  it('SIGTERM while the OAuth token is still asked for: exit 0 at once, not when the request times out', async () => {
    const idp = await silentServer();
    const dir = scratch();
    const secret = join(dir, 'client-secret');
    writeFileSync(secret, 'not-a-real-secret\n');
    const ended = await stopWhileStarting({
      KAFKA_BROKERS: '127.0.0.1:1',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      KAFKA_OAUTH_TOKEN_URL: `http://127.0.0.1:${String(idp.port)}/token`,
      KAFKA_OAUTH_CLIENT_ID: 'tcn-worker',
      KAFKA_OAUTH_CLIENT_SECRET_FILE: secret,
    }).finally(() => {
      idp.close();
    });
    expect({ code: ended.code, signal: ended.signal }, ended.stdout).toEqual({ code: 0, signal: null });
    expect(ended.tookMs).toBeLessThan(5_000);
    expect(ended.stdout).toContain('"msg":"stopped while connecting"');
    expect(ended.stdout).not.toContain('not-a-real-secret');
  });
});

describe('definition files', () => {
  const search = readFileSync(join(TOOLS, 'search_issues.json'), 'utf8');
  const call = JSON.stringify({ tool: 'search_issues', arguments: { query: 'x' } });

  function normalizeWith(dir: string): { status: number | null; stderr: string; valid: unknown } {
    const result = runCli(['normalize', '--schemas', dir], `${call}\n`);
    const record = JSON.parse(result.stdout.split('\n')[0] ?? 'null') as { valid?: unknown } | null;
    return { status: result.status, stderr: result.stderr, valid: record?.valid };
  }

  it('one bad file of each kind never stops the other tools; each is reported by name', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'search_issues.json'), search);
    writeFileSync(join(dir, 'not_json.json'), '{"name": ');
    writeFileSync(join(dir, 'not_utf8.json'), Buffer.from([0x7b, 0xff, 0x7d]));
    writeFileSync(join(dir, 'bad_schema.json'), JSON.stringify({ type: 'object', properties: { a: { type: 'nope' } } }));
    mkdirSync(join(dir, 'a_directory.json'));
    symlinkSync('loop_b.json', join(dir, 'loop_a.json'));
    symlinkSync('loop_a.json', join(dir, 'loop_b.json'));
    symlinkSync('nowhere.json', join(dir, 'dangling.json'));
    symlinkSync(join(TOOLS, 'transfer_funds.json'), join(dir, 'outside.json'));
    const result = normalizeWith(dir);
    expect(result.status).toBe(0);
    expect(result.valid).toBe(true);
    for (const [file, why] of [
      ['not_json.json', /not JSON/],
      ['not_utf8.json', /not UTF-8/],
      ['bad_schema.json', /./],
      ['a_directory.json', /not a regular file/],
      ['loop_a.json', /loop of symbolic links: refused/],
      ['loop_b.json', /loop of symbolic links: refused/],
      ['dangling.json', /symbolic link to nothing/],
      ['outside.json', /links out of the directory .*: refused/],
    ] as const) {
      const line = result.stderr.split('\n').find((l) => l.startsWith(`toolcall-normalizer: schemas: ${file}: `));
      expect(line, `${file} in:\n${result.stderr}`).toMatch(why);
    }
  });

  // Root reads every file whatever its mode; the cases above take the same path.
  it.skipIf(process.getuid?.() === 0)('an unreadable file is reported and the others keep working', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'search_issues.json'), search);
    writeFileSync(join(dir, 'secret.json'), '{}', { mode: 0o000 });
    const result = normalizeWith(dir);
    expect(result.valid).toBe(true);
    expect(result.stderr).toMatch(/secret\.json: cannot be read: permission denied/);
  });

  it('a Kubernetes ConfigMap mount (every file a symlink through ..data) is read', () => {
    const dir = scratch();
    const stamp = '..2026_12_01_22_00_00.000000001';
    mkdirSync(join(dir, stamp));
    writeFileSync(join(dir, stamp, 'search_issues.json'), search);
    symlinkSync(stamp, join(dir, '..data'));
    symlinkSync(join('..data', 'search_issues.json'), join(dir, 'search_issues.json'));
    const result = normalizeWith(dir);
    expect(result.stderr).toBe('');
    expect(result.valid).toBe(true);
  });

  it('a UTF-8 byte order mark is accepted, as records accept one', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'search_issues.json'), `\uFEFF${search}`);
    const result = normalizeWith(dir);
    expect(result.stderr).toBe('');
    expect(result.valid).toBe(true);
  });
});

describe('text for a terminal is escaped', () => {
  const hostile = 'evil\nPASS  forged (line 1)\u001b[31m';

  it('replay: a newline in a tool name forges no PASS line, no escape sequence reaches the terminal', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'evil.json'), JSON.stringify({ name: hostile, inputSchema: { type: 'object' } }));
    const golden = join(dir, 'golden.jsonl');
    writeFileSync(golden, `${JSON.stringify({ name: hostile, call: { tool: hostile, arguments: { a: 1 } }, expect: { valid: false } })}\n`);
    const result = runCli(['replay', '--schemas', dir, '--golden', golden]);
    expect(result.status).toBe(1);
    expect(result.stdout).not.toMatch(/^PASS/m);
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).toContain('evil\\nPASS  forged (line 1)\\x1b[31m');
    // --json stays JSON: the name as it is, once parsed.
    const json = JSON.parse(runCli(['replay', '--schemas', dir, '--golden', golden, '--json']).stdout) as { cases: { name: string }[] };
    expect(json.cases[0]?.name).toBe(hostile);
  });

  it('audit: a hostile tool name forges no table row', () => {
    const dir = scratch();
    writeFileSync(
      join(dir, 'evil.json'),
      JSON.stringify({
        name: hostile,
        description: 'Query.',
        inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: 3 } } },
      }),
    );
    const result = runCli(['audit', dir]);
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).not.toMatch(/^PASS/m);
    expect(result.stdout).toContain('evil\\nPASS');
  });

  it('stderr: a file name and a parser snippet with control characters are escaped', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'search_issues.json'), readFileSync(join(TOOLS, 'search_issues.json')));
    writeFileSync(join(dir, '\u001b[2Jbad.json'), '{"a": \u001b[31m}');
    const result = runCli(['normalize', '--schemas', dir], '');
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).toContain('\\x1b[2Jbad.json');
    expect(result.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
  });
});
