/**
 * The example values a description gives itself: quoted values (`'csv'`, `"2024-01-01T10:00:00+0100"`, inline code)
 * and the text after "e.g.", "for example", "for instance", "such as" and "Example:". A suggested schema change must
 * accept them (audit/suggestions.ts), so a reading of the prose never rejects the calls the prose itself shows.
 *
 * One pass over the text per marker list; the only regular expressions are alternations of literals.
 *
 * Pure: no I/O.
 */
import type { JsonValue } from '../core/shared/json.js';

/** One example as written, with the JSON values it may stand for (the string itself, a number, a boolean, JSON). */
export interface Example {
  readonly text: string;
  readonly readings: readonly JsonValue[];
}

/** The longest quoted value read as an example: longer quotes are prose, not values. */
const MAX_QUOTED = 200;

const MARKER = /\b(?:e\.g\.|eg\.|for example|for instance|such as|examples?:)/gi;

/** A clause that says the value is not one to send ("Bad: 'x'", "not 'x'", "'x' is not supported"). */
const NEGATIVE_BEFORE = /\b(?:bad|not|never|invalid|wrong|avoid|instead of|don't|do not|unsupported|incorrect|rather than)\b/i;
const NEGATIVE_AFTER = /^[\s,)]*(?:(?:is|are)\s+)?(?:not\s+(?:supported|allowed|accepted|valid)|invalid|rejected|unsupported)\b/i;

/** How far around a value the negative cues are looked for. */
const CUE_WINDOW = 24;

/** The examples a description gives, in text order, each once. */
export function examplesIn(text: string): Example[] {
  const found = new Map<string, Example>();
  const add = (raw: string, start: number, end: number): void => {
    const value = raw.trim();
    if (value === '' || found.has(value) || negated(text, start, end)) return;
    found.set(value, { text: value, readings: readingsOf(value) });
  };
  const quotedSpans: { start: number; end: number }[] = [];
  for (const span of quotedValues(text)) {
    quotedSpans.push(span);
    add(text.slice(span.start + 1, span.end - 1), span.start, span.end);
  }
  for (const match of text.matchAll(MARKER)) {
    const from = match.index + match[0].length;
    const to = exampleEnd(text, from);
    const span = text.slice(from, to).trim();
    if (span.startsWith('{') || span.startsWith('[')) {
      const json = parseJson(span);
      if (json !== undefined) {
        if (!found.has(span)) found.set(span, { text: span, readings: [json] });
        continue;
      }
    }
    let itemStart = from;
    for (const [start, end] of splitItems(text, from, to)) {
      itemStart = start;
      const item = stripPunctuation(text.slice(start, end).trim());
      // Quoted items were taken above, whole (a comma inside the quotes splits nothing); an unquoted item with a space
      // is prose ("the repository name").
      if (item === '' || quotedSpans.some((q) => q.start < end && q.end > itemStart) || /\s/.test(item)) continue;
      add(item, start, end);
    }
  }
  return [...found.values()];
}

/** Offsets of quoted values: `'...'`, `"..."`, `` `...` `` on one line, the quote not part of a word (`don't`). */
function quotedValues(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if ((c === "'" || c === '"' || c === '`') && (c !== "'" || !isWordChar(text[i - 1]))) {
      const close = closingQuote(text, i, c);
      if (close !== -1) {
        spans.push({ start: i, end: close + 1 });
        i = close + 1;
        continue;
      }
    }
    i++;
  }
  return spans;
}

function closingQuote(text: string, open: number, quote: string): number {
  const limit = Math.min(text.length, open + 1 + MAX_QUOTED);
  for (let j = open + 1; j < limit; j++) {
    const c = text[j];
    if (c === '\n') return -1;
    if (c === quote && (quote !== "'" || !isWordChar(text[j + 1]))) return j === open + 1 ? -1 : j;
  }
  return -1;
}

/** Where the text an example marker introduces ends: a closing parenthesis, `;`, a line break, a sentence end. */
function exampleEnd(text: string, from: number): number {
  let depth = 0;
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quote !== '') {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && (c === ';' || c === '\n')) return i;
    else if (depth === 0 && c === '.' && (i + 1 >= text.length || /\s/.test(text[i + 1] ?? ''))) return i;
  }
  return text.length;
}

