/**
 * Validation of (normalized) tool-call arguments against the tool's JSON Schema, with every failure turned into
 * a {@link Diagnostic} an agent can act on: a stable code, the JSON Pointer of the offending value, a plain
 * message naming the parameter, a hint saying what to send instead, and machine-readable details.
 *
 * Pure: no I/O, no environment, no logging (ajv's logger is switched off), and neither the schema nor the
 * arguments are ever mutated (no coercion, no defaults, no removal of additional properties).
 *
 * This module holds the public entry point ({@link createSchemaCompiler}) and schema compilation: the Ajv
 * instances, draft selection by `$schema`, isolated compiles and `tool_schema_unusable` reasons. The rest lives in
 * diagnostics.ts (ajv errors to diagnostics), ajv-error-tree.ts, schema-index.ts (schema navigation,
 * `$ref` cycles), shared/text.ts (previews and phrasing) and url-format.ts (the linear-time `url` format).
 */
import { MissingRefError } from 'ajv';
import type { AnySchema, ErrorObject, FormatDefinition, ValidateFunction } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { preview, previewValue, truncate } from '../shared/text.js';
import { isJsonObject } from '../shared/json.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import { inheritedReference } from '../shared/schema-refs.js';
import { findRefCycle, maxSubschemasPerValue, SchemaIndex } from './schema-index.js';
import type { Diagnostic } from '../shared/types.js';
import { isUrl } from './url-format.js';
import { isDateTime } from './date-time-format.js';
import { runValidation, unusableDiagnostic } from './diagnostics.js';
import { AJV_OPTIONS } from './ajv-options.js';
import { validate07Schema, validate2020Schema } from './meta-validators.js';
import {
  compileLinearPattern,
  MAX_PATTERN_WORK_PER_CALL,
  PatternMeter,
  UnsupportedPatternError,
  type LinearPattern,
} from '../shared/patterns.js';
import { newAjv, type AjvDraft as Draft, type AjvInstance } from './ajv-instance.js';
import { restateProtoKeys } from './keywords/proto-keys.js';

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
export type CompiledValidator = { ok: true; validate(args: JsonValue): Diagnostic[] } | { ok: false; diagnostic: Diagnostic };

/** Options of {@link createSchemaCompiler}. */
export interface SchemaCompilerOptions {
  /**
   * The most diagnostics one `validate` call returns (default 20, must be a positive integer). ajv runs with
   * `allErrors` so an agent can fix every problem in one retry; the cap keeps the rejected record small when a
   * payload is wrong everywhere. Over the cap, the first `maxDiagnostics - 1` are kept, in order, and the last is
   * `more_errors`, saying how many more were found (with a cap of 1, only the first problem is returned).
   */
  maxDiagnostics?: number;
}

export const DEFAULT_MAX_DIAGNOSTICS = 20;

/** The `$schema` URIs we accept; a schema without `$schema` is read as 2020-12 (MCP's default). */
export const SUPPORTED_DRAFTS = ['2020-12', 'draft-07', 'draft-06'] as const;

const AJV_DATE_TIME = fullFormats['date-time'] as FormatDefinition<string>;

/**
 * Most subschemas a tool schema may apply to one value ({@link maxSubschemasPerValue}). ajv runs each of them
 * for every value they apply to: 10,000 simple ones keep a value to a fraction of a millisecond, far above real
 * tool schemas (a handful), while a chain of `allOf: [$ref A, $ref A]` crosses it at 12 links (each link triples
 * the count and more; RELIABILITY.md "Hostile input" has the figures).
 */
