/**
 * `npm run bench`: the core path (decode, normalize, validate, serialize) next to plain JSON.parse +
 * JSON.stringify of the same records, in one run, alternating rounds so both see the same machine state.
 * Prints calls per second for each, and their ratio (goal: >= 0.8).
 */
import { fileURLToPath } from 'node:url';
import { loadSchemaDir } from '../src/adapters/schema-dir.js';
import { processCall, readCall, unreadableRecord, DEFAULT_PIPELINE_OPTIONS } from '../src/core/pipeline.js';
import { parseRecordText } from '../src/core/record.js';
import { createSchemaCompiler } from '../src/core/validate.js';
import { makeCorpus } from './corpus.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const toolsDir = fileURLToPath(new URL('../examples/tools', import.meta.url));
const { tools } = await loadSchemaDir(toolsDir, createSchemaCompiler());
const corpus = makeCorpus(CALLS);
let sink = 0;

function baseline(): void {
  for (const line of corpus) sink += JSON.stringify(JSON.parse(line)).length;
}

function pipeline(): void {
  for (const line of corpus) {
    const parsed = parseRecordText(line);
    let out;
    if (!parsed.ok) out = unreadableRecord(parsed.error);
    else {
      const read = readCall(parsed.value);
      out = read.ok ? processCall(read.call, tools.get(read.call.tool), DEFAULT_PIPELINE_OPTIONS) : unreadableRecord(read.error);
    }
    sink += JSON.stringify(out).length;
  }
}

function timeOnce(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

// Warm up both paths (JIT, ajv's compiled validators) before measuring.
baseline();
pipeline();
const rates = { baseline: [] as number[], pipeline: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  rates.baseline.push(CALLS / timeOnce(baseline));
  rates.pipeline.push(CALLS / timeOnce(pipeline));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const base = median(rates.baseline);
const ours = median(rates.pipeline);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`corpus: ${CALLS} calls (6 envelopes, ~half repairable, ~2.5% invalid), ${ROUNDS} rounds, median`);
console.log(`parse+stringify             ${fmt(base)} calls/s`);
console.log(`decode+normalize+validate   ${fmt(ours)} calls/s`);
console.log(`ratio                       ${(ours / base).toFixed(2)}  (goal >= 0.80)`);
if (sink === 0) console.log('');
