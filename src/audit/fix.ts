/**
 * Applying a finding's {@link SchemaFix}: what its suggestion says, as a change to the schema, so a test (or a
 * tool) can apply it verbatim and check that the schema still compiles and still accepts the calls it should.
 *
 * Pure: returns a new schema; the input is not mutated.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/shared/json.js';
import { updateAt, valueAt } from '../core/shared/json-pointer.js';
import type { SchemaFix } from './types.js';

/** `schema` with `fix` applied to the subschema at `fix.pointer`; throws when the pointer names no object. */
export function applyFix(schema: JsonObject, fix: SchemaFix): JsonObject {
  const target = valueAt(schema, fix.pointer);
  if (target === undefined) throw new Error(`fix pointer ${fix.pointer} names nothing`);
  if (!isJsonObject(target)) throw new Error(`fix pointer ${fix.pointer} names no schema object`);
  const kept: JsonObject = Object.fromEntries(Object.entries(target).filter(([k]) => !(fix.remove ?? []).includes(k)));
  const result = updateAt<JsonValue>(schema, fix.pointer, () => ({ ...kept, ...fix.set }));
  if (!isJsonObject(result)) throw new Error('a fix must leave an object schema');
  return result;
}
