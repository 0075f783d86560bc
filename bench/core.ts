/**
 * `npm run bench`: the core path (decode, normalize, validate, serialize) next to plain JSON.parse +
 * JSON.stringify of the same records, in one run, alternating rounds so both see the same machine state.
 * Two endings of the core path: the output record as `normalize` and the library write it, and the Kafka value
 * the worker writes (buildOutputMessage). Prints calls per second for each (wall clock, and CPU time of the
 * process, the steadier figure on a shared machine), their ratio to the baseline (goal: >= 0.8), and the size of
 * a clean call's normalized value against its input (goal: <= 1.3).
 */
import { fileURLToPath } from 'node:url';
import { loadSchemaDir } from '../src/adapters/files/schema-dir.js';
import {
  buildOutputMessage,
  DEFAULT_MAX_OUTPUT_BYTES,
  serializeOutputRecord,
  type InputMessage,
  type OutputTarget,
  type OutputTopics,
} from '../src/core/records/output.js';
import { mayHoldReferences, processCall, unreadableRecord, DEFAULT_PIPELINE_OPTIONS } from '../src/core/pipeline.js';
import { parseRecordText } from '../src/core/records/bytes.js';
import type { CompiledTool, SchemaIdentity } from '../src/core/schema/tool.js';
import type { OutputRecord } from '../src/core/shared/types.js';
import type { JsonValue } from '../src/core/shared/json.js';
import { createSchemaCompiler } from '../src/core/validation/validate.js';
import { makeCorpus, readCall } from './corpus.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** BENCH_CHECK=0 skips the text checks: to run this file against an older build, whose value had other fields. */
const CHECK = process.env.BENCH_CHECK !== '0';

const toolsDir = fileURLToPath(new URL('../examples/tools', import.meta.url));
const { tools } = await loadSchemaDir(toolsDir, createSchemaCompiler());
const corpus = makeCorpus(CALLS);
const TOPICS: OutputTopics = { output: 'tool-calls.normalized', rejected: 'tool-calls.rejected', dlq: 'tool-calls.dlq' };
let sink = 0;

// As the registry gives them: one identity per tool, shared by its calls. Offsets of seven digits, as on a
// topic that has carried a few million records.
const identities = new Map<string, SchemaIdentity>();
function identityOf(tool: CompiledTool | undefined): SchemaIdentity | undefined {
  if (tool?.usable !== true) return undefined;
  let identity = identities.get(tool.definition.name);
  if (identity === undefined) {
    identity = { subject: tool.definition.name, version: 3, id: 1001 + identities.size };
    identities.set(tool.definition.name, identity);
  }
  return identity;
}
const inputs: InputMessage[] = corpus.map((line, i) => ({
  key: null,
  value: Buffer.from(line),
  headers: {},
  offset: String(1_000_000 + i),
}));
/** The outputs of input partition p go through TARGETS[p]: one per partition batch, as in the worker. */
const TARGETS: OutputTarget[] = [0, 1, 2].map((partition) => ({
  topics: TOPICS,
  maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
  topic: 'tool-calls.raw',
  partition,
}));

function process1(line: string): { out: OutputRecord; tool: CompiledTool | undefined; raw: JsonValue | undefined } {
  const parsed = parseRecordText(line);
  if (!parsed.ok) return { out: unreadableRecord(parsed.error), tool: undefined, raw: undefined };
  const read = readCall(parsed.value);
  if (!read.ok) return { out: unreadableRecord(read.error), tool: undefined, raw: parsed.value };
  const tool = tools.get(read.call.tool);
  // As the worker calls it (with the record's bytes): the record tells whether any string can hold a reference.
  return { out: processCall(read.call, tool, DEFAULT_PIPELINE_OPTIONS, { references: mayHoldReferences(line) }), tool, raw: parsed.value };
}

function baseline(): void {
  for (const line of corpus) sink += JSON.stringify(JSON.parse(line)).length;
}

function toRecord(): void {
  for (const line of corpus) sink += serializeOutputRecord(process1(line).out).length;
}

