/**
 * Reads a tool's input schema once into a plan that answers, per parameter, the question RT-TOOL-8 asks:
 * which JSON types does the schema allow here? The normalizer consults the plan on every record, so the
 * schema walk (`$ref`, `allOf`, `anyOf`, `oneOf`, type lists) happens at compile time, not per call.
 *
 * The plan never throws and never loops: unresolvable or cyclic `$ref`s count as "allows anything", which
 * includes `string`, so the value is never JSON-decoded (validation then reports the broken schema).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../shared/json.js';
import { SchemaRefs } from '../shared/schema-refs.js';
import { compileLinearPattern, type LinearPattern, type PatternMeter } from '../shared/patterns.js';

/** JSON types as bits, so unions and intersections are one instruction each. */
const NULL = 1;
const BOOLEAN = 2;
const NUMBER = 4;
const STRING = 8;
const ARRAY = 16;
const OBJECT = 32;
const ANY = NULL | BOOLEAN | NUMBER | STRING | ARRAY | OBJECT;

type TypeMask = number;

const TYPE_BITS: Readonly<Record<string, TypeMask>> = {
  null: NULL,
  boolean: BOOLEAN,
  number: NUMBER,
  integer: NUMBER,
  string: STRING,
  array: ARRAY,
  object: OBJECT,
};

/** A JSON Schema: an object, or the boolean schemas `true`/`false`. */
export type Schema = JsonObject | boolean;

/** What the plan says about one parameter (or, in deep mode, one nested property or array item). */
export type ParamRule =
  /** No subschema speaks of this parameter (or it is `true`/`false`): nothing is declared. */
  | { readonly kind: 'not_declared' }
  /** The allowed types include `string`: the value is never JSON-decoded. */
  | { readonly kind: 'string_declared' }
  /** The allowed types include neither `array` nor `object` (nor `string`). */
  | { readonly kind: 'no_container' }
  /** JSON-decode a string here when it parses to an allowed container shape. */
  | {
      readonly kind: 'decode';
      readonly array: boolean;
      readonly object: boolean;
      /** The subschema for the parameter, for deep mode (nested properties and items). */
      readonly schema: Schema;
    };

const NOT_DECLARED: ParamRule = { kind: 'not_declared' };
const STRING_DECLARED: ParamRule = { kind: 'string_declared' };
const NO_CONTAINER: ParamRule = { kind: 'no_container' };

/** The compiled plan for one tool schema. Immutable; safe to share across records and calls. */
export interface SchemaPlan {
  /**
   * The rule for a property of the object described by `schema` (the root schema when omitted). `meter` bounds
   * the `patternProperties` tests of one call: once it is spent, names matched only by patterns are not declared
   * (and validation, under the same budget, refuses the call).
   */
  ruleForProperty(name: string, schema?: Schema, meter?: PatternMeter): ParamRule;
  /** The rule for the item at `index` of the array described by `schema`. */
  ruleForItem(index: number, schema: Schema): ParamRule;
}

/** Compiles the plan for a tool's root input schema. */
export function compileSchemaPlan(root: JsonObject): SchemaPlan {
  return new Plan(root);
}

class Plan implements SchemaPlan {
  /** Rules for the root object's statically named properties, computed once. */
  private readonly rootRules = new Map<string, ParamRule>();
  /** Memo for nested schemas (deep mode); keyed by schema object identity. */
  private readonly nested = new WeakMap<JsonObject, Map<string, ParamRule>>();
  private readonly regexCache = new Map<string, LinearPattern | null>();
  /**
   * Type masks by schema object. Schemas share subschemas through `$ref` (a chain of `allOf: [$ref A, $ref A]`
   * doubles the paths at every level): without it the walk is exponential in such a schema's depth.
   */
  private readonly masks = new WeakMap<JsonObject, TypeMask>();

  private readonly refs: SchemaRefs;

  constructor(private readonly root: JsonObject) {
    this.refs = new SchemaRefs(root);
    for (const name of this.declaredNames(root, new Set())) {
      this.rootRules.set(name, this.computeRule(name, root));
    }
  }

  ruleForProperty(name: string, schema: Schema = this.root, meter?: PatternMeter): ParamRule {
    if (schema === this.root) return this.rootRules.get(name) ?? this.computeRule(name, schema, meter);
    if (typeof schema === 'boolean') return NOT_DECLARED;
    let memo = this.nested.get(schema);
    if (memo === undefined) {
      memo = new Map();
      for (const declared of this.declaredNames(schema, new Set())) memo.set(declared, this.computeRule(declared, schema));
      this.nested.set(schema, memo);
    }
    // Names matched only by patternProperties/additionalProperties are computed per call and not memoized:
    // they are chosen by the model, so a memo of them would grow without bound.
    return memo.get(name) ?? this.computeRule(name, schema, meter);
  }

