import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { describe, it, expect } from 'vitest';
import { expectWithinPasses } from '../../../budget.js';
import { ERROR_CODES } from '../../../../src/core/shared/codes.js';
import type { JsonObject, JsonValue } from '../../../../src/core/shared/json.js';
import type { Diagnostic } from '../../../../src/core/shared/types.js';
import { createSchemaCompiler, DEFAULT_MAX_DIAGNOSTICS } from '../../../../src/core/validation/validate.js';
import { isUrl } from '../../../../src/core/validation/url-format.js';
import { preview } from '../../../../src/core/shared/text.js';
import type { CompiledValidator, SchemaCompiler } from '../../../../src/core/validation/validate.js';

const compiler = createSchemaCompiler();

function compileOk(schema: JsonObject, c = compiler): (args: JsonValue) => Diagnostic[] {
  const compiled = c.compile(schema);
  if (!compiled.ok) throw new Error(`expected the schema to compile: ${compiled.diagnostic.message}`);
  return (args) => compiled.validate(args);
}

function unusableOf(compiled: CompiledValidator): Diagnostic {
  if (compiled.ok) throw new Error('expected the schema to be unusable');
  return compiled.diagnostic;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** The article's tool: currency is required, bounded amount, a currency enum. */
const transferFunds: JsonObject = {
  type: 'object',
  properties: {
    from_account: { type: 'string', description: 'Account to debit' },
    to_account: { type: 'string', description: 'Account to credit' },
    amount: { type: 'number', exclusiveMinimum: 0, maximum: 10000, description: 'Amount in major units' },
    currency: { type: 'string', enum: ['USD', 'EUR', 'GBP'], description: 'ISO 4217 currency code' },
    memo: { type: 'string', maxLength: 140 },
  },
  required: ['from_account', 'to_account', 'amount', 'currency'],
  additionalProperties: false,
};

interface Row {
  name: string;
  schema: JsonObject;
  args: JsonValue;
  code: keyof typeof ERROR_CODES;
  path: string;
  message?: string[];
  hint?: string[];
  details?: Record<string, JsonValue>;
}

const rows: Row[] = [
  {
    name: 'required → missing_required, with description and allowed values',
    schema: transferFunds,
    args: { from_account: 'a', to_account: 'b', amount: 5 },
    code: 'missing_required',
    path: '/currency',
    message: ['"currency"'],
    hint: ['Add "currency" (ISO 4217 currency code).', 'Use one of: "USD", "EUR", "GBP"'],
    details: { missingProperty: 'currency', description: 'ISO 4217 currency code', allowedValues: ['USD', 'EUR', 'GBP'] },
  },
  {
    name: 'required without description → name and type',
    schema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    args: {},
    code: 'missing_required',
    path: '/count',
    hint: ['Add "count".', 'an integer'],
    details: { expected: ['integer'] },
  },
  {
    name: 'required nested → pointer of the missing property, parent named',
    schema: {
      type: 'object',
      properties: { address: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] } },
    },
    args: { address: {} },
    code: 'missing_required',
    path: '/address/city',
    message: ['"city"', 'in "address"'],
    hint: ['Add "city" (City name).'],
  },
  {
    name: 'required through a $ref property → description of the referenced schema',
    schema: {
      type: 'object',
      properties: { unit: { $ref: '#/$defs/Unit' } },
      required: ['unit'],
      $defs: { Unit: { type: 'string', enum: ['kg', 'lb'], description: 'Weight unit' } },
    },
    args: {},
    code: 'missing_required',
    path: '/unit',
    hint: ['Add "unit" (Weight unit).', 'Use one of: "kg", "lb"'],
  },
  {
    name: 'required Optional[Enum] (Pydantic anyOf [$ref, null]) → description and allowed values of the enum, and null',
    schema: {
      type: 'object',
      properties: { unit: { anyOf: [{ $ref: '#/$defs/Unit' }, { type: 'null' }] } },
      required: ['unit'],
      $defs: { Unit: { enum: ['kg', 'lb'], title: 'Unit', description: 'Weight unit' } },
    },
    args: {},
    code: 'missing_required',
    path: '/unit',
    hint: ['Add "unit" (Weight unit).', 'Use one of: "kg", "lb", null.'],
    details: { description: 'Weight unit', allowedValues: ['kg', 'lb', null] },
  },
  {
    name: 'required anyOf of an enum and a free string → no list of values; branches that disagree → no description',
    schema: {
      type: 'object',
      properties: {
        unit: {
          anyOf: [
            { enum: ['kg', 'lb'], description: 'Known unit' },
            { type: 'string', description: 'Any unit' },
          ],
        },
      },
      required: ['unit'],
    },
    args: {},
    code: 'missing_required',
    path: '/unit',
    hint: ['Add "unit". Send a string.'],
  },
  {
    name: 'type: string for an array → send a JSON array, not a string',
    schema: { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } },
    args: { ids: '[1,2]' },
    code: 'wrong_type',
    path: '/ids',
    message: ['"ids"', 'expected array, received string'],
    hint: ['JSON array', 'not as a string'],
    details: { expected: ['array'], received: 'string' },
  },
  {
    name: 'type: string for an object → send a JSON object',
    schema: { type: 'object', properties: { filter: { type: 'object' } } },
    args: { filter: '{"a":1}' },
    code: 'wrong_type',
    path: '/filter',
    message: ['expected object, received string'],
    hint: ['JSON object', 'not as a string'],
  },
  {
    name: 'type: numeric string for a number → no coercion, hint drops the quotes',
    schema: { type: 'object', properties: { n: { type: 'number' } } },
    args: { n: '5' },
    code: 'wrong_type',
    path: '/n',
    message: ['expected number, received string'],
    hint: ['5 without quotes'],
  },
  {
    name: 'type: fraction for an integer',
    schema: { type: 'object', properties: { n: { type: 'integer' } } },
    args: { n: 1.5 },
    code: 'wrong_type',
    path: '/n',
    message: ['expected integer, received number', 'not a whole number'],
    hint: ['whole number'],
  },
  {
    name: 'type: "true" for a boolean',
    schema: { type: 'object', properties: { b: { type: 'boolean' } } },
    args: { b: 'true' },
    code: 'wrong_type',
    path: '/b',
    hint: ['Send true without quotes'],
  },
  {
    name: 'type: union types named in the message',
    schema: { type: 'object', properties: { s: { type: ['string', 'null'] } } },
    args: { s: 3 },
    code: 'wrong_type',
    path: '/s',
    message: ['expected string or null, received number'],
    hint: ['a string or null'],
  },
  {
    name: 'type at the root',
    schema: { type: 'object' },
    args: [1],
    code: 'wrong_type',
    path: '',
    message: ['the arguments', 'expected object, received array'],
  },
  {
    name: 'enum → not_in_enum with the allowed values',
    schema: transferFunds,
    args: { from_account: 'a', to_account: 'b', amount: 5, currency: 'JPY' },
    code: 'not_in_enum',
    path: '/currency',
    message: ['"currency"', '"JPY"'],
    hint: ['Use one of: "USD", "EUR", "GBP"'],
    details: { allowedValues: ['USD', 'EUR', 'GBP'] },
  },
  {
    name: 'enum: a case slip gets a suggestion',
    schema: transferFunds,
    args: { from_account: 'a', to_account: 'b', amount: 5, currency: 'eur' },
    code: 'not_in_enum',
    path: '/currency',
    hint: ['Did you mean "EUR"?'],
  },
  {
    name: 'const → not_const',
    schema: { type: 'object', properties: { v: { const: 2 } } },
    args: { v: 3 },
    code: 'not_const',
    path: '/v',
    message: ['exactly 2', 'received 3'],
    hint: ['Send 2.'],
    details: { allowedValue: 2 },
  },
  {
    name: 'additionalProperties → unknown_property at the key, allowed keys listed',
    schema: transferFunds,
    args: { from_account: 'a', to_account: 'b', amount: 5, currency: 'USD', curency: 'USD' },
    code: 'unknown_property',
    path: '/curency',
    message: ['"curency"'],
    hint: [
      'Remove "curency".',
      'Did you mean "currency"?',
      'Allowed parameters: "from_account", "to_account", "amount", "currency", "memo"',
    ],
    details: { property: 'curency', allowed: ['from_account', 'to_account', 'amount', 'currency', 'memo'] },
  },
  {
    name: 'additionalProperties nested, key escaped in the pointer',
    schema: { type: 'object', properties: { opts: { type: 'object', properties: { a: {} }, additionalProperties: false } } },
    args: { opts: { 'x/y~z': 1 } },
    code: 'unknown_property',
    path: '/opts/x~1y~0z',
    message: ['in "opts"'],
    hint: ['Allowed properties: "a"'],
  },
  {
    name: 'unevaluatedProperties → unknown_property, allowed keys gathered through allOf',
    schema: { type: 'object', allOf: [{ properties: { a: {} } }], properties: { b: {} }, unevaluatedProperties: false },
    args: { a: 1, b: 2, c: 3 },
    code: 'unknown_property',
    path: '/c',
    hint: ['"a"', '"b"'],
  },
  {
    name: 'minimum → below_minimum with bound and value',
    schema: { type: 'object', properties: { n: { type: 'number', minimum: 1 } } },
    args: { n: 0 },
    code: 'below_minimum',
    path: '/n',
    message: ['at least 1', 'received 0'],
    hint: ['at least 1'],
    details: { limit: 1, comparison: '>=', actual: 0 },
  },
  {
    name: 'exclusiveMinimum → below_minimum',
    schema: transferFunds,
    args: { from_account: 'a', to_account: 'b', amount: 0, currency: 'USD' },
    code: 'below_minimum',
    path: '/amount',
    message: ['greater than 0', 'received 0'],
  },
  {
    name: 'maximum → above_maximum',
    schema: transferFunds,
    args: { from_account: 'a', to_account: 'b', amount: 25000, currency: 'USD' },
    code: 'above_maximum',
    path: '/amount',
    message: ['"amount"', 'at most 10000', 'received 25000'],
    hint: ['at most 10000'],
    details: { limit: 10000, actual: 25000 },
  },
  {
    name: 'exclusiveMaximum → above_maximum',
    schema: { type: 'object', properties: { n: { exclusiveMaximum: 10 } } },
    args: { n: 10 },
    code: 'above_maximum',
    path: '/n',
    message: ['less than 10'],
  },
  {
    name: 'multipleOf → not_multiple_of with neighbours',
    schema: { type: 'object', properties: { n: { multipleOf: 5 } } },
    args: { n: 7 },
    code: 'not_multiple_of',
    path: '/n',
    message: ['multiple of 5', 'received 7'],
    hint: ['such as 5 or 10'],
  },
  {
    name: 'minLength → too_short with actual length',
    schema: { type: 'object', properties: { s: { type: 'string', minLength: 3 } } },
    args: { s: 'ab' },
    code: 'too_short',
    path: '/s',
    message: ['at least 3 characters', 'received 2 characters'],
    details: { limit: 3, actualLength: 2 },
  },
  {
    name: 'maxLength → too_long, lengths in code points like ajv',
    schema: transferFunds,
    args: { from_account: 'a', to_account: 'b', amount: 1, currency: 'USD', memo: '😀'.repeat(141) },
    code: 'too_long',
    path: '/memo',
    message: ['at most 140 characters', 'received 141 characters'],
    details: { limit: 140, actualLength: 141 },
  },
  {
    name: 'pattern → pattern_mismatch with the pattern and an example',
    schema: { type: 'object', properties: { sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$', examples: ['ABC-12'] } } },
    args: { sku: 'abc' },
    code: 'pattern_mismatch',
    path: '/sku',
    message: ['^[A-Z]{3}-\\d+$', '"abc"'],
    hint: ['^[A-Z]{3}-\\d+$', 'for example "ABC-12"'],
  },
  {
    name: 'format → invalid_format with the format name and an example',
    schema: { type: 'object', properties: { d: { type: 'string', format: 'date' } } },
    args: { d: '31/05/2024' },
    code: 'invalid_format',
    path: '/d',
    message: ['"date"'],
    hint: ['"date"', '2024-05-31'],
    details: { format: 'date' },
  },
  {
    name: 'minItems → too_few_items',
    schema: { type: 'object', properties: { a: { type: 'array', minItems: 2 } } },
    args: { a: [1] },
    code: 'too_few_items',
    path: '/a',
    message: ['at least 2 items', 'received 1 item'],
  },
  {
    name: 'maxItems → too_many_items',
    schema: { type: 'object', properties: { a: { type: 'array', maxItems: 1 } } },
    args: { a: [1, 2, 3] },
    code: 'too_many_items',
    path: '/a',
    message: ['at most 1 item', 'received 3 items'],
  },
  {
    name: 'prefixItems + items: false (2020-12) → too_many_items',
    schema: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
    args: [1, 2, 3],
    code: 'too_many_items',
    path: '',
    message: ['at most 2 items'],
  },
  {
    name: 'uniqueItems → duplicate_items with the positions',
    schema: { type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } },
    args: { tags: ['a', 'b', 'a'] },
    code: 'duplicate_items',
    path: '/tags',
    message: ['items 0 and 2'],
    hint: ['"a"'],
    details: { duplicateIndexes: [0, 2] },
  },
  {
    name: 'contains → missing_contains, branch errors folded away',
    schema: { type: 'object', properties: { a: { type: 'array', contains: { type: 'string' } } } },
    args: { a: [1, 2] },
    code: 'missing_contains',
    path: '/a',
    hint: ['at least 1', 'a string'],
  },
  {
    name: 'minContains/maxContains → missing_contains with the range',
    schema: { type: 'object', properties: { a: { type: 'array', contains: { const: 'x' }, minContains: 2, maxContains: 3 } } },
    args: { a: ['x'] },
    code: 'missing_contains',
    path: '/a',
    hint: ['between 2 and 3', '"x"'],
    details: { minContains: 2, maxContains: 3 },
  },
  {
    name: 'minProperties → too_few_properties',
    schema: { type: 'object', properties: { o: { type: 'object', minProperties: 2 } } },
    args: { o: { a: 1 } },
    code: 'too_few_properties',
    path: '/o',
    message: ['at least 2 properties', 'received 1'],
  },
  {
    name: 'maxProperties → too_many_properties',
    schema: { type: 'object', properties: { o: { type: 'object', maxProperties: 1 } } },
    args: { o: { a: 1, b: 2 } },
    code: 'too_many_properties',
    path: '/o',
    message: ['at most 1 property'],
  },
  {
    name: 'dependentRequired → missing_dependency at the missing property',
    schema: {
      type: 'object',
      properties: { card: { type: 'string' }, cvv: { type: 'string', description: 'Card security code' } },
      dependentRequired: { card: ['cvv'] },
    },
    args: { card: '4111' },
    code: 'missing_dependency',
    path: '/cvv',
    message: ['"cvv" is required when "card" is present'],
    hint: ['Add "cvv" (Card security code), or remove "card".'],
  },
  {
    name: 'dependencies (draft-07) → missing_dependency',
    schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', dependencies: { a: ['b'] } },
    args: { a: 1 },
    code: 'missing_dependency',
    path: '/b',
  },
  {
    name: 'propertyNames → invalid_property_name with the rule',
    schema: { type: 'object', properties: { labels: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } } } },
    args: { labels: { AB: 'x' } },
    code: 'invalid_property_name',
    path: '/labels/AB',
    message: ['"AB"', 'in "labels"'],
    hint: ['match the pattern ^[a-z]+$'],
  },
  {
    name: 'anyOf → no_matching_alternative summarizing the alternatives',
    schema: { type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } },
    args: { v: true },
    code: 'no_matching_alternative',
    path: '/v',
    message: ['expected string or integer, received boolean'],
    hint: ['a string or an integer'],
    details: { alternatives: ['a string', 'an integer (a whole number)'], received: 'boolean' },
  },
  {
    name: 'oneOf matching several → no_matching_alternative',
    schema: { type: 'object', properties: { v: { oneOf: [{ type: 'number' }, { type: 'integer' }] } } },
    args: { v: 3 },
    code: 'no_matching_alternative',
    path: '/v',
    message: ['more than one'],
    details: { passingSchemas: [0, 1] },
  },
  {
    name: 'not → forbidden_value',
    schema: { type: 'object', properties: { v: { not: { type: 'null' } } } },
    args: { v: null },
    code: 'forbidden_value',
    path: '/v',
    message: ['must not be null'],
  },
  {
    name: 'false schema → forbidden_value, remove it',
    schema: { type: 'object', properties: { legacy: false } },
    args: { legacy: 1 },
    code: 'forbidden_value',
    path: '/legacy',
    hint: ['Remove "legacy".'],
  },
  {
    name: 'if/then/else → the failing branch errors themselves',
    schema: {
      type: 'object',
      properties: { kind: { enum: ['card', 'bank'] }, iban: { type: 'string', description: 'Bank account IBAN' } },
      if: { properties: { kind: { const: 'bank' } } },
      then: { required: ['iban'] },
    },
    args: { kind: 'bank' },
    code: 'missing_required',
    path: '/iban',
    hint: ['Add "iban" (Bank account IBAN).'],
  },
  {
    name: 'if/then with a false branch → forbidden_value',
    schema: { type: 'object', properties: { n: { if: { type: 'number' }, then: false } } },
    args: { n: 3 },
    code: 'forbidden_value',
    path: '/n',
  },
  {
    name: 'dependentSchemas → the subschema errors',
    schema: { type: 'object', dependentSchemas: { a: { required: ['c'] } } },
    args: { a: 1 },
    code: 'missing_required',
    path: '/c',
  },
];

