/** A `$ref` to a name the schema does not define but every object inherits is dangling: the tool is unusable, with a message. */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/core/shared/json.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

const compiler = createSchemaCompiler();
const parse = (text: string): JsonObject => JSON.parse(text) as JsonObject;

describe('a $ref to an inherited name is a dangling reference', () => {
  it.each([
    ['#/$defs/constructor', '{"type":"object","properties":{"a":{"$ref":"#/$defs/constructor"}},"$defs":{}}'],
    [
      '#/definitions/toString',
      '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"$ref":"#/definitions/toString"}},"definitions":{}}',
    ],
    ['__proto__', '{"type":"object","properties":{"a":{"$ref":"__proto__"}}}'],
    ['constructor', '{"type":"object","properties":{"a":{"$ref":"constructor"}}}'],
    ['#/properties/a/valueOf', '{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a/valueOf"}}}'],
  ])('%s', (ref, text) => {
    const compiled = compiler.compile(parse(text));
    expect(compiled.ok).toBe(false);
    if (compiled.ok) return;
    expect(compiled.diagnostic).toMatchObject({
      code: 'tool_schema_unusable',
      path: '',
      message: `The tool schema cannot be used: $ref ${JSON.stringify(ref)} does not resolve to any schema (dangling reference).`,
      details: { reason: 'dangling_ref', ref },
    });
  });

  it('a definition the schema names so is used as defined', () => {
    const compiled = compiler.compile(
      parse(
        '{"type":"object","properties":{"a":{"$ref":"#/$defs/constructor"},"b":{"$ref":"#/$defs/__proto__"}},"$defs":{"constructor":{"type":"string"},"__proto__":{"type":"integer"}}}',
      ),
    );
    if (!compiled.ok) throw new Error(compiled.diagnostic.message);
    expect(compiled.validate({ a: 'x', b: 1 })).toEqual([]);
    expect(compiled.validate({ a: 1, b: 'x' }).map((d) => [d.code, d.path])).toEqual([
      ['wrong_type', '/a'],
      ['wrong_type', '/b'],
    ]);
  });
});