function toKafkaValue(): void {
  for (let i = 0; i < corpus.length; i++) {
    const { out, tool, raw } = process1(corpus[i] as string);
    const value = buildOutputMessage(inputs[i] as InputMessage, out, identityOf(tool), raw, TARGETS[i % 3] as OutputTarget).value;
    sink += value === null ? 0 : value.length;
  }
}

// The serializations must be the JSON text of what they document: checked on every corpus call, for the record
// (`normalize`) and for the worker's value (the fields README "What goes where" lists, empty ones left out).
let cleanIn = 0;
let cleanOut = 0;
let cleanCount = 0;
let cleanMax = 0;
for (const [i, line] of corpus.entries()) {
  const { out, tool, raw } = process1(line);
  if (CHECK && serializeOutputRecord(out) !== JSON.stringify(out))
    throw new Error(`serializeOutputRecord differs from JSON.stringify on corpus line ${i}`);
  if (out.disposition === 'dead_letter') continue;
  const input = inputs[i] as InputMessage;
  const identity = identityOf(tool);
  const value = buildOutputMessage(input, out, identity, raw, TARGETS[i % 3] as OutputTarget).value as string;
  const expected: Record<string, unknown> = { id: out.id, tool: out.tool, format: out.format, arguments: out.arguments };
  if (out.disposition === 'rejected') expected.errors = out.errors;
  if (out.repairs.length > 0) expected.repairs = out.repairs;
  if (out.passThroughs.length > 0) expected.passThroughs = out.passThroughs;
  if (identity !== undefined) expected.schemaId = identity.id;
  expected.source = { partition: i % 3, offset: input.offset };
  if (out.disposition === 'rejected') expected.raw = raw ?? null;
  if (CHECK && value !== JSON.stringify(expected))
    throw new Error(`buildOutputMessage value differs from its documented fields on corpus line ${i}`);
  if (out.disposition === 'normalized' && out.repairs.length === 0) {
    const inBytes = Buffer.byteLength(line);
    const outBytes = Buffer.byteLength(value);
    cleanIn += inBytes;
    cleanOut += outBytes;
    cleanCount++;
    cleanMax = Math.max(cleanMax, outBytes / inBytes);
  }
}

interface Sample {
  wall: number;
  cpu: number;
}

function timeOnce(fn: () => void): Sample {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  fn();
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1e6 };
}

// Warm up every path (JIT, ajv's compiled validators) before measuring.
baseline();
toRecord();
toKafkaValue();
const runs = { baseline: [] as Sample[], record: [] as Sample[], value: [] as Sample[] };
for (let round = 0; round < ROUNDS; round++) {
  runs.baseline.push(timeOnce(baseline));
  runs.record.push(timeOnce(toRecord));
  runs.value.push(timeOnce(toKafkaValue));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const rate = (samples: Sample[], by: keyof Sample): number => CALLS / median(samples.map((s) => s[by]));
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const base = { wall: rate(runs.baseline, 'wall'), cpu: rate(runs.baseline, 'cpu') };
console.log(
  `corpus: ${CALLS} calls (6 envelopes, ~half repairable, ~2.5% invalid), ${ROUNDS} rounds, median; calls/s by wall clock / by CPU time`,
);
console.log(`parse+stringify                      ${fmt(base.wall)} / ${fmt(base.cpu)} calls/s`);
for (const [name, samples] of [
  ['core path, to the output record', runs.record],
  ["core path, to the worker's value", runs.value],
] as const) {
  const wall = rate(samples, 'wall');
  const cpu = rate(samples, 'cpu');
  console.log(
    `${name.padEnd(36)} ${fmt(wall)} / ${fmt(cpu)} calls/s; ` +
      `ratio ${(wall / base.wall).toFixed(2)} / ${(cpu / base.cpu).toFixed(2)}  (goal >= 0.80)`,
  );
}
console.log(
  `normalized value of a clean call / its input: ${(cleanOut / cleanIn).toFixed(2)} ` +
    `(${cleanCount} calls, ${(cleanOut / cleanCount).toFixed(0)} / ${(cleanIn / cleanCount).toFixed(0)} ` +
    `bytes on average, at most ${cleanMax.toFixed(2)} for one call; goal <= 1.30)`,
);
if (sink === 0) console.log('');