describe('keyword → diagnostic mapping', () => {
  it.each(rows)('$name', (row) => {
    const diagnostics = compileOk(row.schema)(deepFreeze(structuredClone(row.args)));
    expect(diagnostics).toHaveLength(1);
    const [d] = diagnostics;
    expect(d).toMatchObject({ code: row.code, path: row.path });
    for (const part of row.message ?? []) expect(d?.message).toContain(part);
    for (const part of row.hint ?? []) expect(d?.hint).toContain(part);
    if (row.details !== undefined) expect(d?.details).toMatchObject(row.details);
    expect(Object.keys(ERROR_CODES)).toContain(d?.code);
    expect(d?.message.length).toBeGreaterThan(0);
    expect(d?.hint.length).toBeGreaterThan(0);
  });
});

describe('a number sent as a string: drop the quotes only when that gives a valid number', () => {
  const typeHint = (type: string, sent: string): string =>
    compileOk({ type: 'object', properties: { n: { type } } })({ n: sent })[0]?.hint ?? '';

  it.each([
    ['integer', '5', 'Send the number 5 without quotes'],
    ['integer', ' -12 ', 'Send the number -12 without quotes'],
    ['integer', '1e3', 'Send the number 1e3 without quotes'],
    ['number', '1.5', 'Send the number 1.5 without quotes'],
  ])('%s sent as %j → unquote it', (type, sent, hint) => {
    expect(typeHint(type, sent)).toContain(hint);
  });

  it.each([
    ['integer', '0x10'],
    ['integer', '.5'],
    ['integer', '+5'],
    ['integer', '05'],
    ['integer', '1.5'],
    ['number', '1e999'],
    ['number', '1'.repeat(200)],
  ])('%s sent as %j (not JSON, or not of that type) → a plain type hint', (type, sent) => {
    const hint = typeHint(type, sent);
    expect(hint).not.toContain('without quotes');
    expect(hint).toMatch(/^Send an? (integer|number)/);
  });
});

