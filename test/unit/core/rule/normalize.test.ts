import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/core/shared/json.js';
import {
  DEFAULT_NORMALIZE_OPTIONS,
  decodeReferences,
  normalizeArguments,
  type NormalizeOptions,
} from '../../../../src/core/rule/normalize.js';
import { compileSchemaPlan } from '../../../../src/core/rule/plan.js';

function run(schema: JsonObject, args: JsonObject, options: Partial<NormalizeOptions> = {}) {
  return normalizeArguments(args, compileSchemaPlan(schema), { ...DEFAULT_NORMALIZE_OPTIONS, ...options });
}

const listAndText: JsonObject = {
  type: 'object',
  properties: {
    tags: { type: 'array', items: { type: 'string' } },
    filter: { type: 'object' },
    title: { type: 'string' },
    count: { type: 'integer' },
  },
};

describe('RT-TOOL-8 §2: a string argument is decoded as JSON only where all three conditions hold', () => {
  it.each([
    ['array declared, text is a list', { tags: '["a","b"]' }, { tags: ['a', 'b'] }],
    ['object declared, text is a map', { filter: '{"status":"open"}' }, { filter: { status: 'open' } }],
    ['surrounding whitespace is JSON whitespace', { tags: ' \n["a"] ' }, { tags: ['a'] }],
    ['empty list', { tags: '[]' }, { tags: [] }],
  ])('decodes: %s', (_name, args, expected) => {
    const result = run(listAndText, args);
    expect(result.arguments).toEqual(expected);
    expect(result.repairs).toEqual([{ pointer: `/${Object.keys(args)[0] ?? ''}`, kind: 'json_decoded' }]);
    expect(result.passThroughs).toEqual([]);
  });

  it.each([
    ['the schema declares string (condition 1)', { title: '["a"]' }, 'string_declared'],
    ['the schema declares a scalar type (condition 1)', { count: '[1]' }, 'not_declared'],
    ['the parameter is not in the schema (condition 1)', { extra: '[1]' }, 'not_declared'],
    ['the text does not parse (condition 2)', { tags: '[a, b' }, 'not_json'],
    ['prose where a list is declared (condition 2)', { tags: 'a, b' }, 'not_json'],
    ['a map where a list is declared (condition 3)', { tags: '{"op":"add"}' }, 'shape_mismatch'],
    ['a list where a map is declared (condition 3)', { filter: '[1]' }, 'shape_mismatch'],
    ['a JSON scalar where a list is declared (condition 3)', { tags: '42' }, 'shape_mismatch'],
    ['JSON encoded twice: parses to a string (condition 3)', { tags: '"[\\"a\\"]"' }, 'shape_mismatch'],
  ])('passes through unmodified when %s', (_name, args, reason) => {
    const result = run(listAndText, args);
    expect(result.arguments).toEqual(args);
    expect(result.repairs).toEqual([]);
    expect(result.passThroughs).toEqual([{ pointer: `/${Object.keys(args)[0] ?? ''}`, reason }]);
  });

  it.each([
    ['a sentence in a string parameter', { title: 'Weekly sync [draft]' }],
    ['bracketed text that is not JSON, in a string parameter', { title: '[draft] {agenda}' }],
    ['text opening a list but not closing it', { title: '[1, 2' }],
    ['a JSON scalar in a scalar parameter', { count: '42' }],
    ['prose in a parameter the schema does not know', { extra: 'see above' }],
    ['an empty string', { title: '' }],
  ])('reports no pass-through where no repair was conceivable: %s', (_name, args) => {
    const result = run(listAndText, args);
    expect(result.arguments).toBe(args);
    expect(result.repairs).toEqual([]);
    expect(result.passThroughs).toEqual([]);
  });

  it.each([
    ['a map in a string parameter', { title: '{"k":1}' }, 'string_declared'],
    ['a list with JSON whitespace around it', { title: ' \n[1] ' }, 'string_declared'],
    ['a map in a parameter the schema does not know', { extra: '{"a":[1]}' }, 'not_declared'],
  ])('reports a pass-through where the text is a JSON list or map the schema does not let us decode: %s', (_name, args, reason) => {
    const result = run(listAndText, args);
    expect(result.arguments).toBe(args);
    expect(result.passThroughs).toEqual([{ pointer: `/${Object.keys(args)[0] ?? ''}`, reason }]);
  });

  it("the rule's example: an object literal where the schema declares an array is left untouched", () => {
    const schema: JsonObject = { type: 'object', properties: { ops: { type: 'array', items: { type: 'object' } } } };
    const sent = { ops: '{"op":"add"}' };
    const result = run(schema, sent);
    expect(result.arguments).toBe(sent);
    expect(result.arguments).toEqual({ ops: '{"op":"add"}' });
    expect(result.passThroughs).toEqual([{ pointer: '/ops', reason: 'shape_mismatch' }]);
  });

  it('decodes only what was sent as a string: non-string values are never candidates', () => {
    const sent = { tags: ['x'], filter: { a: 1 }, count: 3 };
    const result = run(listAndText, sent);
    expect(result.arguments).toBe(sent);
    expect(result.passThroughs).toEqual([]);
  });

  it('looks at the argument as sent, once: a decoded list holding JSON text keeps that text', () => {
    const result = run(listAndText, { tags: '["[1,2]"]' });
    expect(result.arguments).toEqual({ tags: ['[1,2]'] });
  });

  it('does not decode nested properties by default (the rule speaks of parameters)', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { outer: { type: 'object', properties: { inner: { type: 'array' } } } },
    };
    const result = run(schema, { outer: { inner: '[1]' } });
    expect(result.arguments).toEqual({ outer: { inner: '[1]' } });
    expect(result.repairs).toEqual([]);
  });
});

