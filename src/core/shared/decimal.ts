/**
 * Exact decimal arithmetic on finite doubles, read as the shortest decimal text that names them (what `String`
 * and `JSON.stringify` write, and what a model or a schema most likely wrote): `0.01` is one hundredth here, not
 * the binary fraction next to it, so `multipleOf: 0.01` accepts 19.99. Pure; BigInt coefficients, whose size a
 * double's exponent range bounds (a few hundred digits at most).
 */

/** `coefficient × 10^exponent`, with no trailing zero in the coefficient (0 is `0 × 10^0`). */
export interface Decimal {
  readonly coefficient: bigint;
  readonly exponent: number;
}

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The decimal a number literal (JSON syntax, or what `String(number)` writes) names exactly; undefined for text
 * that is not one. Only for literals whose exponent a double could carry (callers pass `String(x)`, or literals
 * without an exponent): the exponent is not bounded here.
 */
export function parseDecimal(literal: string): Decimal | undefined {
  const match = NUMBER_TEXT.exec(literal);
  if (match === null) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  // Trailing zeros move into the exponent, so equal numbers have equal decimals.
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 0x30 /* 0 */) end--;
  if (end === 0) return { coefficient: 0n, exponent: 0 };
  return { coefficient: BigInt(sign + digits.slice(0, end)), exponent: Number(exponent) - fraction.length + (digits.length - end) };
}

/** A finite number as the decimal its shortest text names. */
export function shortestDecimal(value: number): Decimal {
  // String() of a finite number always matches NUMBER_TEXT (`1e+21`, `5e-324`, `-0.5`).
  return parseDecimal(String(value)) ?? { coefficient: 0n, exponent: 0 };
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/**
 * The quotient `value / step` rounded down to an integer, and whether it was exact, in decimal arithmetic.
 * `step` must be positive.
 */
function divideDecimal(value: Decimal, step: Decimal): { quotient: bigint; exact: boolean } {
  const shift = value.exponent - step.exponent;
  const numerator = shift >= 0 ? value.coefficient * pow10(shift) : value.coefficient;
  const denominator = shift >= 0 ? step.coefficient : step.coefficient * pow10(-shift);
  let quotient = numerator / denominator;
  const exact = numerator % denominator === 0n;
  // BigInt division truncates toward zero: floor for a negative value.
  if (!exact && numerator < 0n) quotient -= 1n;
  return { quotient, exact };
}

/**
 * JSON Schema's `multipleOf` in decimal: true when `value / step` is an integer, both read as their shortest
 * decimal text. `step` must be positive and finite (the meta-schema requires `exclusiveMinimum: 0`); anything
 * else, or a value that is not finite, is no multiple.
 */
export function isMultipleOf(value: number, step: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(step) || !(step > 0)) return false;
  // Integers a double holds exactly: the remainder of doubles is exact, and their text is the number itself.
  if (Number.isSafeInteger(value) && Number.isSafeInteger(step)) return value % step === 0;
  // A fraction is never a whole multiple of a whole step.
  if (Number.isInteger(step) && !Number.isInteger(value)) return false;
  return divideDecimal(shortestDecimal(value), shortestDecimal(step)).exact;
}

/**
 * The multiples of `step` on either side of `value` (the greatest at most `value`, and the next), each the
 * double nearest the exact decimal multiple: for a hint, so 1.131 with step 0.01 suggests 1.13 and 1.14.
 */
export function multiplesAround(value: number, step: number): [number, number] | undefined {
  if (!Number.isFinite(value) || !Number.isFinite(step) || !(step > 0)) return undefined;
  const decimalStep = shortestDecimal(step);
  const { quotient } = divideDecimal(shortestDecimal(value), decimalStep);
  const at = (q: bigint): number => Number(`${String(q * decimalStep.coefficient)}e${String(decimalStep.exponent)}`);
  return [at(quotient), at(quotient + 1n)];
}

/** Whether two decimals are the same number. */
export function sameDecimal(a: Decimal, b: Decimal): boolean {
  return a.coefficient === b.coefficient && a.exponent === b.exponent;
}