describe('the transfer_funds example from the article', () => {
  const validate = compileOk(transferFunds);

  it('accepts a complete call', () => {
    expect(validate({ from_account: 'a', to_account: 'b', amount: 120.5, currency: 'EUR' })).toEqual([]);
  });

  it('reports a missing currency (with its description) and an amount above the maximum together', () => {
    const diagnostics = validate({ from_account: 'a', to_account: 'b', amount: 25000 });
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['missing_required', '/currency'],
      ['above_maximum', '/amount'],
    ]);
    expect(diagnostics[0]?.hint).toContain('Add "currency" (ISO 4217 currency code).');
    expect(diagnostics[0]?.hint).toContain('Use one of: "USD", "EUR", "GBP"');
    expect(diagnostics[1]?.message).toContain('10000');
    expect(diagnostics[1]?.message).toContain('25000');
  });

  it('reports a currency outside the enum with the allowed values', () => {
    const [d] = validate({ from_account: 'a', to_account: 'b', amount: 10, currency: 'BTC' });
    expect(d).toMatchObject({ code: 'not_in_enum', path: '/currency' });
    expect(d?.hint).toContain('Use one of: "USD", "EUR", "GBP"');
  });
});

describe('draft selection', () => {
  const tuple = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] };

  it.each([
    ['absent $schema is 2020-12', { ...tuple }, 1],
    ['2020-12 URI', { $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple }, 1],
    ['draft-07 ignores prefixItems', { $schema: 'http://json-schema.org/draft-07/schema#', ...tuple }, 0],
    ['draft-07 without "#" and over https', { $schema: 'https://json-schema.org/draft-07/schema', ...tuple }, 0],
    ['draft-06', { $schema: 'http://json-schema.org/draft-06/schema#', ...tuple }, 0],
  ] as [string, JsonObject, number][])('%s', (_name, schema, errors) => {
    expect(compileOk(schema)(['a', 'b'])).toHaveLength(errors);
  });

  const draft7Tuple: JsonObject = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { point: { $ref: '#/definitions/Point' } },
    definitions: { Point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false } },
  };

  it('draft-07: definitions and array-form items', () => {
    const validate = compileOk(draft7Tuple);
    expect(validate({ point: [1, 2] })).toEqual([]);
    expect(validate({ point: [1, 'x'] })).toMatchObject([{ code: 'wrong_type', path: '/point/1' }]);
    expect(validate({ point: [1, 2, 3] })).toMatchObject([{ code: 'too_many_items', path: '/point' }]);
  });

  it('the same tuple without $schema is read as 2020-12, where array-form items is invalid', () => {
    const withoutSchema: JsonObject = { ...draft7Tuple };
    delete withoutSchema.$schema;
    const d = unusableOf(compiler.compile(withoutSchema));
    expect(d).toMatchObject({ code: 'tool_schema_unusable', path: '', details: { reason: 'invalid_schema', draft: '2020-12' } });
  });

  it.each([
    ['draft-04', 'http://json-schema.org/draft-04/schema#'],
    ['2019-09', 'https://json-schema.org/draft/2019-09/schema'],
    ['unknown URI', 'https://example.com/my-meta'],
    ['not a string', 7],
  ] as [string, JsonValue][])('unsupported $schema (%s) → tool_schema_unusable naming the supported drafts', (_name, uri) => {
    const d = unusableOf(compiler.compile({ $schema: uri, type: 'object' }));
    expect(d).toMatchObject({ code: 'tool_schema_unusable', path: '', details: { reason: 'unsupported_draft' } });
    expect(d.message).toContain('2020-12');
    expect(d.message).toContain('draft-07');
  });
});