  ruleForItem(index: number, schema: Schema): ParamRule {
    return this.toRule(this.applicable(schema, (own) => this.ownItemSchema(own, index), new Set(), ARRAY, new Map()));
  }

  private computeRule(name: string, schema: Schema, meter?: PatternMeter): ParamRule {
    return this.toRule(this.applicable(schema, (own) => this.ownPropertySchema(own, name, meter), new Set(), OBJECT, new Map()));
  }

  private toRule(sub: Schema | undefined): ParamRule {
    if (sub === undefined || typeof sub === 'boolean') return NOT_DECLARED;
    const mask = this.typeMask(sub);
    if (mask & STRING) return STRING_DECLARED;
    if ((mask & (ARRAY | OBJECT)) === 0) return NO_CONTAINER;
    return { kind: 'decode', array: (mask & ARRAY) !== 0, object: (mask & OBJECT) !== 0, schema: sub };
  }

  /**
   * The subschema that applies to one child (a property or an item) of a value described by `schema`,
   * following `$ref` and `allOf` (all apply: combined with `allOf`) and `anyOf`/`oneOf` (alternatives:
   * combined with `anyOf`, leaving out alternatives that cannot describe this kind of container). When one
   * alternative says nothing of the child, the child may be anything under it, `string` included, so the
   * alternatives together constrain nothing. Returns undefined when nothing speaks of the child.
   *
   * `done` memoizes the walk for this one child: schemas shared through `$ref` are walked once, not once per
   * path to them (exponential in the depth of a chain of `allOf: [$ref A, $ref A]`).
   */
  private applicable(
    schema: Schema,
    pickOwn: (own: JsonObject) => Schema | undefined,
    visiting: Set<JsonObject>,
    container: TypeMask,
    done: Map<JsonObject, Schema | undefined>,
  ): Schema | undefined {
    if (typeof schema === 'boolean' || visiting.has(schema)) return undefined;
    if (done.has(schema)) return done.get(schema);
    visiting.add(schema);
    const all: Schema[] = [];
    const own = pickOwn(schema);
    if (own !== undefined) all.push(own);
    const target = this.refTarget(schema);
    if (target !== undefined) {
      const sub = this.applicable(target, pickOwn, visiting, container, done);
      if (sub !== undefined) all.push(sub);
    }
    for (const member of schemaList(schema.allOf)) {
      const sub = this.applicable(member, pickOwn, visiting, container, done);
      if (sub !== undefined) all.push(sub);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const alternatives: Schema[] = [];
      let unconstrained = false;
      for (const branch of schemaList(schema[key])) {
        if ((this.typeMask(branch) & container) === 0) continue;
        const sub = this.applicable(branch, pickOwn, visiting, container, done);
        if (sub === undefined) {
          unconstrained = true;
          break;
        }
        alternatives.push(sub);
      }
      if (unconstrained) continue;
      if (alternatives.length === 1) all.push(alternatives[0] as Schema);
      else if (alternatives.length > 1) all.push({ anyOf: alternatives });
    }
    visiting.delete(schema);
    const result = all.length === 0 ? undefined : all.length === 1 ? all[0] : { allOf: all };
    done.set(schema, result);
    return result;
  }

  /**
   * JSON Schema's lookup for a property: `properties` and every matching `patternProperties` (all of them apply),
   * else `additionalProperties`. `additionalProperties: false` answers `false`: under it the property cannot be
   * there at all, which rules that alternative out of an `anyOf`/`oneOf` rather than leaving the child free.
   */
  private ownPropertySchema(schema: JsonObject, name: string, meter?: PatternMeter): Schema | undefined {
    const matched: Schema[] = [];
    const properties = schema.properties;
    if (isJsonObject(properties) && Object.hasOwn(properties, name)) {
      const sub = asSchema(properties[name]);
      if (sub !== undefined) matched.push(sub);
    }
    const patterns = schema.patternProperties;
    if (isJsonObject(patterns) && meter?.spent === true) return undefined;
    if (isJsonObject(patterns)) {
      for (const pattern of Object.keys(patterns)) {
        const sub = asSchema(patterns[pattern]);
        if (sub === undefined) continue;
        if (meter !== undefined && !meter.tryCharge(name)) return undefined;
        if (this.regex(pattern)?.test(name) === true) matched.push(sub);
      }
    }
    if (matched.length === 1) return matched[0];
    if (matched.length > 1) return { allOf: matched };
    if (isJsonObject(properties) && Object.hasOwn(properties, name)) return undefined; // declared, but not as a schema
    const additional = schema.additionalProperties;
    return isJsonObject(additional) || additional === false ? additional : undefined;
  }

