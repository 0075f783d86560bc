/** A parameter (or any property) named `__proto__` is validated against its declared schema, as any other. */
import { describe, expect, it } from 'vitest';
import { processRecord } from '../../../../src/core/pipeline.js';
import { compileTool } from '../../../../src/core/schema/tool.js';
import type { JsonObject, JsonValue } from '../../../../src/core/shared/json.js';
import type { Diagnostic } from '../../../../src/core/shared/types.js';
import { restateProtoKeys } from '../../../../src/core/validation/keywords/proto-keys.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

const compiler = createSchemaCompiler();
/** Parsed from text, so `__proto__` is an own key, as in a schema file or registry response. */
const parse = (text: string): JsonObject => JSON.parse(text) as JsonObject;

function check(schemaText: string): (argsText: string) => [string, string][] {
  const compiled = compiler.compile(parse(schemaText));
  if (!compiled.ok) throw new Error(compiled.diagnostic.message);
  return (argsText) => compiled.validate(parse(argsText)).map((d: Diagnostic) => [d.code, d.path]);
}

describe('a __proto__ property is checked against its schema', () => {
  it('a top-level parameter: its type, and required', () => {
    const validate = check('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}');
    expect(validate('{"__proto__":"x"}')).toEqual([]);
    expect(validate('{"__proto__":5}')).toEqual([['wrong_type', '/__proto__']]);
    expect(validate('{}')).toEqual([['missing_required', '/__proto__']]);
  });

  it('is declared, not unknown, under additionalProperties: false (with few or many properties) and unevaluatedProperties', () => {
    const few = check('{"type":"object","properties":{"__proto__":{"type":"array"},"a":{}},"additionalProperties":false}');
    expect(few('{"__proto__":[]}')).toEqual([]);
    expect(few('{"__proto__":{}}')).toEqual([['wrong_type', '/__proto__']]);
    expect(few('{"__proto__":[],"b":1}')).toEqual([['unknown_property', '/b']]);
    const names = Array.from({ length: 10 }, (_, i) => `"p${String(i)}":{}`).join(',');
    const many = check(`{"type":"object","properties":{"__proto__":{"type":"array"},${names}},"additionalProperties":false}`);
    expect(many('{"__proto__":[],"p3":1}')).toEqual([]);
    expect(many('{"__proto__":1}')).toEqual([['wrong_type', '/__proto__']]);
    const unevaluated = check('{"type":"object","properties":{"__proto__":{"const":1}},"unevaluatedProperties":false}');
    expect(unevaluated('{"__proto__":1}')).toEqual([]);
    expect(unevaluated('{"__proto__":2}')).toEqual([['not_const', '/__proto__']]);
  });

  it('nested, and beside a pattern of its own', () => {
    const validate = check(
      '{"type":"object","properties":{"o":{"type":"object","properties":{"__proto__":{"type":"integer"}}}},' +
        '"patternProperties":{"^__proto__$":{"minimum":0}}}',
    );
    expect(validate('{"o":{"__proto__":1}}')).toEqual([]);
    expect(validate('{"o":{"__proto__":"x"}}')).toEqual([['wrong_type', '/o/__proto__']]);
    expect(validate('{"__proto__":-1}')).toEqual([['below_minimum', '/__proto__']]);
  });

  it('a pattern spelled __proto__ applies to the keys that contain it', () => {
    const validate = check('{"type":"object","patternProperties":{"__proto__":{"type":"string"}}}');
    expect(validate('{"a__proto__b":"x","__proto__":"y"}')).toEqual([]);
    expect(validate('{"a__proto__b":1}')).toEqual([['wrong_type', '/a__proto__b']]);
  });

  it('dependencies on __proto__ (dependentSchemas, and draft-07 dependencies in both forms)', () => {
    const schemas = check('{"type":"object","dependentSchemas":{"__proto__":{"required":["b"]}}}');
    expect(schemas('{"__proto__":1,"b":1}')).toEqual([]);
    expect(schemas('{"__proto__":1}')).toEqual([['missing_required', '/b']]);
    const draft07 = check(
      '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependencies":{"__proto__":["b"]},' +
        '"properties":{"__proto__":{"type":"string"}}}',
    );
    expect(draft07('{"__proto__":"x","b":1}')).toEqual([]);
    expect(draft07('{"__proto__":"x"}')).toEqual([['missing_required', '/b']]);
    expect(draft07('{"__proto__":1,"b":1}')).toEqual([['wrong_type', '/__proto__']]);
  });

  it('a $ref to #/properties/__proto__ still resolves', () => {
    const validate = check('{"type":"object","properties":{"__proto__":{"type":"string"},"copy":{"$ref":"#/properties/__proto__"}}}');
    expect(validate('{"copy":1}')).toEqual([['wrong_type', '/copy']]);
  });
});

describe('restateProtoKeys', () => {
  it('never writes its input, and returns a schema without __proto__ keys as it is', () => {
    const schema = parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"$defs":{"d":{"properties":{"__proto__":{}}}}}');
    const before = JSON.stringify(schema);
    const restated = restateProtoKeys(schema);
    expect(JSON.stringify(schema)).toBe(before);
    expect(restated).not.toBe(schema);
    expect(restated.patternProperties).toEqual({ '^__proto__$': { type: 'string' } });
    expect(Object.getPrototypeOf(restated)).toBe(Object.prototype);
    const plain = parse('{"type":"object","properties":{"a":{"items":[{"type":"string"}]}},"allOf":[{"required":["a"]}]}');
    expect(restateProtoKeys(plain)).toBe(plain);
  });
});

describe('the whole chain: RT-TOOL-8 and validation agree on a __proto__ parameter', () => {
  const tool = compileTool(
    {
      name: 'proto',
      description: undefined,
      inputSchema: parse(
        '{"type":"object","properties":{"__proto__":{"type":"array","items":{"type":"string"}}},"required":["__proto__"]}',
      ),
    },
    compiler,
  );
  const run = (text: string) => processRecord(text, (name) => (name === 'proto' ? tool : undefined))[0];

  it('JSON text is decoded, then its items checked', () => {
    expect(run('{"tool":"proto","arguments":{"__proto__":"[\\"a\\"]"}}')).toMatchObject({
      valid: true,
      repairs: [{ pointer: '/__proto__', kind: 'json_decoded' }],
    });
    const record = run('{"tool":"proto","arguments":{"__proto__":"[1]"}}');
    expect(record).toMatchObject({ valid: false });
    expect(record?.errors.map((e) => [e.code, e.path])).toEqual([['wrong_type', '/__proto__/0']]);
    expect(Object.getPrototypeOf(record?.arguments as JsonValue as object)).toBe(Object.prototype);
  });
});
