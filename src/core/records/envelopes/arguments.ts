/**
 * Arguments as sent to the arguments object: envelope decoding, not a repair. Pure; never throws on data.
 */
import { DEFAULT_RECORD_LIMITS, MAX_REASON_CHARS, tooDeepFailure } from '../bytes.js';
import { childPointer } from '../../shared/json-pointer.js';
import {
  isJsonObject,
  jsonTypeOf,
  nestsDeeperThan,
  noteNumberProblems,
  tryParseJson,
  unrepresentableNumbers,
  type JsonObject,
  type JsonValue,
  type NumberProblem,
  type UnrepresentableNumber,
} from '../../shared/json.js';
import { preview, PREVIEW_CHARS, truncate } from '../../shared/text.js';
import type { Diagnostic } from '../../shared/types.js';
import { describeType } from './common.js';

export type ArgumentsResult = { ok: true; value: JsonObject } | { ok: false; diagnostic: Diagnostic };

const OBJECT_HINT =
  'Send the arguments as one JSON object whose keys are the parameter names, e.g. {"path": "README.md"}; ' +
  'send {} when the tool takes no parameters.';

/**
 * Turns the arguments as sent into the arguments object. This is envelope decoding, not a repair: nothing is
 * substituted or unwrapped, and the object is returned as is (never copied, so `__proto__` stays plain data).
 *
 * - an object: itself;
 * - absent (`undefined`): `{}`, for the formats where arguments are optional (MCP `params.arguments`, Gemini
 *   `args`, canonical); formats that require them never reach this without them;
 * - a string: JSON text that must parse to an object (`arguments_empty`, `arguments_not_json`,
 *   `arguments_not_object`; an object JSON-encoded twice is refused, not unwrapped). Because the record's depth
 *   check sees this text as one string, the parsed value's depth is checked here against `maxDepth`
 *   (`record_too_deep`), so later recursive walks and `JSON.stringify` stay within the stack;
 * - anything else (array, number, boolean, null): `arguments_not_object`.
 *
 * Either way, a number whose literal a double cannot carry (beyond its range, closer to zero than it holds, or an
 * integer it does not hold exactly: {@link NumberProblem}) is `number_out_of_range`, at the first such number's
 * path: validated or passed on, it would be another number (`1e400` would be written `null`). The record's
 * parse notes them for arguments sent as an object (records/bytes.ts), this one for arguments sent as text.
 */
export function parseArguments(raw: unknown, maxDepth: number = DEFAULT_RECORD_LIMITS.maxDepth): ArgumentsResult {
  if (raw === undefined) return { ok: true, value: {} };
  if (typeof raw === 'string') return parseArgumentsText(raw, maxDepth);
  if (isJsonObject(raw)) return checkNumbers(raw);
  return notObject(`The arguments are ${describeValue(raw)}, not an object.`, jsonTypeOf(raw));
}

function parseArgumentsText(text: string, maxDepth: number): ArgumentsResult {
  if (text.trim().length === 0) {
    const what = text.length === 0 ? 'empty text' : 'text with only whitespace';
    return diagnose('arguments_empty', `The arguments were sent as ${what}.`, OBJECT_HINT);
  }
  const parsed = tryParseJson(text);
  if (!parsed.ok) return notJson(parsed.reason);
  const value = parsed.value;
  if (isJsonObject(value)) {
    if (!nestsDeeperThan(text, value, maxDepth)) return checkNumbers(noteNumberProblems(text, value) as JsonObject);
    return diagnose(
      'record_too_deep',
      tooDeepFailure(maxDepth, 'The arguments text').message,
      `Flatten the arguments: nesting deeper than ${maxDepth} levels is refused.`,
      { maxDepth },
    );
  }
  if (typeof value === 'string' && holdsObjectText(value)) {
    return diagnose(
      'arguments_not_object',
      'The arguments are a JSON object that was JSON-encoded twice: the text parses to a string, which holds the object text.',
      'Encode the arguments once: send the JSON text of the object itself ' +
        '(e.g. {"path": "README.md"}), not a JSON string containing that text.',
      { received: 'string', encodedTwice: true },
    );
  }
  return notObject(`The arguments text parses to ${describeType(value)}, not an object.`, jsonTypeOf(value));
}

/** The most problem numbers a diagnostic lists in its details. */
const MAX_LISTED_NUMBERS = 20;

