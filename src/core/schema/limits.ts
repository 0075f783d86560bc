/**
 * Bounds on a tool's input schema, checked before it is compiled. Pure: no I/O, never throws, never mutates.
 *
 * A schema comes from an operator (a schema directory, the registry), not from a model, but it is still input:
 * compiling it (ajv's code generation, the RT-TOOL-8 plan, the `$ref` cycle check) walks it recursively and
 * costs time superlinear in its size. Without a bound, a schema nested a few thousand levels deep overflows the
 * stack inside ajv and is reported as a `$ref` cycle, and one of several megabytes, or with a huge `enum`, stalls
 * the worker's event loop for seconds to minutes while it compiles. All are refused here with a message naming
 * the limit (docs/rule.md "Limits").
 */
import { Buffer } from 'node:buffer';
import type { JsonValue } from '../shared/json.js';

/** Bounds applied to every tool input schema before it is compiled. */
export interface SchemaLimits {
  /** Largest schema accepted, in UTF-8 bytes of its compact JSON text. A schema of exactly this size is accepted. */
  readonly maxSchemaBytes: number;
  /** Deepest nesting of arrays/objects accepted (a flat schema object is depth 1). Exactly this depth is accepted. */
  readonly maxSchemaDepth: number;
  /** Most items of one array (`enum`, `anyOf`...) or members of one object (`properties`...). Exactly this is accepted. */
  readonly maxSchemaMembers: number;
  /**
   * Most values in the whole schema (object members and array items, at every level): the static estimate of its
   * compile cost, as ajv generates code for nearly every keyword, property and `enum` value. Exactly this is accepted.
   */
  readonly maxSchemaNodes: number;
}

/**
 * Defaults for {@link SchemaLimits}.
 *
 * - `maxSchemaBytes`: 1 MiB (1 048 576 bytes), as for records; real tool schemas are a few kilobytes.
 * - `maxSchemaDepth`: 128 JSON levels. Each nested object model costs two levels (`properties` / name) and
 *   generators share models through `$defs` instead of nesting them, so real schemas stay under 30; ajv compiles
 *   several hundred levels without reaching the stack limit, so 128 leaves margin on both sides.
 * - `maxSchemaMembers`: 10 000, far more than a hand-written enum. Compile time grows faster than these counts
 *   (ajv checks a draft-07/06 `enum` for duplicates pairwise, as its meta-schema says `uniqueItems`), and the
 *   worker's event loop is blocked while it compiles; docs/rule.md "Limits" gives the figures.
 * - `maxSchemaNodes`: 20 000. A compile cannot be interrupted, so its cost is bounded before it starts: ajv spends
 *   60-130 µs of CPU per value (a loaded 2-core machine), so 20 000 values compile in one to three seconds, while a
 *   schema of 1 MiB may hold 100 000 and more (48 000 took 25 s and 620 MB). Real tool schemas hold hundreds. Each
 *   pattern counts {@link PATTERN_WEIGHT} values more (2 000 `patternProperties` took 7.5 s to compile).
 */
export const DEFAULT_SCHEMA_LIMITS: SchemaLimits = Object.freeze({
  maxSchemaBytes: 1_048_576,
  maxSchemaDepth: 128,
  maxSchemaMembers: 10_000,
  maxSchemaNodes: 20_000,
});

/** Why a schema is refused: which limit, the bound, and what was measured (a lower bound once the walk stops). */
export interface SchemaLimitViolation {
  readonly limit: 'schema_too_large' | 'schema_too_deep' | 'schema_too_many_members' | 'schema_too_complex';
  readonly message: string;
  readonly details: { [key: string]: JsonValue };
}

/**
 * Checks `schema` against `limits`. Returns undefined when the schema is within all bounds, else the first
 * violation found. Iterative (any depth is measured without growing the call stack) and stops as soon as a
 * bound is crossed, so an oversized schema costs no more than the limit to reject. A structure that is not a
 * tree (shared or cyclic objects built in code rather than parsed) is measured as the tree it unfolds to, so
 * a cycle is reported as too deep rather than looping.
 */
