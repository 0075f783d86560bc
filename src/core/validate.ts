/**
 * Validation of (normalized) tool-call arguments against the tool's JSON Schema, with every failure turned into
 * a {@link Diagnostic} an agent can act on: a stable code, the JSON Pointer of the offending value, a plain
 * message naming the parameter, a hint saying what to send instead, and machine-readable details.
 *
 * Pure: no I/O, no environment, no logging (ajv's logger is switched off), and neither the schema nor the
 * arguments are ever mutated (no coercion, no defaults, no removal of additional properties).
 */
import { Ajv, MissingRefError } from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { ErrorCode } from './codes.js';
import { childPointer, isJsonObject, jsonTypeOf } from './json.js';
import type { JsonObject, JsonValue } from './json.js';
import type { Diagnostic } from './types.js';

// ajv-formats is CommonJS; under NodeNext the default import is `module.exports`, whose `default` is the plugin
// (at runtime `module.exports.default === module.exports`, so this works in tsc, node and vitest alike).
const addFormats = formatsModule.default;

/** Compiles tool input schemas. Holds one Ajv instance per supported draft, reused for every compile. */
export interface SchemaCompiler {
  /**
   * Compiles a tool's input schema. Never throws: a schema that cannot be used (unsupported `$schema`, invalid
   * against its meta-schema, dangling `$ref`, `$ref` cycle that never reaches a value, bad regular expression)
   * yields `{ ok: false }` with a `tool_schema_unusable` diagnostic at path `""`. The input is not mutated.
   * Compile once per schema version and reuse the result: compiling is far more expensive than validating.
   */
  compile(schema: JsonObject): CompiledValidator;
}

/**
 * The outcome of {@link SchemaCompiler.compile}. `validate` never throws and never mutates its argument; it
 * returns `[]` when the arguments are valid, otherwise at most `maxDiagnostics` diagnostics in a deterministic
 * order (ajv's evaluation order, after noise from `anyOf`/`oneOf`/`if`/`contains`/`propertyNames` is folded).
 */
export type CompiledValidator =
  | { ok: true; validate(args: JsonValue): Diagnostic[] }
  | { ok: false; diagnostic: Diagnostic };

/** Options of {@link createSchemaCompiler}. */
export interface SchemaCompilerOptions {
  /**
   * The most diagnostics one `validate` call returns (default 20, must be a positive integer). ajv runs with
   * `allErrors` so an agent can fix every problem in one retry; the cap keeps the rejected record small when a
   * payload is wrong everywhere. Diagnostics past the cap are dropped (the first ones, in order, are kept).
   */
  maxDiagnostics?: number;
}

export const DEFAULT_MAX_DIAGNOSTICS = 20;

/** The `$schema` URIs we accept; a schema without `$schema` is read as 2020-12 (MCP's default). */
export const SUPPORTED_DRAFTS = ['2020-12', 'draft-07', 'draft-06'] as const;
type Draft = '2020-12' | 'draft-07';

type AjvInstance = Ajv | Ajv2020;

/** How many characters of a received value (or key) a message may echo: values can be huge. */
const PREVIEW_CHARS = 80;
/** How many characters of a schema `description` a hint may quote. */
const DESCRIPTION_CHARS = 200;
/** How many allowed values / property names a hint lists before summarizing the rest. */
const LIST_ITEMS = 25;

const AJV_OPTIONS: Options = {
  // Real tool schemas carry `title`, `examples`, vendor `x-` keys, unknown formats...: tolerate, do not reject.
  strict: false,
  // Agents fix all problems in one retry; payload size and depth are bounded upstream, output by maxDiagnostics.
  allErrors: true,
  // Errors carry `parentSchema`, `schema` and `data`: we need them for descriptions, allowed keys and previews.
  verbose: true,
  // Validation must never change the arguments: no coercion, no defaults, no pruning.
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  validateFormats: true,
  // Pure core: ajv would otherwise `console.warn` about unknown formats and keywords.
  logger: false,
};

/**
 * Creates a compiler with one Ajv instance per draft (2020-12 and draft-07), created here once and reused for
 * every compile, as ajv advises.
 *
 * @throws RangeError when `maxDiagnostics` is not a positive integer (a configuration error, caught at start-up).
 */
