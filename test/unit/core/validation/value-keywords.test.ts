/**
 * `enum`, `const`, `uniqueItems` and `multipleOf` as our instances run them (keywords/value-keywords.ts): every
 * key of an argument is data, so `valueOf`, `toString`, `constructor` and `__proto__` keys compare like any other,
 * and `multipleOf` is exact in decimal.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../../src/core/shared/json.js';
import type { Diagnostic } from '../../../../src/core/shared/types.js';
import { canonicalKey, firstDuplicate, jsonEqual } from '../../../../src/core/validation/keywords/equality.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

const compiler = createSchemaCompiler();

function validator(schema: JsonObject): (args: JsonValue) => Diagnostic[] {
  const compiled = compiler.compile(schema);
  if (!compiled.ok) throw new Error(compiled.diagnostic.message);
  return (args) => compiled.validate(args);
}

const codes = (diagnostics: Diagnostic[]): string[] => diagnostics.map((d) => d.code);

/** The oracle: equal as JSON Schema compares instances, through JSON text with sorted keys (test-side, independent). */
function sortedText(value: JsonValue): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Keys that name members of Object.prototype, as models may send them. */
const MEMBER_KEYS = ['valueOf', 'toString', 'constructor', '__proto__', 'hasOwnProperty', 'toJSON', 'isPrototypeOf', 'a', 'b'];

/** JSON values with member-named keys, built through JSON text so `__proto__` is an own key, as from the wire. */
const value: fc.Arbitrary<JsonValue> = fc
  .letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(0, -0, 1, 2.5, 'x', '', 'valueOf', true, false, null),
      fc.array(tie('v'), { maxLength: 3 }),
      fc.array(fc.tuple(fc.constantFrom(...MEMBER_KEYS), tie('v')), { maxLength: 4 }).map((entries) => ({ entries })),
    ),
  }))
  .v.map((v) => JSON.parse(toText(v)) as JsonValue);

function toText(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const entries = (v as { entries: [string, unknown][] }).entries;
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

describe('jsonEqual, canonicalKey and firstDuplicate', () => {
  it('own member-named keys are data', () => {
    const parse = (text: string): JsonValue => JSON.parse(text) as JsonValue;
    expect(jsonEqual(parse('{"valueOf":1}'), parse('{"valueOf":1}'))).toBe(true);
    expect(jsonEqual(parse('{"valueOf":1}'), parse('{"valueOf":2}'))).toBe(false);
    expect(jsonEqual(parse('{"toString":"a","b":1}'), parse('{"b":1,"toString":"a"}'))).toBe(true);
    expect(jsonEqual(parse('{"constructor":{"a":1}}'), parse('{"constructor":{"a":1}}'))).toBe(true);
    expect(jsonEqual(parse('{"__proto__":[1]}'), parse('{"__proto__":[1]}'))).toBe(true);
    expect(jsonEqual(parse('{"__proto__":[1]}'), parse('{"__proto__":[2]}'))).toBe(false);
    expect(jsonEqual(parse('{"__proto__":[1]}'), parse('{}'))).toBe(false);
    expect(jsonEqual(parse('{}'), parse('{"constructor":{}}'))).toBe(false);
    expect(jsonEqual(parse('[1,{"a":1}]'), parse('[1,{"a":1}]'))).toBe(true);
    expect(jsonEqual(parse('[1]'), parse('{"0":1}'))).toBe(false);
    expect(jsonEqual(0, -0)).toBe(true);
    expect(jsonEqual('1', 1)).toBe(false);
  });

  it('agree with the oracle on values with member-named keys', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const equal = sortedText(a) === sortedText(b);
        expect(jsonEqual(a, b)).toBe(equal);
        expect(jsonEqual(a, JSON.parse(JSON.stringify(a)) as JsonValue)).toBe(true);
        expect(canonicalKey(a) === canonicalKey(b)).toBe(equal);
      }),
    );
  });

  it('firstDuplicate finds the first repeat, as a pairwise search does', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 8 }), (items) => {
        let expected: [number, number] | undefined;
        for (let i = 0; i < items.length && expected === undefined; i++) {
          for (let j = 0; j < i; j++) {
            if (sortedText(items[j] as JsonValue) === sortedText(items[i] as JsonValue)) {
              expected = [j, i];
              break;
            }
          }
        }
        expect(firstDuplicate(items)).toEqual(expected);
      }),
    );
  });
});

