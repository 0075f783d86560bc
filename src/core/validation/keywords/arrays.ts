/** Arrays: item counts (`minItems`, `maxItems` and the `items: false` family), `uniqueItems` and `contains`. */
import type { JsonValue } from '../../shared/json.js';
import { plural, preview } from '../../shared/text.js';
import type { Diagnostic } from '../../shared/types.js';
import { numberParam, type ErrorNode } from '../ajv-error-tree.js';
import { schemaKeyword } from '../schema-index.js';
import type { KeywordContext, KeywordFamily, KeywordRule } from './rule.js';

/** A count limit; `items` and its kin carry one only when they forbid further items, else the generic text applies. */
const count: KeywordRule = ({ error, path, name, Name, data, make }) => {
  const limit = numberParam(error, 'limit');
  if (limit === undefined) return undefined;
  const actual = Array.isArray(data) ? data.length : 0;
  const min = error.keyword === 'minItems';
  return make(
    min ? 'too_few_items' : 'too_many_items',
    path,
    `${Name} must have ${min ? 'at least' : 'at most'} ${plural(limit, 'item')}, received ${plural(actual, 'item')}.`,
    min
      ? `Send an array with at least ${plural(limit, 'item')}.`
      : `Remove items so that ${name} ${path === '' ? 'have' : 'has'} at most ${plural(limit, 'item')}.`,
    { limit, actualCount: actual },
  );
};

export const ARRAYS: KeywordFamily = {
  minItems: count,
  maxItems: count,
  items: count,
  additionalItems: count,
  unevaluatedItems: count,
  uniqueItems: ({ error, path, Name, data, make }) => {
    const i = numberParam(error, 'i') ?? 0;
    const j = numberParam(error, 'j') ?? 0;
    const [first, second] = i < j ? [i, j] : [j, i];
    const repeated: unknown = Array.isArray(data) ? data[first] : undefined;
    return make(
      'duplicate_items',
      path,
      `${Name} must not contain duplicate items, but items ${String(first)} and ${String(second)} are equal.`,
      `Remove the repeated value ${preview(repeated)} so that every item is unique.`,
      { duplicateIndexes: [first, second] },
    );
  },
  contains,
};

/**
 * Too few items match `contains`, or (with `maxContains`) too many. ajv says neither, but it tries every item when
 * `maxContains` is set, and the errors it adopted name the items that did not match: the rest did.
 */
function contains({ error, children, path, Name, summarize, make }: KeywordContext): Diagnostic {
  const minContains = numberParam(error, 'minContains') ?? 1;
  const maxContains = numberParam(error, 'maxContains');
  const summary = summarize(schemaKeyword(error.parentSchema, 'contains'));
  const details: Record<string, JsonValue> = { minContains, contains: summary };
  if (maxContains !== undefined) details.maxContains = maxContains;
  const matching = Array.isArray(error.data) ? error.data.length - failingItems(children, path) : undefined;
  if (maxContains !== undefined && matching !== undefined && matching > maxContains) {
    return make(
      'missing_contains',
      path,
      `${Name} must contain at most ${plural(maxContains, 'item')} matching: ${summary}, received ${String(matching)}.`,
      `Remove items that are ${summary} so that at most ${String(maxContains)} ${maxContains === 1 ? 'remains' : 'remain'}.`,
      { ...details, actualCount: matching },
    );
  }
  const range = maxContains === undefined ? `at least ${String(minContains)}` : `between ${String(minContains)} and ${String(maxContains)}`;
  if (matching !== undefined && maxContains !== undefined) details.actualCount = matching;
  return make(
    'missing_contains',
    path,
    `${Name} must contain ${range} item(s) matching: ${summary}.`,
    `Include ${range} item(s) that ${maxContains === undefined ? 'are' : 'are each'} ${summary}.`,
    details,
  );
}

/** How many items of the array at `path` the adopted `contains` errors are about. */
function failingItems(children: readonly ErrorNode[], path: string): number {
  const items = new Set<string>();
  for (const child of children) {
    const rest = child.error.instancePath.slice(path.length + 1);
    if (child.error.instancePath.startsWith(`${path}/`)) items.add(rest.split('/')[0] ?? '');
  }
  return items.size;
}
