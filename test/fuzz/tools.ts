/**
 * The tools the envelope fuzzing calls: the five example tools (loaded as the `normalize` command loads them)
 * and schemas chosen to stress the pipeline: recursion, `$ref` cycles, dangling references, prototype keys as
 * parameter names, every format, patterns, a huge enum, combinators, numbers at the edges, draft-06, an invalid
 * schema, and two over the schema limits.
 */
import { fileURLToPath } from 'node:url';
import { loadSchemaDir } from '../../src/adapters/files/schema-dir.js';
import type { JsonObject } from '../../src/core/shared/json.js';
import { compileTool, type CompiledTool } from '../../src/core/schema/tool.js';
import { createSchemaCompiler, type SchemaCompiler } from '../../src/core/validation/validate.js';
import { nestedText } from './arbitraries.js';

/** Parsed from text, so `__proto__` keys are own data properties, as in a schema file. */
function schema(text: string): JsonObject {
  return JSON.parse(text) as JsonObject;
}

const FORMATS = ['url', 'uri', 'email', 'hostname', 'date-time', 'ipv6', 'regex', 'uuid', 'uri-template'] as const;

export const EXTRA_SCHEMAS: Readonly<Record<string, JsonObject>> = {
  tree: schema(
    '{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array",' +
      '"items":{"$ref":"#/$defs/node"}}},"additionalProperties":false}},"$ref":"#/$defs/node"}',
  ),
  self_ref: schema('{"type":"object","properties":{"next":{"$ref":"#"},"value":{"type":["string","null"]},"labels":{"type":"array"}}}'),
  ref_cycle: schema(
    '{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}}}',
  ),
  dangling_ref: schema('{"type":"object","properties":{"x":{"$ref":"#/$defs/nowhere"}}}'),
  proto_keys: schema(
    '{"type":"object","properties":{"__proto__":{"type":"array","items":{"type":"string"}},"constructor":{"type":"object",' +
      '"properties":{"prototype":{"type":"object"}}},"prototype":{"type":"string"},"toString":{"type":"number"},' +
      '"polluted":{"type":"boolean"}},"required":["__proto__"],"additionalProperties":false}',
  ),
  formats: {
    type: 'object',
    properties: Object.fromEntries(FORMATS.map((format) => [format.replace('-', '_'), { type: 'string', format }])),
  },
  patterns: schema(
    '{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z0-9_-]{1,64}$"},' +
      '"kind":{"type":"string","pattern":"^([a-z]+-)*[a-z]+$"}},"patternProperties":{"^x_[a-z]+$":{"type":"array"},' +
      '"\\\\p{L}+":{"type":["object","string"]}},"propertyNames":{"pattern":"^[^\\\\s]*$"}}',
  ),
  huge_enum: {
    type: 'object',
    properties: { choice: { enum: Array.from({ length: 10_000 }, (_, i) => `choice-${i}`) }, labels: { type: 'array' } },
  },
  combinators: schema(
    '{"type":"object","properties":{"items":{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"null"}]},' +
      '"meta":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object",' +
      '"properties":{"kind":{"const":"b"}}}]},"choice":{"not":{"enum":["forbidden"]}},"labels":{"type":"array",' +
      '"contains":{"type":"string"},"uniqueItems":true}},"dependentRequired":{"items":["meta"]},"if":{"required":["kind"]},' +
      '"then":{"required":["meta"]},"unevaluatedProperties":false,"minProperties":1,"maxProperties":5}',
  ),
  numbers: schema(
    '{"type":"object","properties":{"count":{"type":"integer","minimum":-1e308,"maximum":1e308},' +
      '"ratio":{"type":"number","multipleOf":0.01,"exclusiveMaximum":1e308},"value":{"type":"number","multipleOf":1e-300}}}',
  ),
  draft06: schema(
    '{"$schema":"http://json-schema.org/draft-06/schema#","type":"object","definitions":{"l":{"type":"array"}},' +
      '"properties":{"labels":{"$ref":"#/definitions/l"},"query":{"type":"string"}}}',
  ),
  invalid_schema: schema('{"type":"object","properties":{"x":{"type":"nonsense","minLength":-1}}}'),
  oversized: { type: 'object', description: 'x'.repeat(1_048_576), properties: { query: { type: 'string' } } },
  overdeep: schema(
    `{"type":"object","properties":{"meta":${nestedText(200, 'object', '{"type":"object"}').replaceAll('"__proto__"', '"properties"')}}}`,
  ),
};

export interface CampaignTools {
  readonly compiler: SchemaCompiler;
  readonly tools: ReadonlyMap<string, CompiledTool>;
  /** A Map lookup: tool names come from models, so `constructor` must find nothing. */
  readonly lookup: (name: string) => CompiledTool | undefined;
}

export async function loadCampaignTools(): Promise<CampaignTools> {
  const compiler = createSchemaCompiler();
  const examples = await loadSchemaDir(fileURLToPath(new URL('../../examples/tools', import.meta.url)), compiler);
  const tools = new Map<string, CompiledTool>(examples.tools);
  for (const [name, inputSchema] of Object.entries(EXTRA_SCHEMAS)) {
    tools.set(name, compileTool({ name, description: undefined, inputSchema }, compiler));
  }
  return { compiler, tools, lookup: (name) => tools.get(name) };
}
