import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearPattern, PatternBudgetError, PatternMeter, UnsupportedPatternError } from '../../../../src/core/shared/patterns.js';

/** The verdict of V8's engine (ajv's default) and of the linear one, on one string. */
function both(pattern: string, text: string): [boolean, boolean] {
  return [new RegExp(pattern, 'u').test(text), compileLinearPattern(pattern).test(text)];
}

describe('linear-time schema patterns', () => {
  it('keep ECMAScript meaning where RE2 differs: \\s, ., escapes, surrogate pairs, [] and [^]', () => {
    const cases: [string, string][] = [
      ['^\\s$', '\u00a0'],
      ['^\\s$', '\u2028'],
      ['^\\s$', '\ufeff'],
      ['^\\S$', '\u00a0'],
      ['^[\\s]$', '\u3000'],
      ['^[^\\s]$', '\u3000'],
      ['^.$', '\r'],
      ['^.$', '\n'],
      ['^.$', '\u2029'],
      ['^.$', '\u{1F600}'],
      ['^..$', '\u{1F600}'],
      ['^\\u{1F600}$', '\u{1F600}'],
      ['^\\uD83D\\uDE00$', '\u{1F600}'],
      ['^[\\uD83D\\uDE00-\\uD83D\\uDE4F]$', '\u{1F610}'],
      ['^\\u0041\\x42\\cJ$', 'AB\n'],
      ['^[]$', ''],
      ['^[^]$', '\n'],
      ['^[[:alpha:]+$', 'a'],
      ['^[[:alpha:]+$', ':a['],
      ['^\\p{Letter}+$', 'héllo'],
      ['^\\p{Script=Greek}+$', 'αβγ'],
      ['^\\p{gc=Lu}$', 'A'],
      ['^\\P{L}$', '1'],
      ['^(?<year>\\d{4})-\\d\\d$', '2024-05'],
      ['^[\\b]$', '\b'],
      ['\\bword\\b', 'a word here'],
      ['^\\w+$', 'é'],
      ['^\\d+$', '٣'],
      ['^a\\/b\\.c\\??$', 'a/b.c'],
      ['^[a\\-z]$', '-'],
      ['^$', ''],
      ['', 'anything'],
      ['a|', 'b'],
      ['^x{2,3}$', 'xxxx'],
      ['ab$', 'ab\n'],
    ];
    for (const [pattern, text] of cases) {
      const [v8, linear] = both(pattern, text);
      expect(linear, `${pattern} on ${JSON.stringify(text)}`).toBe(v8);
    }
  });

  it('agree with V8 on generated patterns and strings', () => {
    const atom = fc.constantFrom(
      'a',
      'b',
      '.',
      '\\d',
      '\\s',
      '\\w',
      '[ab]',
      '[^a]',
      '\\u00e9',
      '\u00e9',
      '(?:ab)',
      '(a|b)',
      ' ',
      '\\.',
      '[\\s\\d]',
    );
    const quantifier = fc.constantFrom('', '*', '+', '?', '{2}', '{1,3}', '*?', '+?');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
    const pattern = fc
      .tuple(fc.boolean(), fc.array(piece, { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean())
      .map(([start, pieces, alt, end]) => `${start ? '^' : ''}${pieces.join('')}${alt ? '|b' : ''}${end ? '$' : ''}`);
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '1', ' ', '\u00a0', '\n', '\r', '.', '\u00e9', '\u{1F600}'), maxLength: 8 });
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        const [v8, linear] = both(p, t);
        expect(linear, `${p} on ${JSON.stringify(t)}`).toBe(v8);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse what needs backtracking, naming the pattern and the construct', () => {
    for (const [pattern, construct] of [
      ['^(?=.*[A-Z]).{8,}$', 'lookaround'],
      ['(?!x)y', 'lookaround'],
      ['(?<=a)b', 'lookaround'],
      ['(?<!a)b', 'lookaround'],
      ['(a)\\1', 'backreference'],
      ['(?<n>a)\\k<n>', 'backreference'],
      ['^a{1001}$', 'refuses'],
      ['\\p{Script_Extensions=Greek}', 'Unicode property'],
    ] as const) {
      let error: unknown;
      try {
        compileLinearPattern(pattern);
      } catch (caught) {
        error = caught;
      }
      expect(error, pattern).toBeInstanceOf(UnsupportedPatternError);
      expect((error as Error).message).toContain(JSON.stringify(pattern));
      expect((error as Error).message).toContain(construct);
    }
  });

  it('leave malformed patterns to ECMAScript: a SyntaxError, as new RegExp throws', () => {
    for (const pattern of ['(', '[a', 'a{2,1}', '\\', '\\q']) expect(() => compileLinearPattern(pattern), pattern).toThrow(SyntaxError);
  });

  it('run nested quantifiers in linear time (V8: ^(a+)+$ on 26 characters took 3.4 s, doubling per character)', () => {
    const nested = compileLinearPattern('^(a+)+$');
    const overlapping = compileLinearPattern('^(a|a)*$');
    for (const n of [26, 1_000, 100_000]) {
      const text = `${'a'.repeat(n)}!`;
      expect(nested.test(text)).toBe(false);
      expect(overlapping.test(text)).toBe(false);
      expect(nested.test(text.slice(0, -1))).toBe(true);
    }
  });

  it('charge every test to the meter, and stop a call at its budget', () => {
    const meter = new PatternMeter(1_000);
    const pattern = compileLinearPattern('^k', meter);
    let tests = 0;
    expect(() => {
      for (;;) {
        pattern.test('key');
        tests++;
      }
    }).toThrow(PatternBudgetError);
    // Each test costs its length plus the fixed overhead: 1 000 / (3 + 16) tests fit.
    expect(tests).toBe(52);
    meter.reset();
    expect(pattern.test('key')).toBe(true);
  });
});