function checkNumbers(value: JsonObject): ArgumentsResult {
  const found = unrepresentableNumbers(value, MAX_LISTED_NUMBERS + 1);
  const first = found[0];
  if (first === undefined) return { ok: true, value };
  const listed = found.slice(0, MAX_LISTED_NUMBERS);
  const more = found.length > MAX_LISTED_NUMBERS ? ' (and more)' : '';
  const others =
    listed.length > 1
      ? ` ${String(listed.length - 1)} other number${listed.length > 2 ? 's' : ''}${more} in the arguments also cannot be carried.`
      : '';
  return diagnose(
    'number_out_of_range',
    `${numberMessage(first)}${others}`,
    NUMBER_HINTS[first.problem],
    {
      literal: truncate(first.literal, PREVIEW_CHARS),
      problem: first.problem,
      numbers: listed.map((number) => ({
        path: pointerOf(number),
        literal: truncate(number.literal, PREVIEW_CHARS),
        problem: number.problem,
      })),
    },
    pointerOf(first),
  );
}

function pointerOf(number: UnrepresentableNumber): string {
  let pointer = '';
  for (const token of number.tokens) pointer = childPointer(pointer, token);
  return pointer;
}

/** How a number's place reads in a message: `"items[2].price"`, as validation names values. */
function placeOf(number: UnrepresentableNumber): string {
  let label = '';
  for (const token of number.tokens) label += typeof token === 'number' ? `[${String(token)}]` : label === '' ? token : `.${token}`;
  return preview(label);
}

function numberMessage(number: UnrepresentableNumber): string {
  const literal = truncate(number.literal, PREVIEW_CHARS);
  const where = `The number ${literal} in ${placeOf(number)}`;
  switch (number.problem) {
    case 'overflow': {
      const infinity = number.literal.startsWith('-') ? '-Infinity' : 'Infinity';
      return (
        `${where} is beyond the range of a double (about ±1.8e308): it would be read as ${infinity}, ` +
        'which JSON cannot carry (it would be written null).'
      );
    }
    case 'underflow':
      return `${where} is closer to zero than a double can hold (5e-324): it would be read as 0.`;
    case 'integer_precision':
      return (
        `${where} is an integer a double does not hold exactly (integers are exact up to 9007199254740991): ` +
        `it would be passed on as ${String(Number(number.literal))}.`
      );
  }
}

const NUMBER_HINTS: Readonly<Record<NumberProblem, string>> = {
  overflow: 'Send a number within ±1.7976931348623157e308, the range of a double.',
  underflow: 'Send 0 if zero is meant, or a number whose magnitude is at least 5e-324.',
  integer_precision:
    'Send integers between -9007199254740991 and 9007199254740991; send larger identifiers as strings where the tool takes strings.',
};

function holdsObjectText(text: string): boolean {
  // Only texts that start like an object are worth a second parse.
  if (text.trimStart().charCodeAt(0) !== 0x7b /* { */) return false;
  const inner = tryParseJson(text);
  return inner.ok && isJsonObject(inner.value);
}

function notJson(reason: string): ArgumentsResult {
  const position = /at position (\d+)/.exec(reason)?.[1];
  const where = position === undefined ? '' : ` (the parser stopped at character ${position})`;
  return diagnose(
    'arguments_not_json',
    `The arguments text is not valid JSON: ${truncate(reason, MAX_REASON_CHARS)}`,
    `Send the arguments as one complete JSON object in valid JSON text${where}: double-quote ` +
      'keys and strings, escape quotes and newlines inside strings, no trailing commas.',
    position === undefined ? undefined : { position: Number(position) },
  );
}

function notObject(message: string, received: string): ArgumentsResult {
  return diagnose('arguments_not_object', message, OBJECT_HINT, { received });
}

function diagnose(
  code: Diagnostic['code'],
  message: string,
  hint: string,
  details?: Record<string, JsonValue>,
  path = '',
): ArgumentsResult {
  const diagnostic: Diagnostic = { code, path, message, hint };
  if (details !== undefined) diagnostic.details = details;
  return { ok: false, diagnostic };
}

/** Like {@link describeType}, for values that may not be JSON at all (`parseArguments` takes `unknown`). */
function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  const type = typeof value;
  if (type === 'function' || type === 'symbol' || type === 'bigint') return `a ${type} (not a JSON value)`;
  return describeType(value as JsonValue);
}