  /** `prefixItems[i]` (2020-12) or `items[i]` (draft-07 tuple), else `items`, else `additionalItems`. */
  private ownItemSchema(schema: JsonObject, index: number): Schema | undefined {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    if (prefix !== undefined) {
      if (index < prefix.length) return asSchema(prefix[index]);
      const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
      return isJsonObject(rest) ? rest : undefined;
    }
    return isJsonObject(schema.items) ? schema.items : undefined;
  }

  /** The names a schema declares under `properties`, through `$ref`, `allOf`, `anyOf` and `oneOf`. */
  private declaredNames(schema: Schema, seen: Set<JsonObject>, names = new Set<string>()): Set<string> {
    // `seen` is never unwound: a schema reached by two paths declares the same names on both.
    if (typeof schema === 'boolean' || seen.has(schema)) return names;
    seen.add(schema);
    if (isJsonObject(schema.properties)) for (const name of Object.keys(schema.properties)) names.add(name);
    const related = [this.refTarget(schema), ...schemaList(schema.allOf), ...schemaList(schema.anyOf), ...schemaList(schema.oneOf)];
    for (const other of related) if (other !== undefined) this.declaredNames(other, seen, names);
    return names;
  }

  /**
   * The set of JSON types a schema allows, through `type`, `const`, `enum`, `$ref`, `allOf`, `anyOf`, `oneOf`.
   * Memoized by schema object ({@link masks}). A mask computed where a `$ref` cycle was cut counts the cut as
   * "anything", so it can only allow more than the exact one: more often `string`, never a decode the schema
   * does not vouch for.
   */
  private typeMask(schema: Schema, visiting = new Set<JsonObject>()): TypeMask {
    if (schema === true) return ANY;
    if (schema === false) return 0;
    // A `$ref` cycle that never reaches a type constrains nothing we can know: allow anything.
    if (visiting.has(schema)) return ANY;
    const known = this.masks.get(schema);
    if (known !== undefined) return known;
    visiting.add(schema);
    let mask = ANY;
    const type = schema.type;
    if (typeof type === 'string') mask &= TYPE_BITS[type] ?? ANY;
    else if (Array.isArray(type)) mask &= type.reduce<TypeMask>((m, t) => m | (typeof t === 'string' ? (TYPE_BITS[t] ?? 0) : 0), 0);
    if (schema.const !== undefined) mask &= maskOfValue(schema.const);
    if (Array.isArray(schema.enum)) mask &= schema.enum.reduce<TypeMask>((m, v) => m | maskOfValue(v), 0);
    const target = this.refTarget(schema);
    if (target !== undefined) mask &= this.typeMask(target, visiting);
    for (const member of schemaList(schema.allOf)) mask &= this.typeMask(member, visiting);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schemaList(schema[key]);
      if (branches.length > 0) mask &= branches.reduce<TypeMask>((m, b) => m | this.typeMask(b, visiting), 0);
    }
    visiting.delete(schema);
    this.masks.set(schema, mask);
    return mask;
  }

  /** The schema a `$ref` names, resolved as the validator resolves it (core/shared/schema-refs.ts). */
  private refTarget(schema: JsonObject): Schema | undefined {
    const ref = schema.$ref;
    return typeof ref === 'string' ? asSchema(this.refs.resolve(ref)?.schema as JsonValue | undefined) : undefined;
  }

  private regex(pattern: string): LinearPattern | null {
    let compiled = this.regexCache.get(pattern);
    if (compiled === undefined) {
      try {
        // The validator's engine: linear in the key, whatever the pattern.
        compiled = compileLinearPattern(pattern);
      } catch {
        compiled = null; // an invalid or unsupported pattern matches nothing here; validation reports the schema
      }
      this.regexCache.set(pattern, compiled);
    }
    return compiled;
  }
}

function asSchema(value: JsonValue | undefined): Schema | undefined {
  return typeof value === 'boolean' || isJsonObject(value) ? value : undefined;
}

function schemaList(value: JsonValue | undefined): Schema[] {
  if (!Array.isArray(value)) return [];
  const out: Schema[] = [];
  for (const item of value) {
    const schema = asSchema(item);
    if (schema !== undefined) out.push(schema);
  }
  return out;
}

function maskOfValue(value: JsonValue): TypeMask {
  if (value === null) return NULL;
  if (Array.isArray(value)) return ARRAY;
  switch (typeof value) {
    case 'string':
      return STRING;
    case 'number':
      return NUMBER;
    case 'boolean':
      return BOOLEAN;
    default:
      return OBJECT;
  }
}
