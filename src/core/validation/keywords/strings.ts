/** Strings: `minLength`, `maxLength`, `pattern` and `format`. */
import type { JsonValue } from '../../shared/json.js';
import { codePointLength, plural, preview, previewValue, QUOTE_CHARS, quoteDescription, truncate } from '../../shared/text.js';
import { numberParam, stringParam } from '../ajv-error-tree.js';
import { schemaKeyword } from '../schema-index.js';
import type { KeywordFamily, KeywordRule } from './rule.js';

/** Format descriptions and example values, so a hint can show what a valid value looks like. */
export const FORMATS: Readonly<Record<string, { what: string; example: JsonValue }>> = {
  date: { what: 'a calendar date, YYYY-MM-DD', example: '2024-05-31' },
  time: { what: 'a time with a time zone, HH:MM:SS followed by Z or an offset', example: '14:30:00Z' },
  'date-time': { what: 'an RFC 3339 date-time with a time zone', example: '2024-05-31T14:30:00Z' },
  'iso-time': { what: 'an ISO 8601 time', example: '14:30:00' },
  'iso-date-time': { what: 'an ISO 8601 date-time', example: '2024-05-31T14:30:00' },
  duration: { what: 'an ISO 8601 duration', example: 'P3DT4H' },
  uri: { what: 'an absolute URI, with a scheme', example: 'https://example.com/path' },
  'uri-reference': { what: 'a URI or a relative reference', example: '/path/to/resource' },
  'uri-template': { what: 'an RFC 6570 URI template', example: 'https://example.com/items/{id}' },
  url: { what: 'a URL', example: 'https://example.com/path' },
  email: { what: 'an email address', example: 'user@example.com' },
  hostname: { what: 'a host name', example: 'api.example.com' },
  ipv4: { what: 'an IPv4 address', example: '192.0.2.10' },
  ipv6: { what: 'an IPv6 address', example: '2001:db8::1' },
  regex: { what: 'a regular expression', example: '^[a-z]+$' },
  uuid: { what: 'a UUID', example: '123e4567-e89b-12d3-a456-426614174000' },
  'json-pointer': { what: 'a JSON Pointer', example: '/items/0' },
  'json-pointer-uri-fragment': { what: 'a JSON Pointer URI fragment', example: '#/items/0' },
  'relative-json-pointer': { what: 'a relative JSON Pointer', example: '1/name' },
  byte: { what: 'base64-encoded data', example: 'aGVsbG8=' },
  int32: { what: 'a 32-bit signed integer', example: 42 },
  int64: { what: 'a 64-bit signed integer', example: 42 },
  float: { what: 'a 32-bit floating-point number', example: 1.5 },
  double: { what: 'a 64-bit floating-point number', example: 1.5 },
};

const length: KeywordRule = ({ error, path, name, Name, data, description, make }) => {
  const limit = numberParam(error, 'limit') ?? 0;
  // ajv counts Unicode code points, not UTF-16 units: so do we, or the numbers would disagree.
  const actual = typeof data === 'string' ? codePointLength(data) : 0;
  const min = error.keyword === 'minLength';
  return make(
    min ? 'too_short' : 'too_long',
    path,
    `${Name} must be ${min ? 'at least' : 'at most'} ${plural(limit, 'character')} long, received ${plural(actual, 'character')}.`,
    min
      ? `Send a string of at least ${plural(limit, 'character')}${description === undefined ? '' : ` (${quoteDescription(description)})`}.`
      : `Shorten ${name} to at most ${plural(limit, 'character')}.`,
    { limit, actualLength: actual },
  );
};

export const STRINGS: KeywordFamily = {
  minLength: length,
  maxLength: length,
  pattern: ({ error, path, Name, data, parent, description, make }) => {
    const pattern = truncate(stringParam(error, 'pattern'), QUOTE_CHARS);
    const example = exampleOf(parent);
    return make(
      'pattern_mismatch',
      path,
      `${Name} does not match the required pattern ${pattern} (received ${preview(data)}).`,
      `Send a string matching the regular expression ${pattern}` +
        (description === undefined ? '' : ` (${quoteDescription(description)})`) +
        (example === undefined ? '' : `, for example ${preview(example)}`) +
        '.',
      { pattern },
    );
  },
  format: ({ error, path, Name, data, parent, make }) => {
    const format = truncate(stringParam(error, 'format'), QUOTE_CHARS);
    const known = FORMATS[format];
    const example = exampleOf(parent) ?? known?.example;
    return make(
      'invalid_format',
      path,
      `${Name} is not a valid "${format}"${known === undefined ? '' : ` (${known.what})`} (received ${preview(data)}).`,
      `Send a value in "${format}" format${known === undefined ? '' : `, ${known.what}`}${
        example === undefined ? '' : `, for example ${preview(example)}`
      }.`,
      example === undefined ? { format } : { format, example: previewValue(example, QUOTE_CHARS) },
    );
  },
};

/** The schema's own example (`examples[0]`, or OpenAPI's `example`), the best value a hint can show. */
function exampleOf(schema: unknown): JsonValue | undefined {
  const examples = schemaKeyword(schema, 'examples');
  if (Array.isArray(examples) && examples.length > 0) return examples[0] as JsonValue;
  const example = schemaKeyword(schema, 'example');
  return example === undefined ? undefined : (example as JsonValue);
}
