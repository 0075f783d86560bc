/**
 * `npm run bench`: the core path (decode, normalize, validate, serialize) next to plain JSON.parse +
 * JSON.stringify of the same records, in one run, alternating rounds so both see the same machine state.
 * Prints calls per second for each, and their ratio (goal: >= 0.8).
 */
import { fileURLToPath } from 'node:url';
import { loadSchemaDir } from '../src/adapters/files/schema-dir.js';
import { buildOutputMessage, serializeOutputRecord } from '../src/core/records/output.js';
import { processCall, readCalls, unreadableRecord, DEFAULT_PIPELINE_OPTIONS } from '../src/core/pipeline.js';
import { parseRecordText } from '../src/core/records/bytes.js';
import { createSchemaCompiler } from '../src/core/validation/validate.js';
import { makeCorpus } from './corpus.js';
import type { EnvelopeResult } from '../src/core/records/envelope.js';
import type { JsonValue } from '../src/core/shared/json.js';

/** The corpus holds one call per record: that call (`readCalls`' first slot), or why the record is unreadable. */
function readCall(value: JsonValue): EnvelopeResult {
  const read = readCalls(value);
  return !read.ok ? read : (read.calls[0]?.read ?? { ok: false, error: { code: 'record_no_tool_calls', message: '' } });
}

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
    sink += serializeOutputRecord(out).length;
  }
}

// The written-out serialization must be JSON.stringify's text exactly: checked on every corpus call, for the
// record (`normalize`) and for the worker's output value (with schema identity, source and, if rejected, raw).
for (const [i, line] of corpus.entries()) {
  const parsed = parseRecordText(line);
  const read = parsed.ok ? readCall(parsed.value) : undefined;
  const tool = read?.ok === true ? tools.get(read.call.tool) : undefined;
  const out = !parsed.ok ? unreadableRecord(parsed.error) : read?.ok === true ? processCall(read.call, tool, DEFAULT_PIPELINE_OPTIONS) : unreadableRecord({ code: 'record_unknown_envelope', message: '' });
  if (serializeOutputRecord(out) !== JSON.stringify(out)) throw new Error(`serializeOutputRecord differs from JSON.stringify on corpus line ${i}`);
  const schema = { subject: `bench-${tool?.usable === true ? tool.definition.name : 'x'}`, version: 1 + (i % 3), id: i };
  const source = { topic: 'tool-calls.raw', partition: i % 3, offset: String(i) };
  const raw = parsed.ok ? parsed.value : undefined;
  const message = buildOutputMessage({ key: null, value: Buffer.from(line), headers: {}, source }, out, schema, raw, { output: 'o', rejected: 'r', dlq: 'd' });
  const expected: Record<string, unknown> = { ...out, schema, source };
  if (out.disposition === 'rejected') expected.raw = raw ?? null;
  if (out.disposition !== 'dead_letter' && message.value !== JSON.stringify(expected)) throw new Error(`buildOutputMessage value differs from JSON.stringify on corpus line ${i}`);
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