describe("only the call's own properties count (never Object.prototype's)", () => {
  it('a required constructor, toString or __proto__ that was not sent is missing, with its description', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"constructor":{"type":"string","description":"Who built ' +
        'it."},"__proto__":{"type":"string"}},"required":["constructor","toString","__proto__"]}',
    ) as JsonObject;
    const diagnostics = compileOk(schema)({});
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['missing_required', '/constructor'],
      ['missing_required', '/toString'],
      ['missing_required', '/__proto__'],
    ]);
    expect(diagnostics[0]?.hint).toContain('Who built it');
  });

  it('dependentRequired does not find an inherited name either', () => {
    expect(compileOk({ type: 'object', dependentRequired: { a: ['valueOf'] } })({ a: 1 })).toMatchObject([
      { code: 'missing_dependency', path: '/valueOf' },
    ]);
  });

  it('sent as own properties, they are checked as any other', () => {
    const validate = compileOk({ type: 'object', properties: { constructor: { type: 'string' } }, required: ['constructor'] });
    expect(validate(JSON.parse('{"constructor":"me"}') as JsonValue)).toEqual([]);
    expect(validate(JSON.parse('{"constructor":5}') as JsonValue)).toMatchObject([{ code: 'wrong_type', path: '/constructor' }]);
  });
});

describe('no coercion, no mutation', () => {
  const schema: JsonObject = {
    type: 'object',
    properties: {
      ids: { type: 'array', items: { type: 'integer' } },
      n: { type: 'number' },
      flag: { type: 'boolean' },
      s: { type: 'string' },
      level: { type: 'string', default: 'info' },
      extra: { type: 'object', properties: { a: {} }, additionalProperties: false },
    },
  };
  const validate = compileOk(deepFreeze(structuredClone(schema)));

  it.each([
    ['JSON text for an array', { ids: '[1,2]' }, '/ids'],
    ['numeric string for a number', { n: '5' }, '/n'],
    ['a scalar for an array is not wrapped', { ids: 5 }, '/ids'],
    ['"true" for a boolean', { flag: 'true' }, '/flag'],
    ['null for a string', { s: null }, '/s'],
    ['a number for a string', { s: 5 }, '/s'],
  ] as [string, JsonObject, string][])('%s → wrong_type', (_name, args, path) => {
    const before = structuredClone(args);
    const frozen = deepFreeze(structuredClone(args));
    expect(validate(frozen)).toMatchObject([{ code: 'wrong_type', path }]);
    expect(frozen).toEqual(before);
  });

  it('does not apply defaults or remove additional properties (deep-frozen input)', () => {
    const args = deepFreeze({ extra: { a: 1, b: 2 }, ids: [1, 2] });
    const before = structuredClone(args);
    expect(validate(args)).toMatchObject([{ code: 'unknown_property', path: '/extra/b' }]);
    expect(args).toEqual(before);
    expect(validate(deepFreeze({}))).toEqual([]);
  });

  it('does not mutate the schema it compiles', () => {
    const original: JsonObject = { $schema: 'http://json-schema.org/draft-07/schema#', $id: 'urn:example:frozen', ...schema };
    const before = structuredClone(original);
    const compiled = compiler.compile(deepFreeze(original));
    expect(compiled.ok).toBe(true);
    expect(original).toEqual(before);
  });
});

