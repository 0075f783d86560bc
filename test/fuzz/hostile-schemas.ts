/**
 * Hostile tool schemas for the fuzz campaign (issue 27): the shapes that made one schema, or one call against
 * it, block the event loop for seconds to minutes, and a generator of schemas that mix them at random sizes.
 * Each case runs through the chain the worker runs (schema limits, compile, the RT-TOOL-8 plan, validation) under
 * a time and memory bound ({@link runBounded}).
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../src/core/shared/json.js';
import type { Diagnostic } from '../../src/core/shared/types.js';
import { normalizeArguments } from '../../src/core/rule/normalize.js';
import { compileTool } from '../../src/core/schema/tool.js';
import type { SchemaCompiler } from '../../src/core/validation/validate.js';
import { cpuMark, passesSince } from '../budget.js';

/** Ceilings for a loaded 2-core machine: the shapes below took 4 s to minutes each before they were bounded. */
/** CPU of this thread in reference passes (test/budget.ts, about 3 ms each here): a loaded machine does not move them. */
export const CASE_BOUNDS = Object.freeze({ compilePasses: 1_600, callPasses: 1_300, heapBytes: 768 * 1024 * 1024 });

export interface HostileCase {
  readonly name: string;
  readonly schema: JsonObject;
  /** Arguments sent to the tool, each a call. */
  readonly calls: readonly JsonObject[];
}

export interface CaseOutcome {
  readonly usable: boolean;
  readonly unusable?: Diagnostic;
  readonly compilePasses: number;
  readonly callPasses: number[];
  readonly heapGrowth: number;
  readonly diagnostics: Diagnostic[][];
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Compiles and calls a case the way the worker does, measuring the CPU of each step and the heap it keeps. */
export function runBounded(compiler: SchemaCompiler, hostile: HostileCase): CaseOutcome {
  const heapBefore = process.memoryUsage().heapUsed;
  let started = cpuMark();
  const tool = compileTool({ name: hostile.name, description: undefined, inputSchema: hostile.schema }, compiler);
  const compilePasses = passesSince(started);
  const callPasses: number[] = [];
  const diagnostics: Diagnostic[][] = [];
  if (tool.usable) {
    for (const args of hostile.calls) {
      started = cpuMark();
      const normalized = normalizeArguments(args, tool.plan);
      diagnostics.push(tool.validate(normalized.arguments));
      callPasses.push(passesSince(started));
    }
  }
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
  return tool.usable
    ? { usable: true, compilePasses, callPasses, heapGrowth, diagnostics }
    : { usable: false, unusable: tool.diagnostic, compilePasses, callPasses, heapGrowth, diagnostics };
}

function sharedDefs(params: number, fields: number): JsonObject {
  const item = {
    type: 'object',
    properties: Object.fromEntries(range(fields).map((i) => [`f${i}`, { type: 'string', enum: ['a', 'b'] }])),
  };
  return {
    type: 'object',
    $defs: { Item: item },
    properties: Object.fromEntries(range(params).map((i) => [`p${i}`, { $ref: '#/$defs/Item' }])),
  };
}

function manyKeys(n: number, value: JsonValue = 'v', prefix = 'k'): JsonObject {
  return Object.fromEntries(range(n).map((i) => [`${prefix}${i}_abc`, value]));
}

/** The shapes of issue 27, one case each, at or beyond the sizes that were reported. */
export function hostileCases(): HostileCase[] {
  const patternsOf = (n: number): JsonObject => Object.fromEntries(range(n).map((i) => [`^p${i}_[a-z]+$`, { type: 'array' }]));
  const patterns = patternsOf(500);
  const nested = ['^(a+)+$', '^(a|a)*$', '^(a|aa)+$', '^(\\w+\\s?)*$', '^([a-z0-9]+-?)*[a-z0-9]$'];
  const chain: JsonObject = { $defs: { d0: { type: 'string' } } };
  for (let i = 1; i <= 30; i++)
    (chain.$defs as JsonObject)[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
  chain.properties = { a: { $ref: '#/$defs/d30' } };
  return [
    {
      name: 'shared_defs_17kb',
      schema: sharedDefs(400, 40),
      calls: [{ p0: { f0: 'a' } }, Object.fromEntries(range(400).map((i) => [`p${i}`, { f0: 'z' }]))],
    },
    { name: 'shared_defs_wide', schema: sharedDefs(40, 400), calls: [{ p0: { f399: 'b' } }] },
    {
      name: 'unique_untyped',
      schema: { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } },
      calls: [{ list: range(100_000) }, { list: range(20_000).map((i) => ({ id: i, tags: [i, 'x'] })) }, { list: [...range(50_000), 7] }],
    },
    {
      name: 'pattern_properties_x_keys',
      schema: { type: 'object', patternProperties: patterns },
      calls: [manyKeys(40_000, '[1]'), manyKeys(200, '[1]', 'p1_')],
    },
    { name: 'pattern_properties_2000', schema: { type: 'object', patternProperties: patternsOf(2_000) }, calls: [{ p1_a: [] }] },
    {
      name: 'property_names_x_keys',
      schema: { type: 'object', propertyNames: { pattern: '^(k\\d+_?)+[a-z]*$' } },
      calls: [manyKeys(100_000, 1)],
    },
    {
      name: 'nested_quantifiers',
      schema: { type: 'object', properties: Object.fromEntries(nested.map((pattern, i) => [`s${i}`, { type: 'string', pattern }])) },
      calls: [26, 1_000, 200_000].map((n) => Object.fromEntries(nested.map((_, i) => [`s${i}`, `${'a'.repeat(n)}!`]))),
    },
    { name: 'ref_chain', schema: chain, calls: [{ a: 'x' }] },
    {
      name: 'values_over_limit',
      schema: {
        type: 'object',
        properties: Object.fromEntries(range(4_000).map((i) => [`p${i}`, { type: 'string', enum: ['a', 'b', 'c'] }])),
      },
      calls: [{ p0: 'a' }],
    },
    {
      name: 'values_at_limit',
      schema: {
        type: 'object',
        properties: Object.fromEntries(range(3_300).map((i) => [`p${i}`, { type: 'string', enum: ['a', 'b', 'c'] }])),
      },
      calls: [{ p0: 'a' }, Object.fromEntries(range(3_300).map((i) => [`p${i}`, 'q']))],
    },
    {
      name: 'big_enum',
      schema: { type: 'object', properties: { e: { enum: range(10_000).map((i) => `v${i}`) } } },
      calls: [{ e: 'v9999' }, { e: 'nope' }],
    },
    {
      name: 'lookaround',
      schema: { type: 'object', properties: { p: { type: 'string', pattern: '^(?=.*\\d).{8,}$' } } },
      calls: [{ p: 'abc' }],
    },
    {
      name: 'backreference_keys',
      schema: { type: 'object', patternProperties: { '^(a+)\\1$': { type: 'string' } } },
      calls: [{ aa: 'x' }],
    },
  ];
}

const hostilePattern = fc.constantFrom(
  '^(a+)+$',
  '(a|a)*',
  '^([a-z]+)*$',
  '^(.*a){8}$',
  '\\d+\\d+\\d+$',
  '^[a-z_]+$',
  '(x+x+)+y',
  '^\\s*$',
  '.*.*.*=.*',
);
const leaf: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.record({ type: fc.constant('string'), pattern: hostilePattern }),
  fc.record({ type: fc.constant('array'), uniqueItems: fc.constant(true) }),
  fc.record({ enum: fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)), { minLength: 1, maxLength: 50 }) }),
  fc.record({ $ref: fc.constant('#/$defs/shared') }),
  fc.constant({ type: 'object', additionalProperties: { $ref: '#/$defs/shared' } }),
);

