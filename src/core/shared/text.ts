/**
 * Small text helpers for diagnostics: bounded JSON previews of received values, truncation, English phrasing
 * (plurals, "a or b", type nouns, value lists) and "did you mean" suggestions for misspelt names and values.
 * Messages and hints may echo untrusted data, so everything here is bounded in length and in time.
 */
import { isJsonObject } from './json.js';
import { unescapeToken } from './json-pointer.js';
import type { JsonValue } from './json.js';

/** How many characters of a received value (or key) a message may echo: values can be huge. */
export const PREVIEW_CHARS = 80;
/** How many characters of a schema `description` a hint may quote. */
export const DESCRIPTION_CHARS = 200;
/** How many allowed values / property names a hint lists before summarizing the rest. */
const LIST_ITEMS = 25;
/** How many characters of schema text (a pattern, a format name, one allowed value) a diagnostic may quote. */
export const QUOTE_CHARS = 200;
/** How many values a details list (allowed values, property names) holds, and about how many characters of JSON. */
const DETAILS_ITEMS = 100;
const DETAILS_CHARS = 2000;

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer (a whole number)',
  boolean: 'a boolean (true or false)',
  null: 'null',
  array: 'a JSON array',
  object: 'a JSON object',
};

/**
 * A JSON rendering of `value` of at most `max` characters (an ellipsis marks the cut). Stops serializing once
 * the budget is spent, so a huge value costs no more than a small one.
 */
export function preview(value: unknown, max: number = PREVIEW_CHARS): string {
  // A scalar, the common case (names, received strings and numbers), needs no walk and no closures.
  if (typeof value === 'string') return truncate(JSON.stringify(value.length > max ? clipUnits(value, max) : value), max);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return truncate(JSON.stringify(value), max);
  const parts: string[] = [];
  let used = 0;
  const push = (text: string): boolean => {
    parts.push(text);
    used += text.length;
    return used <= max;
  };
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return push(JSON.stringify(v.length > max ? clipUnits(v, max) : v));
    if (Array.isArray(v)) {
      if (!push('[')) return false;
      for (let i = 0; i < v.length; i += 1) {
        if ((i > 0 && !push(', ')) || !walk(v[i])) return false;
      }
      return push(']');
    }
    if (isJsonObject(v)) {
      if (!push('{')) return false;
      let first = true;
      for (const [key, item] of Object.entries(v)) {
        if ((!first && !push(', ')) || !push(`${JSON.stringify(key.length > max ? clipUnits(key, max) : key)}: `) || !walk(item)) {
          return false;
        }
        first = false;
      }
      return push('}');
    }
    // Left: numbers, booleans and null (JSON.stringify(undefined) would be undefined, hence the guard).
    return push(v === undefined ? 'nothing' : JSON.stringify(v));
  };
  walk(value);
  return truncate(parts.join(''), max);
}

/** `value` itself when it is small, else its truncated preview (details must stay small too). */
export function previewValue(value: unknown, stringChars: number = PREVIEW_CHARS): JsonValue {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return truncate(value, stringChars);
  const text = preview(value, QUOTE_CHARS);
  return text.endsWith('…') ? text : (JSON.parse(text) as JsonValue);
}

/**
 * Values quoted from the schema for a details list: each bounded ({@link QUOTE_CHARS}), the list to about
 * {@link DETAILS_CHARS} of JSON and {@link DETAILS_ITEMS} values (an enum of long strings would otherwise put
 * megabytes into every diagnostic); `notListed` counts the rest. Always at least one value when there is one.
 */
export function boundedList(values: readonly unknown[]): { listed: JsonValue[]; notListed: number } {
  const listed: JsonValue[] = [];
  let used = 0;
  for (const value of values) {
    if (listed.length === DETAILS_ITEMS) break;
    const bounded = previewValue(value, QUOTE_CHARS);
    used += JSON.stringify(bounded).length + 1;
    if (listed.length > 0 && used > DETAILS_CHARS) break;
    listed.push(bounded);
  }
  return { listed, notListed: values.length - listed.length };
}

/** At most `max` characters, an ellipsis marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${clipUnits(text, max - 1)}…` : text;
}

/** The first `units` UTF-16 units of `text`, one fewer rather than half of a surrogate pair. */
export function clipUnits(text: string, units: number): string {
  const last = text.charCodeAt(units - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? units - 1 : units);
}

export function quoteDescription(description: string): string {
  return truncate(description.replace(/\s+/g, ' ').replace(/\.$/, ''), DESCRIPTION_CHARS);
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${String(count)} ${count === 1 ? singular : pluralForm}`;
}

export function typeNoun(type: string): string {
  return TYPE_NOUNS[type] ?? type;
}

export function dedupe<T>(items: T[]): T[] {
  return [...new Set(items)];
}

export function joinOr(items: string[]): string {
  if (items.length <= 1) return items[0] ?? 'a valid value';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

export function joinAnd(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

/** `"USD", "EUR", "GBP"`: each value as JSON (truncated), the list capped at {@link LIST_ITEMS}. */
export function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, LIST_ITEMS).map((v) => preview(v));
  const rest = values.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, … (${String(rest)} more)` : shown.join(', ');
}

/** `"a", "b" and "c"`: like {@link listValues} (capped the same way), with `and` before the last value. */
export function listAnd(values: readonly unknown[]): string {
  if (values.length <= 1 || values.length > LIST_ITEMS) return listValues(values);
  return joinAnd(values.map((v) => preview(v)));
}

export function arrayOrEmpty(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
}

export function refName(ref: string): string | undefined {
  const last = ref.split('/').at(-1);
  return last === undefined || last === '' || last === '#' ? undefined : unescapeToken(last);
}

export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

/** A case-insensitive (or whitespace-insensitive) match of a received string among the allowed values. */
export function closeValue(data: unknown, allowed: readonly unknown[]): unknown {
  if (typeof data !== 'string') return undefined;
  const wanted = data.trim().toLowerCase();
  return allowed.find((value) => typeof value === 'string' && value !== data && value.toLowerCase() === wanted);
}

/**
 * The declared name closest to an unknown key: equal ignoring case, or at most 2 edits away and no more than a
 * third of the key's length (so "c" does not suggest "b"). Undefined when nothing is that close.
 */
export function closeName(key: string, names: readonly string[]): string | undefined {
  if (key.length > 64) return undefined;
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.floor(key.length / 3) + 1);
  for (const name of names) {
    const distance = name.toLowerCase() === lower ? 0 : editDistance(lower, name.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, giving up (returning `limit`) once it is known to reach `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? limit) + 1, (current[j - 1] ?? limit) + 1, (previous[j - 1] ?? limit) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= limit) return limit;
    previous = current;
  }
  return Math.min(previous[b.length] ?? limit, limit);
}

/** Characters a terminal acts on rather than prints: C0 and C1 controls, DEL, line separators, bidi controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` safe to print on a terminal: each control character written as an escape (`\n`, `\x1b`, `\u202e`), so a
 * name, key, file name or parser snippet cannot move the cursor, recolour the screen or forge a line of a report.
 * Everything else is left as it is. For text output and messages; JSON output needs no such thing.
 */
export function forTerminal(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c) => {
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) return short;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