describe('declared types are read as JSON Schema reads them', () => {
  const cases: [string, JsonObject, string, 'decoded' | 'kept'][] = [
    ['type list with null', { type: ['array', 'null'] }, '[1]', 'decoded'],
    ['type list with string', { type: ['array', 'string'] }, '[1]', 'kept'],
    [
      'Pydantic Optional[list] (anyOf with null)',
      { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] },
      '[1]',
      'decoded',
    ],
    ['anyOf including string', { anyOf: [{ type: 'array' }, { type: 'string' }] }, '[1]', 'kept'],
    ['oneOf of list and map: map text', { oneOf: [{ type: 'array' }, { type: 'object' }] }, '{"a":1}', 'decoded'],
    ['allOf narrows to array', { allOf: [{ type: ['array', 'string'] }, { type: 'array' }] }, '[1]', 'decoded'],
    ['$ref into $defs', { $ref: '#/$defs/List' }, '[1]', 'decoded'],
    ['$ref into definitions', { $ref: '#/definitions/List' }, '[1]', 'decoded'],
    ['$ref to an $anchor, as the validator resolves it', { $ref: '#list' }, '[1]', 'decoded'],
    ['$ref to a draft-07 "#name" $id', { $ref: '#legacy-text' }, '[1]', 'kept'],
    ['$ref to a string type', { $ref: '#/$defs/Text' }, '[1]', 'kept'],
    ['dangling $ref: nothing known, never decoded', { $ref: '#/$defs/Missing' }, '[1]', 'kept'],
    ['$ref cycle: nothing known, never decoded', { $ref: '#/$defs/LoopA' }, '[1]', 'kept'],
    ['no type at all (allows string)', { description: 'anything' }, '[1]', 'kept'],
    ['enum of lists', { enum: [[1], [2]] }, '[1]', 'decoded'],
    ['const string', { const: '[1]' }, '[1]', 'kept'],
    ['true schema', { anyOf: [true] }, '[1]', 'kept'],
  ];
  const defs: JsonObject = {
    List: { type: 'array' },
    Text: { type: 'string' },
    Anchored: { $anchor: 'list', type: 'array' },
    Legacy: { $id: '#legacy-text', type: 'string' },
    LoopA: { $ref: '#/$defs/LoopB' },
    LoopB: { $ref: '#/$defs/LoopA' },
  };

  it.each(cases)('%s', (_name, sub, text, expected) => {
    const schema: JsonObject = { type: 'object', properties: { p: sub }, $defs: defs, definitions: defs };
    const result = run(schema, { p: text });
    if (expected === 'decoded') expect(result.arguments.p).toEqual(JSON.parse(text));
    else expect(result.arguments.p).toBe(text);
  });

  it('finds a parameter through patternProperties, then additionalProperties', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { name: { type: 'string' } },
      patternProperties: { '^list_': { type: 'array' } },
      additionalProperties: { type: 'object' },
    };
    const result = run(schema, { name: '[1]', list_a: '[1]', other: '{"k":1}', list_b: '{"k":1}' });
    expect(result.arguments).toEqual({ name: '[1]', list_a: [1], other: { k: 1 }, list_b: '{"k":1}' });
    expect(result.passThroughs).toEqual([
      { pointer: '/name', reason: 'string_declared' },
      { pointer: '/list_b', reason: 'shape_mismatch' },
    ]);
  });

  it('follows a root schema that is itself a $ref or allOf', () => {
    const viaRef: JsonObject = { $ref: '#/$defs/Args', $defs: { Args: { type: 'object', properties: { ids: { type: 'array' } } } } };
    expect(run(viaRef, { ids: '[1,2]' }).arguments).toEqual({ ids: [1, 2] });
    const viaAllOf: JsonObject = { allOf: [{ properties: { ids: { type: 'array' } } }, { required: ['ids'] }] };
    expect(run(viaAllOf, { ids: '[3]' }).arguments).toEqual({ ids: [3] });
  });

  it('never decodes a parameter one anyOf/oneOf alternative says nothing of: under it the parameter may be a string', () => {
    // Valid as sent (the second alternative matches); decoding p would make both match and break the oneOf.
    const oneOf: JsonObject = {
      type: 'object',
      oneOf: [
        { properties: { p: { type: 'array' } }, required: ['p'] },
        { properties: { q: { type: 'string' } }, required: ['q'] },
      ],
    };
    const result = run(oneOf, { p: '["a"]', q: 'x' });
    expect(result.arguments).toEqual({ p: '["a"]', q: 'x' });
    expect(result.repairs).toEqual([]);
    expect(run({ type: 'object', anyOf: [{ properties: { p: { type: 'array' } } }, true] }, { p: '[1]' }).arguments).toEqual({ p: '[1]' });
    expect(run({ type: 'object', anyOf: [{ properties: { p: { type: 'array' } } }, { required: ['p'] }] }, { p: '[1]' }).arguments).toEqual(
      { p: '[1]' },
    );
  });

  it('leaves out an alternative that forbids the parameter (additionalProperties: false), and one for another container', () => {
    const schema: JsonObject = {
      type: 'object',
      anyOf: [
        { properties: { p: { type: 'array' } } },
        { properties: { q: { type: 'string' } }, additionalProperties: false },
        { type: 'string' },
      ],
    };
    expect(run(schema, { p: '[1]' }).arguments).toEqual({ p: [1] });
  });

  it('applies properties and every matching patternProperties together, as JSON Schema does', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { p: { description: 'ids' }, r: { type: ['array', 'string'] } },
      patternProperties: { '^[pr]$': { type: 'array' } },
    };
    const result = run(schema, { p: '[1]', r: '[2]' });
    expect(result.arguments).toEqual({ p: [1], r: [2] });
    expect(result.repairs).toEqual([
      { pointer: '/p', kind: 'json_decoded' },
      { pointer: '/r', kind: 'json_decoded' },
    ]);
  });

  it('reads schemas that share subschemas through $ref in time linear in their size, not in their paths', () => {
    // A0 = allOf [A1, A1], A1 = allOf [A2, A2] ... : 2^40 paths to the last one. Walked path by path (as before
    // the memo) this never returns and the test times out; walked once per schema it takes well under a millisecond.
    const depth = 40;
    const defs: JsonObject = { [`A${depth}`]: { type: 'array' } };
    for (let i = 0; i < depth; i++) defs[`A${i}`] = { allOf: [{ $ref: `#/$defs/A${i + 1}` }, { $ref: `#/$defs/A${i + 1}` }] };
    expect(run({ type: 'object', properties: { p: { $ref: '#/$defs/A0' } }, $defs: defs }, { p: '[1]' }).arguments).toEqual({ p: [1] });
    expect(run({ type: 'object', additionalProperties: { $ref: '#/$defs/A0' }, $defs: defs }, { x: '[1]' }).arguments).toEqual({ x: [1] });
  });

  it('refuses a decoded value nested deeper than the bound', () => {
    const deep = '['.repeat(100) + ']'.repeat(100);
    const result = run(listAndText, { tags: deep });
    expect(result.arguments.tags).toBe(deep);
    expect(result.passThroughs).toEqual([{ pointer: '/tags', reason: 'too_deep' }]);
  });
});

