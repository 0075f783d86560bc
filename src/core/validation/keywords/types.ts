/** Types: `type`, with hints for the usual slips (JSON sent as a string, quoted numbers and booleans). */
import { jsonTypeOf } from '../../shared/json.js';
import { joinOr, preview, PREVIEW_CHARS, quoteDescription, typeNoun } from '../../shared/text.js';
import { param } from '../ajv-error-tree.js';
import type { KeywordFamily } from './rule.js';

export const TYPES: KeywordFamily = {
  type: ({ error, path, name, data, description, make }) => {
    const rawType = param(error, 'type');
    const expected = (Array.isArray(rawType) ? rawType : [rawType]).filter((t): t is string => typeof t === 'string');
    const received = jsonTypeOf(data);
    const notWhole = received === 'number' && expected.includes('integer') ? ' (not a whole number)' : '';
    const message = `Wrong type for ${name}: expected ${expected.join(' or ')}, received ${received}${notWhole}.`;
    return make('wrong_type', path, message, typeHint(name, expected, data, description), { expected, received });
  },
};

function typeHint(name: string, expected: string[], data: unknown, description: string | undefined): string {
  const about = description === undefined ? '' : ` (${quoteDescription(description)})`;
  if (typeof data === 'string' && !expected.includes('string')) {
    if (expected.includes('array') || expected.includes('object')) {
      const kind = expected.includes('array') ? 'array' : 'object';
      const example = kind === 'array' ? '["a", "b"]' : '{"key": "value"}';
      return `Send ${name} as a JSON ${kind} itself, for example ${example}, not as a string containing JSON text${about}.`;
    }
    const trimmed = data.trim();
    if (unquotedNumberFits(trimmed, expected)) {
      return `Send the number ${trimmed} without quotes, not the string ${preview(data)}.`;
    }
    if (expected.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) {
      return `Send ${trimmed} without quotes, not the string ${preview(data)}.`;
    }
    if (expected.includes('null') && trimmed === 'null') return 'Send null without quotes, not the string "null".';
  }
  if (typeof data === 'number' && expected.includes('integer') && !Number.isInteger(data)) {
    return `Send a whole number, such as ${String(Math.round(data))}${about}.`;
  }
  return `Send ${joinOr(expected.map(typeNoun))} for ${name}${about}.`;
}

/** A JSON number literal: no hex, leading zeros, leading `+` or bare `.5`, which `Number()` accepts and JSON does not. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Whether telling the agent to drop the quotes gives a value that passes the type check: the text must be JSON
 * as it stands (it is echoed, so also short enough to echo whole) and, for an integer, a whole number once read.
 */
function unquotedNumberFits(text: string, expected: string[]): boolean {
  if (text.length > PREVIEW_CHARS || !JSON_NUMBER.test(text)) return false;
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  return expected.includes('number') || (expected.includes('integer') && Number.isInteger(value));
}
