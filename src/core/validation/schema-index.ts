/**
 * Navigation of a tool's JSON Schema, independent of ajv: local `$ref` resolution (`#/pointer`, anchors, nested
 * `$id`s), the subschemas of a schema, the JSON types it allows, the schema that describes a given argument
 * value, and detection of `$ref` cycles that never reach a value. Best effort, used for hints and for the
 * compile-time cycle check; ajv does the actual validation.
 */
import { isJsonObject, jsonTypeOf, schemaTypeOf } from '../shared/json.js';
import { arrayIndex, escapeToken, parsePointer } from '../shared/json-pointer.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import {
  CHILD_MAP_KEYWORDS,
  CHILD_SINGLE_KEYWORDS,
  ITEMS_KEYWORDS,
  SAME_VALUE_LIST_KEYWORDS,
  SAME_VALUE_MAP_KEYWORDS,
  SAME_VALUE_SINGLE_KEYWORDS,
  SchemaRefs,
} from '../shared/schema-refs.js';

interface SubschemaEdge {
  schema: unknown;
  pointer: string;
  /** True when the subschema applies to the same instance (no descent into a child value). */
  sameInstance: boolean;
  /** True when the edge is a reference (`$ref` and friends). */
  ref: boolean;
}

function isSchemaLike(value: unknown): boolean {
  return typeof value === 'boolean' || isJsonObject(value);
}

/**
 * Resolves local references, reaches subschemas and infers types. Built once per compiled schema and only
 * used when arguments fail (so the happy path pays nothing).
 */
export class SchemaIndex {
  private readonly reachMemo = new WeakMap<object, Set<unknown>>();
  private readonly refs: SchemaRefs;

  constructor(readonly root: JsonObject) {
    this.refs = new SchemaRefs(root);
  }

  /** The subschemas of `schema`, with references resolved when they are local. */
  edges(schema: unknown, pointer: string, followDynamic = true): SubschemaEdge[] {
    if (!isJsonObject(schema)) return [];
    const out: SubschemaEdge[] = [];
    const add = (sub: unknown, ptr: string, sameInstance: boolean): void => {
      if (isSchemaLike(sub)) out.push({ schema: sub, pointer: ptr, sameInstance, ref: false });
    };
    for (const key of SAME_VALUE_SINGLE_KEYWORDS) if (Object.hasOwn(schema, key)) add(schema[key], `${pointer}/${key}`, true);
    for (const key of SAME_VALUE_LIST_KEYWORDS) {
      const list = schema[key];
      if (Object.hasOwn(schema, key) && Array.isArray(list))
        list.forEach((s, i) => {
          add(s, `${pointer}/${key}/${i}`, true);
        });
    }
    for (const key of SAME_VALUE_MAP_KEYWORDS) {
      const map = schema[key];
      if (Object.hasOwn(schema, key) && isJsonObject(map)) {
        for (const [name, s] of Object.entries(map)) add(s, `${pointer}/${key}/${escapeToken(name)}`, true);
      }
    }
    for (const key of CHILD_SINGLE_KEYWORDS) if (Object.hasOwn(schema, key)) add(schema[key], `${pointer}/${key}`, false);
    for (const key of CHILD_MAP_KEYWORDS) {
      const map = schema[key];
      if (Object.hasOwn(schema, key) && isJsonObject(map)) {
        for (const [name, s] of Object.entries(map)) add(s, `${pointer}/${key}/${escapeToken(name)}`, false);
      }
    }
    for (const key of ITEMS_KEYWORDS) {
      const items = schema[key];
      if (!Object.hasOwn(schema, key)) continue;
      if (Array.isArray(items))
        items.forEach((s, i) => {
          add(s, `${pointer}/${key}/${i}`, false);
        });
      else add(items, `${pointer}/${key}`, false);
    }
    const refKeys = followDynamic ? ['$ref', '$dynamicRef', '$recursiveRef'] : ['$ref'];
    for (const key of refKeys) {
      const ref = schema[key];
      if (typeof ref !== 'string' || !Object.hasOwn(schema, key)) continue;
      const target = this.resolve(ref);
      if (target !== undefined) out.push({ schema: target, pointer: ref, sameInstance: true, ref: true });
    }
    return out;
  }

  /** Resolves `#`, `#/json/pointer`, `#anchor`, the root's own `$id` and nested `$id`s. Undefined otherwise. */
  resolve(ref: string): unknown {
    return this.refs.resolve(ref)?.schema;
  }

