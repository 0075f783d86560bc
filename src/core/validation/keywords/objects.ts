/** Objects: unknown properties (`additionalProperties`, `unevaluatedProperties`), property counts and `propertyNames`. */
import type { ErrorObject } from 'ajv';
import { isJsonObject } from '../../shared/json.js';
import { childPointer } from '../../shared/json-pointer.js';
import type { JsonObject } from '../../shared/json.js';
import { arrayOrEmpty, closeName, dedupe, listValues, plural, preview, PREVIEW_CHARS, QUOTE_CHARS, truncate } from '../../shared/text.js';
import { numberParam, param, stringParam } from '../ajv-error-tree.js';
import { schemaKeyword } from '../schema-index.js';
import { listDetails, type KeywordFamily, type KeywordRule } from './rule.js';

const unknownProperty: KeywordRule = ({ error, path, name, parent, index, make }) => {
  const unevaluated = error.keyword === 'unevaluatedProperties';
  const key = stringParam(error, unevaluated ? 'unevaluatedProperty' : 'additionalProperty');
  const allowed = index.declaredProperties(parent, unevaluated);
  const patterns = isJsonObject(schemaKeyword(parent, 'patternProperties'))
    ? Object.keys(schemaKeyword(parent, 'patternProperties') as JsonObject)
    : [];
  const what = path === '' ? 'parameters' : 'properties';
  const message =
    path === ''
      ? `Unknown parameter ${preview(key)}: this tool does not accept it.`
      : `Unknown property ${preview(key)} in ${name}: it is not allowed there.`;
  const suggestion = closeName(key, allowed);
  let hint = `Remove ${preview(key)}.`;
  if (suggestion !== undefined) hint += ` Did you mean ${preview(suggestion)}?`;
  if (allowed.length > 0) hint += ` Allowed ${what}: ${listValues(allowed)}.`;
  if (patterns.length > 0) hint += ` Names matching ${listValues(patterns)} are also accepted.`;
  if (allowed.length === 0 && patterns.length === 0) hint += ` No other ${what} are accepted.`;
  return make('unknown_property', childPointer(path, key), message, hint, {
    property: truncate(key, PREVIEW_CHARS),
    ...listDetails('allowed', allowed),
  });
};

const propertyCount: KeywordRule = ({ error, path, name, Name, data, parent, index, make }) => {
  const limit = numberParam(error, 'limit') ?? 0;
  const count = isJsonObject(data) ? Object.keys(data).length : 0;
  const min = error.keyword === 'minProperties';
  const allowed = index.declaredProperties(parent, true);
  return make(
    min ? 'too_few_properties' : 'too_many_properties',
    path,
    `${Name} must have ${min ? 'at least' : 'at most'} ${plural(limit, 'property', 'properties')}, received ${String(count)}.`,
    min
      ? `Add properties so that ${name} has at least ${String(limit)}${allowed.length > 0 ? ` (available: ${listValues(allowed)})` : ''}.`
      : `Remove properties so that ${name} has at most ${String(limit)}.`,
    { limit, actualCount: count },
  );
};

export const OBJECTS: KeywordFamily = {
  additionalProperties: unknownProperty,
  unevaluatedProperties: unknownProperty,
  minProperties: propertyCount,
  maxProperties: propertyCount,
  propertyNames: ({ error, children, path, name, make }) => {
    const propertyName = stringParam(error, 'propertyName');
    const rules = dedupe(children.map((child) => nameRule(child.error)));
    const where = path === '' ? '' : ` in ${name}`;
    return make(
      'invalid_property_name',
      childPointer(path, propertyName),
      `Property name ${preview(propertyName)}${where} is not allowed.`,
      `Rename or remove ${preview(propertyName)}${rules.length > 0 ? `; property names must ${rules.join(' and ')}` : ''}.`,
      { propertyName: truncate(propertyName, PREVIEW_CHARS), rules },
    );
  },
};

/** What a `propertyNames` subschema error requires of a name, phrased to follow "property names must". */
function nameRule(error: ErrorObject): string {
  switch (error.keyword) {
    case 'pattern':
      return `match the pattern ${truncate(stringParam(error, 'pattern'), QUOTE_CHARS)}`;
    case 'maxLength':
      return `be at most ${plural(numberParam(error, 'limit') ?? 0, 'character')} long`;
    case 'minLength':
      return `be at least ${plural(numberParam(error, 'limit') ?? 0, 'character')} long`;
    case 'enum':
      return `be one of ${listValues(arrayOrEmpty(param(error, 'allowedValues')))}`;
    case 'const':
      return `be ${preview(param(error, 'allowedValue'))}`;
    case 'format':
      return `be in "${truncate(stringParam(error, 'format'), QUOTE_CHARS)}" format`;
    default:
      return truncate(error.message ?? `satisfy "${truncate(error.keyword, PREVIEW_CHARS)}"`, QUOTE_CHARS);
  }
}
