/**
 * RT-TOOL-8: reconcile a model's tool arguments with the tool's own input schema.
 *
 * Two independent repairs, in this order (see docs/rule.md):
 * 1. JSON-string decoding, on top-level parameters only, looking at the argument as sent, once: a string is
 *    replaced by its parsed value only when the parameter's declared types include `array` or `object` but
 *    not `string`, the text parses, and the parsed value has a declared shape (a list for `array`, a map for
 *    `object`). Otherwise the argument passes through unmodified, and the failed condition is reported where a
 *    repair was conceivable: the parameter declares a container, or its text is itself a JSON list or map.
 * 2. HTML character-reference decoding of every string leaf (including leaves of a just-decoded value),
 *    repeated until the value stops changing, with a bound on passes. Keys are never touched.
 *
 * Pure: the input is never mutated; unchanged subtrees are shared with the input, so a call that needs no
 * repair allocates nothing but the result wrapper.
 */
import { Buffer } from 'node:buffer';
import { decodeHTMLAttribute } from 'entities';
import {
  isJsonObject,
  nestsDeeperThan,
  noteNumberProblems,
  unrepresentableNumbers,
  type JsonObject,
  type JsonValue,
} from '../shared/json.js';
import { childPointer } from '../shared/json-pointer.js';
import { setOwn } from '../shared/own.js';
import type { ParamRule, Schema, SchemaPlan } from './plan.js';
import { MAX_PATTERN_WORK_PER_CALL, PatternMeter } from '../shared/patterns.js';
import type { PassThrough, PassThroughReason, Repair } from '../shared/types.js';

export interface NormalizeOptions {
  /**
   * Beyond the rule, off by default: also JSON-decode strings in nested properties and array items whose
   * subschema declares `array`/`object` (RT-TOOL-8 speaks only of top-level parameters).
   */
  readonly deep: boolean;
  /** Upper bound on entity-decoding passes per string (the rule allows a bound). */
  readonly maxEntityPasses: number;
  /** Deepest nesting a JSON-decoded value may bring in; deeper text is passed through (`too_deep`). */
  readonly maxDepth: number;
  /** Operator opt-out, beyond the rule: skip entity decoding for the whole call. */
  readonly skipEntities: boolean;
  /** Operator opt-out, beyond the rule: top-level parameters whose leaves keep their character references. */
  readonly entityExemptParameters: ReadonlySet<string>;
}

/** Largest `maxEntityPasses` a caller may configure. */
export const MAX_CONFIGURABLE_ENTITY_PASSES = 1_000;

/**
 * Defaults. Ten passes resolve ten levels of escaping (`&amp;amp;...`); real double-escaping is two or three.
 * Depth 64 matches the record bound.
 */
export const DEFAULT_NORMALIZE_OPTIONS: NormalizeOptions = Object.freeze({
  deep: false,
  maxEntityPasses: 10,
  maxDepth: 64,
  skipEntities: false,
  entityExemptParameters: new Set<string>(),
});

export interface NormalizeResult {
  /** The normalized arguments: a new object when anything changed, else the input itself. */
  readonly arguments: JsonObject;
  readonly repairs: Repair[];
  readonly passThroughs: PassThrough[];
}

/**
 * Normalizes one call's arguments against its tool's compiled plan. Never throws on JSON input nested at most
 * `options.maxDepth` deep, which the record and envelope decoders enforce before this runs (the walk recurses:
 * thousands of levels would exhaust the stack). `referencesPossible` false says the caller knows that no string
 * under `args` holds an `&` ({@link mayHoldReferences} of the text they were parsed from).
 */
export function normalizeArguments(
  args: JsonObject,
  plan: SchemaPlan,
  options: NormalizeOptions = DEFAULT_NORMALIZE_OPTIONS,
  referencesPossible = true,
): NormalizeResult {
  // Without an `&` anywhere there is no reference to decode: the entity walk is skipped.
  const entities = referencesPossible && !options.skipEntities;
  const repairs: Repair[] = [];
  const passThroughs: PassThrough[] = [];
  // The plan's pattern tests over this call's keys, bounded as validation bounds its own (core/shared/patterns.ts).
  const meter = new PatternMeter(MAX_PATTERN_WORK_PER_CALL);
  let out: JsonObject | undefined;
  // One stack of tokens for the whole entity walk: it is back to empty after each parameter.
  const path: (string | number)[] = [];
  for (const key of Object.keys(args)) {
    const sent = args[key] as JsonValue;
    let value = sent;
    // Only a string (or, in deep mode, any value) asks the plan: the rest of the walk needs no rule.
    let rule: ParamRule | undefined;
    if (typeof sent === 'string') {
      rule = plan.ruleForProperty(key, undefined, meter);
      const decision = decideJson(sent, rule, options.maxDepth - 1);
      if (decision.ok) {
        value = decision.value;
        repairs.push({ pointer: childPointer('', key), kind: 'json_decoded' });
      } else if (decision.reason !== undefined) {
        passThroughs.push({ pointer: childPointer('', key), reason: decision.reason });
      }
    }
    if (options.deep) {
      rule ??= plan.ruleForProperty(key, undefined, meter);
      if (rule.kind === 'decode') value = decodeNested(value, rule.schema, childPointer('', key), { plan, meter, options, repairs }, 2);
    }
    if (entities && !options.entityExemptParameters.has(key)) value = decodeEntitiesDeep(value, '', key, options, repairs, path);
    if (value !== sent) {
      out ??= copyObject(args);
      setOwn(out, key, value);
    }
  }
  return { arguments: out ?? args, repairs, passThroughs };
}

