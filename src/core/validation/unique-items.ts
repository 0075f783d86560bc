/**
 * `uniqueItems` in linear time. ajv's own keyword hashes items only when the schema types them as scalars and
 * compares every other pair with deep equality (100,000 untyped numbers: 17 s a call); here each item is hashed by
 * a canonical text (object keys sorted, numbers by value), so a call costs the size of the array plus a sort of
 * each object's keys. JSON Schema equality: `1` and `1.0` are equal, key order does not matter, and an own key
 * named `valueOf` or `toString` is data like any other. Pure: reads the array, never writes it.
 */
import type { ErrorObject, FuncKeywordDefinition } from 'ajv';

/** The canonical text of a JSON value: equal texts exactly when JSON Schema calls the values equal. */
export function canonicalText(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // -0 and 0 are equal numbers; `String` also keeps Infinity apart from null, where JSON.stringify would not.
      return value === 0 ? '0' : String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`;
      const entries = Object.keys(value).sort();
      const record = value as Record<string, unknown>;
      return `{${entries.map((key) => `${JSON.stringify(key)}:${canonicalText(record[key])}`).join(',')}}`;
    }
    default:
      // Not JSON (bigint, undefined): kept apart from every JSON text by its prefix.
      return `~${typeof value}:${typeof value === 'bigint' ? value.toString() : ''}`;
  }
}

/**
 * The pair ajv's own keyword reports: the last item `i` that equals an earlier one, and the nearest such `j`
 * before it. Undefined when all items differ.
 */
export function duplicatePair(items: readonly unknown[]): { i: number; j: number } | undefined {
  const lastSeen = new Map<string, number>();
  let found: { i: number; j: number } | undefined;
  for (let index = 0; index < items.length; index++) {
    const key = canonicalText(items[index]);
    const previous = lastSeen.get(key);
    if (previous !== undefined) found = { i: index, j: previous };
    lastSeen.set(key, index);
  }
  return found;
}

type UniqueItemsValidate = ((schema: boolean, data: unknown[], parentSchema?: object) => boolean) & { errors?: Partial<ErrorObject>[] };

const validateUniqueItems: UniqueItemsValidate = (schema, data, parentSchema) => {
  validateUniqueItems.errors = [];
  if (!schema) return true;
  const pair = duplicatePair(data);
  if (pair === undefined) return true;
  const { i, j } = pair;
  validateUniqueItems.errors = [
    {
      keyword: 'uniqueItems',
      params: { i, j },
      message: `must NOT have duplicate items (items ## ${String(j)} and ${String(i)} are identical)`,
      ...(parentSchema === undefined ? {} : { parentSchema }),
    },
  ];
  return false;
};

/** The ajv keyword that replaces the built-in one (`removeKeyword('uniqueItems')` first). */
export const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate: validateUniqueItems,
};
