/** Values: `enum` and `const`. */
import type { JsonValue } from '../../shared/json.js';
import { boundedList, closeValue, listValues, preview, previewValue } from '../../shared/text.js';
import { param } from '../ajv-error-tree.js';
import { agree, type KeywordFamily } from './rule.js';

/**
 * An enum's allowed values as the hint lists them and as the details list them, by the schema's own array: the
 * same for every call that misses it, so rendered once (the previews cost more than the rest of the diagnostic).
 */
const ENUM_LISTS = new WeakMap<readonly unknown[], { text: string; listed: JsonValue[]; notListed: number }>();

function enumList(values: unknown): { text: string; listed: JsonValue[]; notListed: number } {
  if (!Array.isArray(values)) return { text: listValues([]), ...boundedList([]) };
  let list = ENUM_LISTS.get(values);
  if (list === undefined) {
    list = { text: listValues(values), ...boundedList(values) };
    ENUM_LISTS.set(values, list);
  }
  return list;
}

export const VALUES: KeywordFamily = {
  enum: ({ error, path, Name, data, make }) => {
    const values = param(error, 'allowedValues');
    const suggestion = Array.isArray(values) ? closeValue(data, values) : undefined;
    const { text, listed, notListed } = enumList(values);
    // The details are the caller's to keep: a fresh list each time, as listDetails writes it.
    const details: Record<string, JsonValue> =
      notListed === 0 ? { allowedValues: listed.slice() } : { allowedValues: listed.slice(), allowedValuesNotListed: notListed };
    return make(
      'not_in_enum',
      path,
      `${Name} ${agree(path, 'is', 'are')} not one of the allowed values (received ${preview(data)}).`,
      `Use one of: ${text}.${suggestion === undefined ? '' : ` Did you mean ${preview(suggestion)}?`}`,
      details,
    );
  },
  const: ({ error, path, Name, data, make }) => {
    const allowed = param(error, 'allowedValue') as JsonValue;
    return make(
      'not_const',
      path,
      `${Name} must be exactly ${preview(allowed)} (received ${preview(data)}).`,
      `Send ${preview(allowed)}.`,
      { allowedValue: previewValue(allowed) },
    );
  },
};
