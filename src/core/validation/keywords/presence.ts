/** Presence: `required`, `dependentRequired` and draft-07's array-form `dependencies`. */
import type { ErrorCode } from '../../shared/codes.js';
import { childPointer } from '../../shared/json-pointer.js';
import type { JsonValue } from '../../shared/json.js';
import {
  capitalize,
  DESCRIPTION_CHARS,
  joinOr,
  listValues,
  preview,
  PREVIEW_CHARS,
  quoteDescription,
  truncate,
  typeNoun,
} from '../../shared/text.js';
import type { Diagnostic } from '../../shared/types.js';
import { stringParam } from '../ajv-error-tree.js';
import { listDetails, type KeywordContext, type KeywordFamily } from './rule.js';

const dependency = (context: KeywordContext): Diagnostic =>
  missing(context, 'missing_dependency', stringParam(context.error, 'missingProperty'), stringParam(context.error, 'property'));

export const PRESENCE: KeywordFamily = {
  required: (context) => missing(context, 'missing_required', stringParam(context.error, 'missingProperty')),
  dependentRequired: dependency,
  dependencies: dependency,
};

/** The diagnostic points at the missing property itself, and says what to put there. */
function missing(context: KeywordContext, code: ErrorCode, property: string, because?: string): Diagnostic {
  const { error, index, path: parentPath } = context;
  // `required` inside `then`/`allOf`/... has no `properties` beside it: then find the property the way the
  // value reached it, from the root.
  const propertySchema =
    index.propertySchema(error.parentSchema, property) ?? index.propertySchema(index.schemaAtInstance(parentPath, context.args), property);
  const description = index.annotation(propertySchema, 'description');
  const allowed = index.allowedValues(propertySchema);
  const types = index.types(propertySchema);
  const where = parentPath === '' ? '' : ` in ${context.name}`;
  const what = parentPath === '' ? 'parameter' : 'property';
  const message =
    because === undefined
      ? `Missing required ${what} ${preview(property)}${where}.`
      : `${capitalize(what)} ${preview(property)} is required when ${preview(because)} is present${where}.`;
  let hint = `Add ${preview(property)}${description === undefined ? '' : ` (${quoteDescription(description)})`}`;
  hint += because === undefined ? '.' : `, or remove ${preview(because)}.`;
  if (allowed !== undefined && allowed.length > 0) hint += ` Use one of: ${listValues(allowed)}.`;
  else if (types !== undefined && types.size > 0) hint += ` Send ${joinOr([...types].map(typeNoun))}.`;
  const details: Record<string, JsonValue> = {
    keyword: error.keyword,
    missingProperty: truncate(property, PREVIEW_CHARS),
    ...(allowed === undefined ? {} : listDetails('allowedValues', allowed)),
  };
  if (because !== undefined) details.presentProperty = truncate(because, PREVIEW_CHARS);
  if (description !== undefined) details.description = truncate(description, DESCRIPTION_CHARS);
  if (types !== undefined && types.size > 0) details.expected = [...types];
  return { code, path: childPointer(parentPath, property), message, hint, details };
}