  /** Every schema object reachable from `schema` (itself included), through subschemas and local refs. */
  reach(schema: unknown): Set<unknown> {
    if (!isJsonObject(schema)) return new Set([schema]);
    const memo = this.reachMemo.get(schema);
    if (memo !== undefined) return memo;
    const seen = new Set<unknown>([schema]);
    const queue: unknown[] = [schema];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const edge of this.edges(next, '')) {
        if (isJsonObject(edge.schema) && !seen.has(edge.schema)) {
          seen.add(edge.schema);
          queue.push(edge.schema);
        }
      }
    }
    this.reachMemo.set(schema, seen);
    return seen;
  }

  /**
   * The JSON types a schema allows, or undefined when unconstrained or unknown. Looks through `type`, `const`,
   * `enum`, `$ref`, `allOf` (intersection) and `anyOf`/`oneOf` (union). `integer` is kept distinct from `number`.
   */
  types(schema: unknown, seen: Set<unknown> = new Set()): Set<string> | undefined {
    if (schema === false) return new Set();
    if (!isJsonObject(schema) || seen.has(schema)) return undefined;
    seen.add(schema);
    let result: Set<string> | undefined;
    const type = schema.type;
    if (typeof type === 'string') result = new Set([type]);
    else if (Array.isArray(type)) result = new Set(type.filter((t): t is string => typeof t === 'string'));
    if (Object.hasOwn(schema, 'const') && schema.const !== undefined) {
      result = intersectTypes(result, new Set([schemaTypeOf(schema.const)]));
    }
    if (Array.isArray(schema.enum)) result = intersectTypes(result, new Set(schema.enum.map(schemaTypeOf)));
    if (typeof schema.$ref === 'string') {
      result = intersectTypes(result, this.types(this.resolve(schema.$ref), seen));
    }
    if (Array.isArray(schema.allOf)) {
      for (const sub of schema.allOf) result = intersectTypes(result, this.types(sub, seen));
    }
    for (const key of ['anyOf', 'oneOf']) {
      const branches = schema[key];
      if (!Array.isArray(branches)) continue;
      let union: Set<string> | undefined = new Set();
      for (const branch of branches) {
        const t = this.types(branch, new Set(seen));
        if (t === undefined) {
          union = undefined;
          break;
        }
        for (const name of t) union.add(name);
      }
      result = intersectTypes(result, union);
    }
    return result;
  }

  /** The schema of property `name` of objects described by `schema`, looking through `$ref`/`allOf`. */
  propertySchema(schema: unknown, name: string, seen: Set<unknown> = new Set()): unknown {
    if (!isJsonObject(schema) || seen.has(schema)) return undefined;
    seen.add(schema);
    const properties = schema.properties;
    if (isJsonObject(properties) && Object.hasOwn(properties, name)) return properties[name];
    const candidates: unknown[] = [];
    if (typeof schema.$ref === 'string') candidates.push(this.resolve(schema.$ref));
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      const list = schema[key];
      if (Array.isArray(list)) candidates.push(...list);
    }
    for (const candidate of candidates) {
      const found = this.propertySchema(candidate, name, seen);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /**
   * The schema that describes the value at `pointer` in `args`, found by walking from the root through
   * `properties` (looking through `$ref`/`allOf`/`anyOf`/`oneOf`), `prefixItems`/`items` and a schema-valued
   * `additionalProperties`. Best effort, for hints only: undefined when the walk is ambiguous or fails.
   */
  schemaAtInstance(pointer: string, args: JsonValue): unknown {
    let schema: unknown = this.root;
    let value: unknown = args;
    if (pointer === '') return schema;
    const tokens = parsePointer(pointer);
    if (tokens === undefined) return undefined;
    for (const token of tokens) {
      const resolved =
        isJsonObject(schema) && typeof schema.$ref === 'string' && schema.properties === undefined ? this.resolve(schema.$ref) : schema;
      const position = Array.isArray(value) ? arrayIndex(token) : undefined;
      if (Array.isArray(value) && position !== undefined) {
        const prefixItems = schemaKeyword(resolved, 'prefixItems');
        const items = schemaKeyword(resolved, 'items');
        if (Array.isArray(prefixItems) && position < prefixItems.length) schema = prefixItems[position];
        else if (Array.isArray(items)) schema = items[position] ?? schemaKeyword(resolved, 'additionalItems');
        else schema = items;
        value = value[position];
      } else {
        const property = this.propertySchema(resolved, token);
        const additional = schemaKeyword(resolved, 'additionalProperties');
        schema = property ?? (isJsonObject(additional) ? additional : undefined);
        value = isJsonObject(value) && Object.hasOwn(value, token) ? value[token] : undefined;
      }
      if (schema === undefined) return undefined;
    }
    return schema;
  }

  /** Property names declared by `schema` (own `properties` only, unless `deep`: then also through applicators). */
  declaredProperties(schema: unknown, deep: boolean, seen: Set<unknown> = new Set()): string[] {
    if (!isJsonObject(schema) || seen.has(schema)) return [];
    seen.add(schema);
    const names = isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
    if (!deep) return names;
    const nested: unknown[] = [];
    if (typeof schema.$ref === 'string') nested.push(this.resolve(schema.$ref));
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      const list = schema[key];
      if (Array.isArray(list)) nested.push(...list);
    }
    for (const key of ['then', 'else']) if (Object.hasOwn(schema, key)) nested.push(schema[key]);
    if (isJsonObject(schema.dependentSchemas)) nested.push(...Object.values(schema.dependentSchemas));
    for (const sub of nested) names.push(...this.declaredProperties(sub, true, seen));
    return [...new Set(names)];
  }

  /**
   * A string keyword of `schema`, looking through a `$ref` or a single-element `allOf` (Pydantic's wrapping). A
   * `description` is also found through `anyOf`/`oneOf` when the branches that have one agree (Pydantic's
   * `Optional[Unit]` keeps it on the `Unit` branch); a `title` is not, as it would name the field by one branch.
   */
  annotation(schema: unknown, key: 'description' | 'title', depth = 0): string | undefined {
    if (!isJsonObject(schema) || depth > 8) return undefined;
    const own = schema[key];
    if (typeof own === 'string' && own.trim() !== '') return own.trim();
    if (typeof schema.$ref === 'string') return this.annotation(this.resolve(schema.$ref), key, depth + 1);
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.annotation(schema.allOf[0], key, depth + 1);
    const branches = alternativesOf(schema);
    if (key !== 'description' || branches === undefined) return undefined;
    const found = new Set<string>();
    for (const branch of branches) {
      const text = this.annotation(branch, key, depth + 1);
      if (text !== undefined) found.add(text);
      if (found.size > 1) return undefined;
    }
    return found.values().next().value;
  }

  /**
   * The allowed values of `schema` (`enum`, or `const` as a single value), looking through `$ref`/`allOf`, and
   * through `anyOf`/`oneOf` when every branch is such a list or `null` (Pydantic's `Optional[Unit]`): their union.
   */
  allowedValues(schema: unknown, depth = 0): JsonValue[] | undefined {
    if (!isJsonObject(schema) || depth > 8) return undefined;
    if (Array.isArray(schema.enum)) return schema.enum;
    if (Object.hasOwn(schema, 'const') && schema.const !== undefined) return [schema.const];
    if (typeof schema.$ref === 'string') return this.allowedValues(this.resolve(schema.$ref), depth + 1);
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.allowedValues(schema.allOf[0], depth + 1);
    const branches = alternativesOf(schema);
    return branches === undefined ? undefined : this.allowedInEvery(branches, depth + 1);
  }

  private allowedInEvery(branches: unknown[], depth: number): JsonValue[] | undefined {
    const values: JsonValue[] = [];
    const seen = new Set<string>();
    for (const branch of branches) {
      const types = this.types(branch);
      const own = types?.size === 1 && types.has('null') ? [null] : this.allowedValues(branch, depth);
      if (own === undefined) return undefined;
      for (const value of own) {
        // Two branches may share a value ("kg" in both): list it once.
        const key = JSON.stringify(value);
        if (seen.has(key)) continue;
        seen.add(key);
        values.push(value);
      }
    }
    return values;
  }
}