describe('enum, const and uniqueItems compare own valueOf/toString/constructor keys as data', () => {
  const parse = (text: string): JsonObject => JSON.parse(text) as JsonObject;
  const schema = parse(
    '{"type":"object","properties":{"choice":{"enum":[{"valueOf":1},{"toString":"x"},{"__proto__":[1]},"plain"]},' +
      '"fixed":{"const":{"constructor":{"a":1}}},"tags":{"type":"array","uniqueItems":true},' +
      '"typed":{"type":"array","items":{"type":"object"},"uniqueItems":true}}}',
  );
  const validate = validator(schema);

  it.each([
    ['{"choice":{"valueOf":1}}', []],
    ['{"choice":{"toString":"x"}}', []],
    ['{"choice":{"__proto__":[1]}}', []],
    ['{"choice":"plain"}', []],
    ['{"choice":{"valueOf":2}}', ['not_in_enum']],
    ['{"choice":{"__proto__":[2]}}', ['not_in_enum']],
    ['{"choice":{}}', ['not_in_enum']],
    ['{"fixed":{"constructor":{"a":1}}}', []],
    ['{"fixed":{"constructor":{"a":2}}}', ['not_const']],
    ['{"tags":[{"valueOf":1},{"valueOf":2}]}', []],
    ['{"tags":[{"valueOf":1},{"toString":"a"},{"valueOf":1}]}', ['duplicate_items']],
    ['{"tags":[{"constructor":{"a":1}},{"constructor":{"a":1}}]}', ['duplicate_items']],
    ['{"typed":[{"toString":"a"},{"toString":"a"}]}', ['duplicate_items']],
    ['{"tags":[1,"1",true,null,[1],{"1":1}]}', []],
    ['{"tags":[0,-0]}', ['duplicate_items']],
  ])('%s: %j', (args, expected) => {
    expect(codes(validate(parse(args)))).toEqual(expected);
  });

  it('names the two equal items, first the earlier', () => {
    const [diagnostic] = validate(parse('{"tags":["a",{"valueOf":1},"b",{"valueOf":1}]}'));
    expect(diagnostic).toMatchObject({ code: 'duplicate_items', path: '/tags', details: { duplicateIndexes: [1, 3] } });
  });

  it('never fails to evaluate, and agrees with the oracle, whatever the values', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), value, fc.array(value, { maxLength: 5 }), (allowed, sent, items) => {
        const check = validator({
          type: 'object',
          properties: { e: { enum: allowed }, c: { const: allowed[0] ?? null }, u: { uniqueItems: true } },
        });
        const got = codes(check({ e: sent, c: sent, u: items }));
        const expected: string[] = [];
        if (!allowed.some((a) => sortedText(a) === sortedText(sent))) expected.push('not_in_enum');
        if (sortedText(allowed[0] ?? null) !== sortedText(sent)) expected.push('not_const');
        if (new Set(items.map(sortedText)).size !== items.length) expected.push('duplicate_items');
        expect(got).toEqual(expected);
      }),
    );
  });
});

describe('multipleOf is exact for decimal steps', () => {
  const validate = validator({ type: 'object', properties: { price: { type: 'number', multipleOf: 0.01 } } });

  it.each([1.13, 0.07, 19.99, 0, -4.2, 1e6, 123456.78])('accepts %s with step 0.01', (price) => {
    expect(validate({ price })).toEqual([]);
  });

  it('refuses 1.131 and names the multiples on either side', () => {
    expect(validate({ price: 1.131 })).toEqual([
      {
        code: 'not_multiple_of',
        path: '/price',
        message: '"price" must be a multiple of 0.01, received 1.131.',
        hint: 'Send a multiple of 0.01, such as 1.13 or 1.14.',
        details: { keyword: 'multipleOf', multipleOf: 0.01, actual: 1.131 },
      },
    ]);
  });
});

describe('the replaced keywords keep their order', () => {
  it('const before enum, the bounds before multipleOf, as in ajv', () => {
    expect(codes(validator({ type: 'string', const: 'a', enum: ['b'] })('c'))).toEqual(['not_const', 'not_in_enum']);
    expect(codes(validator({ multipleOf: 0.5, minimum: 5 })(0.3))).toEqual(['below_minimum', 'not_multiple_of']);
    expect(codes(validator({ type: 'array', uniqueItems: true, maxItems: 1, contains: { const: 9 } })([1, 1]))).toEqual([
      'too_many_items',
      'missing_contains',
      'duplicate_items',
    ]);
  });

  it('for draft-07 too', () => {
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#' };
    expect(codes(validator({ ...draft07, type: 'string', const: 'a', enum: ['b'] })('c'))).toEqual(['not_const', 'not_in_enum']);
    expect(codes(validator({ ...draft07, multipleOf: 0.01 })(19.99))).toEqual([]);
    expect(codes(validator({ ...draft07, enum: [{ valueOf: 1 }] })(JSON.parse('{"valueOf":1}') as JsonValue))).toEqual([]);
  });
});
