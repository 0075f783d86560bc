import { parseDecimal, sameDecimal, shortestDecimal } from './decimal.js';

/** JSON values as `JSON.parse` produces them. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonArray = JsonValue[];
export interface JsonObject {
  [key: string]: JsonValue;
}
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;

/** A plain JSON map: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses JSON text, returning `undefined` instead of throwing. `JSON.parse` creates `__proto__` as an own
 * data property (it never calls the setter), so parsed keys cannot pollute prototypes.
 */
export function tryParseJson(text: string): { ok: true; value: JsonValue } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Why a number literal cannot travel as the double `JSON.parse` reads it into:
 * - `overflow`: beyond ±1.7976931348623157e308, read as ±Infinity, which JSON writes as `null`;
 * - `underflow`: a nonzero literal closer to zero than 5e-324, read as 0;
 * - `integer_precision`: an integer literal (no fraction, no exponent) that the double does not hold exactly,
 *   so it would be written on as another integer (`12345678901234567890` as `12345678901234567000`). Readers
 *   that keep integers exact (Python, Go's `json.Number`, BigInt parsers) would see a different number from the
 *   one sent. A literal with a fraction or an exponent is rounded to the nearest double, as every reader with
 *   doubles rounds it: that is not a problem here.
 */
export type NumberProblem = 'overflow' | 'underflow' | 'integer_precision';

/** Every literal with a problem contains one of these: 16 digits in a row, a 3-digit exponent, or 200 zeros after a point. */
const MAY_HOLD_PROBLEM = /\d{16}|[eE][+-]?\d{3}|\.0{200}/;

/** What {@link numberProblem} says of a number literal; undefined when it travels as written (or is no literal). */
export function numberProblem(literal: string): NumberProblem | undefined {
  if (!MAY_HOLD_PROBLEM.test(literal)) return undefined;
  const value = Number(literal);
  if (Number.isNaN(value)) return undefined;
  if (!Number.isFinite(value)) return 'overflow';
  if (value === 0) {
    const exponentAt = literal.search(/[eE]/);
    return /[1-9]/.test(exponentAt === -1 ? literal : literal.slice(0, exponentAt)) ? 'underflow' : undefined;
  }
  if (Number.isSafeInteger(value) || /[.eE]/.test(literal)) return undefined;
  const sent = parseDecimal(literal);
  return sent === undefined || sameDecimal(sent, shortestDecimal(value)) ? undefined : 'integer_precision';
}

/** A number of a parsed value whose literal has a {@link NumberProblem}, where it sits, and the literal as sent. */
export interface UnrepresentableNumber {
  /** The path from the value {@link unrepresentableNumbers} was given: object keys, and array indexes as numbers. */
  readonly tokens: readonly (string | number)[];
  readonly literal: string;
  readonly problem: NumberProblem;
}

/**
 * The literals `JSON.parse` cannot keep, noted beside the parsed value by its containers' identity: a number
 * forgets its literal once parsed, and the value travels on (through envelopes, to the arguments) by reference.
 * A container is in NOTED when it holds such a number directly (key to literal), in HOLDING when one is deeper.
 */
const NOTED = new WeakMap<object, Map<string, { literal: string; problem: NumberProblem }>>();
const HOLDING = new WeakSet<object>();

/** A number token where JSON text can hold one: after `:`, `,` or `[`, and whitespace (candidates only: strings may match). */
const NUMBER_TOKENS = /[:,[][ \t\n\r]*(-?\d[\d.eE+-]*)/g;

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/**
 * `value`, parsed from `text`, with its problem numbers noted (see {@link unrepresentableNumbers}). The text is
 * scanned first, and parsed again (with a reviver that sees each literal) only when it holds a literal with a
 * problem, inside a string or not: most texts cost one regular-expression test. Call it after the depth check
 * (the reviver recurses). Returns `value` itself, or the value parsed again, equal to it.
 */
export function noteNumberProblems(text: string, value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null || !MAY_HOLD_PROBLEM.test(text)) return value;
  let found = false;
  for (const match of text.matchAll(NUMBER_TOKENS)) {
    if (numberProblem(match[1] ?? '') !== undefined) {
      found = true;
      break;
    }
  }
  if (!found) return value;
  const reviver: Reviver = function (this: unknown, key, child, context) {
    const holder = this as object;
    if (typeof child === 'number') {
      const literal = context?.source;
      const problem = literal === undefined ? undefined : numberProblem(literal);
      if (literal !== undefined && problem !== undefined) {
        let notes = NOTED.get(holder);
        if (notes === undefined) {
          notes = new Map<string, { literal: string; problem: NumberProblem }>();
          NOTED.set(holder, notes);
        }
        notes.set(key, { literal, problem });
      }
    } else if (typeof child === 'object' && child !== null && (NOTED.has(child) || HOLDING.has(child))) {
      HOLDING.add(holder);
    }
    return child;
  };
  return JSON.parse(text, reviver) as JsonValue;
}

/**
 * The numbers under `value` whose literal has a problem, in document order, at most `limit` of them: found only
 * for values from {@link noteNumberProblems} (the record's text, the arguments' text, a JSON-decoded parameter),
 * walking only the containers that hold one, so a value without any costs two lookups.
 */
export function unrepresentableNumbers(value: JsonValue, limit = 20): UnrepresentableNumber[] {
  const found: UnrepresentableNumber[] = [];
  if (typeof value === 'object' && value !== null && (NOTED.has(value) || HOLDING.has(value))) collectNoted(value, [], found, limit);
  return found;
}

function collectNoted(node: JsonArray | JsonObject, tokens: (string | number)[], found: UnrepresentableNumber[], limit: number): void {
  const notes = NOTED.get(node);
  const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
  for (const key of keys) {
    if (found.length >= limit) return;
    const note = notes?.get(String(key));
    if (note !== undefined) {
      found.push({ tokens: [...tokens, key], literal: note.literal, problem: note.problem });
      continue;
    }
    const child = (node as Record<string | number, JsonValue>)[key];
    if (typeof child === 'object' && child !== null && (NOTED.has(child) || HOLDING.has(child))) {
      collectNoted(child, [...tokens, key], found, limit);
    }
  }
}

/** Names the JSON type of a value the way JSON Schema does (`integer` is reported as `number`). */
export function jsonTypeOf(value: unknown): 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  if (t === 'string' || t === 'number' || t === 'boolean') return t;
  return 'object';
}