describe('RT-TOOL-8 §4: HTML character references on every string leaf, until stable', () => {
  it("the rule's example: a doubly-escaped title resolves fully", () => {
    const result = run(listAndText, { title: 'Ember &amp;amp; Oak' });
    expect(result.arguments).toEqual({ title: 'Ember & Oak' });
    expect(result.repairs).toEqual([{ pointer: '/title', kind: 'entities_decoded' }]);
  });

  it('runs independently of the schema: undeclared parameters, nested leaves, array items', () => {
    const result = run(listAndText, { extra: { deep: ['a &lt; b', 1, true, null] } });
    expect(result.arguments).toEqual({ extra: { deep: ['a < b', 1, true, null] } });
    expect(result.repairs).toEqual([{ pointer: '/extra/deep/0', kind: 'entities_decoded' }]);
  });

  it('decodes the leaves of a just-decoded value too', () => {
    const result = run(listAndText, { tags: '["Tom &amp; Jerry"]' });
    expect(result.arguments).toEqual({ tags: ['Tom & Jerry'] });
    expect(result.repairs).toEqual([
      { pointer: '/tags', kind: 'json_decoded' },
      { pointer: '/tags/0', kind: 'entities_decoded' },
    ]);
  });

  it('escapes JSON Pointer tokens in repair pointers', () => {
    const result = run(listAndText, { 'a/b~c': 'x &gt; y' });
    expect(result.repairs).toEqual([{ pointer: '/a~1b~0c', kind: 'entities_decoded' }]);
  });

  it.each([
    ['legacy name inside a URL query survives', 'https://x.test/?a=1&copy=2&not=3', 'https://x.test/?a=1&copy=2&not=3'],
    ['legacy name before an alphanumeric survives', '&copy2024', '&copy2024'],
    ['legacy name before other text decodes', 'a &copy b', 'a © b'],
    ['terminated named reference', '&copy;', '©'],
    ['numeric reference in the C1 range maps as browsers do', '&#128;', '€'],
    ['numeric NUL becomes U+FFFD', '&#0;', '\uFFFD'],
    ['hexadecimal reference', '&#x1F600;', '😀'],
    ['five levels of escaping resolve fully', '&amp;amp;amp;amp;lt;', '<'],
    ['unknown names are left alone', '&notaname;', '&notaname;'],
    ['a bare ampersand is left alone', 'R&D', 'R&D'],
  ])('%s', (_name, sent, expected) => {
    expect(run(listAndText, { title: sent }).arguments.title).toBe(expected);
  });

  it('bounds the number of passes', () => {
    const sent = `&${'amp;'.repeat(20)}lt;`;
    expect(decodeReferences(sent, 3)).toBe(`&${'amp;'.repeat(17)}lt;`);
    expect(run(listAndText, { title: sent }, { maxEntityPasses: 3 }).arguments.title).toBe(`&${'amp;'.repeat(17)}lt;`);
    expect(run(listAndText, { title: sent }).arguments.title).toBe(`&${'amp;'.repeat(10)}lt;`);
  });
});