/**
 * Decoded, or not: `reason` names the pass-through, and is undefined where no repair was conceivable (a string
 * that is no JSON list or map, in a parameter that declares no container), which is not one.
 */
type JsonDecision = { ok: true; value: JsonValue } | { ok: false; reason: PassThroughReason | undefined };

/** Shared, frozen failure decisions: the common outcome allocates nothing. */
const PASS: Readonly<Record<PassThroughReason, JsonDecision>> = Object.freeze({
  string_declared: { ok: false, reason: 'string_declared' },
  not_declared: { ok: false, reason: 'not_declared' },
  not_json: { ok: false, reason: 'not_json' },
  shape_mismatch: { ok: false, reason: 'shape_mismatch' },
  too_deep: { ok: false, reason: 'too_deep' },
  number_out_of_range: { ok: false, reason: 'number_out_of_range' },
});

const NOT_A_CANDIDATE: JsonDecision = Object.freeze({ ok: false, reason: undefined });

/**
 * The three conditions of RT-TOOL-8 §2, checked in order; the first that fails names the pass-through. Where the
 * schema rules decoding out (condition 1), the string is a pass-through only when its text is a JSON list or map.
 */
function decideJson(text: string, rule: ParamRule, depthBudget: number): JsonDecision {
  switch (rule.kind) {
    case 'not_declared':
    case 'no_container':
      return isContainerText(text) ? PASS.not_declared : NOT_A_CANDIDATE;
    case 'string_declared':
      return isContainerText(text) ? PASS.string_declared : NOT_A_CANDIDATE;
    case 'decode':
      break;
  }
  // Cheap pre-check: JSON text for a list or map starts with `[` or `{` after whitespace. It spares a
  // throw-and-catch in JSON.parse for the common case of prose sent where a list is declared.
  const first = firstNonSpace(text);
  if (first !== '[' && first !== '{') return isJsonScalarText(text) ? PASS.shape_mismatch : PASS.not_json;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return PASS.not_json;
  }
  const shapeOk = Array.isArray(parsed) ? rule.array : isJsonObject(parsed) && rule.object;
  if (!shapeOk) return PASS.shape_mismatch;
  // Parsed text may nest far deeper than the record did; refuse what the rest of the pipeline cannot walk.
  if (nestsDeeperThan(text, parsed as JsonValue, depthBudget)) return PASS.too_deep;
  // Decoded, a number a double cannot carry would become another (`1e400` is written null): the text stays as sent.
  const value = noteNumberProblems(text, parsed as JsonValue);
  if (unrepresentableNumbers(value, 1).length > 0) return PASS.number_out_of_range;
  return { ok: true, value };
}

/** What a deep-mode walk carries unchanged through every level. */
interface DeepWalk {
  readonly plan: SchemaPlan;
  readonly meter: PatternMeter;
  readonly options: NormalizeOptions;
  readonly repairs: Repair[];
}

/** Deep mode: apply the JSON-decoding repair to nested properties and items that declare containers. */
function decodeNested(value: JsonValue, schema: Schema, pointer: string, walk: DeepWalk, depth: number): JsonValue {
  if (depth > walk.options.maxDepth) return value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      const next = decodeChild(item, walk.plan.ruleForItem(i, schema), childPointer(pointer, i), walk, depth);
      if (next !== item) {
        out ??= value.slice();
        out[i] = next;
      }
    }
    return out ?? value;
  }
  if (isJsonObject(value)) {
    let out: JsonObject | undefined;
    for (const key of Object.keys(value)) {
      const child = value[key] as JsonValue;
      const next = decodeChild(child, walk.plan.ruleForProperty(key, schema, walk.meter), childPointer(pointer, key), walk, depth);
      if (next !== child) {
        out ??= copyObject(value);
        setOwn(out, key, next);
      }
    }
    return out ?? value;
  }
  return value;
}

