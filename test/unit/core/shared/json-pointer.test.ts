/**
 * RFC 6901 JSON Pointer: format and parse are inverse for every token list, array indices are decimal digits
 * only, and the writer copies along the path without touching its input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  arrayIndex,
  childPointer,
  escapeToken,
  formatPointer,
  fragmentOf,
  parsePointer,
  pointerTokens,
  unescapeToken,
  updateAt,
  valueAt,
  walkFragmentPointer,
} from '../../../../src/core/shared/json-pointer.js';

/** Tokens rich in the characters that need escaping. */
const token = fc.oneof(fc.string(), fc.stringMatching(/^[~/01a]{0,6}$/), fc.constantFrom('', '~', '/', '~0', '~1', '~01', '-', '0'));

describe('JSON Pointer', () => {
  it('format then parse gives the tokens back, for any tokens (property)', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), (tokens) => {
        expect(parsePointer(formatPointer(tokens))).toEqual(tokens);
      }),
    );
  });

  it('parse then format gives the pointer back, for any well-formed pointer (property)', () => {
    const raw = fc.stringMatching(/^(?:[^~/]|~[01])*$/);
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 8 }), (raws) => {
        const pointer = raws.map((r) => `/${r}`).join('');
        const tokens = parsePointer(pointer);
        expect(tokens).toBeDefined();
        expect(formatPointer(tokens ?? [])).toBe(pointer);
      }),
    );
  });

  it('childPointer appends one escaped token, and fragments round-trip through walkFragmentPointer (property)', () => {
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 5 }), (tokens) => {
        const pointer = tokens.reduce(childPointer, '');
        expect(pointer).toBe(formatPointer(tokens));
        // A document holding exactly that path: every token a key of nested objects.
        const leaf = { leaf: true };
        const doc = tokens.reduceRight<unknown>((inner, key) => Object.fromEntries([[key, inner]]), leaf);
        expect(valueAt(doc, pointer)).toBe(leaf);
        expect(walkFragmentPointer(doc, fragmentOf(pointer))).toEqual({ value: leaf, tokens });
      }),
    );
  });

  it('escapes ~ as ~0 and / as ~1, in that order', () => {
    expect(escapeToken('a/b~c')).toBe('a~1b~0c');
    expect(escapeToken('~1')).toBe('~01');
    expect(unescapeToken('~01')).toBe('~1');
    expect(escapeToken(3)).toBe('3');
    expect(formatPointer(['', 'a/b', 0])).toBe('//a~1b/0');
  });

  it('refuses what is not a pointer: no leading slash, a ~ not followed by 0 or 1', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('a/b')).toBeUndefined();
    expect(parsePointer('/a~2')).toBeUndefined();
    expect(parsePointer('/a~')).toBeUndefined();
    expect(() => pointerTokens('/~x')).toThrow(RangeError);
  });

  it('reads array elements by decimal index only: not "", "1e0", "01", "-", "+1" or " 1"', () => {
    const doc = { a: ['x', 'y'] };
    expect(valueAt(doc, '/a/1')).toBe('y');
    expect(valueAt(doc, '/a/0')).toBe('x');
    expect(valueAt(doc, '/a/2')).toBeUndefined(); // past the end
    for (const bad of ['', '1e0', '01', '-', '+1', ' 1', '1.0', '0x1']) {
      expect(valueAt(doc, `/a/${bad}`), bad).toBeUndefined();
      expect(arrayIndex(bad), bad).toBeUndefined();
    }
    expect(arrayIndex('10')).toBe(10);
    expect(arrayIndex('99999999999999999999')).toBeUndefined();
  });

  it('reads own properties only: an inherited name (toString, __proto__) names nothing unless it is own data', () => {
    expect(valueAt({}, '/toString')).toBeUndefined();
    expect(valueAt({}, '/__proto__')).toBeUndefined();
    const own = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    expect(valueAt(own, '/__proto__/x')).toBe(1);
  });

  it('the fragment form is percent-decoded before it is unescaped', () => {
    const doc = { $defs: { 'a b': { 'c/d': 1 } } };
    expect(walkFragmentPointer(doc, '/$defs/a%20b/c~1d')).toEqual({ value: 1, tokens: ['$defs', 'a b', 'c/d'] });
    expect(walkFragmentPointer(doc, '/$defs/%E0%A4%A')).toBeUndefined();
    expect(fragmentOf('/a b/c~1d')).toBe('/a%20b/c~1d');
  });

  it('updateAt copies along the path, adds a missing member, appends at "-", and leaves its input alone', () => {
    const doc = { a: [1, 2], b: { c: 3 } };
    const frozen = structuredClone(doc);
    expect(updateAt(doc, '/b/c', () => 4)).toEqual({ a: [1, 2], b: { c: 4 } });
    expect(updateAt(doc, '/b/d', (v) => v ?? 'new')).toEqual({ a: [1, 2], b: { c: 3, d: 'new' } });
    expect(updateAt(doc, '/a/-', () => 9)).toEqual({ a: [1, 2, 9], b: { c: 3 } });
    expect(updateAt(doc, '/a/0', () => 0)).toEqual({ a: [0, 2], b: { c: 3 } });
    expect(updateAt(doc, '', () => 'all')).toBe('all');
    expect(doc).toEqual(frozen);
    const updated = updateAt(doc, '/b/c', () => 4);
    expect(updated.a).toBe(doc.a); // untouched branches are shared
    for (const bad of ['/a/2', '/a/01', '/a/1e0', '/b/c/d', 'b']) expect(() => updateAt(doc, bad, () => 0), bad).toThrow(RangeError);
  });

  it('updateAt keeps a member named __proto__ as plain data', () => {
    const doc = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    const updated = updateAt(doc, '/__proto__/x', () => 2);
    expect(Object.hasOwn(updated, '__proto__')).toBe(true);
    expect(valueAt(updated, '/__proto__/x')).toBe(2);
    expect(Object.getPrototypeOf(updated)).toBe(Object.prototype);
  });
});
