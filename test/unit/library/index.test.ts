/**
 * createNormalizer and normalizeToolArguments: tool definitions in every form, the errors a caller gets for bad
 * definitions and options, and input of every kind to normalize (never an exception).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSchemaDir } from '../../../src/adapters/files/schema-dir.js';
import { createSchemaCompiler } from '../../../src/core/validation/validate.js';
import { createNormalizer, normalizeToolArguments, type OutputRecord } from '../../../src/library/index.js';

const TOOLS_DIR = fileURLToPath(new URL('../../../examples/tools', import.meta.url));

/** examples/tools as the object form: file stem -> definition (one of them a bare schema). */
function exampleTools(): Record<string, object> {
  return Object.fromEntries(
    readdirSync(TOOLS_DIR).map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(TOOLS_DIR, file), 'utf8')) as object]),
  );
}

const TAGS_SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['title'],
};
const NEARLY_RIGHT = { title: 'Ember &amp;amp; Oak', tags: '["a","b"]' };
const REPAIRED = { title: 'Ember & Oak', tags: ['a', 'b'] };

function only(records: OutputRecord[]): OutputRecord {
  expect(records).toHaveLength(1);
  return records[0] as OutputRecord;
}

describe('createNormalizer: tool definitions', () => {
  it('accepts every form the schema directory does: MCP, Anthropic, OpenAI bare and wrapped, and a bare schema by key', () => {
    const list = createNormalizer({
      tools: [
        { name: 'mcp', description: 'd', inputSchema: TAGS_SCHEMA },
        { name: 'anthropic', input_schema: TAGS_SCHEMA },
        { name: 'openai', parameters: TAGS_SCHEMA },
        { type: 'function', function: { name: 'openai_wrapped', parameters: TAGS_SCHEMA } },
      ],
    });
    const keyed = createNormalizer({ tools: { bare: TAGS_SCHEMA, keyed: { inputSchema: TAGS_SCHEMA } } });
    expect(list.tools).toEqual(['mcp', 'anthropic', 'openai', 'openai_wrapped']);
    expect(keyed.tools).toEqual(['bare', 'keyed']);
    for (const [normalizer, name] of [...list.tools.map((n) => [list, n] as const), [keyed, 'bare'] as const, [keyed, 'keyed'] as const]) {
      const record = only(normalizer.normalize({ id: 'c1', tool: name, arguments: NEARLY_RIGHT }));
      expect(record).toMatchObject({
        id: 'c1',
        tool: name,
        format: 'canonical',
        valid: true,
        disposition: 'normalized',
        arguments: REPAIRED,
      });
    }
    expect(list.problems).toEqual([]);
  });

  it('throws a clear error for a definition without a name, and for a name given twice', () => {
    expect(() => createNormalizer({ tools: [TAGS_SCHEMA] })).toThrow(/tools\[0\] has no tool name/);
    expect(() => createNormalizer({ tools: [{ inputSchema: TAGS_SCHEMA }] })).toThrow(/tools\[0\] has no tool name/);
    expect(() => createNormalizer({ tools: [{ name: '  ', parameters: TAGS_SCHEMA }] })).toThrow(/tools\[0\] has no tool name/);
    expect(() => createNormalizer({ tools: ['search' as unknown as object] })).toThrow(/tools\[0\] has no tool name/);
    expect(() =>
      createNormalizer({
        tools: [
          { name: 'a', inputSchema: TAGS_SCHEMA },
          { name: 'a', parameters: TAGS_SCHEMA },
        ],
      }),
    ).toThrow(/tools\[1\] defines tool "a" again/);
    expect(() => createNormalizer({ tools: { a: TAGS_SCHEMA, b: { name: 'a', inputSchema: TAGS_SCHEMA } } })).toThrow(
      /defines tool "a" again/,
    );
    expect(() => createNormalizer({ tools: 'tools' as never })).toThrow(/"tools" must be/);
    expect(() => createNormalizer(undefined as never)).toThrow(/options object/);
  });

  it('reports an unusable definition at creation with the messages the CLI prints, and rejects its calls', async () => {
    const definitions: Record<string, object> = {
      dangling: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      old_draft: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
      not_schema: { name: 'not_schema', inputSchema: 'text' },
      good: TAGS_SCHEMA,
    };
    const dir = mkdtempSync(join(tmpdir(), 'library-defs-'));
    for (const [name, definition] of Object.entries(definitions)) writeFileSync(join(dir, `${name}.json`), JSON.stringify(definition));
    const cli = await loadSchemaDir(dir, createSchemaCompiler());
    const normalizer = createNormalizer({ tools: definitions });

    expect(normalizer.problems.map((p) => p.tool)).toEqual(['dangling', 'old_draft', 'not_schema']);
    // Compiled definitions fail with the very message the directory reports; a definition that cannot even be read
    // names where it was given instead of its file.
    const byFile = new Map(cli.problems.map((p) => [p.file.replace(/\.json$/, ''), p.message]));
    for (const problem of normalizer.problems.slice(0, 2)) expect(problem.message).toBe(byFile.get(problem.tool));
    expect(normalizer.problems[2]?.message).toContain('"inputSchema" must be a JSON Schema object');
    expect(normalizer.problems[2]?.source).toBe('tools["not_schema"]');

    for (const tool of ['dangling', 'old_draft', 'not_schema']) {
      const record = only(normalizer.normalize({ tool, arguments: {} }));
      expect(record).toMatchObject({ valid: false, disposition: 'rejected' });
      expect(record.errors.map((e) => e.code)).toEqual(['tool_schema_unusable']);
    }
    expect(only(normalizer.normalize({ tool: 'good', arguments: { title: 'x' } })).valid).toBe(true);
    expect(only(normalizer.normalize({ tool: 'elsewhere', arguments: {} })).errors[0]?.code).toBe('tool_unknown');
  });

  it('reads definitions built in code that JSON cannot carry as unusable, without throwing', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    const normalizer = createNormalizer({ tools: [{ name: 'cyclic', inputSchema: cyclic }] });
    expect(normalizer.problems).toHaveLength(1);
    expect(normalizer.problems[0]?.message).toMatch(/not JSON data.*cycle/);
    expect(only(normalizer.normalize({ tool: 'cyclic', arguments: {} })).errors[0]?.code).toBe('tool_schema_unusable');
  });

  it('compiles against the draft a schema declares, and applies the schema limits', () => {
    const deep: Record<string, unknown> = { type: 'object' };
    let node = deep;
    for (let i = 0; i < 200; i++) {
      const next: Record<string, unknown> = { type: 'object' };
      node.properties = { a: next };
      node = next;
    }
    const normalizer = createNormalizer({ tools: { deep } });
    expect(normalizer.problems[0]?.message).toMatch(/deep/);
  });
});