function decodeChild(child: JsonValue, rule: ParamRule, pointer: string, walk: DeepWalk, depth: number): JsonValue {
  if (rule.kind !== 'decode') return child;
  let value = child;
  if (typeof child === 'string') {
    const decision = decideJson(child, rule, walk.options.maxDepth - depth);
    if (!decision.ok) return child;
    value = decision.value;
    walk.repairs.push({ pointer, kind: 'json_decoded' });
  }
  return decodeNested(value, rule.schema, pointer, walk, depth + 1);
}

/**
 * Entity-decodes every string leaf under `value` (found at `token` under `parent`), sharing unchanged
 * subtrees. Keys are left as they are. `path` holds the tokens between `parent` and `value`'s container; a
 * leaf's pointer is built only when a repair is reported, so walking a value that needs none allocates nothing.
 */
function decodeEntitiesDeep(
  value: JsonValue,
  parent: string,
  token: string | number,
  options: NormalizeOptions,
  repairs: Repair[],
  path: (string | number)[],
): JsonValue {
  if (typeof value === 'string') {
    if (!value.includes('&')) return value;
    const decoded = decodeReferences(value, options.maxEntityPasses);
    if (decoded !== value) repairs.push({ pointer: pointerOf(parent, path, token), kind: 'entities_decoded' });
    return decoded;
  }
  if (typeof value !== 'object' || value === null) return value;
  path.push(token);
  let result: JsonValue = value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      const next = decodeEntitiesDeep(item, parent, i, options, repairs, path);
      if (next !== item) {
        out ??= value.slice();
        out[i] = next;
      }
    }
    if (out !== undefined) result = out;
  } else {
    let out: JsonObject | undefined;
    for (const key of Object.keys(value)) {
      const child = value[key] as JsonValue;
      const next = decodeEntitiesDeep(child, parent, key, options, repairs, path);
      if (next !== child) {
        out ??= copyObject(value);
        setOwn(out, key, next);
      }
    }
    if (out !== undefined) result = out;
  }
  path.pop();
  return result;
}

function pointerOf(parent: string, path: readonly (string | number)[], token: string | number): string {
  let pointer = parent;
  for (const step of path) pointer = childPointer(pointer, step);
  return childPointer(pointer, token);
}

/**
 * Decodes HTML character references with the HTML Standard's attribute-value rules, until the text stops
 * changing or `maxPasses` passes have run. Attribute rules keep `?a=1&copy=2` intact: a legacy name without
 * `;` is not decoded before `=` or an alphanumeric. Text without `&` is returned as is, without a pass.
 */
export function decodeReferences(text: string, maxPasses: number): string {
  let current = text;
  for (let pass = 0; pass < maxPasses && startsReference(current); pass++) {
    const next = decodeHTMLAttribute(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * True when some `&` in the text is followed by `#` or a letter: every character reference starts so (numeric
 * ones with `#`, named ones with a letter), so text without one decodes to itself (`Tom & Jerry`, `a&&b`).
 */
function startsReference(text: string): boolean {
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
    const next = text.charCodeAt(at + 1) | 0x20;
    if (next === 0x23 /* # */ || (next >= 0x61 && next <= 0x7a) /* a-z, A-Z */) return true;
  }
  return false;
}

/**
 * False when JSON text surely parses to values whose strings hold no `&`, at any depth, including JSON text
 * inside its strings: each level of JSON text writes an `&` either as itself or as the escape `\u0026`, whose
 * `u0026` survives every level of escaping.
 */
export function mayHoldReferences(jsonText: string | Uint8Array): boolean {
  if (typeof jsonText === 'string') return jsonText.includes('&') || jsonText.includes('u0026');
  return jsonText.includes(0x26) || Buffer.from(jsonText.buffer, jsonText.byteOffset, jsonText.byteLength).includes('u0026');
}

function firstNonSpace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // JSON whitespace: space, tab, line feed, carriage return.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return text[i];
  }
  return undefined;
}

/**
 * True when the text is a JSON array or object. Prose, the common case, is told apart by its first and last
 * characters without parsing.
 */
function isContainerText(text: string): boolean {
  const first = firstNonSpace(text);
  if (first !== '[' && first !== '{') return false;
  const last = lastNonSpace(text);
  if (last !== (first === '[' ? ']' : '}')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function lastNonSpace(text: string): string | undefined {
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return text[i];
  }
  return undefined;
}

/** True when the text is a JSON scalar (string, number, true/false/null): it parses, but to the wrong shape. */
function isJsonScalarText(text: string): boolean {
  const first = firstNonSpace(text);
  if (first === undefined || !'"-0123456789tfn'.includes(first)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A shallow copy that keeps `__proto__` and friends as own data properties: spread defines properties, it never
 * calls the `__proto__` setter (and a later assignment to an own `__proto__` data property sets that property).
 */
function copyObject(source: JsonObject): JsonObject {
  return { ...source };
}

/** Assignment would call the `__proto__` setter (changing the prototype and losing the key); define instead. */