describe('unusable schemas', () => {
  it.each([
    ['dangling $ref', { type: 'object', properties: { x: { $ref: '#/$defs/Missing' } } }, 'dangling_ref', '#/$defs/Missing'],
    ['dangling external $ref', { type: 'object', properties: { x: { $ref: 'other.json' } } }, 'dangling_ref', 'other.json'],
    [
      '$ref cycle without progress',
      { type: 'object', properties: { x: { $ref: '#/$defs/a' } }, $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } },
      'ref_cycle',
      '#/$defs/a -> #/$defs/b -> #/$defs/a',
    ],
    ['root refers to itself', { $ref: '#' }, 'ref_cycle', '#'],
    [
      'cycle through allOf',
      { $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } }, properties: { x: { $ref: '#/$defs/a' } } },
      'ref_cycle',
      '#/$defs/a',
    ],
    ['cycle through anyOf', { anyOf: [{ type: 'string' }, { $ref: '#' }] }, 'ref_cycle', '#'],
    ['invalid per meta-schema', { type: 'object', properties: { x: { type: 'strang' } } }, 'invalid_schema', 'properties/x/type'],
    [
      'regex that is not ECMAScript',
      { type: 'object', properties: { x: { type: 'string', pattern: '(?P<n>a)' } } },
      'invalid_pattern',
      'Invalid',
    ],
    [
      'shared $refs doubling the work per link (ajv: exponential time per call)',
      sharedRefChain(24),
      'too_many_subschemas',
      'more than 10000 subschemas',
    ],
    ['the same chain, 12 links', sharedRefChain(12), 'too_many_subschemas', 'allOf: [$ref A, $ref A]'],
  ] as [string, JsonObject, string, string][])('%s → tool_schema_unusable', (_name, schema, reason, mention) => {
    const d = unusableOf(compiler.compile(schema));
    expect(d).toMatchObject({ code: 'tool_schema_unusable', path: '', details: { reason } });
    expect(d.message).toContain(mention);
    expect(d.hint.length).toBeGreaterThan(0);
  });

  it('compiles shared $refs that stay under the bound, and validates through them', () => {
    const validate = compileOk(sharedRefChain(10));
    expect(validate({ p: [1] })).toEqual([]);
    expect(validate({ p: 'x' })).toMatchObject([{ code: 'wrong_type', path: '/p' }]);
  });

  it('never throws, even for a value that is not a schema object', () => {
    const notAnObject = 'nope' as unknown as JsonObject;
    expect(unusableOf(compiler.compile(notAnObject)).code).toBe('tool_schema_unusable');
  });
});

describe('recursive schemas', () => {
  it('a tree whose children $ref the node compiles and validates', () => {
    const validate = compileOk({
      $ref: '#/$defs/Node',
      $defs: {
        Node: {
          type: 'object',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          required: ['name'],
        },
      },
    });
    expect(validate({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] })).toEqual([]);
    expect(validate({ name: 'a', children: [{ name: 'b', children: [{}, { name: 2 }] }] })).toMatchObject([
      { code: 'missing_required', path: '/children/0/children/0/name' },
      { code: 'wrong_type', path: '/children/0/children/1/name' },
    ]);
  });

  it('recursion through "#" and through anyOf alternatives', () => {
    const validate = compileOk({
      type: 'object',
      properties: {
        value: { type: 'number' },
        next: { anyOf: [{ $ref: '#' }, { type: 'null' }] },
      },
    });
    expect(validate({ value: 1, next: { value: 2, next: null } })).toEqual([]);
    const diagnostics = validate({ value: 1, next: { next: { value: 'x' } } });
    expect(diagnostics).toMatchObject([{ code: 'wrong_type', path: '/next/next/value' }]);
  });
});

describe('$id handling', () => {
  it('two different schemas with the same $id both compile and keep their own rules', () => {
    const a = compileOk({ $id: 'https://example.com/tool.json', type: 'object', properties: { x: { type: 'string' } } });
    const b = compileOk({ $id: 'https://example.com/tool.json', type: 'object', properties: { x: { type: 'number' } } });
    expect(a({ x: 's' })).toEqual([]);
    expect(b({ x: 's' })).toMatchObject([{ code: 'wrong_type', path: '/x' }]);
    expect(a({ x: 1 })).toMatchObject([{ code: 'wrong_type', path: '/x' }]);
  });

  it('the same schema object compiles again, with its nested $id and absolute self-references', () => {
    const schema: JsonObject = {
      $id: 'https://example.com/order.json',
      type: 'object',
      properties: {
        qty: { $ref: 'https://example.com/order.json#/$defs/Qty' },
        unit: { $ref: 'urn:example:unit' },
        child: { $ref: '#' },
      },
      $defs: { Qty: { type: 'integer', minimum: 1 }, Unit: { $id: 'urn:example:unit', enum: ['kg'] } },
    };
    for (let i = 0; i < 3; i += 1) {
      const validate = compileOk(schema);
      expect(validate({ qty: 0, unit: 'lb', child: { qty: 2 } })).toMatchObject([
        { code: 'below_minimum', path: '/qty' },
        { code: 'not_in_enum', path: '/unit' },
      ]);
    }
  });

  it('a nested $id of one tool does not leak into another tool', () => {
    compileOk({ type: 'object', $defs: { U: { $id: 'urn:example:shared', type: 'string' } } });
    const d = unusableOf(compiler.compile({ type: 'object', properties: { u: { $ref: 'urn:example:shared' } } }));
    expect(d.details).toMatchObject({ reason: 'dangling_ref', ref: 'urn:example:shared' });
  });

  it('a schema claiming the meta-schema $id does not break later compiles', () => {
    compiler.compile({ $id: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
    expect(compileOk({ type: 'object', properties: { a: { type: 'string' } } })({ a: 1 })).toHaveLength(1);
  });
});

describe('tolerance of real-world schemas', () => {
  it('ignores unknown keywords, vendor keys and unknown formats', () => {
    const validate = compileOk({
      type: 'object',
      title: 'Search',
      description: 'Search the catalogue',
      'x-vendor-cache': { ttl: 60 },
      properties: {
        q: { type: 'string', examples: ['shoes'], 'x-ui': 'textbox', nullable: true },
        phone: { type: 'string', format: 'phone-number' },
      },
      discriminator: { propertyName: 'q' },
      required: ['q'],
    });
    expect(validate({ q: 'boots', phone: 'whatever' })).toEqual([]);
    expect(validate({})).toMatchObject([{ code: 'missing_required', path: '/q' }]);
  });
});

describe('formats', () => {
  it.each([
    ['date', '2024-05-31', '2024-02-30'],
    ['date-time', '2024-05-31T14:30:00Z', '2024-05-31 14:30'],
    ['email', 'user@example.com', 'not-an-email'],
    ['uri', 'https://example.com/a?b=1', 'example.com/no-scheme'],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567'],
  ])('%s: %s is valid, %s is invalid_format with an example', (format, good, bad) => {
    const validate = compileOk({ type: 'object', properties: { v: { type: 'string', format } } });
    expect(validate({ v: good })).toEqual([]);
    const [d] = validate({ v: bad });
    expect(d).toMatchObject({ code: 'invalid_format', path: '/v', details: { format } });
    expect(d?.hint).toContain(`"${format}"`);
    expect(d?.hint).toContain('for example');
  });
});

describe('the url format without ReDoS (isUrl)', () => {
  // ajv-formats' regex: same language, but quadratic (`http://` and a long run of colons; RELIABILITY.md
  // "Hostile input"). isUrl must accept exactly what it accepts.
  const original = fullFormats.url as RegExp;

  it('accepts and refuses exactly what the ajv-formats regex does (short strings, where it is fast)', () => {
    const part = fc.constantFrom(
      'http://',
      'https://',
      'ftp://',
      'HTTP://',
      'httſ://',
      'a',
      'é',
      'K',
      'b.co',
      '.',
      '-',
      '@',
      ':',
      '/',
      '80',
      '8080',
      ' ',
      '\u3000',
      '\u00a0',
      '\n',
      '1',
      '10',
      '127',
      '192',
      '168',
      '169.254',
      '172.16',
      '0',
      '255',
      '.com',
      'x:y@',
      '%20',
      '?',
      '#',
      '\ud800',
      '😀',
      'ab',
      'zz',
    );
    const plausible = fc
      .tuple(
        fc.constantFrom('http://', 'https://', 'ftp://'),
        fc.constantFrom('', 'u@', 'u:p@', 'a@b@', ':@', '@'),
        fc.constantFrom(
          'example.com',
          '10.0.0.1',
          '8.8.8.8',
          'xn--bcher-kva.example',
          'a-b.c-d.ef',
          'ünï.côdé',
          'localhost',
          '1.2.3',
          'a..b.co',
        ),
        fc.constantFrom('', ':80', ':123456', ':'),
        fc.constantFrom('', '/', '/a b', '/p@q/r', '/?x=1#y'),
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(part, { maxLength: 14 }).map((parts) => parts.join('')),
          plausible,
        ),
        (text) => isUrl(text) === original.test(text),
      ),
      { numRuns: 20_000, seed: 6 },
    );
  });

  it('is linear: 100 000 colons after the scheme, and the worst seeds, take milliseconds', () => {
    for (const seed of [':', '::', ':@', '@a.co/', 'a.', 'a-', '@']) {
      const text = `http://${seed.repeat(100_000 / seed.length)} !`;
      // 80 reference passes of CPU, about 250 ms on the development machine; the ajv-formats regex took seconds.
      expectWithinPasses(
        () => {
          expect(isUrl(text)).toBe(false);
        },
        80,
        `isUrl of http://${seed}...`,
      );
    }
  });

  it('is what the compiled schemas use for format "url"', () => {
    const validate = compileOk({ type: 'object', properties: { u: { type: 'string', format: 'url' } } });
    expect(validate({ u: 'https://user:pw@example.com:8443/a/b?c=d#e' })).toEqual([]);
    expect(validate({ u: `http://${':'.repeat(50_000)}` }).map((d) => d.code)).toEqual(['invalid_format']);
  });
});