describe('RT-TOOL-8 §5: keys are never modified; text with no reference is returned unchanged', () => {
  it('keeps keys that look like references or JSON', () => {
    const sent = { '&amp;key': 'v', '["tags"]': 'w' };
    const result = run(listAndText, sent);
    expect(Object.keys(result.arguments)).toEqual(['&amp;key', '["tags"]']);
  });

  it('keeps nested keys inside decoded values', () => {
    const result = run(listAndText, { filter: '{"&lt;k&gt;":"&lt;v&gt;"}' });
    expect(result.arguments).toEqual({ filter: { '&lt;k&gt;': '<v>' } });
  });

  it('returns the very same object when nothing needs repair', () => {
    const sent = { title: 'plain', tags: ['a'], count: 1, flag: false, none: null };
    const result = run(listAndText, sent);
    expect(result.arguments).toBe(sent);
    expect(result.repairs).toEqual([]);
  });

  it('never mutates its input', () => {
    const sent = Object.freeze({ tags: '["a &amp; b"]', nested: Object.freeze({ t: '&lt;' }) });
    const copy = structuredClone(sent);
    run(listAndText, sent);
    expect(sent).toEqual(copy);
  });
});

describe('hostile keys are plain data', () => {
  it('keeps __proto__ and constructor as own properties and pollutes nothing', () => {
    const sent = JSON.parse('{"__proto__":{"polluted":"&amp;yes"},"constructor":"&lt;c&gt;","tags":"[1]"}') as JsonObject;
    const result = run(listAndText, sent);
    expect(Object.keys(result.arguments)).toEqual(['__proto__', 'constructor', 'tags']);
    expect(Object.getPrototypeOf(result.arguments)).toBe(Object.prototype);
    expect(JSON.stringify(result.arguments)).toBe('{"__proto__":{"polluted":"&yes"},"constructor":"<c>","tags":[1]}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('treats a schema property named __proto__ as a property', () => {
    const schema: JsonObject = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"array"}}}') as JsonObject;
    const sent = JSON.parse('{"__proto__":"[1]"}') as JsonObject;
    expect(JSON.stringify(run(schema, sent).arguments)).toBe('{"__proto__":[1]}');
  });
});