describe('createNormalizer: options', () => {
  it('applies deep, entity exemptions and limits as the CLI flags do', () => {
    const schema = {
      type: 'object',
      properties: {
        content: { type: 'string' },
        title: { type: 'string' },
        nested: { type: 'object', properties: { ids: { type: 'array' } } },
      },
    };
    const call = { tool: 'write_file', arguments: { content: 'a &amp; b', title: 'a &amp; b', nested: { ids: '[1]' } } };
    const plain = only(createNormalizer({ tools: { write_file: schema } }).normalize(call));
    expect(plain.arguments).toEqual({ content: 'a & b', title: 'a & b', nested: { ids: '[1]' } });
    const tuned = only(
      createNormalizer({ tools: { write_file: schema }, deep: true, entityExempt: ['write_file/content'] }).normalize(call),
    );
    expect(tuned.arguments).toEqual({ content: 'a &amp; b', title: 'a & b', nested: { ids: [1] } });
    const wholeTool = only(createNormalizer({ tools: { write_file: schema }, entityExempt: ['other,write_file'] }).normalize(call));
    expect(wholeTool.arguments).toEqual(call.arguments);
    const small = only(createNormalizer({ tools: { write_file: schema }, maxRecordBytes: 20 }).normalize(call));
    expect(small.errors[0]?.code).toBe('record_too_large');
    const shallow = only(createNormalizer({ tools: { write_file: schema }, maxDepth: 2 }).normalize(call));
    expect(shallow.errors[0]?.code).toBe('record_too_deep');
    const onePass = only(
      createNormalizer({ tools: { write_file: schema }, maxEntityPasses: 1 }).normalize({
        tool: 'write_file',
        arguments: { title: '&amp;amp;' },
      }),
    );
    expect(onePass.arguments).toEqual({ title: '&amp;' });
  });

  it('refuses bad options with the option named', () => {
    const tools = { t: TAGS_SCHEMA };
    expect(() => createNormalizer({ tools, maxDepth: 0 })).toThrow('createNormalizer: maxDepth: must be an integer from 1 to 1000, got 0');
    expect(() => createNormalizer({ tools, maxDepth: 1001 })).toThrow(RangeError);
    expect(() => createNormalizer({ tools, maxRecordBytes: 1.5 })).toThrow(
      /maxRecordBytes: must be an integer from 1 to 268435456, got 1\.5/,
    );
    expect(() => createNormalizer({ tools, maxEntityPasses: '3' as never })).toThrow(
      'maxEntityPasses: must be an integer from 1 to 1000, got "3"',
    );
    expect(() => createNormalizer({ tools, deep: 'yes' as never })).toThrow('deep: must be true or false, got "yes"');
    expect(() => createNormalizer({ tools, entityExempt: 'a' as never })).toThrow(
      /entityExempt: must be a list of "tool" or "tool\/parameter" strings/,
    );
    expect(() => createNormalizer({ tools, maxdepth: 3 } as never)).toThrow(/unknown option "maxdepth"/);
  });
});

