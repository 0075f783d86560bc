/**
 * Applying a finding's {@link SchemaFix}: what its suggestion says, as a change to the schema, so a test (or a
 * tool) can apply it verbatim and check that the schema still compiles and still accepts the calls it should.
 *
 * Pure: returns a new schema; the input is not mutated.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/shared/json.js';
import type { SchemaFix } from './types.js';

/** `schema` with `fix` applied to the subschema at `fix.pointer`; throws when the pointer names no object. */
export function applyFix(schema: JsonObject, fix: SchemaFix): JsonObject {
  const tokens =
    fix.pointer === ''
      ? []
      : fix.pointer
          .slice(1)
          .split('/')
          .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const merge = (node: JsonValue, depth: number): JsonValue => {
    if (depth === tokens.length) {
      if (!isJsonObject(node)) throw new Error(`fix pointer ${fix.pointer} names no schema object`);
      const kept: JsonObject = Object.fromEntries(Object.entries(node).filter(([k]) => !(fix.remove ?? []).includes(k)));
      return { ...kept, ...fix.set };
    }
    const token = tokens[depth] ?? '';
    if (Array.isArray(node)) {
      const index = Number(token);
      if (!Number.isInteger(index) || index < 0 || index >= node.length) throw new Error(`fix pointer ${fix.pointer} runs off an array`);
      return node.map((item, i) => (i === index ? merge(item, depth + 1) : item));
    }
    if (!isJsonObject(node) || !Object.hasOwn(node, token)) throw new Error(`fix pointer ${fix.pointer} names nothing`);
    return { ...node, [token]: merge(node[token] as JsonValue, depth + 1) };
  };
  const result = merge(schema, 0);
  if (!isJsonObject(result)) throw new Error('a fix must leave an object schema');
  return result;
}

/** The value at a JSON Pointer within `root`, undefined when the pointer names nothing. */
export function valueAtPointer(root: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '') return root;
  let node: JsonValue | undefined = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isJsonObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}
