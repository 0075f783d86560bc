/**
 * The documented limits (docs/rule.md "Limits"), at their edges: schemas over the size, depth or member bound are
 * refused with `tool_schema_unusable` and a message naming the limit, through both schema sources (a schema
 * directory and the registry); records at the largest configurable nesting depth go through the whole path.
 */
import { Buffer } from 'node:buffer';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectWithinPasses } from '../budget.js';
import { ToolSchemaSource } from '../../src/adapters/registry/client.js';
import { loadSchemaDir } from '../../src/adapters/files/schema-dir.js';
import { normalizeMain } from '../../src/app/commands/normalize-main.js';
import { UsageError } from '../../src/app/commands/usage.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import type { JsonObject, JsonValue } from '../../src/core/shared/json.js';
import { DEFAULT_NORMALIZE_OPTIONS } from '../../src/core/rule/normalize.js';
import { NO_EXEMPTIONS, type PipelineOptions } from '../../src/core/pipeline.js';
import { measureDepth } from '../../src/core/shared/json.js';
import { checkSchemaLimits, DEFAULT_SCHEMA_LIMITS } from '../../src/core/schema/limits.js';
import { compileTool } from '../../src/core/schema/tool.js';
import { createSchemaCompiler, type SchemaCompiler } from '../../src/core/validation/validate.js';
import { nestedText } from './arbitraries.js';
import { evaluateRecord, outputMessage, checkOutcome } from './harness.js';
import { loadCampaignTools } from './tools.js';

const compiler = createSchemaCompiler();
const MiB = 1_048_576;

/** A valid schema whose compact JSON is exactly `bytes` long (padded through its description). */
function schemaOfSize(bytes: number): JsonObject {
  const base = { type: 'object', description: '' };
  return { ...base, description: 'x'.repeat(bytes - JSON.stringify(base).length) };
}

/** A valid schema nesting `depth` JSON levels: properties/a/properties/a/... */
function schemaOfDepth(depth: number): JsonObject {
  // Each `{"type":"object","properties":{"a": ...}}` adds two levels; the innermost `{}` is one.
  let schema: JsonObject = {};
  let levels = 1;
  while (levels + 2 <= depth) {
    schema = { type: 'object', properties: { a: schema } };
    levels += 2;
  }
  // `not` adds exactly one level.
  return levels < depth ? { not: schema } : schema;
}

function unusableMessage(schema: JsonObject, c: SchemaCompiler = compiler): string {
  const tool = compileTool({ name: 'big', description: undefined, inputSchema: schema }, c);
  if (tool.usable) throw new Error('expected the schema to be refused');
  expect(tool.diagnostic.code).toBe('tool_schema_unusable');
  return tool.diagnostic.message;
}

