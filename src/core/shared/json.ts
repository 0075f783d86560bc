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
