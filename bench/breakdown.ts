/** Where the core path spends its time, stage by stage, over the bench corpus (for profiling work), µs of CPU per call. */
import { fileURLToPath } from 'node:url';
import { loadSchemaDir } from '../src/adapters/files/schema-dir.js';
import { parseArguments } from '../src/core/records/envelope.js';
import { normalizeArguments } from '../src/core/rule/normalize.js';
import { buildOutputMessage, serializeOutputRecord } from '../src/core/records/output.js';
import { mayHoldReferences, processCall, DEFAULT_PIPELINE_OPTIONS } from '../src/core/pipeline.js';
import { parseRecordText } from '../src/core/records/bytes.js';
import { createSchemaCompiler } from '../src/core/validation/validate.js';
import type { JsonObject } from '../src/core/shared/json.js';
import type { InputMessage } from '../src/core/records/output.js';
import type { OutputRecord } from '../src/core/shared/types.js';
import { makeCorpus, readCall } from './corpus.js';

const { tools } = await loadSchemaDir(fileURLToPath(new URL('../examples/tools', import.meta.url)), createSchemaCompiler());
const corpus = makeCorpus(20_000);
const parsed = corpus.map((l) => JSON.parse(l) as JsonObject);
const calls = parsed.map((p) => {
  const r = readCall(p);
  if (!r.ok) throw new Error('bad');
  return r.call;
});
const args = calls.map((c) => {
  const a = parseArguments(c.rawArguments);
  if (!a.ok) throw new Error('bad');
  return a.value;
});
const plans = calls.map((c) => {
  const t = tools.get(c.tool);
  if (!t?.usable) throw new Error('bad');
  return t;
});
// As the worker and `normalize` run them: the record's text tells whether any string can hold a reference.
const references = corpus.map((l) => mayHoldReferences(l));
const pairs = args.map((a, i) => {
  const t = plans[i];
  if (t === undefined) throw new Error('bad');
  return { args: a, tool: t, references: references[i] ?? true };
});
const normalized = pairs.map(({ args: a, tool, references: r }) => ({
  args: normalizeArguments(a, tool.plan, undefined, r).arguments,
  tool,
}));
const outs = calls.map((c, i) => processCall(c, tools.get(c.tool), DEFAULT_PIPELINE_OPTIONS, { references: references[i] === true }));
const inputs: InputMessage[] = corpus.map((l, i) => ({
  key: null,
  value: Buffer.from(l),
  headers: {},
  offset: String(1_000_000 + i),
}));
const identity = { subject: 's', version: 1, id: 1001 };
const TARGET = { topics: { output: 'o', rejected: 'r', dlq: 'd' }, maxOutputBytes: 1_000_000, topic: 't', partition: 0 };
let sink = 0;
const stages: [string, () => void][] = [
  [
    'JSON.parse(record)',
    () => {
      for (const l of corpus) sink += JSON.parse(l) === null ? 0 : 1;
    },
  ],
  [
    'parseRecordText',
    () => {
      for (const l of corpus) sink += parseRecordText(l).ok ? 1 : 0;
    },
  ],
  [
    'readCall',
    () => {
      for (const p of parsed) sink += readCall(p).ok ? 1 : 0;
    },
  ],
  [
    'parseArguments',
    () => {
      for (const c of calls) sink += parseArguments(c.rawArguments).ok ? 1 : 0;
    },
  ],
  [
    'normalize',
    () => {
      for (const p of pairs) sink += normalizeArguments(p.args, p.tool.plan, undefined, p.references).repairs.length;
    },
  ],
  [
    'validate',
    () => {
      for (const n of normalized) sink += n.tool.validate(n.args).length;
    },
  ],
  [
    'processCall',
    () => {
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i] as (typeof calls)[number];
        sink += processCall(c, tools.get(c.tool), DEFAULT_PIPELINE_OPTIONS, { references: references[i] === true }).errors.length;
      }
    },
  ],
  [
    'JSON.stringify(input)',
    () => {
      for (const p of parsed) sink += JSON.stringify(p).length;
    },
  ],
  [
    'JSON.stringify(output)',
    () => {
      for (const o of outs) sink += JSON.stringify(o).length;
    },
  ],
  [
    'serializeOutputRecord',
    () => {
      for (const o of outs) sink += serializeOutputRecord(o).length;
    },
  ],
  [
    'buildOutputMessage',
    () => {
      for (let i = 0; i < outs.length; i++)
        sink += (buildOutputMessage(inputs[i] as InputMessage, outs[i] as OutputRecord, identity, undefined, TARGET).value as string)
          .length;
    },
  ],
  // What any core path must do: parse the record, parse arguments sent as text, write the worker's value.
  [
    'floor: parse, args, value',
    () => {
      for (let i = 0; i < corpus.length; i++) {
        const read = readCall(JSON.parse(corpus[i] as string) as JsonObject);
        if (!read.ok) continue;
        const a = parseArguments(read.call.rawArguments);
        const o = outs[i] as OutputRecord;
        sink += JSON.stringify({
          id: o.id,
          tool: o.tool,
          format: o.format,
          arguments: a.ok ? a.value : null,
          schemaId: 1,
          source: { partition: 0, offset: '1000000' },
        }).length;
      }
    },
  ],
  // The whole path to the worker's value, as bench/core.ts times it: what the floor and the stages above add up to.
  [
    "core path: worker's value",
    () => {
      for (let i = 0; i < corpus.length; i++) {
        const line = corpus[i] as string;
        const parsed = parseRecordText(line);
        if (!parsed.ok) continue;
        const read = readCall(parsed.value);
        if (!read.ok) continue;
        const out = processCall(read.call, tools.get(read.call.tool), DEFAULT_PIPELINE_OPTIONS, { references: mayHoldReferences(line) });
        sink += (buildOutputMessage(inputs[i] as InputMessage, out, identity, parsed.value, TARGET).value as string).length;
      }
    },
  ],
  [
    'baseline: parse+stringify',
    () => {
      for (const l of corpus) sink += JSON.stringify(JSON.parse(l)).length;
    },
  ],
];
for (const [, fn] of stages) fn();
for (const [name, fn] of stages) {
  const times: number[] = [];
  // CPU time of the process, not wall clock: steadier on a shared machine.
  for (let r = 0; r < 7; r++) {
    const s = process.cpuUsage();
    fn();
    const u = process.cpuUsage(s);
    times.push((u.user + u.system) / corpus.length);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(26)} ${(times[3] ?? 0).toFixed(3)} µs/call`);
}
if (sink < 0) console.log(sink);