describe('schema limits (src/core/schema/limits.ts)', () => {
  it('defaults: 1 MiB, 128 levels, 10 000 members, 20 000 values', () => {
    expect(DEFAULT_SCHEMA_LIMITS).toEqual({ maxSchemaBytes: MiB, maxSchemaDepth: 128, maxSchemaMembers: 10_000, maxSchemaNodes: 20_000 });
  });

  it('measures the compact JSON size in UTF-8 bytes, escapes included', () => {
    const schema = JSON.parse('{"description":"é\\n\\u0000😀","enum":[1e21,-0,true,null,"__proto__"],"__proto__":{"a":[]}}') as JsonObject;
    const size = Buffer.byteLength(JSON.stringify(schema));
    expect(checkSchemaLimits(schema, { ...DEFAULT_SCHEMA_LIMITS, maxSchemaBytes: size })).toBeUndefined();
    expect(checkSchemaLimits(schema, { ...DEFAULT_SCHEMA_LIMITS, maxSchemaBytes: size - 1 })?.limit).toBe('schema_too_large');
  });

  it('a schema of exactly 1 MiB compiles; one byte more is refused with a message naming the limit', () => {
    const exact = schemaOfSize(MiB);
    expect(JSON.stringify(exact).length).toBe(MiB);
    expect(compileTool({ name: 'exact', description: undefined, inputSchema: exact }, compiler).usable).toBe(true);
    expect(unusableMessage(schemaOfSize(MiB + 1))).toBe(
      'The schema of tool "big" cannot be used: it is at least 1048577 bytes of JSON, more than the schema size limit of 1048576 bytes.',
    );
  });

  it('a schema 128 levels deep compiles; 129 levels and thousands of levels are refused, not reported as $ref cycles', () => {
    expect(measureDepth(schemaOfDepth(128), 1_000)).toBe(128);
    expect(measureDepth(schemaOfDepth(129), 1_000)).toBe(129);
    expect(compileTool({ name: 'deep', description: undefined, inputSchema: schemaOfDepth(128) }, compiler).usable).toBe(true);
    for (const depth of [129, 5_000]) {
      expect(unusableMessage(schemaOfDepth(depth))).toMatch(
        /nests arrays\/objects more than 128 levels deep, beyond the schema depth limit of 128 levels\.$/,
      );
    }
  });

  it('an enum of 10 000 values compiles; 10 001 values are refused (a draft-07 enum is checked pairwise by ajv)', () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const draft07 = (n: number): JsonObject => ({
      $schema: 'http://json-schema.org/draft-07/schema#',
      properties: { e: { enum: values(n) } },
    });
    // A budget of about 2 s of CPU on the development machine: ajv compares a draft-07 enum's values pairwise.
    expectWithinPasses(
      () => {
        expect(compileTool({ name: 'e', description: undefined, inputSchema: draft07(10_000) }, compiler).usable).toBe(true);
      },
      650,
      'compiling an enum of 10 000 values',
    );
    expect(unusableMessage(draft07(10_001))).toMatch(
      /has 10001 members, more than the schema limit of 10000 members per array or object\.$/,
    );
    const manyProperties = Object.fromEntries(values(10_001).map((name) => [name, { type: 'string' }]));
    expect(unusableMessage({ type: 'object', properties: manyProperties })).toMatch(/10001 members/);
  });

  it('refuses before compiling: the compiler is never called for a schema over a limit', () => {
    let calls = 0;
    const spy: SchemaCompiler = {
      compile: (schema) => {
        calls += 1;
        return compiler.compile(schema);
      },
    };
    unusableMessage(schemaOfSize(2 * MiB), spy);
    unusableMessage(schemaOfDepth(10_000), spy);
    expect(calls).toBe(0);
    expect(compileTool({ name: 'ok', description: undefined, inputSchema: { type: 'object' } }, spy).usable).toBe(true);
    expect(calls).toBe(1);
  });

  it('a cyclic structure built in code is reported as too deep instead of looping', () => {
    const cyclic: JsonObject = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(checkSchemaLimits(cyclic)?.limit).toBe('schema_too_deep');
  });
});

