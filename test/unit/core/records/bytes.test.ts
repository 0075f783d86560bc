import { describe, expect, it } from 'vitest';
import { expectWithinPasses } from '../../../budget.js';
import { DEFAULT_RECORD_LIMITS, decodeRecordBytes, parseRecordText, type RecordLimits } from '../../../../src/core/records/bytes.js';
import { measureDepth, type JsonValue } from '../../../../src/core/shared/json.js';

const encoder = new TextEncoder();

function nestedArraysText(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function nestedObjectsText(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

/** Builds a nested array without recursion or JSON.parse. */
function nestedArrays(depth: number): JsonValue {
  let value: JsonValue = [];
  for (let i = 1; i < depth; i += 1) value = [value];
  return value;
}

function failureOf(result: ReturnType<typeof parseRecordText>): { code: string; message: string } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.error;
}

describe('DEFAULT_RECORD_LIMITS', () => {
  it('is 1 MiB and depth 64, and frozen', () => {
    expect(DEFAULT_RECORD_LIMITS).toEqual({ maxRecordBytes: 1_048_576, maxDepth: 64 });
    expect(Object.isFrozen(DEFAULT_RECORD_LIMITS)).toBe(true);
  });
});

describe('parseRecordText: valid records', () => {
  it.each<[string, string, JsonValue]>([
    ['object', '{"id":"c1","tool":"search","arguments":{"q":"x"}}', { id: 'c1', tool: 'search', arguments: { q: 'x' } }],
    ['surrounding whitespace', '  \n{"a":1}\r\n', { a: 1 }],
    ['top-level array (shape is checked later)', '[1,2]', [1, 2]],
    ['top-level scalar', '42', 42],
    ['leading BOM character', '\uFEFF{"a":1}', { a: 1 }],
    ['non-ASCII text', '{"city":"Zürich 東京 🚀"}', { city: 'Zürich 東京 🚀' }],
  ])('%s', (_name, text, expected) => {
    expect(parseRecordText(text)).toEqual({ ok: true, value: expected });
  });

  it('keeps __proto__ as an own data property', () => {
    const result = parseRecordText('{"__proto__":{"polluted":true}}');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.hasOwn(result.value as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseRecordText: not JSON', () => {
  it.each<[string, string, RegExp]>([
    ['empty text', '', /end of JSON input/],
    ['whitespace only', '   ', /end of JSON input/],
    ['plain words', 'nope', /not valid JSON|Unexpected token/],
    ['trailing garbage', '{"a":1} x', /after JSON/],
    ['truncated object', '{"a":', /end of JSON input|Unexpected/],
    ['trailing comma', '{"a":1,}', /property name|Unexpected/],
    ['single quotes', "{'a':1}", /property name|Unexpected/],
    ['two records on one line', '{"a":1}{"b":2}', /after JSON/],
  ])('%s → record_not_json with the parser reason', (_name, text, reason) => {
    const error = failureOf(parseRecordText(text));
    expect(error.code).toBe('record_not_json');
    expect(error.message).toMatch(/^The record is not JSON text: /);
    expect(error.message).toMatch(reason);
  });

  it('truncates a long parser reason (V8 quotes the input)', () => {
    const text = `{"secret": "${'x'.repeat(10_000)}" oops}`;
    const error = failureOf(parseRecordText(text));
    expect(error.code).toBe('record_not_json');
    expect(error.message.length).toBeLessThan(300);
  });
});

describe('parseRecordText: size limit', () => {
  const small: RecordLimits = { maxRecordBytes: 16, maxDepth: 64 };

  it('refuses a 5 MB string quickly, before parsing, naming size and limit', () => {
    const text = `"${'a'.repeat(5_000_000)}"`;
    let error: ReturnType<typeof failureOf> | undefined;
    // Refused on its length: at most 16 reference passes of CPU (about 50 ms on the development machine).
    expectWithinPasses(() => (error = failureOf(parseRecordText(text))), 16, 'refusing 5 MB');
    if (error === undefined) throw new Error('not refused');
    expect(error.code).toBe('record_too_large');
    expect(error.message).toContain('5000002');
    expect(error.message).toContain('1048576');
  });

  it('accepts a record of exactly 1 MiB with the default limit, refuses one byte more', () => {
    const exact = `"${'a'.repeat(1_048_574)}"`;
    expect(parseRecordText(exact).ok).toBe(true);
    const error = failureOf(parseRecordText(`"${'a'.repeat(1_048_575)}"`));
    expect(error.code).toBe('record_too_large');
    expect(error.message).toContain('1048577');
  });

  it.each<[string, string, boolean]>([
    ['ASCII at the limit', `"${'a'.repeat(14)}"`, true],
    ['ASCII one over', `"${'a'.repeat(15)}"`, false],
    ['2-byte chars at the limit (7 × é = 14 bytes)', `"${'é'.repeat(7)}"`, true],
    ['2-byte chars one over', `"${'é'.repeat(7)}a"`, false],
    ['4-byte chars at the limit (3 emoji + "ab" = 16 bytes)', `"${'🚀'.repeat(3)}ab"`, true],
    ['4-byte chars one over', `"${'🚀'.repeat(3)}abc"`, false],
    ['3-byte chars over despite 6 code units', `"${'東'.repeat(5)}"`, false],
  ])('counts UTF-8 bytes: %s', (_name, text, accepted) => {
    const result = parseRecordText(text, small);
    expect(result.ok).toBe(accepted);
    if (!result.ok) {
      expect(result.error.code).toBe('record_too_large');
      expect(result.error.message).toContain(String(Buffer.byteLength(text)));
      expect(result.error.message).toContain('16 bytes');
    }
  });

  it('checks size before JSON (oversize non-JSON is too large, not malformed)', () => {
    expect(failureOf(parseRecordText('x'.repeat(17), small)).code).toBe('record_too_large');
  });
});

describe('parseRecordText: depth limit', () => {
  it('refuses 10 000 nested arrays without overflowing the stack, naming the bound', () => {
    const error = failureOf(parseRecordText(nestedArraysText(10_000)));
    expect(error.code).toBe('record_too_deep');
    expect(error.message).toContain('64');
  });

  it.each<[string, (depth: number) => string]>([
    ['arrays', nestedArraysText],
    ['objects', nestedObjectsText],
  ])('accepts %s exactly at the bound, refuses one deeper', (_name, build) => {
    expect(parseRecordText(build(64)).ok).toBe(true);
    expect(failureOf(parseRecordText(build(65))).code).toBe('record_too_deep');
  });

  it('honours a custom bound', () => {
    const limits: RecordLimits = { maxRecordBytes: 1024, maxDepth: 2 };
    expect(parseRecordText('{"a":[1]}', limits).ok).toBe(true);
    const error = failureOf(parseRecordText('{"a":[[1]]}', limits));
    expect(error.code).toBe('record_too_deep');
    expect(error.message).toContain('more than 2 levels');
  });
});

describe('measureDepth', () => {
  it.each<[string, JsonValue, number]>([
    ['string', 'x', 0],
    ['number', 1, 0],
    ['null', null, 0],
    ['empty array', [], 1],
    ['empty object', {}, 1],
    ['flat object', { a: 1, b: 'x', c: null }, 1],
    ['array in array', [[]], 2],
    ['mixed', { a: [1, { b: null }], c: {} }, 3],
    ['deepest branch last', { a: 1, b: { c: { d: [] } } }, 4],
    ['deepest branch first', [[[[1]]], 2, []], 4],
  ])('%s → %d', (_name, value, depth) => {
    expect(measureDepth(value, 64)).toBe(depth);
  });

  it('stops early past the bound and returns bound + 1', () => {
    expect(measureDepth(nestedArrays(50), 10)).toBe(11);
    expect(measureDepth(nestedArrays(10), 10)).toBe(10);
    expect(measureDepth([], 0)).toBe(1);
  });

  it('measures 100 000 levels iteratively', () => {
    expect(measureDepth(nestedArrays(100_000), 1_000_000)).toBe(100_000);
  });

  it('sees __proto__ as a plain child', () => {
    const value = JSON.parse('{"__proto__":{"x":[1]}}') as JsonValue;
    expect(measureDepth(value, 64)).toBe(3);
  });
});

describe('decodeRecordBytes', () => {
  it('decodes UTF-8 and parses', () => {
    expect(decodeRecordBytes(encoder.encode('{"city":"Zürich"}'))).toEqual({
      ok: true,
      value: { city: 'Zürich' },
      text: '{"city":"Zürich"}',
    });
  });

  it('accepts a Buffer', () => {
    expect(decodeRecordBytes(Buffer.from('{"a":1}'))).toEqual({ ok: true, value: { a: 1 }, text: '{"a":1}' });
  });

  it('strips a UTF-8 BOM', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode('{"a":1}')]);
    // The text comes back without the BOM, as it was parsed.
    expect(decodeRecordBytes(bytes)).toEqual({ ok: true, value: { a: 1 }, text: '{"a":1}' });
  });

  it.each<[string, number[]]>([
    ['0xFF byte', [0x7b, 0xff, 0x7d]],
    ['lone continuation byte', [0x22, 0x80, 0x22]],
    ['overlong encoding of "/"', [0x22, 0xc0, 0xaf, 0x22]],
    ['UTF-16 surrogate encoded in UTF-8', [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ['truncated 3-byte sequence at the end', [0x22, 0xe6, 0x9d]],
    ['Latin-1 é', [0x22, 0xe9, 0x22]],
  ])('refuses invalid UTF-8 (%s) with record_invalid_encoding', (_name, bytes) => {
    const result = decodeRecordBytes(new Uint8Array(bytes));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('record_invalid_encoding');
    expect(result.error.message).toMatch(/not valid UTF-8/);
  });

  it('names UTF-16 text (NUL bytes between the characters) as an encoding problem, not a JSON one', () => {
    for (const encoding of ['utf16le', 'ucs2'] as const) {
      const result = decodeRecordBytes(Buffer.from('{"tool":"t"}', encoding));
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'record_invalid_encoding', message: expect.stringMatching(/holds NUL bytes.*looks like UTF-16/) as unknown },
      });
    }
    const bigEndian = Buffer.from('{"tool":"t"}', 'utf16le').swap16();
    expect(decodeRecordBytes(bigEndian)).toMatchObject({ ok: false, error: { code: 'record_invalid_encoding' } });
    // A NUL escaped inside a JSON string is text, not an encoding problem.
    expect(decodeRecordBytes(encoder.encode('{"a":"\\u0000"}'))).toEqual({ ok: true, value: { a: '\u0000' }, text: '{"a":"\\u0000"}' });
  });

  it('checks the byte size before decoding, counting a BOM', () => {
    const limits: RecordLimits = { maxRecordBytes: 8, maxDepth: 64 };
    const tooLargeInvalid = decodeRecordBytes(new Uint8Array(9).fill(0xff), limits);
    expect(tooLargeInvalid).toMatchObject({ ok: false, error: { code: 'record_too_large' } });
    expect(decodeRecordBytes(encoder.encode('{"a":12}'), limits).ok).toBe(true);
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode('{"a":1}')]);
    expect(decodeRecordBytes(withBom, limits)).toMatchObject({ ok: false, error: { code: 'record_too_large' } });
  });

  it('applies the JSON and depth checks after decoding', () => {
    expect(decodeRecordBytes(encoder.encode('nope'))).toMatchObject({ ok: false, error: { code: 'record_not_json' } });
    expect(decodeRecordBytes(encoder.encode(nestedArraysText(10_000)))).toMatchObject({
      ok: false,
      error: { code: 'record_too_deep' },
    });
  });

  it('does not modify the input bytes', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode('{"a":1}')]);
    const copy = bytes.slice();
    decodeRecordBytes(bytes);
    expect(bytes).toEqual(copy);
  });
});
