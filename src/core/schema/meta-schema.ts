/**
 * Checks of a tool schema *as a schema* (not of arguments against it), for the audit's validity layer:
 * meta-schema validity for the schema's draft, and validation of a value (a `default`, an `enum` member) against
 * one subschema of it.
 *
 * Kept apart from core/validation/validate.ts, whose Ajv instances are tuned for the hot path and must never accumulate
 * schemas: here each value check gets a fresh instance (an audit compiles a handful of subschemas per tool, so
 * the cost does not matter, and `$id`s of different tools can never collide).
 *
 * Pure: no I/O, no environment, no logging (ajv's logger is off), inputs never mutated.
 */
import type { ErrorObject, Options } from 'ajv';
import type { JsonObject, JsonValue } from '../shared/json.js';
import { fragmentOf, valueAt } from '../shared/json-pointer.js';
import type { Diagnostic } from '../shared/types.js';
import { newAjv, type AjvDraft, type AjvInstance } from '../validation/ajv-instance.js';
import { createSchemaCompiler, type SchemaCompiler } from '../validation/validate.js';

/** The drafts we check against; draft-06 schemas are checked against draft-07, as core/validation/validate.ts reads them. */
export type SchemaDraft = AjvDraft;

const META_URI: Record<SchemaDraft, string> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema',
};

const DRAFT_BY_URI = new Map<string, SchemaDraft>([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft-06/schema', 'draft-07'],
]);

const OPTIONS: Options = {
  strict: false,
  allErrors: true,
  verbose: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  validateFormats: true,
  logger: false,
};

const VALUE_OPTIONS: Options = { ...OPTIONS, validateSchema: false };

/** The base URI a checked root is registered under when it has no `$id` of its own. */
const ROOT_KEY = 'https://toolcall-normalizer.invalid/audit-root';

/**
 * The draft a schema declares through `$schema`: `2020-12` when absent (MCP's default), undefined when the URI
 * is not one we support (the caller reports it).
 */
export function schemaDraftOf(schema: JsonObject): SchemaDraft | undefined {
  const uri = schema.$schema;
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') return undefined;
  return DRAFT_BY_URI.get(
    uri
      .trim()
      .replace(/#$/, '')
      .replace(/^http:/, 'https:'),
  );
}

/** One meta-schema violation: `instancePath` is a JSON Pointer into the checked schema. */
export interface MetaSchemaError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message: string;
}

/** One failure of a value against a subschema: `instancePath` is a JSON Pointer into the value. */
export interface ValueError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message: string;
}

export interface SchemaChecker {
  /**
   * The meta-schema violations of `schema` for `draft` (its `$schema` is ignored: the caller chose the draft).
   * Empty when the schema is valid. Never throws.
   */
  metaSchemaErrors(schema: JsonObject, draft: SchemaDraft): MetaSchemaError[];
  /**
   * The errors of `value` against the subschema at JSON Pointer `pointer` of `root` (local `$ref`s resolve
   * within `root`), or undefined when that subschema cannot be compiled on its own (a dangling `$ref`...: the
   * caller reports that elsewhere). Empty when the value is valid. Never throws.
   */
  valueErrors(root: JsonObject, draft: SchemaDraft, pointer: string, value: JsonValue): ValueError[] | undefined;
  /**
   * Why the worker's own compiler (core/validation/validate.ts) cannot use `schema` (`tool_schema_unusable`), or undefined
   * when it can. The backstop for anything the finer checks do not name.
   */
  compileProblem(schema: JsonObject): Diagnostic | undefined;
}

/** Creates a checker; its meta-schema validators are compiled once, on first use. */
export function createSchemaChecker(): SchemaChecker {
  const metaInstances = new Map<SchemaDraft, AjvInstance>();
  let compiler: SchemaCompiler | undefined;
  const metaInstance = (draft: SchemaDraft): AjvInstance => {
    let ajv = metaInstances.get(draft);
    if (ajv === undefined) {
      ajv = newAjv(draft, OPTIONS);
      metaInstances.set(draft, ajv);
    }
    return ajv;
  };
  return {
    metaSchemaErrors(schema, draft) {
      try {
        const validate = metaInstance(draft).getSchema(META_URI[draft]);
        if (validate === undefined) return [{ instancePath: '', keyword: '$schema', message: `no meta-schema for ${draft}` }];
        const root = withoutKey(schema, '$schema');
        if (validate(root) === true) return [];
        return (validate.errors ?? []).map(toMetaError);
      } catch (error) {
        return [{ instancePath: '', keyword: '$schema', message: error instanceof Error ? error.message : String(error) }];
      }
    },
    valueErrors(root, draft, pointer, value) {
      const whole = validateAt(root, draft, pointer, value);
      if (whole !== undefined) return whole;
      // The whole schema does not compile (a mistake elsewhere): try the subschema on its own, with the root's
      // definitions beside it so `#/$defs/...` references still resolve.
      const sub = valueAt(root, pointer);
      if (
        sub === undefined ||
        pointer === '' ||
        (typeof sub !== 'boolean' && (typeof sub !== 'object' || sub === null || Array.isArray(sub)))
      )
        return undefined;
      if (typeof sub === 'boolean') return sub ? [] : [{ instancePath: '', keyword: 'false schema', message: 'no value is allowed' }];
      const standalone: JsonObject = { ...sub };
      for (const key of ['$defs', 'definitions'] as const) {
        const defs = root[key];
        if (defs !== undefined && !Object.hasOwn(sub, key)) standalone[key] = defs;
      }
      return validateAt(standalone, draft, '', value);
    },
    compileProblem(schema) {
      compiler ??= createSchemaCompiler({ maxDiagnostics: 1 });
      const compiled = compiler.compile(schema);
      return compiled.ok ? undefined : compiled.diagnostic;
    },
  };
}

/** Validates `value` against the subschema at `pointer` of `root`; undefined when that cannot be compiled. */
function validateAt(root: JsonObject, draft: SchemaDraft, pointer: string, value: JsonValue): ValueError[] | undefined {
  try {
    // Not validated against the meta-schema here: a mistake elsewhere in the schema (the validity layer reports
    // it) must not hide whether this value fits its own subschema.
    const ajv = newAjv(draft, VALUE_OPTIONS);
    const copy = withoutKey(root, '$schema');
    const id = typeof copy.$id === 'string' && copy.$id !== '' ? copy.$id.replace(/#$/, '') : ROOT_KEY;
    ajv.addSchema(copy, id === ROOT_KEY ? ROOT_KEY : undefined);
    const validate = ajv.getSchema(`${id}#${fragmentOf(pointer)}`);
    if (validate === undefined) return undefined;
    if (validate(value) === true) return [];
    return (validate.errors ?? []).map((error) => ({
      instancePath: error.instancePath,
      keyword: error.keyword,
      message: error.message ?? `fails "${error.keyword}"`,
    }));
  } catch {
    return undefined;
  }
}

function toMetaError(error: ErrorObject): MetaSchemaError {
  return { instancePath: error.instancePath, keyword: error.keyword, message: error.message ?? `fails "${error.keyword}"` };
}

/** A shallow copy without `key` (own data properties only: `__proto__` stays plain data). */
function withoutKey(object: JsonObject, key: string): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
}
