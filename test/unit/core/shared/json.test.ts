import { describe, expect, it } from 'vitest';
import { jsonTypeOf, measureDepth, nestsDeeperThan, schemaTypeOf } from '../../../../src/core/shared/json.js';
import { walkFragmentPointer } from '../../../../src/core/shared/json-pointer.js';

describe('walkFragmentPointer: a JSON Pointer in a URI fragment, as local $refs carry it', () => {
  const root = {
    $defs: { 'a b': { type: 'string' }, 'x/y': { type: 'array' }, 'm~n': { type: 'null' }, '': { const: 1 } },
    allOf: [{ minimum: 0 }, { maximum: 9 }],
  };

  it('follows object keys and array indexes, returning the value and the decoded tokens', () => {
    expect(walkFragmentPointer(root, '/allOf/1')).toEqual({ value: { maximum: 9 }, tokens: ['allOf', '1'] });
    expect(walkFragmentPointer(root, '')).toEqual({ value: root, tokens: [] });
  });

  it('percent-decodes each token, then unescapes ~1 and ~0 (RFC 6901 section 6)', () => {
    expect(walkFragmentPointer(root, '/$defs/a%20b')?.value).toEqual({ type: 'string' });
    expect(walkFragmentPointer(root, '/$defs/x~1y')?.tokens).toEqual(['$defs', 'x/y']);
    expect(walkFragmentPointer(root, '/$defs/m~0n')?.value).toEqual({ type: 'null' });
    expect(walkFragmentPointer(root, '/$defs/')?.value).toEqual({ const: 1 });
  });

  it('names nothing for a missing key, an index out of range or not decimal, an inherited property, or bad encoding', () => {
    for (const pointer of [
      '/$defs/missing',
      '/allOf/2',
      '/allOf/1e0',
      '/allOf/',
      '/$defs/toString',
      '/$defs/%E0%A4%A',
      '$defs',
      '/allOf/0/minimum/x',
    ]) {
      expect(walkFragmentPointer(root, pointer), pointer).toBeUndefined();
    }
  });
});

describe('jsonTypeOf and schemaTypeOf: the JSON type of a value, as JSON Schema names it', () => {
  it('names every JSON type; schemaTypeOf says integer for a whole number, jsonTypeOf number', () => {
    const values = [null, [1], { a: 1 }, 'x', 3, 3.5, -0, 1e21, true];
    expect(values.map(jsonTypeOf)).toEqual(['null', 'array', 'object', 'string', 'number', 'number', 'number', 'number', 'boolean']);
    expect(values.map(schemaTypeOf)).toEqual(['null', 'array', 'object', 'string', 'integer', 'number', 'integer', 'integer', 'boolean']);
  });
});

describe('nestsDeeperThan: the depth bound, decided from the text where it can be', () => {
  const nested = (depth: number, inner = ''): string => '['.repeat(depth) + inner + ']'.repeat(depth);

  it('agrees with the measured depth at and around the limit, for short and padded texts', () => {
    for (const limit of [0, 1, 2, 5, 64]) {
      for (const depth of [limit - 1, limit, limit + 1, limit + 2].filter((d) => d >= 0)) {
        for (const inner of ['1', `${' '.repeat(40)}1`, '"' + 'x'.repeat(200) + '"']) {
          const text = nested(depth, inner);
          const value = JSON.parse(text) as Parameters<typeof measureDepth>[0];
          expect(nestsDeeperThan(text, value, limit), `${text.slice(0, 20)} limit ${limit}`).toBe(measureDepth(value, limit) > limit);
        }
      }
    }
  });

  it('finds the shortest text that nests one level too deep: two brackets a level', () => {
    const text = nested(65);
    expect(text.length).toBe(2 * 65);
    expect(nestsDeeperThan(text, JSON.parse(text) as Parameters<typeof measureDepth>[0], 64)).toBe(true);
    expect(nestsDeeperThan(nested(64), JSON.parse(nested(64)) as Parameters<typeof measureDepth>[0], 64)).toBe(false);
  });
});
