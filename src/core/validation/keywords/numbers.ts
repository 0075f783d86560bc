/** Numbers: the four bounds and `multipleOf`. */
import type { ErrorCode } from '../../shared/codes.js';
import { multiplesAround } from '../../shared/decimal.js';
import { preview, quoteDescription } from '../../shared/text.js';
import { numberParam, stringParam } from '../ajv-error-tree.js';
import type { KeywordFamily, KeywordRule } from './rule.js';

/** ajv's `comparison` param, in words. */
const COMPARISON_WORDS: Readonly<Record<string, string>> = {
  '>=': 'at least',
  '>': 'greater than',
  '<=': 'at most',
  '<': 'less than',
};

const bound: KeywordRule = ({ error, path, Name, data, description, make }) => {
  const comparison = stringParam(error, 'comparison');
  const limit = numberParam(error, 'limit') ?? 0;
  const words = COMPARISON_WORDS[comparison] ?? comparison;
  const code: ErrorCode = error.keyword.toLowerCase().includes('min') ? 'below_minimum' : 'above_maximum';
  return make(
    code,
    path,
    `${Name} must be ${words} ${String(limit)}, received ${preview(data)}.`,
    `Send a number that is ${words} ${String(limit)}${description === undefined ? '' : ` (${quoteDescription(description)})`}.`,
    { limit, comparison, actual: typeof data === 'number' ? data : null },
  );
};

export const NUMBERS: KeywordFamily = {
  minimum: bound,
  exclusiveMinimum: bound,
  maximum: bound,
  exclusiveMaximum: bound,
  multipleOf: ({ error, path, Name, data, make }) => {
    const step = numberParam(error, 'multipleOf') ?? 1;
    const actual = typeof data === 'number' ? data : NaN;
    // The two multiples around the value make the example, in decimal as the check is (1.131, 0.01: 1.13, 1.14).
    const around = multiplesAround(actual, step);
    const example = around === undefined ? '' : ` such as ${String(around[0])} or ${String(around[1])}`;
    return make(
      'not_multiple_of',
      path,
      `${Name} must be a multiple of ${String(step)}, received ${preview(data)}.`,
      `Send a multiple of ${String(step)}${example === '' ? '' : `,${example}`}.`,
      { multipleOf: step, actual: Number.isFinite(actual) ? actual : null },
    );
  },
};