/** The branches of the one `anyOf` or `oneOf` of `schema`; undefined when it has none, or both (an intersection). */
function alternativesOf(schema: JsonObject): unknown[] | undefined {
  const anyOf = Array.isArray(schema.anyOf) && schema.anyOf.length > 0 ? schema.anyOf : undefined;
  const oneOf = Array.isArray(schema.oneOf) && schema.oneOf.length > 0 ? schema.oneOf : undefined;
  return anyOf !== undefined && oneOf !== undefined ? undefined : (anyOf ?? oneOf);
}

function intersectTypes(a: Set<string> | undefined, b: Set<string> | undefined): Set<string> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out = new Set<string>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if (t === 'integer' && b.has('number')) out.add('integer');
    else if (t === 'number' && b.has('integer')) out.add('integer');
  }
  return out;
}

/** True when a value's JSON type is one of `types` (undefined: anything goes). */
export function typeAllows(types: Set<string> | undefined, value: unknown): boolean {
  if (types === undefined) return true;
  const t = jsonTypeOf(value);
  if (types.has(t)) return true;
  return t === 'number' && types.has('integer') && Number.isInteger(value);
}

/**
 * Finds a cycle of subschemas that apply to the same value (`$ref`, `allOf`/`anyOf`/`oneOf`, `not`, `if`...)
 * reachable from the root: validating through it would recurse forever without descending into the data.
 * A recursive tree (children `$ref` the node through `properties`/`items`) is not such a cycle.
 * Returns the pointers along the cycle, or undefined.
 */