export function createSchemaCompiler(options: SchemaCompilerOptions = {}): SchemaCompiler {
  const maxDiagnostics = options.maxDiagnostics ?? DEFAULT_MAX_DIAGNOSTICS;
  if (!Number.isInteger(maxDiagnostics) || maxDiagnostics < 1) {
    throw new RangeError(`maxDiagnostics must be a positive integer, got ${String(maxDiagnostics)}`);
  }
  const instances: Record<Draft, AjvInstance> = {
    '2020-12': new Ajv2020(AJV_OPTIONS),
    'draft-07': new Ajv(AJV_OPTIONS),
  };
  addFormats(instances['2020-12']);
  addFormats(instances['draft-07']);
  // ajv-formats' `url` regex backtracks quadratically on untrusted values (see isUrl): same language, linear time.
  instances['2020-12'].addFormat('url', { type: 'string', validate: isUrl });
  instances['draft-07'].addFormat('url', { type: 'string', validate: isUrl });

  return {
    compile(schema: JsonObject): CompiledValidator {
      let draft: Draft | undefined;
      try {
        if (!isJsonObject(schema)) return unusable('The tool schema is not a JSON object.', { reason: 'not_object' });
        const selected = selectDraft(schema.$schema);
        if (!selected.ok) return selected.failure;
        draft = selected.draft;
        // A shallow copy without `$schema`: we chose the draft ourselves, and ajv only knows its own default
        // meta-schema URI (draft-06 schemas, and `https`/no-`#` spellings, would otherwise fail to compile).
        // Nested objects are shared, never written to.
        const root: JsonObject = { ...schema };
        delete root.$schema;
        const cycle = findRefCycle(root);
        if (cycle !== undefined) {
          return unusable(
            `The tool schema has a $ref cycle that never reaches a value (${cycle.join(' -> ')}), so validation would never end.`,
            { reason: 'ref_cycle', cycle, draft },
          );
        }
        const validateFn = compileIsolated(instances[draft], root);
        const index = new SchemaIndex(root);
        return {
          ok: true,
          validate: (args: JsonValue): Diagnostic[] => runValidation(validateFn, index, args, maxDiagnostics),
        };
      } catch (error) {
        return unusable(...describeCompileError(error, draft));
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The `url` format, without ReDoS

/**
 * Host and port of ajv-formats' `url` regex (its `full` mode), anchored: a public IPv4 address or a host name with
 * a top-level domain, then an optional port. It matches neither `@`, `/` nor `:` outside the port.
 */
const URL_HOST_PORT =
  /^(?:(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)(?:\.(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,})))(?::\d{2,5})?$/iu;
const URL_SCHEME = /^(?:https?|ftp):\/\//iu;

/**
 * ajv-formats' `url` format, `^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?<host and port>(?:\/[^\s]*)?$`, decided in
 * linear time. The regex itself is quadratic: its userinfo `\S+(?::\S*)?@` can split a run of `:` in every way
 * before failing, so 20 000 colons take seconds and a 1 MiB argument would take hours. Same language: the
 * userinfo is any non-empty text without white space up to an `@`; host and port contain neither `@` nor `/`,
 * so they run from the scheme (or from just after an `@`) to the next `/`, and the path after it is any text
 * without white space. Each candidate start is tried once on its own stretch of text, so the work is linear.
 */
export function isUrl(value: string): boolean {
  const scheme = URL_SCHEME.exec(value);
  if (scheme === null) return false;
  const start = scheme[0].length;
  let firstSpace = value.length;
  let lastSpace = -1;
  for (let i = start; i < value.length; i += 1) {
    if (isWhiteSpace(value.charCodeAt(i))) {
      if (firstSpace === value.length) firstSpace = i;
      lastSpace = i;
    }
  }
  let hostStart = start;
  let at = value.indexOf('@', start);
  let slash = value.indexOf('/', start);
  for (;;) {
    if (slash !== -1 && slash < hostStart) slash = value.indexOf('/', hostStart);
    const end = slash === -1 ? value.length : slash;
    if ((at === -1 || at >= end) && end > lastSpace && URL_HOST_PORT.test(value.slice(hostStart, end))) return true;
    // Next candidate: the host starts after the next `@`; the userinfo before it is non-empty, without white space.
    do {
      if (at === -1 || at > firstSpace) return false;
      hostStart = at + 1;
      at = value.indexOf('@', hostStart);
    } while (hostStart - 1 === start);
  }
}

/** `\s` of an ECMAScript regex: WhiteSpace (any Zs, tab, VT, FF, U+FEFF) and LineTerminator. */
function isWhiteSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Draft selection and compilation

function normalizeSchemaUri(uri: string): string {
  return uri.trim().replace(/#$/, '').replace(/^http:/, 'https:');
}

const DRAFT_BY_URI = new Map<string, Draft>([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  // draft-06 is a subset of draft-07 (07 only added keywords), so the draft-07 instance validates it faithfully.
  ['https://json-schema.org/draft-06/schema', 'draft-07'],
]);

function selectDraft(
  $schema: JsonValue | undefined,
): { ok: true; draft: Draft } | { ok: false; failure: CompiledValidator } {
  if ($schema === undefined) return { ok: true, draft: '2020-12' };
  const draft = typeof $schema === 'string' ? DRAFT_BY_URI.get(normalizeSchemaUri($schema)) : undefined;
  if (draft !== undefined) return { ok: true, draft };
  return {
    ok: false,
    failure: unusable(
      `The tool schema declares an unsupported $schema ${preview($schema)}. Supported drafts: 2020-12 ` +
        '(https://json-schema.org/draft/2020-12/schema, also the default when $schema is absent), draft-07 ' +
        '(http://json-schema.org/draft-07/schema#) and draft-06 (http://json-schema.org/draft-06/schema#).',
      { reason: 'unsupported_draft', $schema: previewValue($schema), supported: [...SUPPORTED_DRAFTS] },
    ),
  };
}

/**
 * Compiles `root` without leaving anything behind in the shared Ajv instance.
 *
 * Why: `ajv.compile` registers a schema's `$id` (and every nested `$id`) in the instance, so a second compile of a
 * schema with the same `$id` throws "schema with key or id ... already exists": two tools may share an `$id`,
 * and a tool's schema is compiled again when it changes. We cannot simply use `addUsedSchema: false`, because
 * ajv then fails to resolve `$ref: "#"` from inside a schema that has no `$id` (a legitimate recursive schema).
 * So we let ajv register during the compile (refs resolve exactly as ajv intends) and afterwards restore the
 * instance's registries to their previous state and drop the compile cache entry. The compiled function keeps
 * its own links to everything it references, so it does not need the registries any more. This also stops one
 * tool's nested `$id` from resolving another tool's `$ref`, and stops the instance from growing per compile.
 */
function compileIsolated(ajv: AjvInstance, root: JsonObject): ValidateFunction {
  const refs = ajv.refs as Record<string, unknown>;
  const schemas = ajv.schemas as Record<string, unknown>;
  const refsBefore = { ...refs };
  const schemasBefore = { ...schemas };
  try {
    return ajv.compile(root);
  } finally {
    ajv.removeSchema(root);
    restoreRegistry(refs, refsBefore);
    restoreRegistry(schemas, schemasBefore);
  }
}

function restoreRegistry(registry: Record<string, unknown>, snapshot: Record<string, unknown>): void {
  for (const key of Object.keys(registry)) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a registry keyed by schema URI
    if (!Object.hasOwn(snapshot, key)) delete registry[key];
  }
  Object.assign(registry, snapshot);
}

function describeCompileError(error: unknown, draft: Draft | undefined): [string, Record<string, JsonValue>] {
  const draftDetails: Record<string, JsonValue> = draft === undefined ? {} : { draft };
  if (error instanceof MissingRefError) {
    return [
      `The tool schema cannot be used: $ref ${preview(error.missingRef)} does not resolve to any schema (dangling reference).`,
      { reason: 'dangling_ref', ref: error.missingRef, ...draftDetails },
    ];
  }
  if (error instanceof RangeError) {
    return [
      'The tool schema cannot be used: compiling it recursed without end (most likely a $ref cycle).',
      { reason: 'ref_cycle', ...draftDetails },
    ];
  }
  const text = error instanceof Error ? error.message : String(error);
  if (text.startsWith('schema is invalid')) {
    return [
      `The tool schema is not a valid JSON Schema (${draft ?? 'unknown draft'}): ${truncate(text, 300)}.`,
      { reason: 'invalid_schema', error: truncate(text, 1000), ...draftDetails },
    ];
  }
  if (error instanceof SyntaxError) {
    return [
      `The tool schema cannot be used: ${truncate(text, 300)} (patterns must be ECMAScript regular expressions with the u flag).`,
      { reason: 'invalid_pattern', error: truncate(text, 1000), ...draftDetails },
    ];
  }
  return [
    `The tool schema cannot be used: ${truncate(text, 300)}.`,
    { reason: 'compile_failed', error: truncate(text, 1000), ...draftDetails },
  ];
}

function unusable(message: string, details: Record<string, JsonValue>): { ok: false; diagnostic: Diagnostic } {
  return { ok: false, diagnostic: unusableDiagnostic(message, details) };
}

function unusableDiagnostic(message: string, details: Record<string, JsonValue>): Diagnostic {
  return {
    code: 'tool_schema_unusable',
    path: '',
    message,
    hint: 'This call cannot be validated until the tool schema is fixed; retrying with other arguments will not help. Report it to the tool owner.',
    details,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Schema navigation (best effort, for hints; ajv does the actual validation)

interface SubschemaEdge {
  schema: unknown;
  pointer: string;
  /** True when the subschema applies to the same instance (no descent into a child value). */
  sameInstance: boolean;
  /** True when the edge is a reference (`$ref` and friends). */
  ref: boolean;
}

const SAME_INSTANCE_SINGLE = ['not', 'if', 'then', 'else'];
const SAME_INSTANCE_LIST = ['allOf', 'anyOf', 'oneOf'];
const DESCENT_SINGLE = [
  'additionalItems',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const DESCENT_MAP = ['properties', 'patternProperties'];

function isSchemaLike(value: unknown): boolean {
  return typeof value === 'boolean' || isJsonObject(value);
}

function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Resolves local references, reaches subschemas and infers types. Built once per compiled schema and only
 * used when arguments fail (so the happy path pays nothing).
 */
class SchemaIndex {
  private readonly reachMemo = new WeakMap<object, Set<unknown>>();
  private anchors: Map<string, JsonObject> | undefined;
  private ids: Map<string, JsonObject> | undefined;

  constructor(readonly root: JsonObject) {}

  /** The subschemas of `schema`, with references resolved when they are local. */
  edges(schema: unknown, pointer: string, followDynamic = true): SubschemaEdge[] {
    if (!isJsonObject(schema)) return [];
    const out: SubschemaEdge[] = [];
    const add = (sub: unknown, ptr: string, sameInstance: boolean): void => {
      if (isSchemaLike(sub)) out.push({ schema: sub, pointer: ptr, sameInstance, ref: false });
    };
    for (const key of SAME_INSTANCE_SINGLE) if (Object.hasOwn(schema, key)) add(schema[key], `${pointer}/${key}`, true);
    for (const key of SAME_INSTANCE_LIST) {
      const list = schema[key];
      if (Object.hasOwn(schema, key) && Array.isArray(list)) list.forEach((s, i) => { add(s, `${pointer}/${key}/${i}`, true); });
    }
    for (const key of ['dependentSchemas', 'dependencies']) {
      const map = schema[key];
      if (Object.hasOwn(schema, key) && isJsonObject(map)) {
        for (const [name, s] of Object.entries(map)) add(s, `${pointer}/${key}/${pointerToken(name)}`, true);
      }
    }
    for (const key of DESCENT_SINGLE) if (Object.hasOwn(schema, key)) add(schema[key], `${pointer}/${key}`, false);
    for (const key of DESCENT_MAP) {
      const map = schema[key];
      if (Object.hasOwn(schema, key) && isJsonObject(map)) {
        for (const [name, s] of Object.entries(map)) add(s, `${pointer}/${key}/${pointerToken(name)}`, false);
      }
    }
    for (const key of ['items', 'prefixItems']) {
      const items = schema[key];
      if (!Object.hasOwn(schema, key)) continue;
      if (Array.isArray(items)) items.forEach((s, i) => { add(s, `${pointer}/${key}/${i}`, false); });
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
    const hash = ref.indexOf('#');
    const base = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    let resource: unknown = this.root;
    if (base !== '' && base !== this.root.$id) {
      resource = this.idIndex().get(base);
      if (resource === undefined) return undefined;
    }
    if (fragment === '' || fragment === '/') return resource;
    if (!fragment.startsWith('/')) return this.anchorIndex().get(fragment);
    let node: unknown = resource;
    for (const raw of fragment.slice(1).split('/')) {
      let token: string;
      try {
        token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        return undefined;
      }
      if (Array.isArray(node) && /^\d+$/.test(token)) node = node[Number(token)];
      else if (isJsonObject(node) && Object.hasOwn(node, token)) node = node[token];
      else return undefined;
    }
    return node;
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
      result = intersectTypes(result, new Set([valueType(schema.const)]));
    }
    if (Array.isArray(schema.enum)) result = intersectTypes(result, new Set(schema.enum.map(valueType)));
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
    for (const raw of pointer.slice(1).split('/')) {
      const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      const resolved = isJsonObject(schema) && typeof schema.$ref === 'string' && schema.properties === undefined ? this.resolve(schema.$ref) : schema;
      if (Array.isArray(value) && /^\d+$/.test(token)) {
        const position = Number(token);
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

  /** A string keyword of `schema`, looking through a `$ref` or a single-element `allOf` (Pydantic's wrapping). */
  annotation(schema: unknown, key: 'description' | 'title', depth = 0): string | undefined {
    if (!isJsonObject(schema) || depth > 8) return undefined;
    const own = schema[key];
    if (typeof own === 'string' && own.trim() !== '') return own.trim();
    if (typeof schema.$ref === 'string') return this.annotation(this.resolve(schema.$ref), key, depth + 1);
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.annotation(schema.allOf[0], key, depth + 1);
    return undefined;
  }

  /** The allowed values of `schema` (`enum`, or `const` as a single value), looking through `$ref`/`allOf`. */
  allowedValues(schema: unknown, depth = 0): JsonValue[] | undefined {
    if (!isJsonObject(schema) || depth > 8) return undefined;
    if (Array.isArray(schema.enum)) return schema.enum;
    if (Object.hasOwn(schema, 'const') && schema.const !== undefined) return [schema.const];
    if (typeof schema.$ref === 'string') return this.allowedValues(this.resolve(schema.$ref), depth + 1);
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.allowedValues(schema.allOf[0], depth + 1);
    return undefined;
  }

  private anchorIndex(): Map<string, JsonObject> {
    this.buildIndexes();
    return this.anchors ?? new Map<string, JsonObject>();
  }

  private idIndex(): Map<string, JsonObject> {
    this.buildIndexes();
    return this.ids ?? new Map<string, JsonObject>();
  }

  private buildIndexes(): void {
    if (this.anchors !== undefined) return;
    const anchors = new Map<string, JsonObject>();
    const ids = new Map<string, JsonObject>();
    this.anchors = anchors;
    this.ids = ids;
    const seen = new Set<unknown>();
    const queue: unknown[] = [this.root];
    for (let node = queue.pop(); node !== undefined; node = queue.pop()) {
      if (!isJsonObject(node) || seen.has(node)) continue;
      seen.add(node);
      for (const key of ['$anchor', '$dynamicAnchor']) {
        const anchor = node[key];
        if (typeof anchor === 'string' && !anchors.has(anchor)) anchors.set(anchor, node);
      }
      const id = node.$id;
      if (typeof id === 'string' && node !== this.root) {
        if (id.startsWith('#')) anchors.set(id.slice(1), node); // draft-06/07 location-independent identifier
        else ids.set(id.replace(/#$/, ''), node);
      }
      for (const edge of this.edges(node, '', false)) if (!edge.ref) queue.push(edge.schema);
      for (const key of ['$defs', 'definitions']) {
        const defs = node[key];
        if (isJsonObject(defs)) queue.push(...Object.values(defs));
      }
    }
  }
}

function valueType(value: JsonValue): string {
  const t = jsonTypeOf(value);
  return t === 'number' && Number.isInteger(value) ? 'integer' : t;
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
function typeAllows(types: Set<string> | undefined, value: unknown): boolean {
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
function findRefCycle(root: JsonObject): string[] | undefined {
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

// ---------------------------------------------------------------------------------------------------------------
// From ajv errors to diagnostics

/** One ajv error, with the errors it explains away (the branch errors of an `anyOf`, say). */
interface ErrorNode {
  error: ErrorObject;
  children: ErrorNode[];
}

function runValidation(
  validateFn: ValidateFunction,
  index: SchemaIndex,
  args: JsonValue,
  maxDiagnostics: number,
): Diagnostic[] {
  try {
    if (validateFn(args)) return [];
    // Copy at once: ajv keeps the errors on the function and overwrites them on the next call.
    const errors = [...(validateFn.errors ?? [])];
    const renderer = new Renderer(index, args);
    const diagnostics: Diagnostic[] = [];
    const seen = new Set<string>();
    for (const node of buildErrorTree(errors, index)) {
      for (const diagnostic of renderer.render(node)) {
        // The same failure can be reached twice (e.g. through two `allOf` branches): report it once.
        const key = `${diagnostic.code}\u0000${diagnostic.path}\u0000${diagnostic.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        diagnostics.push(diagnostic);
        if (diagnostics.length >= maxDiagnostics) return diagnostics;
      }
    }
    if (diagnostics.length === 0) {
      // Cannot happen with ajv (a failure always carries an error), but the call must not pass as valid.
      diagnostics.push({
        code: 'schema_violation',
        path: '',
        message: 'The arguments do not satisfy the tool schema.',
        hint: 'Check the arguments against the tool schema.',
        details: {},
      });
    }
    return diagnostics;
  } catch (error) {
    // E.g. a RangeError from a recursion the static cycle check could not see. The schema is at fault.
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return [
      unusableDiagnostic(`The tool schema could not be evaluated against these arguments (${truncate(text, 200)}).`, {
        reason: 'validation_failed',
        error: truncate(text, 1000),
      }),
    ];
  }
}

/** Keywords whose ajv error is reported after the errors of the subschemas it tried, which it explains. */
function ownedSubschemas(error: ErrorObject): { schemas: unknown[]; schemaPathPrefixes: string[] } | undefined {
  const parent: unknown = error.parentSchema;
  switch (error.keyword) {
    case 'anyOf':
    case 'oneOf': {
      const branches: unknown[] = Array.isArray(error.schema) ? error.schema : [];
      return { schemas: branches, schemaPathPrefixes: [`${error.schemaPath}/`] };
    }
    case 'if': {
      const failing = param(error, 'failingKeyword');
      if (failing !== 'then' && failing !== 'else') return undefined;
      const base = error.schemaPath.replace(/\/if$/, '');
      return { schemas: [schemaKeyword(parent, failing)], schemaPathPrefixes: [`${base}/${failing}/`] };
    }
    case 'contains':
    case 'propertyNames':
      return { schemas: [schemaKeyword(parent, error.keyword)], schemaPathPrefixes: [`${error.schemaPath}/`] };
    default:
      return undefined;
  }
}

function isUnderPath(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * Folds ajv's flat error list into a forest. ajv (with `allErrors`) reports an `anyOf`/`oneOf`/`if`/`contains`/
 * `propertyNames` error right after the errors of the subschemas it evaluated, which are contiguous. We claim,
 * walking back from the wrapper, the errors at or below its instance path that come from one of its subschemas
 * (by schema path prefix, or by identity of the failing schema object, which also catches errors from inside a
 * `$ref`, whose schema path restarts at the referenced schema). The walk stops at the first error that is not
 * ours, so unrelated errors are never swallowed.
 */
function buildErrorTree(errors: ErrorObject[], index: SchemaIndex): ErrorNode[] {
  const top: ErrorNode[] = [];
  for (const error of errors) {
    const node: ErrorNode = { error, children: [] };
    const owned = ownedSubschemas(error);
    if (owned !== undefined) {
      const reach = new Set<unknown>();
      for (const schema of owned.schemas) for (const s of index.reach(schema)) reach.add(s);
      let start = top.length;
      while (start > 0) {
        const candidate = top[start - 1];
        if (candidate === undefined || !belongsTo(candidate.error, error, owned.schemaPathPrefixes, reach)) break;
        start -= 1;
      }
      node.children = top.splice(start);
    }
    top.push(node);
  }
  return top;
}

function belongsTo(candidate: ErrorObject, wrapper: ErrorObject, prefixes: string[], reach: Set<unknown>): boolean {
  if (!isUnderPath(candidate.instancePath, wrapper.instancePath)) return false;
  // A sibling keyword of the same schema object at the same value ran before the wrapper: not ours.
  if (candidate.parentSchema === wrapper.parentSchema && candidate.instancePath === wrapper.instancePath) return false;
  if (wrapper.keyword === 'propertyNames' && candidate.propertyName !== param(wrapper, 'propertyName')) return false;
  if (prefixes.some((prefix) => candidate.schemaPath.startsWith(prefix))) return true;
  return isJsonObject(candidate.parentSchema) && reach.has(candidate.parentSchema);
}

function param(error: ErrorObject, name: string): unknown {
  const params = error.params as Record<string, unknown>;
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

function numberParam(error: ErrorObject, name: string): number | undefined {
  const value = param(error, name);
  return typeof value === 'number' ? value : undefined;
}

function stringParam(error: ErrorObject, name: string): string {
  const value = param(error, name);
  return typeof value === 'string' ? value : '';
}

function schemaKeyword(schema: unknown, key: string): unknown {
  return isJsonObject(schema) && Object.hasOwn(schema, key) ? schema[key] : undefined;
}

const COMPARISON_WORDS: Record<string, string> = {
  '>=': 'at least',
  '>': 'greater than',
  '<=': 'at most',
  '<': 'less than',
};

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer (a whole number)',
  boolean: 'a boolean (true or false)',
  null: 'null',
  array: 'a JSON array',
  object: 'a JSON object',
};

/** Format descriptions and example values, so a hint can show what a valid value looks like. */
const FORMATS: Record<string, { what: string; example: JsonValue }> = {
  date: { what: 'a calendar date, YYYY-MM-DD', example: '2024-05-31' },
  time: { what: 'a time with a time zone, HH:MM:SS followed by Z or an offset', example: '14:30:00Z' },
  'date-time': { what: 'an RFC 3339 date-time with a time zone', example: '2024-05-31T14:30:00Z' },
  'iso-time': { what: 'an ISO 8601 time', example: '14:30:00' },
  'iso-date-time': { what: 'an ISO 8601 date-time', example: '2024-05-31T14:30:00' },
  duration: { what: 'an ISO 8601 duration', example: 'P3DT4H' },
  uri: { what: 'an absolute URI, with a scheme', example: 'https://example.com/path' },
  'uri-reference': { what: 'a URI or a relative reference', example: '/path/to/resource' },
  'uri-template': { what: 'an RFC 6570 URI template', example: 'https://example.com/items/{id}' },
  url: { what: 'a URL', example: 'https://example.com/path' },
  email: { what: 'an email address', example: 'user@example.com' },
  hostname: { what: 'a host name', example: 'api.example.com' },
  ipv4: { what: 'an IPv4 address', example: '192.0.2.10' },
  ipv6: { what: 'an IPv6 address', example: '2001:db8::1' },
  regex: { what: 'a regular expression', example: '^[a-z]+$' },
  uuid: { what: 'a UUID', example: '123e4567-e89b-12d3-a456-426614174000' },
  'json-pointer': { what: 'a JSON Pointer', example: '/items/0' },
  'json-pointer-uri-fragment': { what: 'a JSON Pointer URI fragment', example: '#/items/0' },
  'relative-json-pointer': { what: 'a relative JSON Pointer', example: '1/name' },
  byte: { what: 'base64-encoded data', example: 'aGVsbG8=' },
  int32: { what: 'a 32-bit signed integer', example: 42 },
  int64: { what: 'a 64-bit signed integer', example: 42 },
  float: { what: 'a 32-bit floating-point number', example: 1.5 },
  double: { what: 'a 64-bit floating-point number', example: 1.5 },
};

/** Turns error nodes into diagnostics. One per validation call: it knows the arguments, to name paths. */
class Renderer {
  constructor(
    private readonly index: SchemaIndex,
    private readonly args: JsonValue,
  ) {}

  render(node: ErrorNode): Diagnostic[] {
    const { error } = node;
    switch (error.keyword) {
      case 'anyOf':
      case 'oneOf':
        return this.alternatives(node);
      case 'if':
        // The failing `then`/`else` errors say precisely what is missing; the `if` error adds nothing to them.
        if (node.children.length > 0) return node.children.flatMap((child) => this.render(child));
        return [this.ifFailed(error)];
      default:
        return [this.single(error, node.children)];
    }
  }

  /**
   * One `no_matching_alternative` instead of every branch's errors, unless the value plainly targets one
   * branch: exactly one branch allows the value's JSON type (Pydantic's `Optional[Model]` sent as an object), or
   * a `const` property discriminates. Then that branch's own errors are the actionable ones and are returned.
   */
  private alternatives(node: ErrorNode): Diagnostic[] {
    const { error } = node;
    const branches: unknown[] = Array.isArray(error.schema) ? error.schema : [];
    const passing = param(error, 'passingSchemas');
    if (error.keyword === 'oneOf' && Array.isArray(passing)) return [this.tooManyAlternatives(error, branches, passing)];
    const target = this.targetBranch(branches, error.data);
    if (target !== undefined) {
      const mine = node.children.filter((child) => this.branchOf(child.error, error, branches) === target);
      const rendered = mine.flatMap((child) => this.render(child));
      if (rendered.length > 0) return rendered;
    }
    return [this.noAlternative(error, branches)];
  }

  /**
   * Which branch an error came from: by schema path when it runs through `<anyOf>/<i>/`, else (inside a `$ref`,
   * whose schema path restarts) the first branch that reaches the failing schema object. The path test comes
   * first because in a recursive schema every branch may reach every schema object.
   */
  private branchOf(child: ErrorObject, wrapper: ErrorObject, branches: unknown[]): number | undefined {
    const prefix = `${wrapper.schemaPath}/`;
    if (child.schemaPath.startsWith(prefix)) {
      const position = Number(child.schemaPath.slice(prefix.length).split('/')[0]);
      if (Number.isInteger(position)) return position;
    }
    if (!isJsonObject(child.parentSchema)) return undefined;
    const found = branches.findIndex((branch) => this.index.reach(branch).has(child.parentSchema));
    return found === -1 ? undefined : found;
  }

  private targetBranch(branches: unknown[], data: unknown): number | undefined {
    let candidates = branches.map((_, i) => i).filter((i) => typeAllows(this.index.types(branches[i]), data));
    if (candidates.length > 1 && isJsonObject(data)) {
      // A discriminator: a property whose `const` (or single-value enum) matches the value sent.
      const discriminated = candidates.filter((i) => this.matchesDiscriminator(branches[i], data));
      if (discriminated.length > 0) candidates = discriminated;
    }
    return candidates.length === 1 ? candidates[0] : undefined;
  }

  private matchesDiscriminator(branch: unknown, data: JsonObject): boolean {
    const resolved = isJsonObject(branch) && typeof branch.$ref === 'string' ? this.index.resolve(branch.$ref) : branch;
    const properties = schemaKeyword(resolved, 'properties');
    if (!isJsonObject(properties)) return false;
    return Object.entries(properties).some(([name, sub]) => {
      const allowed = this.index.allowedValues(sub);
      return (
        allowed !== undefined &&
        allowed.length === 1 &&
        Object.hasOwn(data, name) &&
        JSON.stringify(allowed[0]) === JSON.stringify(data[name])
      );
    });
  }

  private noAlternative(error: ErrorObject, branches: unknown[]): Diagnostic {
    const path = error.instancePath;
    const received = jsonTypeOf(error.data);
    const summaries = dedupe(branches.map((b, i) => this.summarize(b, i)));
    let expected: string[] | undefined = [];
    for (const branch of branches) {
      const t = this.index.types(branch);
      if (t === undefined || t.size === 0) {
        expected = undefined;
        break;
      }
      expected.push(...t);
    }
    expected = expected === undefined ? undefined : dedupe(expected);
    const typeMismatch = expected !== undefined && !typeAllows(new Set(expected), error.data);
    const message = typeMismatch
      ? `${capitalize(this.name(path))} matches none of the allowed alternatives: expected ${expected?.join(' or ') ?? ''}, received ${received}.`
      : `${capitalize(this.name(path))} matches none of the ${String(branches.length)} allowed alternatives (received ${preview(error.data)}).`;
    let hint = `Send ${joinOr(summaries)}.`;
    if (received === 'string' && expected !== undefined && !expected.includes('string')) {
      if (expected.includes('array') || expected.includes('object')) {
        hint += ` Send the ${expected.includes('array') ? 'array' : 'object'} itself as JSON, not a string containing JSON.`;
      }
    }
    const details: Record<string, JsonValue> = { keyword: error.keyword, alternatives: summaries, received };
    if (expected !== undefined) details.expected = expected;
    return { code: 'no_matching_alternative', path, message, hint, details };
  }

  private tooManyAlternatives(error: ErrorObject, branches: unknown[], passing: unknown[]): Diagnostic {
    const indexes = passing.filter((p): p is number => typeof p === 'number');
    const matched = indexes.map((i) => this.summarize(branches[i], i));
    return {
      code: 'no_matching_alternative',
      path: error.instancePath,
      message: `${capitalize(this.name(error.instancePath))} matches more than one of the alternatives (${joinAnd(matched)}) but must match exactly one.`,
      hint: `Change the value so that it matches exactly one of: ${dedupe(branches.map((b, i) => this.summarize(b, i))).join('; ')}.`,
      details: { keyword: 'oneOf', passingSchemas: indexes },
    };
  }

  private ifFailed(error: ErrorObject): Diagnostic {
    const failing = stringParam(error, 'failingKeyword') || 'then';
    const branch = schemaKeyword(error.parentSchema, failing);
    const name = this.name(error.instancePath);
    return {
      code: 'forbidden_value',
      path: error.instancePath,
      message: `${capitalize(name)} does not satisfy the "${failing}" condition of the schema (received ${preview(error.data)}).`,
      hint: `Change ${name} so that it is ${this.summarize(branch)}.`,
      details: { keyword: 'if', failingKeyword: failing },
    };
  }

  /** One ajv error → one diagnostic. `children` are the errors it explains (for `contains`/`propertyNames`). */
  private single(error: ErrorObject, children: ErrorNode[]): Diagnostic {
    const path = error.instancePath;
    const name = this.name(path);
    const Name = capitalize(name);
    const data: unknown = error.data;
    const keyword = error.keyword;
    const parent: unknown = error.parentSchema;
    const description = this.index.annotation(parent, 'description');
    const make = (code: ErrorCode, at: string, message: string, hint: string, details: Record<string, JsonValue> = {}): Diagnostic => ({
      code,
      path: at,
      message,
      hint,
      details: { keyword, ...details },
    });

    switch (keyword) {
      case 'required':
        return this.missing(error, 'missing_required', stringParam(error, 'missingProperty'));
      case 'dependentRequired':
      case 'dependencies':
        return this.missing(error, 'missing_dependency', stringParam(error, 'missingProperty'), stringParam(error, 'property'));

      case 'type': {
        const rawType = param(error, 'type');
        const expected = (Array.isArray(rawType) ? rawType : [rawType]).filter((t): t is string => typeof t === 'string');
        const received = jsonTypeOf(data);
        const notWhole = received === 'number' && expected.includes('integer') ? ' (not a whole number)' : '';
        const message = `Wrong type for ${name}: expected ${expected.join(' or ')}, received ${received}${notWhole}.`;
        return make('wrong_type', path, message, this.typeHint(name, expected, data, description), {
          expected,
          received,
        });
      }

      case 'enum': {
        const allowed = arrayOrEmpty(param(error, 'allowedValues'));
        const suggestion = closeValue(data, allowed);
        return make(
          'not_in_enum',
          path,
          `${Name} is not one of the allowed values (received ${preview(data)}).`,
          `Use one of: ${listValues(allowed)}.${suggestion === undefined ? '' : ` Did you mean ${preview(suggestion)}?`}`,
          { allowedValues: allowed.slice(0, 100) },
        );
      }

      case 'const': {
        const allowed = param(error, 'allowedValue') as JsonValue;
        return make(
          'not_const',
          path,
          `${Name} must be exactly ${preview(allowed)} (received ${preview(data)}).`,
          `Send ${preview(allowed)}.`,
          { allowedValue: previewValue(allowed) },
        );
      }

      case 'additionalProperties':
      case 'unevaluatedProperties': {
        const key = stringParam(error, keyword === 'additionalProperties' ? 'additionalProperty' : 'unevaluatedProperty');
        const allowed = this.index.declaredProperties(parent, keyword === 'unevaluatedProperties');
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
        if (patterns.length > 0) hint += ` Names matching ${patterns.map((p) => preview(p)).join(', ')} are also accepted.`;
        if (allowed.length === 0 && patterns.length === 0) hint += ` No other ${what} are accepted.`;
        return make('unknown_property', childPointer(path, key), message, hint, {
          property: truncate(key, PREVIEW_CHARS),
          allowed: allowed.slice(0, 100),
        });
      }

      case 'minimum':
      case 'exclusiveMinimum':
      case 'maximum':
      case 'exclusiveMaximum': {
        const comparison = stringParam(error, 'comparison');
        const limit = numberParam(error, 'limit') ?? 0;
        const words = COMPARISON_WORDS[comparison] ?? comparison;
        const code: ErrorCode = keyword.toLowerCase().includes('min') ? 'below_minimum' : 'above_maximum';
        return make(
          code,
          path,
          `${Name} must be ${words} ${String(limit)}, received ${preview(data)}.`,
          `Send a number that is ${words} ${String(limit)}${description === undefined ? '' : ` (${quoteDescription(description)})`}.`,
          { limit, comparison, actual: typeof data === 'number' ? data : null },
        );
      }

      case 'multipleOf': {
        const step = numberParam(error, 'multipleOf') ?? 1;
        const actual = typeof data === 'number' ? data : NaN;
        const lower = roundNoise(Math.floor(actual / step) * step);
        const upper = roundNoise(lower + step);
        const example = Number.isFinite(lower) ? ` such as ${String(lower)} or ${String(upper)}` : '';
        return make(
          'not_multiple_of',
          path,
          `${Name} must be a multiple of ${String(step)}, received ${preview(data)}.`,
          `Send a multiple of ${String(step)}${example === '' ? '' : `,${example}`}.`,
          { multipleOf: step, actual: Number.isFinite(actual) ? actual : null },
        );
      }

      case 'minLength':
      case 'maxLength': {
        const limit = numberParam(error, 'limit') ?? 0;
        // ajv counts Unicode code points, not UTF-16 units: so do we, or the numbers would disagree.
        const length = typeof data === 'string' ? codePointLength(data) : 0;
        const min = keyword === 'minLength';
        return make(
          min ? 'too_short' : 'too_long',
          path,
          `${Name} must be ${min ? 'at least' : 'at most'} ${plural(limit, 'character')} long, received ${plural(length, 'character')}.`,
          min
            ? `Send a string of at least ${plural(limit, 'character')}${description === undefined ? '' : ` (${quoteDescription(description)})`}.`
            : `Shorten ${name} to at most ${plural(limit, 'character')}.`,
          { limit, actualLength: length },
        );
      }

      case 'pattern': {
        const pattern = stringParam(error, 'pattern');
        const example = exampleOf(parent);
        return make(
          'pattern_mismatch',
          path,
          `${Name} does not match the required pattern ${pattern} (received ${preview(data)}).`,
          `Send a string matching the regular expression ${pattern}` +
            (description === undefined ? '' : ` (${quoteDescription(description)})`) +
            (example === undefined ? '' : `, for example ${preview(example)}`) +
            '.',
          { pattern },
        );
      }

      case 'format': {
        const format = stringParam(error, 'format');
        const known = FORMATS[format];
        const example = exampleOf(parent) ?? known?.example;
        return make(
          'invalid_format',
          path,
          `${Name} is not a valid "${format}"${known === undefined ? '' : ` (${known.what})`} (received ${preview(data)}).`,
          `Send a value in "${format}" format${known === undefined ? '' : `, ${known.what}`}${
            example === undefined ? '' : `, for example ${preview(example)}`
          }.`,
          example === undefined ? { format } : { format, example },
        );
      }

      case 'minItems':
      case 'maxItems':
      case 'items':
      case 'additionalItems':
      case 'unevaluatedItems': {
        const limit = numberParam(error, 'limit');
        if (limit === undefined) break; // not a count limit: generic handling below
        const count = Array.isArray(data) ? data.length : 0;
        const min = keyword === 'minItems';
        return make(
          min ? 'too_few_items' : 'too_many_items',
          path,
          `${Name} must have ${min ? 'at least' : 'at most'} ${plural(limit, 'item')}, received ${plural(count, 'item')}.`,
          min ? `Send an array with at least ${plural(limit, 'item')}.` : `Remove items so that ${name} ${path === '' ? 'have' : 'has'} at most ${plural(limit, 'item')}.`,
          { limit, actualCount: count },
        );
      }

      case 'uniqueItems': {
        const i = numberParam(error, 'i') ?? 0;
        const j = numberParam(error, 'j') ?? 0;
        const [first, second] = i < j ? [i, j] : [j, i];
        const repeated: unknown = Array.isArray(data) ? data[first] : undefined;
        return make(
          'duplicate_items',
          path,
          `${Name} must not contain duplicate items, but items ${String(first)} and ${String(second)} are equal.`,
          `Remove the repeated value ${preview(repeated)} so that every item is unique.`,
          { duplicateIndexes: [first, second] },
        );
      }

      case 'contains': {
        const minContains = numberParam(error, 'minContains') ?? 1;
        const maxContains = numberParam(error, 'maxContains');
        const summary = this.summarize(schemaKeyword(parent, 'contains'));
        const range = maxContains === undefined ? `at least ${String(minContains)}` : `between ${String(minContains)} and ${String(maxContains)}`;
        const details: Record<string, JsonValue> = { minContains, contains: summary };
        if (maxContains !== undefined) details.maxContains = maxContains;
        return make(
          'missing_contains',
          path,
          `${Name} must contain ${range} item(s) matching: ${summary}.`,
          `Include ${range} item(s) that ${maxContains === undefined ? 'are' : 'are each'} ${summary}.`,
          details,
        );
      }

      case 'minProperties':
      case 'maxProperties': {
        const limit = numberParam(error, 'limit') ?? 0;
        const count = isJsonObject(data) ? Object.keys(data).length : 0;
        const min = keyword === 'minProperties';
        const allowed = this.index.declaredProperties(parent, true);
        return make(
          min ? 'too_few_properties' : 'too_many_properties',
          path,
          `${Name} must have ${min ? 'at least' : 'at most'} ${plural(limit, 'property', 'properties')}, received ${String(count)}.`,
          min
            ? `Add properties so that ${name} has at least ${String(limit)}${allowed.length > 0 ? ` (available: ${listValues(allowed)})` : ''}.`
            : `Remove properties so that ${name} has at most ${String(limit)}.`,
          { limit, actualCount: count },
        );
      }

      case 'propertyNames': {
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
      }

      case 'not': {
        const summary = this.summarize(error.schema);
        return make(
          'forbidden_value',
          path,
          `${Name} must not be ${summary} (received ${preview(data)}).`,
          `Send a value for ${name} that is not ${summary}.`,
        );
      }

      case 'false schema':
        return path === ''
          ? make('forbidden_value', path, 'The tool schema accepts no arguments at all.', 'No value can satisfy this schema; report it to the tool owner.')
          : make('forbidden_value', path, `${Name} is not allowed here.`, `Remove ${name}.`);
    }

    return make(
      'schema_violation',
      path,
      `${Name} is invalid: it ${error.message ?? 'violates the schema'} (keyword "${keyword}").`,
      `Change ${name} so that it satisfies the "${keyword}" rule of the tool schema.`,
      { schemaPath: error.schemaPath },
    );
  }

  /** `required` and `dependentRequired`: the diagnostic points at the missing property itself. */
  private missing(error: ErrorObject, code: ErrorCode, property: string, because?: string): Diagnostic {
    const parentPath = error.instancePath;
    // `required` inside `then`/`allOf`/... has no `properties` beside it: then find the property the way the
    // value reached it, from the root.
    const propertySchema =
      this.index.propertySchema(error.parentSchema, property) ??
      this.index.propertySchema(this.index.schemaAtInstance(parentPath, this.args), property);
    const description = this.index.annotation(propertySchema, 'description');
    const allowed = this.index.allowedValues(propertySchema);
    const types = this.index.types(propertySchema);
    const where = parentPath === '' ? '' : ` in ${this.name(parentPath)}`;
    const what = parentPath === '' ? 'parameter' : 'property';
    const message =
      because === undefined
        ? `Missing required ${what} ${preview(property)}${where}.`
        : `${capitalize(what)} ${preview(property)} is required when ${preview(because)} is present${where}.`;
    let hint = `Add ${preview(property)}${description === undefined ? '' : ` (${quoteDescription(description)})`}`;
    hint += because === undefined ? '.' : `, or remove ${preview(because)}.`;
    if (allowed !== undefined && allowed.length > 0) hint += ` Use one of: ${listValues(allowed)}.`;
    else if (types !== undefined && types.size > 0) hint += ` Send ${joinOr([...types].map(typeNoun))}.`;
    const details: Record<string, JsonValue> = { keyword: error.keyword, missingProperty: truncate(property, PREVIEW_CHARS) };
    if (because !== undefined) details.presentProperty = truncate(because, PREVIEW_CHARS);
    if (description !== undefined) details.description = truncate(description, DESCRIPTION_CHARS);
    if (types !== undefined && types.size > 0) details.expected = [...types];
    if (allowed !== undefined) details.allowedValues = allowed.slice(0, 100);
    return { code, path: childPointer(parentPath, property), message, hint, details };
  }

  private typeHint(name: string, expected: string[], data: unknown, description: string | undefined): string {
    const about = description === undefined ? '' : ` (${quoteDescription(description)})`;
    if (typeof data === 'string' && !expected.includes('string')) {
      if (expected.includes('array') || expected.includes('object')) {
        const kind = expected.includes('array') ? 'array' : 'object';
        const example = kind === 'array' ? '["a", "b"]' : '{"key": "value"}';
        return `Send ${name} as a JSON ${kind} itself, for example ${example}, not as a string containing JSON text${about}.`;
      }
      const trimmed = data.trim();
      if ((expected.includes('number') || expected.includes('integer')) && trimmed !== '' && Number.isFinite(Number(trimmed))) {
        return `Send the number ${truncate(trimmed, PREVIEW_CHARS)} without quotes, not the string ${preview(data)}.`;
      }
      if (expected.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) {
        return `Send ${trimmed} without quotes, not the string ${preview(data)}.`;
      }
      if (expected.includes('null') && trimmed === 'null') return 'Send null without quotes, not the string "null".';
    }
    if (typeof data === 'number' && expected.includes('integer') && !Number.isInteger(data)) {
      return `Send a whole number, such as ${String(Math.round(data))}${about}.`;
    }
    return `Send ${joinOr(expected.map(typeNoun))} for ${name}${about}.`;
  }

  /** A short English description of what a schema accepts, for hints ("a JSON array", "one of "a", "b""). */
  summarize(schema: unknown, position?: number): string {
    if (schema === true || schema === undefined) return 'any value';
    if (schema === false) return 'no value at all';
    if (!isJsonObject(schema)) return 'any value';
    const allowed = this.index.allowedValues(schema);
    if (allowed !== undefined) return allowed.length === 1 ? `exactly ${preview(allowed[0])}` : `one of ${listValues(allowed)}`;
    const types = this.index.types(schema);
    const typePhrase = types === undefined || types.size === 0 ? undefined : joinOr([...types].map(typeNoun));
    let label = this.index.annotation(schema, 'title');
    if (label === undefined && typeof schema.$ref === 'string') label = refName(schema.$ref);
    if (label !== undefined) return typePhrase === undefined ? `"${truncate(label, 60)}"` : `${typePhrase} ("${truncate(label, 60)}")`;
    if (typePhrase !== undefined) {
      if (typeof schema.pattern === 'string') return `${typePhrase} matching ${truncate(schema.pattern, 60)}`;
      if (typeof schema.format === 'string') return `${typePhrase} in "${schema.format}" format`;
      if (Array.isArray(schema.required) && schema.required.length > 0) {
        return `${typePhrase} with ${listValues(schema.required)}`;
      }
      return typePhrase;
    }
    return position === undefined ? 'a value matching the schema' : `a value matching alternative ${String(position + 1)}`;
  }

  /** How a message names the value at `pointer`: `"currency"`, `"items[0].qty"`, or `the arguments`. */
  name(pointer: string): string {
    if (pointer === '') return 'the arguments';
    let label = '';
    let current: unknown = this.args;
    for (const raw of pointer.slice(1).split('/')) {
      const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(current) && /^\d+$/.test(token)) {
        label += `[${token}]`;
        current = current[Number(token)];
      } else {
        label += label === '' ? token : `.${token}`;
        current = isJsonObject(current) && Object.hasOwn(current, token) ? current[token] : undefined;
      }
      if (label.length > PREVIEW_CHARS) break;
    }
    return preview(label);
  }
}

/** What a `propertyNames` subschema error requires of a name, phrased to follow "property names must". */
function nameRule(error: ErrorObject): string {
  switch (error.keyword) {
    case 'pattern':
      return `match the pattern ${stringParam(error, 'pattern')}`;
    case 'maxLength':
      return `be at most ${plural(numberParam(error, 'limit') ?? 0, 'character')} long`;
    case 'minLength':
      return `be at least ${plural(numberParam(error, 'limit') ?? 0, 'character')} long`;
    case 'enum':
      return `be one of ${listValues(arrayOrEmpty(param(error, 'allowedValues')))}`;
    case 'const':
      return `be ${preview(param(error, 'allowedValue'))}`;
    case 'format':
      return `be in "${stringParam(error, 'format')}" format`;
    default:
      return error.message ?? `satisfy "${error.keyword}"`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Small text helpers

/**
 * A JSON rendering of `value` of at most `max` characters (an ellipsis marks the cut). Stops serializing once
 * the budget is spent, so a huge value costs no more than a small one.
 */
export function preview(value: unknown, max: number = PREVIEW_CHARS): string {
  const parts: string[] = [];
  let used = 0;
  const push = (text: string): boolean => {
    parts.push(text);
    used += text.length;
    return used <= max;
  };
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return push(JSON.stringify(v.length > max ? v.slice(0, max) : v));
    if (Array.isArray(v)) {
      if (!push('[')) return false;
      for (let i = 0; i < v.length; i += 1) {
        if ((i > 0 && !push(', ')) || !walk(v[i])) return false;
      }
      return push(']');
    }
    if (isJsonObject(v)) {
      if (!push('{')) return false;
      let first = true;
      for (const [key, item] of Object.entries(v)) {
        if ((!first && !push(', ')) || !push(`${JSON.stringify(key.length > max ? key.slice(0, max) : key)}: `) || !walk(item)) {
          return false;
        }
        first = false;
      }
      return push('}');
    }
    // Left: numbers, booleans and null (JSON.stringify(undefined) would be undefined, hence the guard).
    return push(v === undefined ? 'nothing' : JSON.stringify(v));
  };
  walk(value);
  const text = parts.join('');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `value` itself when it is small, else its truncated preview (details must stay small too). */
function previewValue(value: unknown): JsonValue {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return truncate(value, PREVIEW_CHARS);
  const text = preview(value, 200);
  return text.endsWith('…') ? text : (JSON.parse(text) as JsonValue);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function quoteDescription(description: string): string {
  return truncate(description.replace(/\s+/g, ' ').replace(/\.$/, ''), DESCRIPTION_CHARS);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${String(count)} ${count === 1 ? singular : pluralForm}`;
}

function typeNoun(type: string): string {
  return TYPE_NOUNS[type] ?? type;
}

function dedupe<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function joinOr(items: string[]): string {
  if (items.length <= 1) return items[0] ?? 'a valid value';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

function joinAnd(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

/** `"USD", "EUR", "GBP"`: each value as JSON (truncated), the list capped at {@link LIST_ITEMS}. */
function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, LIST_ITEMS).map((v) => preview(v));
  const rest = values.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, … (${String(rest)} more)` : shown.join(', ');
}

function arrayOrEmpty(value: unknown): JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
}

function refName(ref: string): string | undefined {
  const last = ref.split('/').at(-1);
  return last === undefined || last === '' || last === '#' ? undefined : last.replace(/~1/g, '/').replace(/~0/g, '~');
}

function exampleOf(schema: unknown): JsonValue | undefined {
  const examples = schemaKeyword(schema, 'examples');
  if (Array.isArray(examples) && examples.length > 0) return examples[0] as JsonValue;
  const example = schemaKeyword(schema, 'example');
  return example === undefined ? undefined : (example as JsonValue);
}

function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

/** Rounds away binary floating-point noise (0.30000000000000004 → 0.3) in suggested values. */
function roundNoise(value: number): number {
  return Number.isFinite(value) ? Number(value.toPrecision(12)) : value;
}

/** A case-insensitive (or whitespace-insensitive) match of a received string among the allowed values. */
function closeValue(data: unknown, allowed: readonly unknown[]): unknown {
  if (typeof data !== 'string') return undefined;
  const wanted = data.trim().toLowerCase();
  return allowed.find((value) => typeof value === 'string' && value !== data && value.toLowerCase() === wanted);
}

/**
 * The declared name closest to an unknown key: equal ignoring case, or at most 2 edits away and no more than a
 * third of the key's length (so "c" does not suggest "b"). Undefined when nothing is that close.
 */
function closeName(key: string, names: readonly string[]): string | undefined {
  if (key.length > 64) return undefined;
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.floor(key.length / 3) + 1);
  for (const name of names) {
    const distance = name.toLowerCase() === lower ? 0 : editDistance(lower, name.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, giving up (returning `limit`) once it is known to reach `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? limit) + 1, (current[j - 1] ?? limit) + 1, (previous[j - 1] ?? limit) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= limit) return limit;
    previous = current;
  }
  return Math.min(previous[b.length] ?? limit, limit);
}
