/**
 * The one catalogue of error codes. Every code a record can carry is listed here with the place the worker
 * sends it and a sentence for the README; a test checks that docs/errors.md documents each one. Codes are stable:
 * agents and dashboards key on them, so a code is never renamed, only added.
 *
 * - `dead_letter`: the record (or one call of a whole message) cannot be processed at all: the worker sends it to
 *   the DLQ topic, the input unchanged (for one call of a message, that call as it sits in the message).
 * - `rejected`: the call was understood but is not valid (the worker sends it to the rejected topic).
 */
export const ERROR_CODES = {
  // Records that cannot be processed at all.
  record_not_json: { disposition: 'dead_letter', doc: 'The record is not JSON text.' },
  record_not_object: { disposition: 'dead_letter', doc: 'The record is JSON but not an object.' },
  record_unknown_envelope: { disposition: 'dead_letter', doc: 'The object matches none of the supported envelopes.' },
  record_missing_tool_name: { disposition: 'dead_letter', doc: 'The envelope carries no tool name (or an empty one).' },
  record_missing_arguments: {
    disposition: 'dead_letter',
    doc:
      'The envelope has no arguments field where its format requires one (OpenAI `function.arguments` ' +
      '/ `arguments`, Anthropic `input`); a tool definition sent as a call lands here.',
  },
  record_no_tool_calls: {
    disposition: 'dead_letter',
    doc: 'The record is a whole message (assistant message, model turn or API response) that holds no tool call: nothing to run.',
  },
  record_custom_tool_call: {
    disposition: 'dead_letter',
    doc:
      'The call is an OpenAI Responses `custom_tool_call`: its `input` is free text ' +
      'for a grammar-defined tool, not JSON arguments, so no input schema applies to it.',
  },
  record_too_many_calls: {
    disposition: 'dead_letter',
    doc: 'The message holds more tool calls than the per-record limit (docs/rule.md "Limits").',
  },
  record_too_large: { disposition: 'dead_letter', doc: 'The record is larger than the configured byte limit.' },
  record_too_deep: { disposition: 'dead_letter', doc: 'The record nests arrays/objects deeper than the configured bound.' },
  record_invalid_encoding: {
    disposition: 'dead_letter',
    doc: 'The record bytes are not valid UTF-8 (or a registry wire-format header is malformed).',
  },
  output_too_large: {
    disposition: 'dead_letter',
    doc:
      'The output record (normalized or rejected, with `raw`) would be ' +
      'larger than `MAX_OUTPUT_BYTES`, which the output topics could refuse.',
  },

  // Calls that were understood but cannot be made as sent.
  arguments_empty: { disposition: 'rejected', doc: 'The arguments were sent as empty text.' },
  arguments_not_json: { disposition: 'rejected', doc: 'The arguments text is not valid JSON.' },
  arguments_not_object: { disposition: 'rejected', doc: 'The arguments are not a JSON object (including an object JSON-encoded twice).' },
  number_out_of_range: {
    disposition: 'rejected',
    doc:
      'A number in the arguments cannot be carried by a double: beyond its range (`1e400`, read as Infinity), ' +
      'nonzero but closer to zero than it holds (`1e-400`, read as 0), or an integer it does not hold exactly ' +
      '(beyond 2^53, such as `12345678901234567890`). The path names the first; `details.numbers` lists them.',
  },
  tool_unknown: { disposition: 'rejected', doc: 'No schema is known for the tool named by the call.' },
  tool_schema_unusable: {
    disposition: 'rejected',
    doc: 'The tool is known but its schema cannot be used (invalid JSON Schema, `$ref` cycle or dangling `$ref`).',
  },

  // Validation of the normalized arguments against the tool's schema.
  missing_required: { disposition: 'rejected', doc: 'A required property is missing.' },
  wrong_type: { disposition: 'rejected', doc: 'A value has a JSON type the schema does not allow.' },
  not_in_enum: { disposition: 'rejected', doc: 'A value is not one of the allowed values.' },
  not_const: { disposition: 'rejected', doc: 'A value differs from the single allowed value.' },
  unknown_property: {
    disposition: 'rejected',
    doc: 'A property is not allowed by the schema (`additionalProperties`/`unevaluatedProperties`).',
  },
  below_minimum: { disposition: 'rejected', doc: 'A number is below its minimum (or exclusive minimum).' },
  above_maximum: { disposition: 'rejected', doc: 'A number is above its maximum (or exclusive maximum).' },
  not_multiple_of: { disposition: 'rejected', doc: 'A number is not a multiple of the required step.' },
  too_short: { disposition: 'rejected', doc: 'A string is shorter than its minimum length.' },
  too_long: { disposition: 'rejected', doc: 'A string is longer than its maximum length.' },
  pattern_mismatch: { disposition: 'rejected', doc: 'A string does not match the required pattern.' },
  invalid_format: { disposition: 'rejected', doc: 'A string is not in the required format (date, email, uri, ...).' },
  too_few_items: { disposition: 'rejected', doc: 'An array has fewer items than allowed.' },
  too_many_items: { disposition: 'rejected', doc: 'An array has more items than allowed.' },
  duplicate_items: { disposition: 'rejected', doc: 'An array must have unique items but repeats one.' },
  missing_contains: { disposition: 'rejected', doc: 'An array lacks an item matching `contains` (or has too few/many).' },
  too_few_properties: { disposition: 'rejected', doc: 'An object has fewer properties than allowed.' },
  too_many_properties: { disposition: 'rejected', doc: 'An object has more properties than allowed.' },
  missing_dependency: { disposition: 'rejected', doc: 'A property requires another property that is missing (`dependentRequired`).' },
  invalid_property_name: { disposition: 'rejected', doc: 'A property name does not satisfy `propertyNames`.' },
  no_matching_alternative: {
    disposition: 'rejected',
    doc: 'A value matches none (or, for `oneOf`, more than one) of the allowed alternatives.',
  },
  forbidden_value: {
    disposition: 'rejected',
    doc: 'A value matches a schema it must not match (`not`), or a branch forbids it (`false` schema, `if/then/else`).',
  },
  schema_violation: { disposition: 'rejected', doc: 'Any other schema violation (the message names the keyword).' },
  more_errors: {
    disposition: 'rejected',
    doc:
      'Last in the list when the call has more violations than the limit of ' +
      'diagnostics per call (docs/rule.md "Limits"): says that more were found and not listed.',
  },
} as const satisfies Record<string, { disposition: 'dead_letter' | 'rejected'; doc: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type Disposition = 'normalized' | 'rejected' | 'dead_letter';
