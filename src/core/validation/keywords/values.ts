/** Values: `enum` and `const`. */
import type { JsonValue } from '../../shared/json.js';
import { arrayOrEmpty, closeValue, listValues, preview, previewValue } from '../../shared/text.js';
import { param } from '../ajv-error-tree.js';
import { agree, listDetails, type KeywordFamily } from './rule.js';

export const VALUES: KeywordFamily = {
  enum: ({ error, path, Name, data, make }) => {
    const allowed = arrayOrEmpty(param(error, 'allowedValues'));
    const suggestion = closeValue(data, allowed);
    return make(
      'not_in_enum',
      path,
      `${Name} ${agree(path, 'is', 'are')} not one of the allowed values (received ${preview(data)}).`,
      `Use one of: ${listValues(allowed)}.${suggestion === undefined ? '' : ` Did you mean ${preview(suggestion)}?`}`,
      listDetails('allowedValues', allowed),
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
