/**
 * `__proto__` as a property name ajv can see. ajv skips the key `__proto__` in `properties`, `patternProperties`,
 * `dependencies` and `dependentSchemas` (its guard against prototype pollution in generated code), so a parameter
 * named `__proto__` is never checked against its schema, and `additionalProperties: false` even refuses it as
 * unknown. The compiler hands ajv a copy of the schema that says the same with keys ajv reads: the pattern
 * `^__proto__$` beside `properties.__proto__`, `(?:__proto__)` beside a pattern spelled `__proto__`, and
 * `if: {required: ["__proto__"]}` for a dependency. The original keys stay, so every `$ref` pointer resolves as
 * before. Pure: the input is never written; only the objects on the way to a change are copied.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json.js';
import { isListKeyword, isMapKeyword, isSingleKeyword } from '../../shared/schema-refs.js';
import { setOwn } from '../../shared/own.js';

const PROTO = '__proto__';
/** Matches exactly the key `__proto__`, as `properties.__proto__` does. */
export const PROTO_PATTERN = '^__proto__$';
/** The pattern `__proto__` (any key containing it), spelled so that ajv reads it. */
const PROTO_SUBSTRING_PATTERN = '(?:__proto__)';

/** Deeper schemas than this are left as they are (the schema limits refuse far shallower ones). */
const MAX_DEPTH = 256;

/** `schema` with every `__proto__` key restated for ajv; `schema` itself when it names none. */
export function restateProtoKeys(schema: JsonObject): JsonObject {
  return rewrite(schema, 0) as JsonObject;
}

function rewrite(node: JsonValue, depth: number): JsonValue {
  if (!isJsonObject(node) || depth > MAX_DEPTH) return node;
  let out: JsonObject | undefined;
  for (const key of Object.keys(node)) {
    const value = node[key] as JsonValue;
    let next = value;
    if (isMapKeyword(key) && isJsonObject(value)) next = mapEntries(value, depth);
    else if (isListKeyword(key) && Array.isArray(value)) next = mapItems(value, depth);
    else if (isSingleKeyword(key)) next = rewrite(value, depth + 1);
    if (next !== value) {
      out ??= { ...node };
      setOwn(out, key, next);
    }
  }
  const base = out ?? node;
  const patterns = restatedPatterns(base);
  const conditions = restatedDependencies(base);
  if (patterns === undefined && conditions.length === 0) return base;
  out ??= { ...node };
  if (patterns !== undefined) out.patternProperties = patterns;
  if (conditions.length > 0) out.allOf = [...(Array.isArray(base.allOf) ? base.allOf : []), ...conditions];
  return out;
}

/** `patternProperties` with the `__proto__` entries restated, or undefined when there are none. */
function restatedPatterns(schema: JsonObject): JsonObject | undefined {
  const properties = schema.properties;
  const patterns = isJsonObject(schema.patternProperties) ? schema.patternProperties : undefined;
  const fromProperties = isJsonObject(properties) && Object.hasOwn(properties, PROTO) ? properties[PROTO] : undefined;
  const fromPattern = patterns !== undefined && Object.hasOwn(patterns, PROTO) ? patterns[PROTO] : undefined;
  if (fromProperties === undefined && fromPattern === undefined) return undefined;
  const restated: JsonObject = { ...patterns };
  if (fromProperties !== undefined) add(restated, PROTO_PATTERN, fromProperties);
  if (fromPattern !== undefined) add(restated, PROTO_SUBSTRING_PATTERN, fromPattern);
  return restated;
}

/** `if`/`then` pairs for dependencies on `__proto__`, which ajv skips. */
function restatedDependencies(schema: JsonObject): JsonObject[] {
  const conditions: JsonObject[] = [];
  for (const keyword of ['dependentSchemas', 'dependencies']) {
    const map = schema[keyword];
    if (!isJsonObject(map) || !Object.hasOwn(map, PROTO)) continue;
    const dependency = map[PROTO] as JsonValue;
    // `dependencies` also takes a list of property names (draft-07), as `dependentRequired` does.
    const then = Array.isArray(dependency) ? { required: dependency } : dependency;
    conditions.push({ if: { required: [PROTO] }, then });
  }
  return conditions;
}

/** Adds `schema` under `pattern`, beside what the schema already has there. */
function add(patterns: JsonObject, pattern: string, schema: JsonValue): void {
  patterns[pattern] = Object.hasOwn(patterns, pattern) ? { allOf: [patterns[pattern] as JsonValue, schema] } : schema;
}

function mapEntries(map: JsonObject, depth: number): JsonObject {
  let out: JsonObject | undefined;
  for (const name of Object.keys(map)) {
    const value = map[name] as JsonValue;
    const next = rewrite(value, depth + 1);
    if (next !== value) {
      out ??= { ...map };
      setOwn(out, name, next);
    }
  }
  return out ?? map;
}

function mapItems(items: JsonValue[], depth: number): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const value = items[i] as JsonValue;
    const next = rewrite(value, depth + 1);
    if (next !== value) {
      out ??= items.slice();
      out[i] = next;
    }
  }
  return out ?? items;
}