/** Generated schemas: hostile leaves, a shared `$defs` entry used by many parameters, many patternProperties. */
export const hostileSchema: fc.Arbitrary<JsonObject> = fc
  .record({
    params: fc.array(leaf, { minLength: 1, maxLength: 300 }),
    shared: fc.array(
      leaf.filter((s) => s.$ref === undefined && s.additionalProperties === undefined),
      { minLength: 1, maxLength: 60 },
    ),
    patternCount: fc.integer({ min: 0, max: 400 }),
    propertyNames: fc.option(hostilePattern, { nil: undefined }),
  })
  .map(({ params, shared, patternCount, propertyNames }) => {
    const schema: JsonObject = {
      type: 'object',
      $defs: { shared: { type: 'object', properties: Object.fromEntries(shared.map((s, i) => [`s${i}`, s])) } },
      properties: Object.fromEntries(params.map((s, i) => [`p${i}`, s])),
    };
    if (patternCount > 0)
      schema.patternProperties = Object.fromEntries(range(patternCount).map((i) => [`^x${i}_(a+)+$`, { type: 'string' }]));
    if (propertyNames !== undefined) schema.propertyNames = { pattern: propertyNames };
    return schema;
  });

/** Hostile arguments for a generated schema: long runs, many keys, large untyped arrays. */
export const hostileArguments: fc.Arbitrary<JsonObject> = fc
  .record({
    run: fc.integer({ min: 10, max: 100_000 }),
    keys: fc.integer({ min: 0, max: 20_000 }),
    items: fc.integer({ min: 0, max: 50_000 }),
    char: fc.constantFrom('a', 'x', ' ', '1', '='),
  })
  .map(({ run, keys, items, char }) => {
    const value = `${char.repeat(run)}!`;
    const args: JsonObject = {};
    for (let i = 0; i < 300; i += 7) args[`p${i}`] = i % 2 === 0 ? value : range(items % 5_000).map((n) => ({ n: n % 97 }));
    for (let i = 0; i < keys; i++) args[`x${i % 400}_${'a'.repeat(i % 30)}`] = value.slice(0, 64);
    args.p1 = range(items);
    return args;
  });
