/**
 * ajv's `enum`, `const`, `uniqueItems` and `multipleOf`, replaced in our instances by keywords with the same
 * errors (keyword, params, message) whose checks are ours: equality that treats every key as data
 * (equality.ts), a one-pass `uniqueItems`, and a `multipleOf` exact in decimal (shared/decimal.ts), where ajv
 * divides doubles and `multipleOf: 0.01` refuses 19.99.
 */
import { _, str, type Ajv, type CodeKeywordDefinition, type KeywordCxt } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { isMultipleOf } from '../../shared/decimal.js';
import type { JsonValue } from '../../shared/json.js';
import { enumMatcher, firstDuplicate, jsonEqual } from './equality.js';

/** Enums of at most this many primitives are compared inline (`data === v || ...`), as ajv does; larger ones by a set. */
const INLINE_ENUM = 8;

const ENUM: CodeKeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  error: {
    message: 'must be equal to one of the allowed values',
    params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data } = cxt;
    const values = cxt.schema as JsonValue[];
    if (values.length === 0) throw new Error('enum must have non-empty array');
    if (values.length <= INLINE_ENUM && values.every((value) => typeof value !== 'object' || value === null)) {
      // Primitive schema values become literals in the code, as in ajv's own `enum`.
      let condition = _`false`;
      for (const value of values) condition = _`${condition} || ${data} === ${value}`;
      cxt.fail(_`!(${condition})`);
      return;
    }
    const matcher = gen.scopeValue('func', { ref: enumMatcher(values) });
    cxt.fail(_`!${matcher}(${data})`);
  },
};

const CONST: CodeKeywordDefinition = {
  keyword: 'const',
  error: {
    message: 'must be equal to constant',
    params: ({ schemaCode }) => _`{allowedValue: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schemaCode } = cxt;
    const schema = cxt.schema as JsonValue;
    if (typeof schema === 'object' && schema !== null) {
      cxt.fail(_`!${gen.scopeValue('func', { ref: jsonEqual })}(${data}, ${schemaCode})`);
    } else {
      cxt.fail(_`${schema} !== ${data}`);
    }
  },
};

const UNIQUE_ITEMS: CodeKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    // ajv's params: `i` the later index, `j` the earlier.
    message: ({ params }) => str`must NOT have duplicate items (items ## ${params.j} and ${params.i} are identical)`,
    params: ({ params }) => _`{i: ${params.i}, j: ${params.j}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data } = cxt;
    if (cxt.schema !== true) return;
    const pair = gen.const('duplicate', _`${gen.scopeValue('func', { ref: firstDuplicate })}(${data})`);
    cxt.setParams({ i: _`${pair}[1]`, j: _`${pair}[0]` });
    cxt.fail(_`${pair} !== undefined`);
  },
};

const MULTIPLE_OF: CodeKeywordDefinition = {
  keyword: 'multipleOf',
  type: 'number',
  schemaType: 'number',
  error: {
    message: ({ schemaCode }) => str`must be multiple of ${schemaCode}`,
    params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schemaCode } = cxt;
    cxt.fail(_`!${gen.scopeValue('func', { ref: isMultipleOf })}(${data}, ${schemaCode})`);
  },
};

/**
 * Replaces the four keywords in `ajv`, each where ajv's stood in its rule group (so keywords run, and errors come,
 * in the same order as before).
 */
export function useExactValueKeywords(ajv: Ajv | Ajv2020): void {
  for (const definition of [CONST, ENUM, UNIQUE_ITEMS, MULTIPLE_OF]) {
    const keyword = definition.keyword as string;
    const next = successorOf(ajv, keyword);
    ajv.removeKeyword(keyword);
    ajv.addKeyword(next === undefined ? definition : { ...definition, before: next });
  }
}

/** The keyword after `keyword` in its rule group, if any. */
function successorOf(ajv: Ajv | Ajv2020, keyword: string): string | undefined {
  for (const group of ajv.RULES.rules) {
    const at = group.rules.findIndex((rule) => rule.keyword === keyword);
    if (at !== -1) return group.rules[at + 1]?.keyword;
  }
  return undefined;
}
