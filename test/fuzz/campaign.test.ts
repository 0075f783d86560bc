/**
 * The hostile-input campaign: over 100 000 generated records through the worker's whole per-record
 * path (bytes -> wire unwrap -> record decode -> envelope -> arguments -> RT-TOOL-8 -> validation -> output
 * message), and thousands of generated schemas through the schema-directory and registry compile paths.
 *
 * Invariant for every case: it ends in exactly one of normalized, rejected or dead-lettered with a well-formed
 * output (see harness.ts `checkOutcome`), nothing throws, it costs less than CASE_BUDGET reference passes of CPU, and no built-in
 * prototype is polluted. The seed is fixed so CI is reproducible: `FUZZ_SEED=<n> FUZZ_RUNS=<total>` to explore.
 *
 *   FUZZ_SEED=20240607 FUZZ_RUNS=110000 STACK_AUTO=0 npx vitest run test/fuzz
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJsonObject, tryParseJson, type JsonObject, type JsonValue } from '../../src/core/shared/json.js';
import { DEFAULT_NORMALIZE_OPTIONS } from '../../src/core/rule/normalize.js';
import { DEFAULT_PIPELINE_OPTIONS, NO_EXEMPTIONS, parseEntityExemptions, type PipelineOptions } from '../../src/core/pipeline.js';
import { DEFAULT_RECORD_LIMITS } from '../../src/core/records/bytes.js';
import { fromRegistryDocument } from '../../src/core/schema/registry-document.js';
import { compileTool, unusableTool, type CompiledTool } from '../../src/core/schema/tool.js';
import { parseToolDefinition } from '../../src/core/schema/tool-definition.js';
import {
  argumentsObject,
  arbitraryBytes,
  corruptUtf8,
  deepCase,
  deepRecordText,
  definitionWrapper,
  entityBomb,
  envelopeRecord,
  HUGE_SIZES,
  HUGE_UNITS,
  hugeRecordText,
  layout,
  messageRecord,
  pollutingObject,
  toJsonText,
  toolSchema,
  trickyKey,
  trickyString,
} from './arbitraries.js';
import {
  assertNoPollution,
  CampaignStats,
  assertProperty,
  CASE_BUDGET,
  COMPILE_BUDGET,
  describeBytes,
  FUZZ_RUNS,
  FUZZ_SEED,
  runRecord,
  runRecordAll,
  runsFor,
  snapshotPrototypes,
  type PrototypeSnapshot,
} from './harness.js';
import { loadCampaignTools, type CampaignTools } from './tools.js';
import { cpuMark, passesSince } from '../budget.js';

const MINUTE = 60_000;

/** Pipeline configurations the worker can be started with (docs/rule.md "Limits" and "Beyond the rule"). */
const OPTION_SETS: readonly PipelineOptions[] = [
  DEFAULT_PIPELINE_OPTIONS,
  { ...DEFAULT_PIPELINE_OPTIONS, normalize: { ...DEFAULT_NORMALIZE_OPTIONS, deep: true } },
  {
    ...DEFAULT_PIPELINE_OPTIONS,
    entityExemptions: parseEntityExemptions([
      'write_file',
      'search_issues/query',
      '__proto__',
      'proto_keys/__proto__',
      'constructor/prototype',
    ]),
  },
  {
    limits: { maxRecordBytes: 512, maxDepth: 3 },
    normalize: { ...DEFAULT_NORMALIZE_OPTIONS, maxDepth: 3, maxEntityPasses: 1 },
    entityExemptions: NO_EXEMPTIONS,
  },
  { ...DEFAULT_PIPELINE_OPTIONS, normalize: { ...DEFAULT_NORMALIZE_OPTIONS, deep: true, maxEntityPasses: 50 } },
];
const optionSet = fc.constantFrom(...OPTION_SETS);

/** The largest bounds the worker's configuration accepts (MAX_DEPTH 1000, MAX_ENTITY_PASSES 1000). */
const MAX_CONFIGURABLE: PipelineOptions = {
  limits: { maxRecordBytes: DEFAULT_RECORD_LIMITS.maxRecordBytes, maxDepth: 1_000 },
  normalize: { ...DEFAULT_NORMALIZE_OPTIONS, deep: true, maxDepth: 1_000, maxEntityPasses: 1_000 },
  entityExemptions: NO_EXEMPTIONS,
};

