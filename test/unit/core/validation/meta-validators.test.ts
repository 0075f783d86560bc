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

  it("decide and report every schema as ajv's own meta-schema validation does", () => {
    const fresh = freshInstances();
    fc.assert(
      fc.property(schemaLike, (schema) => {
        for (const draft of ['2020-12', 'draft-07'] as const) {
          const validate = GENERATED[draft];
          const ajv = fresh[draft];
          const expected = ajv.validate(ajv.defaultMeta() as string, schema);
          const expectedErrors = essentials(ajv.errors);
          expect(validate(schema)).toBe(expected);
          expect(essentials(validate.errors)).toEqual(expectedErrors);
        }
      }),
      { numRuns: 3000 },
    );
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