describe('normalize: any input, never an exception', () => {
  const normalizer = createNormalizer({ tools: exampleTools() });
  const codeOf = (input: unknown): string | undefined => only(normalizer.normalize(input)).errors[0]?.code;

  it('takes an envelope object, its JSON text and its bytes alike', () => {
    const envelope = { type: 'tool_use', id: 't1', name: 'search_issues', input: { query: 'Tom &amp;amp; Jerry', labels: '["bug"]' } };
    const text = JSON.stringify(envelope);
    const fromObject = normalizer.normalize(envelope);
    expect(normalizer.normalize(text)).toEqual(fromObject);
    expect(normalizer.normalize(new TextEncoder().encode(text))).toEqual(fromObject);
    expect(normalizer.normalize(Buffer.from(text))).toEqual(fromObject);
    expect(normalizer.normalize(new TextEncoder().encode(text).buffer)).toEqual(fromObject);
    expect(fromObject).toEqual([
      {
        id: 't1',
        tool: 'search_issues',
        format: 'anthropic',
        arguments: { query: 'Tom & Jerry', labels: ['bug'] },
        valid: true,
        disposition: 'normalized',
        errors: [],
        repairs: [
          { pointer: '/query', kind: 'entities_decoded' },
          { pointer: '/labels', kind: 'json_decoded' },
        ],
        passThroughs: [],
      },
    ]);
  });

  it('gives the CLI codes for text that is not a call', () => {
    expect(codeOf('{"tool": ')).toBe('record_not_json');
    expect(codeOf('')).toBe('record_not_json');
    expect(codeOf('[1]')).toBe('record_not_object');
    expect(codeOf(new Uint8Array([0x7b, 0xff, 0x7d]))).toBe('record_invalid_encoding');
    expect(codeOf('{"foo": 1}')).toBe('record_unknown_envelope');
    expect(codeOf('x'.repeat(1_048_577))).toBe('record_too_large');
    expect(codeOf(`${'['.repeat(100)}${']'.repeat(100)}`)).toBe('record_too_deep');
  });

  it('gives the CLI codes for values JSON cannot carry, naming where', () => {
    const cyclic: Record<string, unknown> = { tool: 'search_issues' };
    cyclic.arguments = { again: cyclic };
    const cases: [unknown, string, RegExp][] = [
      [cyclic, 'record_not_json', /cycle.*\/arguments\/again/],
      [{ tool: 'search_issues', arguments: { limit: 10n } }, 'record_not_json', /BigInt at \/arguments\/limit/],
      [{ tool: 'search_issues', arguments: { query: () => 'x' } }, 'record_not_json', /function at \/arguments\/query/],
      [{ tool: 'search_issues', arguments: { query: Symbol('q') } }, 'record_not_json', /symbol/],
      [{ tool: 'search_issues', arguments: { limit: Number.NaN } }, 'record_not_json', /NaN/],
      [{ tool: 'search_issues', arguments: { labels: [undefined] } }, 'record_not_json', /undefined at \/arguments\/labels\/0/],
      [undefined, 'record_not_json', /undefined/],
      [() => 1, 'record_not_json', /function/],
      [42, 'record_not_object', /number/],
      [null, 'record_not_object', /null/],
      [true, 'record_not_object', /boolean/],
    ];
    for (const [input, code, message] of cases) {
      const record = only(normalizer.normalize(input));
      expect(record).toMatchObject({ id: null, tool: null, valid: false, disposition: 'dead_letter' });
      expect(record.errors[0]?.code).toBe(code);
      expect(record.errors[0]?.message).toMatch(message);
    }
  });

  it('refuses a deep or huge value without walking all of it or overflowing the stack', () => {
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 200_000; i++) {
      const next = {};
      node.a = next;
      node = next;
    }
    expect(codeOf({ tool: 'search_issues', arguments: deep })).toBe('record_too_deep');
    expect(codeOf({ tool: 'search_issues', arguments: { labels: new Array<string>(5_000_000).fill('label') } })).toBe('record_too_large');
    expect(codeOf({ tool: 'search_issues', arguments: { query: 'x'.repeat(2_000_000) } })).toBe('record_too_large');
  });

  it('survives getters, toJSON and Proxy traps that throw', () => {
    const getter = {
      tool: 'search_issues',
      get arguments(): never {
        throw new Error('boom');
      },
    };
    const toJson = {
      tool: 'search_issues',
      arguments: {
        toJSON: (): never => {
          throw new Error('no');
        },
      },
    };
    const proxy = new Proxy(
      {},
      {
        ownKeys: (): never => {
          throw new Error('trap');
        },
      },
    );
    for (const input of [getter, toJson, proxy]) {
      const record = only(normalizer.normalize(input));
      expect(record.errors[0]?.code).toBe('record_not_json');
      expect(record.errors[0]?.message).toMatch(/could not be read as JSON: (boom|no|trap)/);
    }
  });

  it('reads objects as JSON.stringify does: toJSON, boxed values, absent undefined properties, shared subtrees', () => {
    const shared = ['bug'];
    const record = only(
      normalizer.normalize({
        id: undefined,
        tool: 'create_event',
        arguments: {
          title: new String('Review'),
          start: new Date('2026-12-01T10:00:00Z'),
          duration_minutes: new Number(30),
          attendees: shared,
          extra: shared,
        },
      }),
    );
    expect(record.id).toBeNull();
    expect(record.arguments).toMatchObject({
      title: 'Review',
      start: '2026-12-01T10:00:00.000Z',
      duration_minutes: 30,
      attendees: ['bug'],
      extra: ['bug'],
    });
  });

  it('keeps __proto__ keys as data and never mutates the input', () => {
    const args = JSON.parse('{"query": "a &amp; b", "__proto__": {"polluted": true}}') as Record<string, unknown>;
    const input = { tool: 'search_issues', arguments: args };
    const before = JSON.stringify(input);
    const record = only(normalizer.normalize(input));
    expect(JSON.stringify(input)).toBe(before);
    expect(Object.hasOwn(record.arguments as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(record.errors.map((e) => e.code)).toEqual(['unknown_property']);
  });
});

describe('arguments a caller already holds', () => {
  it('normalizeArguments on a normalizer: the rule and validation for one of its tools', () => {
    const normalizer = createNormalizer({ tools: { t: TAGS_SCHEMA } });
    expect(normalizer.normalizeArguments('t', NEARLY_RIGHT)).toEqual({
      arguments: REPAIRED,
      valid: true,
      disposition: 'normalized',
      errors: [],
      repairs: [
        { pointer: '/title', kind: 'entities_decoded' },
        { pointer: '/tags', kind: 'json_decoded' },
      ],
      passThroughs: [],
    });
    expect(normalizer.normalizeArguments('t', JSON.stringify(NEARLY_RIGHT)).arguments).toEqual(REPAIRED);
    expect(normalizer.normalizeArguments('nope', {}).errors[0]?.code).toBe('tool_unknown');
    expect(normalizer.normalizeArguments('t', [1]).errors[0]?.code).toBe('arguments_not_object');
  });

  it('normalizeToolArguments: a bare schema or a definition, and the arguments', () => {
    expect(normalizeToolArguments(TAGS_SCHEMA, NEARLY_RIGHT).arguments).toEqual(REPAIRED);
    expect(normalizeToolArguments({ name: 'x', input_schema: TAGS_SCHEMA }, NEARLY_RIGHT).arguments).toEqual(REPAIRED);
    const invalid = normalizeToolArguments(TAGS_SCHEMA, { tags: '["a"]' });
    expect(invalid).toMatchObject({ valid: false, disposition: 'rejected', arguments: { tags: ['a'] } });
    expect(invalid.errors[0]).toMatchObject({ code: 'missing_required', path: '/title' });
    expect(normalizeToolArguments(TAGS_SCHEMA, NEARLY_RIGHT, { toolName: 'w', entityExempt: ['w'] }).arguments).toEqual({
      ...REPAIRED,
      title: NEARLY_RIGHT.title,
    });
    const unusable = normalizeToolArguments({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, {});
    expect(unusable.errors[0]?.code).toBe('tool_schema_unusable');
    expect(normalizeToolArguments(TAGS_SCHEMA, { title: 1n }).errors[0]?.code).toBe('record_not_json');
    expect(() => normalizeToolArguments(TAGS_SCHEMA, {}, { toolName: '' })).toThrow(/toolName/);
  });
});