/** The items of an example list: split at commas and at the words "or" and "and". */
function splitItems(text: string, from: number, to: number): [number, number][] {
  const items: [number, number][] = [];
  let start = from;
  let i = from;
  while (i < to) {
    const c = text[i] ?? '';
    if (c === ',') {
      items.push([start, i]);
      start = i + 1;
    } else if (c === ' ' && (text.startsWith(' or ', i) || text.startsWith(' and ', i))) {
      items.push([start, i]);
      const skip = text.startsWith(' or ', i) ? 3 : 4;
      start = i + skip;
      i += skip;
      continue;
    }
    i++;
  }
  items.push([start, to]);
  return items;
}

function stripPunctuation(item: string): string {
  let end = item.length;
  while (end > 0 && ':,'.includes(item[end - 1] ?? '')) end--;
  return item.slice(0, end);
}

function negated(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - CUE_WINDOW), start);
  const clause = before.slice(Math.max(before.lastIndexOf('.'), before.lastIndexOf(';'), before.lastIndexOf('\n')) + 1);
  return NEGATIVE_BEFORE.test(clause) || NEGATIVE_AFTER.test(text.slice(end, end + CUE_WINDOW));
}

/**
 * An example written as an assignment to the parameter (`rule_types=['crowdsourced_yara']`): the value assigned, with
 * Python's quotes read as JSON's. Undefined when the example assigns nothing to `name`.
 */
export function assignedExample(example: Example, name: string): Example | undefined {
  if (!example.text.startsWith(name)) return undefined;
  const rest = /^\s*[=:]\s*(\S.*)$/.exec(example.text.slice(name.length))?.[1];
  if (rest === undefined) return undefined;
  const unquoted = /^(['"])(.*)\1$/.exec(rest)?.[2] ?? rest;
  const python = /^\[\s*'/.test(rest) ? parseJson(rest.replaceAll("'", '"')) : undefined;
  return { text: rest, readings: [...readingsOf(unquoted), ...(python === undefined ? [] : [python])] };
}

/** What an example may stand for: a layout such as `YYYY-MM-DD HH:MM` is filled in with a real date first. */
function readingsOf(value: string): JsonValue[] {
  const filled = fillLayout(value);
  const readings: JsonValue[] = [filled];
  if (filled !== value) return readings;
  const number = Number(value);
  if (value.trim() !== '' && Number.isFinite(number) && /^[-+]?[0-9.eE+-]+$/.test(value)) readings.push(number);
  if (value === 'true' || value === 'false') readings.push(value === 'true');
  if (value === 'null') readings.push(null);
  const json = value.startsWith('{') || value.startsWith('[') ? parseJson(value) : undefined;
  if (json !== undefined) readings.push(json);
  return readings;
}

/** Date layout tokens and the digits that stand for them (2024-01-01 01:01:01). */
const LAYOUT_TOKENS: readonly [string, string][] = [
  ['YYYY', '2024'],
  ['SSS', '001'],
  ['sss', '001'],
  ['YY', '24'],
  ['MM', '01'],
  ['DD', '01'],
  ['HH', '01'],
  ['hh', '01'],
  ['mm', '01'],
  ['ss', '01'],
  ['SS', '01'],
];

/** A layout made only of date tokens and separators, filled in; any other text unchanged. */
function fillLayout(value: string): string {
  if (!(value.includes('YYYY') || value.includes('HH') || value.includes('hh'))) return value;
  let out = '';
  let i = 0;
  while (i < value.length) {
    const token = LAYOUT_TOKENS.find(([t]) => value.startsWith(t, i));
    if (token !== undefined) {
      out += token[1];
      i += token[0].length;
      continue;
    }
    const c = value[i] ?? '';
    if (!'-:./ T+Z'.includes(c) && !(c >= '0' && c <= '9')) return value;
    out += c;
    i++;
  }
  return out;
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}_]/u.test(c);
}