describe('both schema sources go through the limits', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('a schema directory reports the oversized file by name; its tool is unusable, the others keep working', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fuzz-limits-'));
    dirs.push(dir);
    await writeFile(join(dir, 'huge.json'), JSON.stringify({ name: 'huge', inputSchema: schemaOfSize(MiB + 10) }));
    await writeFile(join(dir, 'deep.json'), JSON.stringify(schemaOfDepth(300)));
    await writeFile(join(dir, 'fine.json'), JSON.stringify({ name: 'fine', inputSchema: { type: 'object' } }));
    const loaded = await loadSchemaDir(dir, compiler);
    expect(loaded.problems.map((p) => p.file).sort()).toEqual(['deep.json', 'huge.json']);
    expect(loaded.problems.find((p) => p.file === 'huge.json')?.message).toMatch(/schema size limit of 1048576 bytes/);
    expect(loaded.problems.find((p) => p.file === 'deep.json')?.message).toMatch(/schema depth limit of 128 levels/);
    expect(loaded.tools.get('huge')?.usable).toBe(false);
    expect(loaded.tools.get('deep')?.usable).toBe(false);
    expect(loaded.tools.get('fine')?.usable).toBe(true);

    const options: PipelineOptions = {
      limits: { maxRecordBytes: MiB, maxDepth: 64 },
      normalize: DEFAULT_NORMALIZE_OPTIONS,
      entityExemptions: NO_EXEMPTIONS,
    };
    const [evaluation] = evaluateRecord(Buffer.from('{"tool":"huge","id":"1","arguments":{}}'), (name) => loaded.tools.get(name), options);
    if (evaluation === undefined) throw new Error('no output');
    checkOutcome(evaluation, outputMessage(evaluation));
    expect(evaluation.record.disposition).toBe('rejected');
    expect(evaluation.record.errors[0]?.message).toMatch(/schema size limit/);
  });

  it('a registry document over the limit gives an unusable tool that keeps its schema identity', async () => {
    const document = { ...schemaOfSize(MiB + 100), 'x-tool': { name: 'huge' } };
    const fakeFetch: typeof fetch = () =>
      Promise.resolve(
        new Response(JSON.stringify({ subject: 'huge', version: 4, id: 77, schemaType: 'JSON', schema: JSON.stringify(document) }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
      );
    const source = new ToolSchemaSource(
      {
        url: 'http://registry.invalid/apis/ccompat/v7',
        timeoutMs: 1_000,
        subjectTemplate: '{tool}',
        cacheTtlMs: 60_000,
        negativeTtlMs: 1_000,
        maxRetries: 0,
      },
      compiler,
      { fetch: fakeFetch },
    );
    const tool = await source.get('huge');
    expect(tool?.usable).toBe(false);
    expect(tool?.identity).toEqual({ subject: 'huge', version: 4, id: 77 });
    if (tool?.usable !== false) throw new Error('unreachable');
    expect(tool.diagnostic.message).toMatch(
      /^The schema of tool "huge" cannot be used: it is at least \d+ bytes of JSON, more than the schema size limit of 1048576 bytes\.$/,
    );
    expect(tool.diagnostic.details).toMatchObject({ reason: 'schema_too_large', limit: MiB });
  });
});

describe('nesting depth: the largest configurable bound is one the whole path can walk', () => {
  const env = { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://localhost:8081' };

  it('MAX_DEPTH accepts 1000 and refuses 1001 (it accepted 10 000, which crashed on deep records)', () => {
    expect(loadConfig({ ...env, MAX_DEPTH: '1000' }).pipeline.limits.maxDepth).toBe(1_000);
    expect(() => loadConfig({ ...env, MAX_DEPTH: '1001' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, MAX_DEPTH: '10000' })).toThrow(/MAX_DEPTH: must be an integer from 1 to 1000/);
  });

  it('normalize --max-depth above 1000 is a usage error', async () => {
    await expect(normalizeMain(['--schemas', '.', '--max-depth', '1001'])).rejects.toThrow(UsageError);
    await expect(normalizeMain(['--schemas', '.', '--max-depth', '1001'])).rejects.toThrow(
      '--max-depth: must be an integer from 1 to 1000, got "1001"',
    );
  });

  it('records nested to the largest configurable depth, in every place, end well (no stack overflow)', async () => {
    const { lookup } = await loadCampaignTools();
    const options: PipelineOptions = {
      limits: { maxRecordBytes: MiB, maxDepth: 1_000 },
      normalize: { ...DEFAULT_NORMALIZE_OPTIONS, deep: true, maxDepth: 1_000 },
      entityExemptions: NO_EXEMPTIONS,
    };
    // The recursive `tree` schema makes ajv recurse once per level too.
    let tree: JsonValue = { name: '&amp;' };
    for (let level = 0; level < 498; level += 1) tree = { name: 'n', children: [tree] };
    const records = [
      JSON.stringify({ tool: 'tree', id: 't', arguments: tree }),
      JSON.stringify({ tool: 'tree', id: 't', arguments: JSON.stringify(tree) }),
      `{"tool":"search_issues","arguments":{"query":"q","filters":${nestedText(997, 'mixed')}}}`,
      `{"tool":"search_issues","arguments":{"query":"q","labels":${JSON.stringify(nestedText(998, 'array'))}}}`,
      `{"tool":"self_ref","arguments":{"labels":${JSON.stringify(nestedText(998, 'array'))}}}`,
    ];
    for (const text of records) {
      const [evaluation] = evaluateRecord(Buffer.from(text), lookup, options);
      if (evaluation === undefined) throw new Error('no output');
      checkOutcome(evaluation, outputMessage(evaluation));
      expect(evaluation.record.errors.map((e) => e.code)).not.toContain('record_too_deep');
    }
  });
});
