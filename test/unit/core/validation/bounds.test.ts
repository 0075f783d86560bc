/**
 * Bounds on the work one schema, or one call against it, can cost (issue 27): compiling a schema whose
 * parameters share a `$defs` entry, `uniqueItems` over large untyped arrays, `patternProperties` times argument
 * keys, and schema patterns with nested quantifiers. Each bound is asserted on work (generated code, tests run,
 * characters scanned) or with a ceiling far from both the old figure and the new one.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../../src/core/shared/json.js';
import type { Diagnostic } from '../../../../src/core/shared/types.js';
import { MAX_PATTERN_WORK_PER_CALL } from '../../../../src/core/shared/patterns.js';
import { AJV_OPTIONS } from '../../../../src/core/validation/ajv-options.js';
import { canonicalKey, firstDuplicate } from '../../../../src/core/validation/keywords/equality.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';
import { compileSchemaPlan } from '../../../../src/core/rule/plan.js';
import { normalizeArguments } from '../../../../src/core/rule/normalize.js';

const compiler = createSchemaCompiler();

function compileOk(schema: JsonObject): (args: JsonValue) => Diagnostic[] {
  const compiled = compiler.compile(schema);
  if (!compiled.ok) throw new Error(compiled.diagnostic.message);
  return (args) => compiled.validate(args);
}

function timed<T>(action: () => T): { ms: number; result: T } {
  const started = performance.now();
  const result = action();
  return { ms: performance.now() - started, result };
}

/** `n` parameters that all `$ref` one `$defs` entry of `m` enum-typed fields: an ordinary generated schema. */
function sharedDefs(n: number, m: number): JsonObject {
  const item = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: m }, (_, i) => [`f${i}`, { type: 'string', enum: ['a', 'b', 'c'] }])),
    required: ['f0'],
  };
  return {
    type: 'object',
    $defs: { Item: item },
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { $ref: '#/$defs/Item' }])),
  };
}

describe('compiling a schema whose parameters share one $defs entry', () => {
  it('generates code linear in the schema: the entry compiles once, not once per use', () => {
    const schema = sharedDefs(200, 40);
    const bytes = JSON.stringify(schema).length;
    const ajv = new Ajv2020(AJV_OPTIONS);
    const validate = ajv.compile(schema);
    // Inlined (ajv's default), the root function held 200 copies of the entry's code: over 100 times the schema.
    expect(validate.toString().length).toBeLessThan(20 * bytes);
    expect(validate({ p0: { f0: 'a' }, p199: { f0: 'b', f39: 'c' } })).toBe(true);
    expect(validate({ p7: { f1: 'a' } })).toBe(false);
  });

  it('compiles in well under a second and validates through the shared entry (was 4-22 s and up to 3.2 GB)', () => {
    const schema = sharedDefs(400, 40);
    const heapBefore = process.memoryUsage().heapUsed;
    const { ms, result } = timed(() => compiler.compile(schema));
    const grown = process.memoryUsage().heapUsed - heapBefore;
    expect(result.ok).toBe(true);
    // Ceilings for a loaded 2-core machine: the inlined compile took 12 s and more there.
    expect(ms).toBeLessThan(4_000);
    expect(grown).toBeLessThan(400 * 1024 * 1024);
    const validate = compileOk(schema);
    expect(validate({ p3: { f0: 'a' } })).toEqual([]);
    expect(validate({ p3: { f0: 'z' } }).map((d) => [d.code, d.path])).toEqual([['not_in_enum', '/p3/f0']]);
  });
});

describe('uniqueItems in linear time', () => {
  const validate = compileOk({ type: 'object', properties: { list: { type: 'array', uniqueItems: true } } });

  it('compares by JSON value: key order, 1 and 1.0, -0 and 0, nested arrays, own valueOf/toString keys', () => {
    const duplicates: JsonValue[][] = [
      [
        { a: 1, b: [1, { c: null }] },
        { b: [1, { c: null }], a: 1 },
      ],
      [1, 1.0],
      [-0, 0],
      [
        [1, [2]],
        [1, [2]],
      ],
      [
        { valueOf: 1, toString: 'x' },
        { toString: 'x', valueOf: 1 },
      ],
      [JSON.parse('{"__proto__": 1}') as JsonValue, JSON.parse('{"__proto__": 1}') as JsonValue],
    ];
    for (const list of duplicates)
      expect(
        validate({ list }).map((d) => d.code),
        JSON.stringify(list),
      ).toEqual(['duplicate_items']);
    const distinct: JsonValue[][] = [
      [1, '1'],
      [null, 'null', 0, false, '', [], {}],
      [{ a: 1 }, { a: 1, b: 1 }],
      [
        [1, 2],
        [2, 1],
      ],
      [{ valueOf: 1 }, { valueOf: 2 }],
      ['a"b', 'a\\"b'],
    ];
    for (const list of distinct) expect(validate({ list }), JSON.stringify(list)).toEqual([]);
    expect(canonicalKey(Infinity)).not.toBe(canonicalKey(null));
  });

  it('reports the first repeated item: its first occurrence and the repeat', () => {
    expect(firstDuplicate(['a', 'b', 'a', 'c', 'b', 'b'])).toEqual([0, 2]);
    expect(firstDuplicate(['a', 'b', 'c', 'b'])).toEqual([1, 3]);
    expect(firstDuplicate(['a', 'b'])).toBeUndefined();
    expect(validate({ list: ['x', 'y', 'x'] })[0]?.details?.duplicateIndexes).toEqual([0, 2]);
  });

  it('checks 100 000 untyped numbers, or 20 000 objects, in a fraction of a second (was 17 s a call)', () => {
    const numbers = Array.from({ length: 100_000 }, (_, i) => i);
    const objects = Array.from({ length: 20_000 }, (_, i) => ({ id: i, tags: ['a', 'b'] }));
    for (const list of [numbers, objects] as JsonValue[][]) {
      const { ms, result } = timed(() => validate({ list }));
      expect(result).toEqual([]);
      expect(ms).toBeLessThan(2_000);
    }
    const { ms, result } = timed(() => validate({ list: [...numbers, 99_999] }));
    expect(result[0]?.details?.duplicateIndexes).toEqual([99_999, 100_000]);
    expect(ms).toBeLessThan(2_000);
  });
});

