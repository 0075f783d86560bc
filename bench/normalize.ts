/**
 * `npm run bench:normalize`: `toolcall-normalizer normalize` over 200,000 calls (the bench corpus) as a process,
 * next to a plain Node.js process that reads the same file, `JSON.parse`s and `JSON.stringify`s each line and
 * writes it out (buffered, as normalize writes). Alternating rounds; wall-clock and CPU time (user + system) of
 * each process from /usr/bin/time, median of the rounds, and their ratio (goal: >= 0.65 by wall clock).
 *
 * Runs dist/cli.js: `npm run build` first (the script does). Sizes: BENCH_NORMALIZE_CALLS (200000),
 * BENCH_ROUNDS (5). BENCH_NORMALIZE_CLI runs another build's cli.js in place of this one; BENCH_NORMALIZE_BEFORE
 * times another build's cli.js beside it in the same alternating rounds (a before/after pair in one run).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCorpus } from './corpus.js';

const CALLS = Number(process.env.BENCH_NORMALIZE_CALLS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = process.env.BENCH_NORMALIZE_CLI ?? join(ROOT, 'dist', 'cli.js');
const BEFORE = process.env.BENCH_NORMALIZE_BEFORE;
const TOOLS = join(ROOT, 'examples', 'tools');

/** The plain pass: the same reading, splitting and buffered writing a careful hand-written filter would do. */
const PLAIN = `
const fs = require('node:fs');
const [input, output] = process.argv.slice(1);
const out = fs.openSync(output, 'w');
let rest = '';
let buffered = '';
const fd = fs.openSync(input, 'r');
const chunk = Buffer.alloc(1 << 16);
for (let n; (n = fs.readSync(fd, chunk)) > 0; ) {
  const lines = (rest + chunk.toString('utf8', 0, n)).split('\\n');
  rest = lines.pop();
  for (const line of lines) {
    buffered += JSON.stringify(JSON.parse(line)) + '\\n';
    if (buffered.length >= 65536) { fs.writeSync(out, buffered); buffered = ''; }
  }
}
if (rest !== '') buffered += JSON.stringify(JSON.parse(rest)) + '\\n';
fs.writeSync(out, buffered);
fs.closeSync(out);
`;

interface Timing {
  wall: number;
  cpu: number;
  rssMb: number;
}

function timed(args: string[]): Timing {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed (${String(result.status)}): ${result.stderr}`);
  const last = result.stderr.trim().split('\n').at(-1) ?? '';
  const [wall, user, system, rss] = last.split(' ').map(Number) as [number, number, number, number];
  return { wall, cpu: user + system, rssMb: rss / 1024 };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-normalize-'));
try {
  const input = join(dir, 'calls.jsonl');
  writeFileSync(input, `${makeCorpus(CALLS).join('\n')}\n`);
  const plainOut = join(dir, 'plain.jsonl');
  const oursOut = join(dir, 'normalized.jsonl');
  const plain = (): Timing => timed(['-e', PLAIN, input, plainOut]);
  const ours = (): Timing => timed([CLI, 'normalize', '--schemas', TOOLS, '--input', input, '--output', oursOut]);
  const beforeOut = join(dir, 'before.jsonl');
  const before = (cli: string): Timing => timed([cli, 'normalize', '--schemas', TOOLS, '--input', input, '--output', beforeOut]);
  // One untimed run of each: the file is in the page cache for both.
  plain();
  ours();
  const runs = { plain: [] as Timing[], ours: [] as Timing[], before: [] as Timing[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.plain.push(plain());
    runs.ours.push(ours());
    if (BEFORE !== undefined) runs.before.push(before(BEFORE));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const row = (name: string, ts: Timing[]): { wall: number; cpu: number } => {
    const wall = median(ts.map((t) => t.wall));
    const cpu = median(ts.map((t) => t.cpu));
    const rates = ts.map((t) => Math.round(CALLS / t.wall / 1000)).join(' / ');
    console.log(
      `${name.padEnd(24)} ${wall.toFixed(2)} s wall, ${cpu.toFixed(2)} s CPU, ` +
        `${Math.round(CALLS / wall).toLocaleString('en-US')} calls/s (rounds, k/s: ${rates}), ` +
        `peak RSS ${Math.round(median(ts.map((t) => t.rssMb)))} MB`,
    );
    return { wall, cpu };
  };
  const inMb = statSync(input).size / 1e6;
  console.log(`${CALLS.toLocaleString('en-US')} calls, ${inMb.toFixed(1)} MB in; ${ROUNDS} rounds alternating, median; ${CLI}`);
  const p = row('parse+stringify (node)', runs.plain);
  const o = row('normalize', runs.ours);
  if (BEFORE !== undefined) {
    const b = row('normalize (before)', runs.before);
    console.log(`before: ${BEFORE}; ratio (calls/s, normalize / before)   ${(b.wall / o.wall).toFixed(2)}`);
  }
  console.log(
    `output: ${(statSync(oursOut).size / 1e6).toFixed(1)} MB (normalize), ${(statSync(plainOut).size / 1e6).toFixed(1)} MB (plain)`,
  );
  console.log(`ratio (calls/s, normalize / plain)   ${(p.wall / o.wall).toFixed(2)}  (goal >= 0.65)`);
  console.log(`ratio (CPU, plain / normalize)       ${(p.cpu / o.cpu).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