let campaign: CampaignTools;
let prototypes: PrototypeSnapshot;
const stats = new CampaignStats();
let compileCount = 0;
let slowestCompile = { ms: 0, label: '' };
let property = 0;

function params<T>(runs: number): fc.Parameters<T> {
  property += 1;
  return { seed: FUZZ_SEED + property, numRuns: runs, endOnFailure: true };
}

function lookup(name: string): CompiledTool | undefined {
  return campaign.lookup(name);
}

function bytesOf(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** Every case also proves that nothing reached a prototype. */
function guard(): void {
  assertNoPollution(prototypes);
}

beforeAll(async () => {
  prototypes = snapshotPrototypes();
  campaign = await loadCampaignTools();
});

afterAll(() => {
  // Printed even when a property fails, so a failing run still shows how far it got.
  console.log(stats.summary());
  console.log(`  schemas compiled: ${compileCount}, slowest compile ${slowestCompile.ms.toFixed(1)} ms (${slowestCompile.label})`);
  console.log(`  peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
});

describe(`hostile input campaign (seed ${FUZZ_SEED}, ${FUZZ_RUNS} cases)`, () => {
  it('the campaign tools include usable, unusable and over-limit schemas', () => {
    const usable = (name: string) => campaign.tools.get(name)?.usable;
    expect(usable('search_issues')).toBe(true);
    expect(usable('tree')).toBe(true);
    expect(usable('proto_keys')).toBe(true);
    expect(usable('ref_cycle')).toBe(false);
    expect(usable('dangling_ref')).toBe(false);
    const oversized = campaign.tools.get('oversized');
    const overdeep = campaign.tools.get('overdeep');
    expect(oversized?.usable === false && oversized.diagnostic.message).toMatch(/schema size limit of 1048576 bytes/);
    expect(overdeep?.usable === false && overdeep.diagnostic.message).toMatch(/schema depth limit of 128 levels/);
  });

  it(
    'arbitrary bytes and wire-format headers',
    () => {
      assertProperty(
        fc.property(arbitraryBytes, optionSet, (bytes, options) => {
          const { record } = runRecord(stats, 'bytes', describeBytes(bytes), bytes, lookup, options);
          if (!isUtf8(bytes.subarray(bytes[0] === 0 ? 5 : 0)) && bytes.length <= options.limits.maxRecordBytes) {
            expect(record.disposition).toBe('dead_letter');
          }
          guard();
        }),
        params(runsFor(0.16)),
      );
    },
    3 * MINUTE,
  );

  it(
    'invalid UTF-8 spliced into valid records is refused as record_invalid_encoding',
    () => {
      const corrupted = fc.tuple(envelopeRecord, layout).chain(([envelope, write]) => corruptUtf8(write(envelope.value)));
      assertProperty(
        fc.property(corrupted, (bytes) => {
          const { record } = runRecord(stats, 'invalid_utf8', describeBytes(bytes), bytes, lookup, DEFAULT_PIPELINE_OPTIONS);
          const tooLarge = bytes.length > DEFAULT_RECORD_LIMITS.maxRecordBytes;
          if (!isUtf8(bytes) && !tooLarge) expect(record.errors[0]?.code).toBe('record_invalid_encoding');
          guard();
        }),
        params(runsFor(0.07)),
      );
    },
    3 * MINUTE,
  );

  it(
    'every envelope shape with mutated fields, hostile arguments and edge numbers',
    () => {
      assertProperty(
        fc.property(envelopeRecord, layout, optionSet, fc.boolean(), (envelope, write, options, wire) => {
          const text = write(envelope.value);
          const payload = bytesOf(text);
          const bytes = wire ? Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), payload]) : payload;
          const { record, tool } = runRecord(stats, 'envelopes', `${envelope.format} ${describeBytes(payload)}`, bytes, lookup, options);
          if (record.disposition === 'normalized') {
            // Only a usable tool can pass a call, and what passed validates again, unchanged.
            expect(tool?.usable).toBe(true);
            if (tool?.usable === true) expect(tool.validate(record.arguments)).toEqual([]);
          }
          guard();
        }),
        params(runsFor(0.36)),
      );
    },
    3 * MINUTE,
  );

  it(
    'whole messages fan out: one well-formed output per call, unreadable calls alone, keys never shared',
    () => {
      assertProperty(
        fc.property(messageRecord, layout, optionSet, (message, write, options) => {
          const payload = bytesOf(write(message.value));
          const all = runRecordAll(stats, 'messages', `${message.shape} ${describeBytes(payload)}`, payload, lookup, options);
          for (const { record, tool } of all) {
            if (record.disposition === 'normalized' && tool?.usable === true) expect(tool.validate(record.arguments)).toEqual([]);
          }
          guard();
        }),
        params(runsFor(0.07)),
      );
    },
    3 * MINUTE,
  );

  it(
    '__proto__, constructor and prototype keys at every level stay plain data',
    () => {
      const nestedPollution: fc.Arbitrary<JsonValue> = fc.tuple(pollutingObject, fc.integer({ min: 0, max: 6 })).map(([inner, depth]) => {
        let value = inner;
        for (let i = 0; i < depth; i += 1)
          value = JSON.parse(`{"__proto__":${toJsonText(value)},"constructor":{"prototype":${toJsonText(value)}}}`) as JsonValue;
        return value;
      });
      const protoCase = fc.record({
        tool: fc.constantFrom('proto_keys', 'search_issues', 'self_ref', 'tree', 'combinators', '__proto__', 'constructor'),
        args: fc.array(
          fc.tuple(
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'labels', 'next', 'meta'),
            fc.oneof(
              nestedPollution,
              nestedPollution.map((v) => toJsonText(v)),
              trickyString,
            ),
          ),
          { maxLength: 5 },
        ),
        asText: fc.boolean(),
        options: optionSet,
      });
      assertProperty(
        fc.property(protoCase, ({ tool, args, asText, options }) => {
          const argsText = `{${args.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`;
          const text =
            `{"__proto__":{"polluted":1},"type":"tool_use","id":"p","name":${JSON.stringify(tool)},` +
            `"input":${asText ? JSON.stringify(argsText) : argsText},"constructor":{"prototype":{"polluted":1}}}`;
          const { record } = runRecord(stats, 'prototype_keys', text.slice(0, 80), bytesOf(text), lookup, options);
          const sent = tryParseJson(argsText);
          if (record.disposition !== 'dead_letter' && sent.ok && isJsonObject(sent.value) && isJsonObject(record.arguments)) {
            // Keys survive as own data properties, never as a prototype.
            expect(Object.keys(record.arguments)).toEqual(Object.keys(sent.value));
            expect(Object.getPrototypeOf(record.arguments)).toBe(Object.prototype);
          }
          guard();
        }),
        params(runsFor(0.08)),
      );
    },
    3 * MINUTE,
  );

  it(
    'entity bombs decode within the pass bound and never grow the text',
    () => {
      const bombCase = fc.record({
        bomb: entityBomb,
        place: fc.constantFrom('content', 'key', 'array_item', 'arguments_text', 'deep_value'),
        options: optionSet,
      });
      assertProperty(
        fc.property(bombCase, ({ bomb, place, options }) => {
          const args: JsonObject =
            place === 'content'
              ? { path: 'a.txt', content: bomb }
              : place === 'key'
                ? (JSON.parse(`{"path":"a.txt","content":"x",${JSON.stringify(bomb)}:${JSON.stringify(bomb)}}`) as JsonObject)
                : place === 'array_item'
                  ? { query: 'q', labels: [bomb, [bomb, { k: bomb }]] }
                  : place === 'deep_value'
                    ? { query: 'q', filters: JSON.parse(`${'{"a":'.repeat(50)}${JSON.stringify(bomb)}${'}'.repeat(50)}`) as JsonValue }
                    : { query: bomb, labels: toJsonText([bomb, bomb]) };
          const tool = place === 'content' || place === 'key' ? 'write_file' : 'search_issues';
          const envelope =
            place === 'arguments_text'
              ? { type: 'function_call', call_id: 'e', name: tool, arguments: toJsonText(args) }
              : { tool, id: 'e', arguments: args };
          const { record } = runRecord(
            stats,
            'entity_bombs',
            `${place} ${bomb.slice(0, 40)} (${bomb.length} chars)`,
            bytesOf(toJsonText(envelope)),
            lookup,
            options,
          );
          if (place === 'content' && isJsonObject(record.arguments)) {
            const content = record.arguments.content;
            // A character reference never decodes to more UTF-16 units than its own text.
            expect(typeof content === 'string' && content.length <= bomb.length).toBe(true);
          }
          guard();
        }),
        params(runsFor(0.08)),
      );
    },
    3 * MINUTE,
  );

  it(
    'lone surrogates and arbitrary code units in values and keys come out as well-formed JSON',
    () => {
      const codeUnits = fc.string({ unit: 'binary', maxLength: 40 });
      const surrogateCase = fc.record({
        tool: fc.constantFrom('search_issues', 'write_file', 'patterns', 'formats', 'huge_enum', 'proto_keys'),
        entries: fc.array(
          fc.tuple(
            fc.oneof(codeUnits, trickyKey),
            fc.oneof(
              codeUnits,
              codeUnits.map((s) => toJsonText([s])),
              trickyString,
            ),
          ),
          { maxLength: 6 },
        ),
        format: fc.constantFrom('canonical', 'gemini'),
      });
      assertProperty(
        fc.property(surrogateCase, ({ tool, entries, format }) => {
          const args = Object.fromEntries(entries) as JsonObject;
          const envelope = format === 'canonical' ? { tool, id: 's', arguments: args } : { functionCall: { name: tool, args } };
          const text = toJsonText(envelope);
          const { record } = runRecord(stats, 'surrogates', text.slice(0, 80), bytesOf(text), lookup, DEFAULT_PIPELINE_OPTIONS);
          // The output is serialized as JSON and written as UTF-8: lone surrogates must arrive escaped.
          const out = JSON.stringify(record);
          expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out);
          guard();
        }),
        params(runsFor(0.06)),
      );
    },
    3 * MINUTE,
  );

  it(
    'deep nesting in the record, in arguments and in arguments sent as JSON text',
    () => {
      assertProperty(
        fc.property(deepCase, fc.constantFrom(...OPTION_SETS, MAX_CONFIGURABLE), ({ depth, shape, place }, options) => {
          const text = deepRecordText(depth, shape, place);
          const { record } = runRecord(stats, 'deep_nesting', `${place} ${shape} depth ${depth}`, bytesOf(text), lookup, options);
          const fits = Buffer.byteLength(text) <= options.limits.maxRecordBytes;
          if (place === 'record' && fits) {
            expect(record.disposition).toBe('dead_letter');
            // Within the bound, the outermost value is an array (not an object) or an object that is no envelope.
            const shallow = shape === 'object' ? 'record_unknown_envelope' : 'record_not_object';
            expect(record.errors[0]?.code).toBe(depth > options.limits.maxDepth ? 'record_too_deep' : shallow);
          }
          if (place === 'arguments_text' && fits && depth + 1 > options.limits.maxDepth)
            expect(record.errors[0]?.code).toBe('record_too_deep');
          if (place === 'truncated' && fits) expect(record.errors[0]?.code).toBe('record_not_json');
          guard();
        }),
        params(runsFor(0.03)),
      );
    },
    3 * MINUTE,
  );

  it(
    'huge strings around and far over the record limit (every size x unit x tool)',
    () => {
      let count = 0;
      for (const size of HUGE_SIZES) {
        for (const unit of HUGE_UNITS) {
          for (const tool of ['write_file', 'search_issues', 'formats'] as const) {
            const bytes = bytesOf(hugeRecordText(size, unit, tool));
            const { record } = runRecord(
              stats,
              'huge_strings',
              `${tool} ${JSON.stringify(unit)} x ${bytes.length} bytes`,
              bytes,
              lookup,
              DEFAULT_PIPELINE_OPTIONS,
            );
            if (bytes.length > DEFAULT_RECORD_LIMITS.maxRecordBytes) expect(record.errors[0]?.code).toBe('record_too_large');
            else expect(record.errors[0]?.code).not.toBe('record_too_large');
            count += 1;
          }
        }
      }
      // The largest configurable entity-pass bound (1000) on a 400 KB reference chain: every pass changes the text,
      // so the cost is passes x length (about 0.5 s here; see RELIABILITY.md for a full 1 MiB record).
      const chain = bytesOf(`{"tool":"write_file","arguments":{"path":"p","content":"&${'amp;'.repeat(100_000)}"}}`);
      runRecord(
        stats,
        'huge_strings',
        `write_file &amp; chain of 100000 with ${MAX_CONFIGURABLE.normalize.maxEntityPasses} passes`,
        chain,
        lookup,
        MAX_CONFIGURABLE,
      );
      count += 1;
      guard();
      expect(count).toBe(HUGE_SIZES.length * HUGE_UNITS.length * 3 + 1);
    },
    3 * MINUTE,
  );

  it(
    'generated schemas (cycles, dangling refs, huge enums, pathological patterns) compile or are refused, and calls to them end well',
    () => {
      const schemaCase = fc.record({
        schema: toolSchema,
        wrap: definitionWrapper,
        path: fc.constantFrom('schema_dir', 'registry'),
        calls: fc.array(
          fc.tuple(
            fc.oneof(
              argumentsObject,
              fc.array(fc.tuple(trickyKey, trickyString), { maxLength: 4 }).map((e) => Object.fromEntries(e) as JsonObject),
            ),
            layout,
          ),
          { minLength: 1, maxLength: 3 },
        ),
      });
      assertProperty(
        fc.property(schemaCase, ({ schema, wrap, path, calls }) => {
          const documentText = toJsonText(wrap(schema, 'fuzz_tool'));
          const started = performance.now();
          const mark = cpuMark();
          // Exactly what the two schema sources do with a document (src/adapters/files/schema-dir.ts, registry.ts).
          const parsed = tryParseJson(documentText);
          let tool: CompiledTool;
          if (!parsed.ok) tool = unusableTool('fuzz_tool', 'not JSON');
          else {
            const read =
              path === 'schema_dir' ? parseToolDefinition(parsed.value, 'fuzz_tool') : fromRegistryDocument(parsed.value, 'fuzz_tool');
            tool = read.ok
              ? compileTool(
                  read.definition,
                  campaign.compiler,
                  path === 'registry' ? { subject: 'fuzz_tool', version: 1, id: 1 } : undefined,
                )
              : unusableTool('fuzz_tool', read.reason);
          }
          const ms = performance.now() - started;
          const passes = passesSince(mark);
          compileCount += 1;
          if (ms > slowestCompile.ms) slowestCompile = { ms, label: documentText.slice(0, 120) };
          expect(passes, `compiling cost ${passes.toFixed(0)} reference passes of CPU`).toBeLessThan(COMPILE_BUDGET);
          if (!tool.usable) expect(tool.diagnostic.code).toBe('tool_schema_unusable');
          const name = tool.usable ? tool.definition.name : tool.name;
          for (const [args, write] of calls) {
            const text = write({ tool: name, id: 'c', arguments: args });
            runRecord(
              stats,
              'schemas',
              `${path} ${documentText.slice(0, 60)}`,
              bytesOf(text),
              (n) => (n === name ? tool : undefined),
              DEFAULT_PIPELINE_OPTIONS,
            );
          }
          guard();
        }),
        params(runsFor(0.05)),
      );
    },
    3 * MINUTE,
  );

  it(`ran at least ${FUZZ_RUNS} cases; none threw; no prototype was polluted`, () => {
    expect(stats.thrown).toBe(0);
    expect(stats.cases).toBeGreaterThanOrEqual(FUZZ_RUNS);
    expect(stats.costliest.passes, stats.costliest.label).toBeLessThan(CASE_BUDGET);
    expect(stats.byDisposition.normalized).toBeGreaterThan(0);
    expect(stats.byDisposition.rejected).toBeGreaterThan(0);
    expect(stats.byDisposition.dead_letter).toBeGreaterThan(0);
    assertNoPollution(prototypes);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
