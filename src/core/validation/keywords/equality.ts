/**
 * JSON Schema's equality of instances (`enum`, `const`, `uniqueItems`): same type, numbers equal as numbers,
 * strings code unit for code unit, arrays item by item, objects with the same own keys and equal values. Every key
 * is data: an own `valueOf`, `toString`, `constructor` or `__proto__` is compared like any other key, never called
 * or followed (ajv's `fast-deep-equal` calls `valueOf`/`toString` and compares `constructor`, so it throws on
 * `{"valueOf": 1}` and tells `{"constructor": {}}` from an equal copy). Pure; recursion as deep as the value, which
 * the record limits bound.
 */
import type { JsonValue } from '../../shared/json.js';

/** Whether two JSON values are equal as JSON Schema compares instances. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] as JsonValue, b[i] as JsonValue)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    // An own data property named `__proto__` is read as data by `[]`: the accessor is only the fallback.
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key] as JsonValue, b[key] as JsonValue)) return false;
  }
  return true;
}

/**
 * A text that two JSON values share exactly when they are {@link jsonEqual}: object keys sorted, strings quoted,
 * numbers as `String` writes them (`-0` and `0` alike, as equality has them). For hashing, so that finding a
 * repeated item takes one pass.
 */
export function canonicalKey(value: JsonValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object' || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalKey(value[key] as JsonValue)}`).join(',')}}`;
}

/**
 * The first repeated item of `items`: the indexes of its first occurrence and of the repeat, in one pass
 * (primitives keyed by themselves, containers by {@link canonicalKey}); undefined when every item is unique.
 */
export function firstDuplicate(items: readonly JsonValue[]): [number, number] | undefined {
  if (items.length < 2) return undefined;
  // A Map compares numbers with SameValueZero: -0 and 0 are one key, as equality has them.
  const primitives = new Map<string | number | boolean | null, number>();
  let containers: Map<string, number> | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as JsonValue;
    if (typeof item === 'object' && item !== null) {
      containers ??= new Map();
      const key = canonicalKey(item);
      const seen = containers.get(key);
      if (seen !== undefined) return [seen, i];
      containers.set(key, i);
    } else {
      const seen = primitives.get(item);
      if (seen !== undefined) return [seen, i];
      primitives.set(item, i);
    }
  }
  return undefined;
}

/**
 * A test for membership in an enum's values, built once per schema: primitives in a set, containers compared
 * with {@link jsonEqual} (only when the value is a container).
 */
export function enumMatcher(values: readonly JsonValue[]): (value: JsonValue) => boolean {
  const primitives = new Set<JsonValue>();
  const containers: JsonValue[] = [];
  for (const value of values) {
    if (typeof value === 'object' && value !== null) containers.push(value);
    else primitives.add(value);
  }
  return (value) => {
    if (typeof value !== 'object' || value === null) return primitives.has(value);
    for (const allowed of containers) if (jsonEqual(value, allowed)) return true;
    return false;
  };
}
