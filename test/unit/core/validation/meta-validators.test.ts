import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Ajv, type ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, metaValidatorsSource } from '../../../../scripts/meta-validators.js';
import { AJV_OPTIONS } from '../../../../src/core/validation/ajv-options.js';
import { validate07Schema, validate2020Schema } from '../../../../src/core/validation/meta-validators.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';
import type { JsonObject, JsonValue } from '../../../../src/core/shared/json.js';

const addFormats = formatsModule.default;

/** ajv compiling its meta-schemas itself, as it does without the generated validators. */
function freshInstances(): { '2020-12': Ajv2020; 'draft-07': Ajv } {
  const a2020 = new Ajv2020(AJV_OPTIONS);
  const a07 = new Ajv(AJV_OPTIONS);
  addFormats(a2020);
  addFormats(a07);
  return { '2020-12': a2020, 'draft-07': a07 };
}

type MetaValidator = ((schema: unknown) => boolean) & { errors?: ErrorObject[] | null };
const GENERATED: Record<'2020-12' | 'draft-07', MetaValidator> = { '2020-12': validate2020Schema, 'draft-07': validate07Schema };

const essentials = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map(({ instancePath, schemaPath, keyword, params, message }) => ({ instancePath, schemaPath, keyword, params, message }));

/**
 * The keys ajv's own equality (`fast-deep-equal`) reads as methods or identities rather than data: it calls an own
 * `toString`/`valueOf` and compares `constructor`. The generated validators compare them as data.
 */
const METHOD_KEYS = new Set(['constructor', 'toString', 'valueOf', '__proto__']);
const RENAMED = 'renamed-';

/** The schema with every method-named key renamed, so that ajv's own validation is a sound oracle for it. */
function methodKeysRenamed(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(methodKeysRenamed);
  const renamed: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(renamed, METHOD_KEYS.has(key) ? `${RENAMED}${key}` : key, {
      value: methodKeysRenamed(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return renamed;
}

/** An error path of the renamed schema, read as a path of the original. */
const originalPath = (path: string): string =>
  path
    .split('/')
    .map((segment) =>
      segment.startsWith(RENAMED) && METHOD_KEYS.has(segment.slice(RENAMED.length)) ? segment.slice(RENAMED.length) : segment,
    )
    .join('/');

const typeNames = fc.constantFrom('string', 'array', 'object', 'number', 'integer', 'boolean', 'null', 'str', 7);
const json: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
const schemaLike: fc.Arbitrary<JsonValue> = fc.letrec<{ s: JsonValue }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.oneof(typeNames, fc.array(typeNames, { maxLength: 3 })) }, { requiredKeys: [] }),
    fc.record(
      {
        properties: fc.dictionary(fc.string({ maxLength: 3 }), tie('s'), { maxKeys: 3 }),
        required: fc.oneof(fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), json),
        items: fc.oneof(tie('s'), json),
        anyOf: fc.oneof(fc.array(tie('s'), { maxLength: 2 }), json),
        enum: fc.oneof(fc.array(json, { maxLength: 3 }), json),
        minLength: fc.oneof(fc.integer({ min: -2, max: 5 }), json),
        pattern: fc.oneof(fc.constantFrom('^a+$', '(', '[', 'a{2}'), json),
        $ref: fc.constantFrom('#', '#/$defs/a', 'not a uri ::', '#/definitions/x'),
        $defs: fc.dictionary(fc.constantFrom('a', 'b'), tie('s'), { maxKeys: 2 }),
        format: fc.oneof(fc.constantFrom('date-time', 'email', 'nope'), json),
      },
      { requiredKeys: [] },
    ),
    fc.boolean(),
    json,
  ),
})).s;

describe('generated meta-schema validators', () => {
  it('are what a fresh generation gives (run `npx tsx scripts/meta-validators.ts` after an ajv upgrade or an options change)', async () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await metaValidatorsSource());
  });

  it("decide and report every schema as ajv's own meta-schema validation does, own method-named keys read as data", () => {
    const fresh = freshInstances();
    fc.assert(
      fc.property(schemaLike, (schema) => {
        for (const draft of ['2020-12', 'draft-07'] as const) {
          const validate = GENERATED[draft];
          const ajv = fresh[draft];
          const expected = ajv.validate(ajv.defaultMeta() as string, methodKeysRenamed(schema));
          const expectedErrors = essentials(ajv.errors).map((error) => ({ ...error, instancePath: originalPath(error.instancePath) }));
          expect(validate(schema)).toBe(expected);
          expect(essentials(validate.errors)).toEqual(expectedErrors);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('read own toString, valueOf and constructor keys in enum values as data, where ajv throws or misses a repeat', () => {
    const validate = GENERATED['draft-07'];
    expect(validate({ enum: [{}, { toString: '' }] })).toBe(true);
    expect(validate({ enum: [{ valueOf: 1 }, {}] })).toBe(true);
    expect(validate({ enum: [{ constructor: {} }, { constructor: {} }] })).toBe(false);
    expect(essentials(validate.errors)).toEqual([expect.objectContaining({ instancePath: '/enum', keyword: 'uniqueItems' })]);
    const compiled = createSchemaCompiler().compile({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { enum: [{}, { toString: '' }] } },
    });
    expect(compiled.ok).toBe(true);
  });

  it('give a bad schema the same tool_schema_unusable message as ajv compiling its meta-schema itself', () => {
    const compiler = createSchemaCompiler();
    const fresh = freshInstances();
    const bad: JsonObject[] = [
      { type: 'object', properties: { a: { type: 'strin' } } },
      { type: 'object', required: 'a' },
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { minLength: -1 } } },
      { type: 'object', properties: { a: { enum: 'x' } }, additionalProperties: 3 },
    ];
    for (const schema of bad) {
      const draft = schema.$schema === undefined ? '2020-12' : 'draft-07';
      const root: JsonObject = { ...schema };
      delete root.$schema;
      let message = '';
      try {
        fresh[draft].compile(root);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^schema is invalid: /);
      const compiled = compiler.compile(schema);
      expect(compiled.ok).toBe(false);
      if (!compiled.ok) expect(compiled.diagnostic.details?.error).toBe(message);
    }
  });
});