export function findRefCycle(root: JsonObject): string[] | undefined {
  const index = new SchemaIndex(root);
  const state = new Map<unknown, 'open' | 'done'>();
  const chain: unknown[] = [];
  const pointers: string[] = [];
  // Subschemas that apply to a child value start chains of their own, explored only after the current chain is
  // finished: otherwise a recursive tree (node -> properties/child -> $ref node) would look like a cycle.
  const pending: { schema: unknown; pointer: string }[] = [{ schema: root, pointer: '#' }];
  const visit = (node: unknown, pointer: string): string[] | undefined => {
    state.set(node, 'open');
    chain.push(node);
    pointers.push(pointer);
    // `$dynamicRef` targets depend on the dynamic scope: not followed, to avoid reporting cycles that are not.
    for (const edge of index.edges(node, pointer, false)) {
      if (!isJsonObject(edge.schema)) continue;
      if (!edge.sameInstance) {
        if (!state.has(edge.schema)) pending.push({ schema: edge.schema, pointer: edge.pointer });
        continue;
      }
      const seen = state.get(edge.schema);
      if (seen === 'open') return [...pointers.slice(chain.indexOf(edge.schema)), edge.pointer];
      if (seen === undefined) {
        const cycle = visit(edge.schema, edge.pointer);
        if (cycle !== undefined) return cycle;
      }
    }
    chain.pop();
    pointers.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (state.has(next.schema)) continue;
    const cycle = visit(next.schema, next.pointer);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/**
 * The most subschemas validation can apply to one value: for each schema, itself plus, along every path, the
 * subschemas that apply to the same value (`$ref`, `allOf`/`anyOf`/`oneOf`, `not`, `if`/`then`/`else`), counted
 * once per path, as ajv's generated code runs them; the largest over all schemas reachable from the root. Linear
 * in the schema (memoized per subschema), and it stops counting above `limit`. Shared `$ref`s make it exponential
 * in the schema's size: a chain of 24 `allOf: [$ref A, $ref A]` is 2^24 subschemas for every value. Run after
 * {@link findRefCycle}: the same-value edges must not loop (a loop counts once).
 */
export function maxSubschemasPerValue(root: JsonObject, limit: number): number {
  const index = new SchemaIndex(root);
  const counts = new Map<unknown, number>();
  const onPath = new Set<unknown>();
  const pending: unknown[] = [root];
  const seen = new Set<unknown>([root]);
  let max = 0;
  const count = (node: unknown): number => {
    const known = counts.get(node);
    if (known !== undefined) return known;
    if (onPath.has(node)) return 1;
    onPath.add(node);
    let total = 1;
    for (const edge of index.edges(node, '', false)) {
      if (!edge.sameInstance) {
        if (!seen.has(edge.schema)) {
          seen.add(edge.schema);
          pending.push(edge.schema);
        }
        continue;
      }
      total = Math.min(total + count(edge.schema), limit + 1);
    }
    onPath.delete(node);
    counts.set(node, total);
    return total;
  };
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    max = Math.max(max, count(next));
    if (max > limit) break;
  }
  return max;
}

/** `schema[key]` when `schema` is an object with that own key, else undefined. */
export function schemaKeyword(schema: unknown, key: string): unknown {
  return isJsonObject(schema) && Object.hasOwn(schema, key) ? schema[key] : undefined;
}