export function checkSchemaLimits(schema: JsonValue, limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS): SchemaLimitViolation | undefined {
  const { maxSchemaBytes, maxSchemaDepth, maxSchemaMembers, maxSchemaNodes } = limits;
  let bytes = 0;
  let nodes = 0;
  // Two parallel stacks rather than one of tuples: no allocation per visited value.
  const pending: JsonValue[] = [schema];
  const depths: number[] = [0];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    const depth = depths.pop() ?? 0;
    if (typeof value !== 'object' || value === null) {
      bytes += scalarBytes(value);
    } else {
      if (depth + 1 > maxSchemaDepth) return tooDeep(maxSchemaDepth);
      if (Array.isArray(value)) {
        if (value.length > maxSchemaMembers) return tooManyMembers(value.length, maxSchemaMembers);
        nodes += value.length;
        if (nodes > maxSchemaNodes) return tooComplex(maxSchemaNodes);
        // `[` `]` and a comma between items.
        bytes += 2 + Math.max(0, value.length - 1);
        for (const item of value) {
          pending.push(item);
          depths.push(depth + 1);
        }
      } else {
        const keys = Object.keys(value);
        if (keys.length > maxSchemaMembers) return tooManyMembers(keys.length, maxSchemaMembers);
        nodes += keys.length + patternWeight(value, keys);
        if (nodes > maxSchemaNodes) return tooComplex(maxSchemaNodes);
        // `{` `}`, a comma between members, a colon in each.
        bytes += 2 + Math.max(0, keys.length - 1) + keys.length;
        for (const key of keys) {
          bytes += stringBytes(key);
          pending.push(value[key] as JsonValue);
          depths.push(depth + 1);
        }
      }
    }
    if (bytes > maxSchemaBytes) return tooLarge(bytes, maxSchemaBytes);
  }
  return undefined;
}

/**
 * What a schema object's patterns add to its compile-cost estimate: compiling one for the linear-time engine
 * (and ajv's code around a `patternProperties` entry) costs about as much as {@link PATTERN_WEIGHT} other values.
 * Counted wherever the names appear, data included: an overestimate at worst.
 */
export const PATTERN_WEIGHT = 32;

function patternWeight(value: { [key: string]: JsonValue }, keys: readonly string[]): number {
  let weight = 0;
  for (const key of keys) {
    const member = value[key];
    if (key === 'pattern' && typeof member === 'string') weight += PATTERN_WEIGHT;
    else if (key === 'patternProperties' && typeof member === 'object' && member !== null && !Array.isArray(member)) {
      weight += PATTERN_WEIGHT * Object.keys(member).length;
    }
  }
  return weight;
}

/** UTF-8 bytes of a string as compact JSON writes it (quotes and escapes included). */
function stringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}

function scalarBytes(value: string | number | boolean | null): number {
  if (typeof value === 'string') return stringBytes(value);
  // Numbers as JSON writes them (a non-finite number, which JSON.parse never yields, is written `null`).
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).length : 4;
  if (value === null) return 4;
  return value ? 4 : 5;
}

function tooLarge(atLeast: number, maxSchemaBytes: number): SchemaLimitViolation {
  return {
    limit: 'schema_too_large',
    message: `it is at least ${atLeast} bytes of JSON, more than the schema size limit of ${maxSchemaBytes} bytes`,
    details: { reason: 'schema_too_large', limit: maxSchemaBytes, atLeastBytes: atLeast },
  };
}

function tooManyMembers(count: number, maxSchemaMembers: number): SchemaLimitViolation {
  return {
    limit: 'schema_too_many_members',
    message:
      `one of its arrays or objects (an enum, properties, alternatives...) has ${count} ` +
      `members, more than the schema limit of ${maxSchemaMembers} members per array or object`,
    details: { reason: 'schema_too_many_members', limit: maxSchemaMembers, members: count },
  };
}

function tooComplex(maxSchemaNodes: number): SchemaLimitViolation {
  return {
    limit: 'schema_too_complex',
    message:
      `it holds more than ${maxSchemaNodes} values (keywords, property names and list items at every level), beyond the ` +
      `schema complexity limit of ${maxSchemaNodes}, which bounds the time compiling it blocks`,
    details: { reason: 'schema_too_complex', limit: maxSchemaNodes },
  };
}

function tooDeep(maxSchemaDepth: number): SchemaLimitViolation {
  return {
    limit: 'schema_too_deep',
    message: `it nests arrays/objects more than ${maxSchemaDepth} levels deep, beyond the schema depth limit of ${maxSchemaDepth} levels`,
    details: { reason: 'schema_too_deep', limit: maxSchemaDepth },
  };
}