/** {@link jsonTypeOf}, with `integer` for a whole number: the narrowest JSON Schema type of a value. */
export function schemaTypeOf(value: unknown): 'null' | 'array' | 'object' | 'string' | 'integer' | 'number' | 'boolean' {
  const t = jsonTypeOf(value);
  return t === 'number' && Number.isInteger(value) ? 'integer' : t;
}

/**
 * The nesting depth of arrays and objects in `value`: 0 for a scalar, 1 for a flat array or object (empty or
 * not). Iterative, so any depth is measured without growing the call stack. Stops as soon as the depth
 * exceeds `stopAbove` and returns `stopAbove + 1`; the result is exact whenever it is at most `stopAbove`.
 */
export function measureDepth(value: JsonValue, stopAbove: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (stopAbove < 1) return 1;
  // Two parallel stacks rather than one of tuples: no allocation per visited container.
  const pending: (JsonValue[] | { [key: string]: JsonValue })[] = [value];
  const depths: number[] = [1];
  let max = 1;
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const depth = depths.pop() ?? 1;
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth + 1 > stopAbove) return stopAbove + 1;
      if (depth + 1 > max) max = depth + 1;
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return max;
}

/**
 * True when `text` holds at most `limit` `{` and `[` characters in all (inside strings or not): JSON parsed
 * from it then nests at most `limit` deep, and walking the parsed value ({@link measureDepth}) can be skipped.
 * A few native `indexOf` scans cost far less than the walk; texts with more brackets than the limit (rare)
 * still get the exact walk.
 */
export function fewContainers(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > limit) return false;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > limit) return false;
  return true;
}

/** True when `value`, parsed from `text`, nests arrays/objects deeper than `limit` (the text is counted first: cheaper). */
export function nestsDeeperThan(text: string, value: JsonValue, limit: number): boolean {
  // Each level takes an opening and a closing bracket: a text shorter than two per level cannot nest deeper.
  if (text.length < 2 * (limit + 1)) return false;
  return !fewContainers(text, limit) && measureDepth(value, limit) > limit;
}