describe('beyond the rule (opt-in)', () => {
  const nested: JsonObject = {
    type: 'object',
    properties: {
      outer: {
        type: 'object',
        properties: {
          inner: { type: 'array', items: { type: 'object', properties: { ids: { type: 'array' } } } },
          note: { type: 'string' },
        },
      },
    },
  };

  it('deep mode decodes nested properties and items the schema declares array/object', () => {
    const result = run(nested, { outer: '{"inner":"[{\\"ids\\":\\"[1]\\"}]","note":"[2]"}' }, { deep: true });
    expect(result.arguments).toEqual({ outer: { inner: [{ ids: [1] }], note: '[2]' } });
    expect(result.repairs.map((r) => r.pointer)).toEqual(['/outer', '/outer/inner', '/outer/inner/0/ids']);
  });

  it('deep mode is off by default', () => {
    expect(run(nested, { outer: { inner: '[]' } }).arguments).toEqual({ outer: { inner: '[]' } });
  });

  it('an operator can exempt parameters or a whole call from entity decoding', () => {
    const sent = { title: 'a &amp; b', content: 'x &amp;amp; y' };
    expect(run(listAndText, sent, { entityExemptParameters: new Set(['content']) }).arguments).toEqual({
      title: 'a & b',
      content: 'x &amp;amp; y',
    });
    expect(run(listAndText, sent, { skipEntities: true }).arguments).toBe(sent);
  });
});
