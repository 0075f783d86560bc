import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isMultipleOf, multiplesAround, parseDecimal, shortestDecimal } from '../../../../src/core/shared/decimal.js';

describe('parseDecimal and shortestDecimal: the decimal a literal names', () => {
  it.each([
    ['0', 0n, 0],
    ['-0', 0n, 0],
    ['0.000', 0n, 0],
    ['1.13', 113n, -2],
    ['19.990', 1999n, -2],
    ['1200', 12n, 2],
    ['-1.5e-7', -15n, -8],
    ['1e+21', 1n, 21],
    ['5e-324', 5n, -324],
  ])('%s is %s × 10^%s', (literal, coefficient, exponent) => {
    expect(parseDecimal(literal)).toEqual({ coefficient, exponent });
  });

  it('is undefined for text that is no number literal', () => {
    for (const text of ['', '-', '1.', '.5', '1e', 'Infinity', 'NaN', '0x10', ' 1']) expect(parseDecimal(text), text).toBeUndefined();
  });

  it('reads a double as the text String writes of it', () => {
    expect(shortestDecimal(0.1 + 0.2)).toEqual({ coefficient: 30000000000000004n, exponent: -17 });
    expect(shortestDecimal(2 ** 70)).toEqual({ coefficient: 11805916207174113n, exponent: 5 });
  });
});

describe('isMultipleOf: multipleOf in decimal', () => {
  it.each([
    [1.13, 0.01],
    [0.07, 0.01],
    [19.99, 0.01],
    [0.3, 0.1],
    [1e-7, 1e-8],
    [4.35, 0.05],
    [-2.5, 0.5],
    [0, 0.01],
    [1e300, 1e-300],
    [12, 3],
    [9007199254740992, 2],
    [2.1e21, 7e20],
  ])('%s is a multiple of %s', (value, step) => {
    expect(isMultipleOf(value, step)).toBe(true);
  });

  it.each([
    [1.131, 0.01],
    [0.30000000000000004, 0.1],
    [1e-9, 1e-8],
    [2.5, 2],
    [7, 2],
    [1, 0],
    [1, -1],
    [Infinity, 1],
    [1.5, Infinity],
  ])('%s is not a multiple of %s', (value, step) => {
    expect(isMultipleOf(value, step)).toBe(false);
  });

  // A step of `m × 10^-d` and a value written as its decimal text: the value a model sends.
  const step = fc.record({ m: fc.integer({ min: 1, max: 1000 }), d: fc.integer({ min: 0, max: 8 }) });
  const asNumber = (coefficient: number, d: number): number => Number(`${String(coefficient)}e-${String(d)}`);

  it('accepts every decimal multiple of a decimal step', () => {
    fc.assert(
      fc.property(step, fc.integer({ min: -1e9, max: 1e9 }), ({ m, d }, k) => {
        expect(isMultipleOf(asNumber(k * m, d), asNumber(m, d))).toBe(true);
      }),
    );
  });

  it('refuses every decimal strictly between two multiples, and names those two in the hint', () => {
    fc.assert(
      fc.property(
        step.filter(({ m }) => m > 1),
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: 1, max: 999 }),
        ({ m, d }, k, r) => {
          const offset = r % m === 0 ? 1 : r % m;
          const value = asNumber(k * m + offset, d);
          expect(isMultipleOf(value, asNumber(m, d))).toBe(false);
          expect(multiplesAround(value, asNumber(m, d))).toEqual([asNumber(k * m, d), asNumber((k + 1) * m, d)]);
        },
      ),
    );
  });

  it('agrees with the remainder of doubles on integers a double holds exactly', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.integer({ min: 1, max: 2 ** 31 }), (value, divisor) => {
        expect(isMultipleOf(value, divisor)).toBe(value % divisor === 0);
      }),
    );
  });
});