describe('patternProperties times argument keys', () => {
  const patterns = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`^p${i}_[a-z]+$`, { type: 'string' }]));
  // Without additionalProperties: false, whose `||` of 2 000 pattern tests overflows ajv's code generator's stack.
  const schema: JsonObject = { type: 'object', patternProperties: patterns };
  const validate = compileOk(schema);
  const keys = (n: number, prefix = 'k'): JsonObject => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}_abc`, 'v']));

  it('2 000 patterns x 40 000 keys: refused as too costly within the budget, not 29-90 s of work', () => {
    const { ms, result } = timed(() => validate(keys(40_000)));
    expect(result).toHaveLength(1);
    expect(result[0]?.code).toBe('tool_schema_unusable');
    expect(result[0]?.details).toEqual({ reason: 'pattern_budget_exceeded', limit: MAX_PATTERN_WORK_PER_CALL });
    expect(result[0]?.message).toContain('patterns would scan more than 4000000 characters');
    expect(ms).toBeLessThan(10_000);
  });

  it('the RT-TOOL-8 plan stops at the same budget (names past it are not declared), and the next call has a fresh one', () => {
    const plan = compileSchemaPlan(schema);
    const { ms } = timed(() => normalizeArguments(keys(40_000), plan));
    expect(ms).toBeLessThan(10_000);
    const json = { p5_x: '["a"]' };
    expect(normalizeArguments(json, plan).passThroughs).toEqual([{ pointer: '/p5_x', reason: 'string_declared' }]);
  });

  it('an ordinary call against the same schema validates, and its mistakes are reported', () => {
    expect(validate({ p1_ab: 'x', p1999_z: 'y' })).toEqual([]);
    expect(validate({ p1_ab: 3, zz: 1 }).map((d) => [d.code, d.path])).toEqual([['wrong_type', '/p1_ab']]);
  });
});

describe('schema patterns run in linear time', () => {
  it('^(a+)+$ and (a|a)*$ on 100 000 characters answer at once (V8: 26 characters took 3.4 s)', () => {
    const validate = compileOk({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(a+)+$' }, b: { type: 'string', pattern: '^(a|a)*$' } },
      propertyNames: { pattern: '^(\\w+\\s?)*$' },
    });
    for (const n of [26, 40, 100_000]) {
      const value = `${'a'.repeat(n)}!`;
      const { ms, result } = timed(() => validate({ a: value, b: value }));
      expect(result.map((d) => d.code)).toEqual(['pattern_mismatch', 'pattern_mismatch']);
      expect(ms).toBeLessThan(2_000);
    }
    const { ms, result } = timed(() => validate({ [`${'word '.repeat(20_000)}!`]: 1 }));
    expect(result.map((d) => d.code)).toEqual(['invalid_property_name']);
    expect(ms).toBeLessThan(2_000);
  });

  it('refuses at load a pattern the engine cannot run, naming it', () => {
    for (const [where, schema] of [
      ['pattern', { properties: { p: { type: 'string', pattern: '^(?=.*\\d)\\w{8,}$' } } }],
      ['patternProperties', { patternProperties: { '^(x)\\1$': { type: 'string' } } }],
      ['propertyNames', { propertyNames: { pattern: '(?<!a)b' } }],
    ] as const) {
      const compiled = compiler.compile(schema);
      expect(compiled.ok, where).toBe(false);
      if (compiled.ok) continue;
      expect(compiled.diagnostic.code).toBe('tool_schema_unusable');
      expect(compiled.diagnostic.details?.reason).toBe('pattern_unsupported');
      expect(compiled.diagnostic.message).toMatch(/linear-time pattern engine cannot run/);
    }
    const compiled = compiler.compile({ properties: { p: { type: 'string', pattern: '^(?=.*\\d)\\w{8,}$' } } });
    expect(!compiled.ok && compiled.diagnostic.message).toContain('pattern "^(?=.*\\\\d)\\\\w{8,}$" uses a lookaround assertion');
  });

  it('still reports a malformed pattern as invalid_pattern', () => {
    const compiled = compiler.compile({ properties: { p: { type: 'string', pattern: '([a-' } } });
    expect(!compiled.ok && compiled.diagnostic.details?.reason).toBe('invalid_pattern');
  });
});