export const MAX_SUBSCHEMAS_PER_VALUE = 10_000;

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
  // One meter per compiler: validation is synchronous, so it is reset at the start of each call.
  const meter = new PatternMeter(MAX_PATTERN_WORK_PER_CALL);
  const regExp = Object.assign(
    (pattern: string): LinearPattern & { toString(): string } => {
      const compiled = compileLinearPattern(pattern, meter);
      // ajv shares compiled patterns in its scope by this key.
      return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/u` };
    },
    { code: 'linearPattern' },
  );
  const ajvOptions = { ...AJV_OPTIONS, code: { ...AJV_OPTIONS.code, regExp } };
  // Equality that treats own `valueOf`/`toString` keys as data, `uniqueItems` hashed in one pass (ajv's compares
  // untyped items pairwise: 100,000 numbers took 17 s), and `multipleOf` exact in decimal (ajv-instance.ts).
  const instances: Record<Draft, AjvInstance> = {
    '2020-12': newAjv('2020-12', ajvOptions),
    'draft-07': newAjv('draft-07', ajvOptions),
  };
  useGeneratedMetaValidator(instances['2020-12'], validate2020Schema);
  useGeneratedMetaValidator(instances['draft-07'], validate07Schema);
  // ajv-formats' `url` regex backtracks quadratically on untrusted values (see isUrl): same language, linear time.
  instances['2020-12'].addFormat('url', { type: 'string', validate: isUrl });
  instances['draft-07'].addFormat('url', { type: 'string', validate: isUrl });
  // ajv-formats' `date-time` splits at a regular expression and runs two more: the same strings, one pass. Its
  // `compare` stays, for `formatMinimum` and `formatMaximum`.
  const { compare } = AJV_DATE_TIME;
  const dateTime: FormatDefinition<string> = { type: 'string', validate: isDateTime, ...(compare === undefined ? {} : { compare }) };
  instances['2020-12'].addFormat('date-time', dateTime);
  instances['draft-07'].addFormat('date-time', dateTime);

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
        // ajv would take a member every object inherits for these, and accept anything there.
        const inherited = inheritedReference(root);
        if (inherited !== undefined) {
          return unusable(
            `The tool schema cannot be used: $ref ${preview(inherited)} does not resolve to any schema (dangling reference).`,
            {
              reason: 'dangling_ref',
              ref: inherited,
              draft,
            },
          );
        }
        const perValue = maxSubschemasPerValue(root, MAX_SUBSCHEMAS_PER_VALUE);
        if (perValue > MAX_SUBSCHEMAS_PER_VALUE) {
          return unusable(
            `The tool schema applies more than ${MAX_SUBSCHEMAS_PER_VALUE} subschemas to one value (its $refs share subschemas in ` +
              'chains such as allOf: [$ref A, $ref A], which doubles the work at every link), so validating a call could block ' +
              'for seconds to hours.',
            { reason: 'too_many_subschemas', limit: MAX_SUBSCHEMAS_PER_VALUE, draft },
          );
        }
        // ajv skips `__proto__` keys: it compiles the same schema said with keys it reads.
        const stated = restateProtoKeys(root);
        const validateFn = compileIsolated(instances[draft], stated);
        const index = new SchemaIndex(stated);
        return {
          ok: true,
          validate: (args: JsonValue): Diagnostic[] => {
            meter.reset();
            return runValidation(validateFn, index, args, maxDiagnostics);
          },
        };
      } catch (error) {
        return unusable(...describeCompileError(error, draft));
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Draft selection and compilation

function normalizeSchemaUri(uri: string): string {
  return uri
    .trim()
    .replace(/#$/, '')
    .replace(/^http:/, 'https:');
}

const DRAFT_BY_URI = new Map<string, Draft>([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  // draft-06 is a subset of draft-07 (07 only added keywords), so the draft-07 instance validates it faithfully.
  ['https://json-schema.org/draft-06/schema', 'draft-07'],
]);

function selectDraft($schema: JsonValue | undefined): { ok: true; draft: Draft } | { ok: false; failure: CompiledValidator } {
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

/** A meta-schema validator generated at build time (meta-validators.ts): ajv's standalone code. */
type MetaValidator = ((schema: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Checks schemas against the instance's default meta-schema with the validator generated from it, where ajv
 * would compile that meta-schema on the first compile (about 0.1 s at every start). The same steps and message as
 * ajv's own `validateSchema`; a schema naming its own `$schema` (never one from `compile`, which drops it) takes
 * ajv's way.
 */
function useGeneratedMetaValidator(ajv: AjvInstance, validateMeta: MetaValidator): void {
  const own = ajv.validateSchema.bind(ajv);
  ajv.validateSchema = (schema: AnySchema, throwOrLogError?: boolean): boolean | Promise<unknown> => {
    if (typeof schema !== 'object' || schema.$schema !== undefined) return own(schema, throwOrLogError);
    const valid = validateMeta(schema);
    ajv.errors = validateMeta.errors ?? null;
    if (!valid && throwOrLogError === true) throw new Error(`schema is invalid: ${ajv.errorsText()}`);
    return valid;
  };
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
  if (error instanceof UnsupportedPatternError) {
    return [
      `The tool schema cannot be used: its ${error.message}, which the linear-time pattern engine cannot run (patterns run in time ` +
        'linear in the value, so backreferences and lookaround are refused; rewrite the pattern without them).',
      { reason: 'pattern_unsupported', pattern: truncate(error.pattern, 1000), ...draftDetails },
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