describe('maxDiagnostics', () => {
  const many: JsonObject = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${String(i)}`, { type: 'string' }])),
    required: Array.from({ length: 30 }, (_, i) => `p${String(i)}`),
  };

  it('caps at 20 by default, keeping the first in order and saying how many more there are', () => {
    const diagnostics = compileOk(many)({});
    expect(DEFAULT_MAX_DIAGNOSTICS).toBe(20);
    expect(diagnostics).toHaveLength(20);
    expect(diagnostics[0]?.path).toBe('/p0');
    expect(diagnostics[18]?.path).toBe('/p18');
    expect(diagnostics[19]).toMatchObject({ code: 'more_errors', details: { listed: 19, unlisted: 11 } });
  });

  it('honours a configured cap and ends the list with more_errors, never silently', () => {
    const diagnostics = compileOk(many, createSchemaCompiler({ maxDiagnostics: 3 }))({});
    expect(diagnostics.map((d) => d.path)).toEqual(['/p0', '/p1', '']);
    expect(diagnostics[2]).toEqual({
      code: 'more_errors',
      path: '',
      message: '28 more problems were found and not listed (at most 2 are listed per call).',
      hint: 'Fix the problems listed, then send the call again to see the rest.',
      details: { listed: 2, unlisted: 28 },
    });
  });

  it('no more_errors when the problems fit exactly; the first problem alone under a cap of 1', () => {
    const missing = (n: number): JsonObject => ({ type: 'object', required: Array.from({ length: n }, (_, i) => `p${String(i)}`) });
    const capAt = (max: number): SchemaCompiler => createSchemaCompiler({ maxDiagnostics: max });
    expect(compileOk(missing(3), capAt(3))({}).map((d) => d.code)).toEqual(Array(3).fill('missing_required'));
    expect(compileOk(missing(4), capAt(3))({})[2]?.message).toBe(
      '2 more problems were found and not listed (at most 2 are listed per call).',
    );
    expect(compileOk(missing(4), capAt(1))({})).toMatchObject([{ code: 'missing_required', path: '/p0' }]);
  });

  it('counts at most a few hundred unlisted problems, then says "over"', () => {
    const [, more] = compileOk(
      { type: 'array', items: { type: 'string' } },
      createSchemaCompiler({ maxDiagnostics: 2 }),
    )(Array.from({ length: 5000 }, (_, i) => i));
    expect(more?.code).toBe('more_errors');
    expect(more?.message).toBe('Over 200 more problems were found and not listed (at most 1 is listed per call).');
    expect(more?.details).toEqual({ listed: 1, unlistedAtLeast: 202 });
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects maxDiagnostics %s at construction', (value) => {
    expect(() => createSchemaCompiler({ maxDiagnostics: value })).toThrow(RangeError);
  });
});

describe('a condition that forbids a combination (if / then: false)', () => {
  it('says the arguments are refused when the condition holds, and quotes the condition, not "accepts no arguments at all"', () => {
    const validate = compileOk({
      type: 'object',
      properties: { mode: { type: 'string' } },
      allOf: [{ if: { required: ['mode'] }, then: false }],
    });
    expect(validate({})).toEqual([]);
    const [diagnostic] = validate({ mode: 'dry' });
    expect(diagnostic?.code).toBe('forbidden_value');
    expect(diagnostic?.message).toMatch(/^The arguments are not accepted as sent: the tool schema forbids them when its condition holds/);
    expect(diagnostic?.hint).toBe(
      'Change the values the condition looks at, so that it no longer holds; the condition: {"required": ["mode"]}.',
    );
  });
});

describe('alternatives (anyOf/oneOf) without noise', () => {
  it('tells branches of one type apart by their length or range', () => {
    const validate = compileOk({
      type: 'object',
      properties: {
        id: {
          anyOf: [
            { type: 'string', minLength: 5 },
            { type: 'string', format: 'email' },
          ],
        },
        n: {
          anyOf: [
            { type: 'integer', minimum: 10 },
            { type: 'integer', exclusiveMaximum: 0 },
          ],
        },
      },
    });
    expect(validate({ id: 'ab', n: 5 }).map((d) => d.hint)).toEqual([
      'Send a string of at least 5 characters or a string in "email" format.',
      'Send an integer (a whole number) at least 10 or an integer (a whole number) less than 0.',
    ]);
  });

  it('says what each named branch of a tagged union needs: its fixed values and required names, not only its title', () => {
    const validate = compileOk({
      type: 'object',
      properties: { pay: { oneOf: [{ $ref: '#/$defs/Card' }, { $ref: '#/$defs/Bank' }] } },
      required: ['pay'],
      $defs: {
        Card: {
          type: 'object',
          title: 'Card',
          properties: { kind: { const: 'card' }, number: { type: 'string' } },
          required: ['kind', 'number'],
        },
        Bank: {
          type: 'object',
          title: 'Bank',
          properties: { kind: { const: 'bank' }, iban: { type: 'string' } },
          required: ['kind', 'iban'],
        },
      },
    });
    const [diagnostic] = validate({ pay: { kind: 'crad', number: '4111' } });
    expect(diagnostic?.code).toBe('no_matching_alternative');
    expect(diagnostic?.hint).toBe(
      'Send a JSON object ("Card") with "kind": "card" and "number" or a JSON object ("Bank") with "kind": "bank" and "iban".',
    );
  });

  const pydantic: JsonObject = {
    type: 'object',
    properties: {
      tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }], default: null, title: 'Tags' },
      memo: { anyOf: [{ $ref: '#/$defs/Memo' }, { type: 'null' }], description: 'Optional memo' },
    },
    $defs: {
      Memo: { type: 'object', title: 'Memo', properties: { text: { type: 'string', description: 'Memo text' } }, required: ['text'] },
    },
  };
  const validate = compileOk(pydantic);

  it('Optional[list]: null and lists pass', () => {
    expect(validate({ tags: null })).toEqual([]);
    expect(validate({ tags: ['a'] })).toEqual([]);
  });

  it('Optional[list] sent as JSON text → one no_matching_alternative naming array or null', () => {
    const diagnostics = validate({ tags: '["a"]' });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: 'no_matching_alternative',
      path: '/tags',
      details: { expected: ['array', 'null'], received: 'string' },
    });
    expect(diagnostics[0]?.message).toContain('expected array or null, received string');
    expect(diagnostics[0]?.hint).toContain('not a string containing JSON');
  });

  it('Optional[list] with a bad item → the array branch error only (no "must be null")', () => {
    expect(validate({ tags: ['a', 2] })).toMatchObject([{ code: 'wrong_type', path: '/tags/1' }]);
    expect(validate({ tags: ['a', 2] })).toHaveLength(1);
  });

  it('Optional[Model] behind a $ref with a missing field → that field, not the alternatives', () => {
    const diagnostics = validate({ memo: {} });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'missing_required', path: '/memo/text' });
    expect(diagnostics[0]?.hint).toContain('Add "text" (Memo text).');
  });

  it('Optional[Model] sent as a number → one diagnostic listing the alternatives', () => {
    const diagnostics = validate({ memo: 5 });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'no_matching_alternative', path: '/memo' });
    expect(diagnostics[0]?.hint).toContain('Memo');
    expect(diagnostics[0]?.hint).toContain('null');
  });

  it('a const discriminator picks the branch meant', () => {
    const pets = compileOk({
      type: 'object',
      properties: { pet: { oneOf: [{ $ref: '#/$defs/Cat' }, { $ref: '#/$defs/Dog' }] } },
      $defs: {
        Cat: { type: 'object', properties: { kind: { const: 'cat' }, meows: { type: 'boolean' } }, required: ['kind', 'meows'] },
        Dog: { type: 'object', properties: { kind: { const: 'dog' }, barks: { type: 'boolean' } }, required: ['kind', 'barks'] },
      },
    });
    expect(pets({ pet: { kind: 'dog', barks: true } })).toEqual([]);
    expect(pets({ pet: { kind: 'dog' } })).toMatchObject([{ code: 'missing_required', path: '/pet/barks' }]);
    expect(pets({ pet: { kind: 'dog' } })).toHaveLength(1);
    const ambiguous = pets({ pet: {} });
    expect(ambiguous).toMatchObject([{ code: 'no_matching_alternative', path: '/pet' }]);
    expect(ambiguous[0]?.hint).toContain('Cat');
    expect(ambiguous[0]?.hint).toContain('Dog');
  });

  it('nested alternatives fold into one diagnostic at the innermost meant value', () => {
    const nested = compileOk({
      type: 'object',
      properties: {
        x: { anyOf: [{ type: 'object', properties: { y: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }, { type: 'null' }] },
      },
    });
    expect(nested({ x: { y: true } })).toMatchObject([{ code: 'no_matching_alternative', path: '/x/y' }]);
    expect(nested({ x: { y: true } })).toHaveLength(1);
  });

  it('alternatives made only of required name what they need, not "alternative 1"', () => {
    const contact = (keyword: 'anyOf' | 'oneOf', branches: JsonObject[]): ((args: JsonValue) => Diagnostic[]) =>
      compileOk({
        type: 'object',
        properties: { email: { type: 'string' }, phone: { type: 'string' }, fax: { type: 'string' } },
        [keyword]: branches,
      });
    const email = { required: ['email'], description: 'by email' };
    const phone = { required: ['phone'] };
    const [any] = contact('anyOf', [email, phone])({});
    expect(any?.hint).toBe('Add "email", or add "phone".');
    expect(any?.details).toMatchObject({ alternatives: ['a value with "email"', 'a value with "phone"'] });
    expect(contact('anyOf', [{ required: ['email', 'fax'] }, phone])({})[0]?.hint).toBe('Add "email" and "fax", or add "phone".');
    expect(contact('oneOf', [email, phone])({})[0]?.hint).toBe('Send exactly one of: "email", "phone".');
    const [both] = contact('oneOf', [email, phone])({ email: 'a', phone: 'b' });
    expect(both?.hint).toBe('Send exactly one of: "email", "phone".');
    expect(both?.message).toContain('(a value with "email" and a value with "phone")');
    // With a type beside required, the names are still listed after the type, as before.
    const typed = contact('anyOf', [
      { type: 'object', required: ['email'] },
      { type: 'object', required: ['phone'] },
    ])({});
    expect(typed[0]?.hint).toBe('Send a JSON object with "email" or a JSON object with "phone".');
  });

  it('sibling errors before an anyOf are kept, not swallowed', () => {
    const sibling = compileOk({
      type: 'object',
      properties: { v: { enum: ['a', 'bbbbbb'], anyOf: [{ type: 'string', minLength: 5 }, { type: 'number' }] } },
      required: ['w'],
    });
    expect(sibling({ v: 'c' }).map((d) => [d.code, d.path])).toEqual([
      ['missing_required', '/w'],
      ['not_in_enum', '/v'],
      ['too_short', '/v'],
    ]);
  });
});

describe('messages stay small and deterministic', () => {
  it('never echoes more than ~80 characters of a received value or key', () => {
    const huge = 'x'.repeat(100_000);
    const validate = compileOk({ ...transferFunds, properties: { ...(transferFunds.properties as JsonObject) } });
    const diagnostics = validate({ from_account: 'a', to_account: 'b', amount: 5, currency: huge, [huge]: 1 });
    expect(diagnostics.map((d) => d.code)).toEqual(['unknown_property', 'not_in_enum']);
    for (const d of diagnostics) {
      expect(d.message.length).toBeLessThan(300);
      expect(d.hint.length).toBeLessThan(600);
      expect(JSON.stringify(d.details).length).toBeLessThan(600);
    }
    expect(diagnostics[1]?.message).toContain('…');
  });

  it('bounds what it quotes from the schema: long enum values, huge enums, long patterns, many alternatives', () => {
    // JSON.stringify writes half of a surrogate pair as an escape: "\ud83d".
    const loneSurrogate = /\\ud[89a-f][0-9a-f]{2}/i;
    const long = Array.from({ length: 100 }, (_, i) => `${'😀'.repeat(2500)}${String(i)}`);
    const pattern = `^(?:${Array.from({ length: 400 }, (_, i) => `code${String(i)}`).join('|')})$`;
    const alternatives = Array.from({ length: 60 }, (_, i) => ({ type: 'object', required: [`k${String(i)}`] }));
    const validate = compileOk({
      type: 'object',
      properties: {
        e: { enum: long },
        r: { enum: long },
        p: { type: 'string', pattern },
        a: { anyOf: alternatives },
        n: { type: 'object', propertyNames: { pattern } },
      },
      required: ['r'],
    });
    const diagnostics = validate({ e: 'x', p: 'x', a: {}, n: { x: 1 } });
    expect(diagnostics.map((d) => d.code).sort()).toEqual(
      ['invalid_property_name', 'missing_required', 'no_matching_alternative', 'not_in_enum', 'pattern_mismatch'].sort(),
    );
    for (const d of diagnostics) {
      const text = JSON.stringify(d);
      expect(text.length).toBeLessThan(5000);
      expect(text).not.toMatch(loneSurrogate);
      expect(d.message.length).toBeLessThan(400);
    }
    const enumDetails = diagnostics.find((d) => d.code === 'not_in_enum')?.details ?? {};
    const listed = enumDetails.allowedValues as string[];
    expect(listed.length).toBeGreaterThan(0);
    for (const value of listed) expect(value.length).toBeLessThanOrEqual(200);
    expect(enumDetails.allowedValuesNotListed).toBe(100 - listed.length);
    expect(diagnostics.find((d) => d.code === 'missing_required')?.details).toMatchObject({ allowedValuesNotListed: 100 - listed.length });
    expect(diagnostics.find((d) => d.code === 'no_matching_alternative')?.details).toMatchObject({ alternativesNotListed: 50 });
    expect(diagnostics.find((d) => d.code === 'pattern_mismatch')?.details?.pattern).toMatch(/^\^\(\?:code0\|.*…$/);
  });

  it('maxContains exceeded says there are too many matching items and how many; fewer than minContains keeps the range', () => {
    const validate = compileOk({
      type: 'object',
      properties: { a: { type: 'array', contains: { const: 'x' }, minContains: 1, maxContains: 1 } },
    });
    const [tooMany] = validate({ a: ['x', 'y', 'x', 'x'] });
    expect(tooMany).toMatchObject({ code: 'missing_contains', path: '/a', details: { maxContains: 1, actualCount: 3 } });
    expect(tooMany?.message).toBe('"a" must contain at most 1 item matching: exactly "x", received 3.');
    expect(tooMany?.hint).toBe('Remove items that are exactly "x" so that at most 1 remains.');
    const [tooFew] = validate({ a: ['y'] });
    expect(tooFew?.message).toBe('"a" must contain between 1 and 1 item(s) matching: exactly "x".');
    expect(tooFew?.details).toMatchObject({ actualCount: 0 });
  });

  it('the arguments (the root) take a plural verb', () => {
    const [none] = compileOk({
      type: 'object',
      anyOf: [
        { type: 'object', required: ['a'] },
        { type: 'object', required: ['b'] },
      ],
    })({});
    expect(none?.message).toBe('The arguments match none of the 2 allowed alternatives (received {}).');
    const [notInEnum] = compileOk({ type: 'object', enum: [{ a: 1 }] })({});
    expect(notInEnum?.message).toMatch(/^The arguments are not one of the allowed values/);
  });

  it('preview bounds any JSON value', () => {
    expect(preview('short')).toBe('"short"');
    expect(preview({ a: [1, 2] })).toBe('{"a": [1, 2]}');
    const big = preview(Array.from({ length: 10_000 }, (_, i) => i));
    expect(big.length).toBeLessThanOrEqual(80);
    expect(big.endsWith('…')).toBe(true);
  });

  it('orders diagnostics deterministically and de-duplicates repeats', () => {
    const schema: JsonObject = {
      type: 'object',
      allOf: [{ required: ['a'] }, { required: ['a'] }],
      properties: { b: { type: 'string' }, c: { type: 'number' } },
    };
    const validate = compileOk(schema);
    const first = validate({ b: 1, c: 'x' });
    // ajv's evaluation order (allOf before properties here), with the twice-reported /a once.
    expect(first.map((d) => [d.code, d.path])).toEqual([
      ['missing_required', '/a'],
      ['wrong_type', '/b'],
      ['wrong_type', '/c'],
    ]);
    expect(validate({ b: 1, c: 'x' })).toEqual(first);
    expect(compileOk(schema)({ b: 1, c: 'x' })).toEqual(first);
  });

  it('returns [] for valid arguments and reuses the compiled validator safely', () => {
    const validate = compileOk(transferFunds);
    const bad = validate({});
    expect(validate({ from_account: 'a', to_account: 'b', amount: 1, currency: 'GBP' })).toEqual([]);
    expect(validate({})).toEqual(bad);
  });
});

/** `p` -> A0; Ai = allOf [$ref A(i+1), $ref A(i+1)]; A(links) = array: 2^links paths to the last subschema. */
function sharedRefChain(links: number): JsonObject {
  const defs: JsonObject = { [`A${String(links)}`]: { type: 'array' } };
  for (let i = 0; i < links; i++)
    defs[`A${String(i)}`] = { allOf: [{ $ref: `#/$defs/A${String(i + 1)}` }, { $ref: `#/$defs/A${String(i + 1)}` }] };
  return { type: 'object', properties: { p: { $ref: '#/$defs/A0' } }, $defs: defs };
}
