/**
 * The keyword table: every keyword family's rules in one frozen lookup, as ajv keeps one file per family. A
 * keyword without a rule (ajv-formats' `formatMinimum`, say) gets the renderer's generic `schema_violation`.
 */
import { ARRAYS } from './arrays.js';
import { NEGATION } from './negation.js';
import { NUMBERS } from './numbers.js';
import { OBJECTS } from './objects.js';
import { PRESENCE } from './presence.js';
import type { KeywordFamily, KeywordRule } from './rule.js';
import { STRINGS } from './strings.js';
import { TYPES } from './types.js';
import { VALUES } from './values.js';

export type { KeywordContext, KeywordRule, Make } from './rule.js';
export { agree } from './rule.js';

const FAMILIES: readonly KeywordFamily[] = [PRESENCE, TYPES, VALUES, NUMBERS, STRINGS, ARRAYS, OBJECTS, NEGATION];

/** Keyword name to rule. No prototype: an ajv keyword named like an Object member finds nothing. */
export const KEYWORD_RULES: Readonly<Record<string, KeywordRule | undefined>> = assemble(FAMILIES);

function assemble(families: readonly KeywordFamily[]): Readonly<Record<string, KeywordRule | undefined>> {
  const table = Object.create(null) as Record<string, KeywordRule>;
  for (const family of families) {
    for (const [keyword, rule] of Object.entries(family)) {
      // Two families claiming one keyword is a slip in this table, never a property of the data.
      if (Object.hasOwn(table, keyword)) throw new Error(`keyword "${keyword}" has two rules`);
      table[keyword] = rule;
    }
  }
  return Object.freeze(table);
}
