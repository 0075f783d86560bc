import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/core/shared/json.js';
import {
  fromRegistryDocument,
  subjectFor,
  subjectTemplateProblem,
  toolFromSubject,
  toRegistryDocument,
} from '../../../../src/core/schema/registry-document.js';
import type { ToolDefinition } from '../../../../src/core/schema/tool-definition.js';

const schema: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { q: { type: 'string' } },
  required: ['q'],
};

describe('subject names', () => {
  it('substitutes the tool literally, even with $ patterns in its name', () => {
    expect(subjectFor('search', '{tool}')).toBe('search');
    expect(subjectFor('search', 'tools.{tool}-value')).toBe('tools.search-value');
    expect(subjectFor("$&$1$'", 'p-{tool}')).toBe("p-$&$1$'");
  });

  it('maps a subject back to its tool', () => {
    expect(toolFromSubject('tools.search-value', 'tools.{tool}-value')).toBe('search');
    expect(toolFromSubject('search', '{tool}')).toBe('search');
    expect(toolFromSubject('other.search', 'tools.{tool}')).toBeUndefined();
    expect(toolFromSubject('tools.', 'tools.{tool}')).toBeUndefined();
  });

  it('accepts templates with {tool} exactly once', () => {
    expect(subjectTemplateProblem('{tool}')).toBeUndefined();
    expect(subjectTemplateProblem('it-1-{tool}')).toBeUndefined();
    expect(subjectTemplateProblem('tools')).toMatch(/exactly once/);
    expect(subjectTemplateProblem('{tool}-{tool}')).toMatch(/exactly once/);
  });
});

describe('registry documents', () => {
  it('keeps the tool in the schema and reads it back (round trip)', () => {
    const def: ToolDefinition = { name: 'search', description: 'Search issues.', inputSchema: { ...schema, description: 'Arguments.' } };
    const doc = toRegistryDocument(def);
    expect(doc).toEqual({ ...schema, description: 'Arguments.', 'x-tool': { name: 'search', description: 'Search issues.' } });
    expect(fromRegistryDocument(JSON.parse(JSON.stringify(doc)) as JsonObject, 'whatever')).toEqual({ ok: true, definition: def });
  });

  it("sets the schema's description to the tool's when it has none (the one change a round trip keeps)", () => {
    const def: ToolDefinition = { name: 'search', description: 'Search issues.', inputSchema: schema };
    const doc = toRegistryDocument(def);
    expect(doc.description).toBe('Search issues.');
    expect(fromRegistryDocument(doc, 'search')).toEqual({
      ok: true,
      definition: { ...def, inputSchema: { ...schema, description: 'Search issues.' } },
    });
  });

  it('round-trips a tool without a description', () => {
    const def: ToolDefinition = { name: 'search', description: undefined, inputSchema: schema };
    const doc = toRegistryDocument(def);
    expect(doc['x-tool']).toEqual({ name: 'search' });
    expect(Object.hasOwn(doc, 'description')).toBe(false);
    expect(fromRegistryDocument(doc, 'search')).toEqual({ ok: true, definition: def });
  });

  it('does not mutate its input, replaces a stale x-tool, and keeps __proto__ keys as data', () => {
    const inputSchema = JSON.parse('{"type":"object","x-tool":{"name":"old"},"__proto__":{"polluted":true}}') as JsonObject;
    const before = JSON.stringify(inputSchema);
    const doc = toRegistryDocument({ name: 'new', description: undefined, inputSchema });
    expect(JSON.stringify(inputSchema)).toBe(before);
    expect(doc['x-tool']).toEqual({ name: 'new' });
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    const back = fromRegistryDocument(doc, 'new');
    expect(back.ok && Object.keys(back.definition.inputSchema)).toEqual(['type', '__proto__', 'properties']);
    expect(back.ok && Object.getPrototypeOf(back.definition.inputSchema)).toBe(Object.prototype);
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives a parameterless schema an empty properties (Apicurio only recognises JSON Schemas by $schema or properties)', () => {
    expect(toRegistryDocument({ name: 'now', description: undefined, inputSchema: { type: 'object' } })).toEqual({
      type: 'object',
      properties: {},
      'x-tool': { name: 'now' },
    });
    const with$schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' };
    expect(toRegistryDocument({ name: 'now', description: undefined, inputSchema: with$schema })).toEqual({
      ...with$schema,
      'x-tool': { name: 'now' },
    });
  });

  it('reads a bare schema (no x-tool), named after the subject or its tool part', () => {
    const bare = { ...schema, description: 'Bare.' };
    expect(fromRegistryDocument(bare, 'tools.search', 'tools.{tool}')).toEqual({
      ok: true,
      definition: { name: 'search', description: 'Bare.', inputSchema: bare },
    });
    expect(fromRegistryDocument(bare, 'legacy-subject')).toEqual({
      ok: true,
      definition: { name: 'legacy-subject', description: 'Bare.', inputSchema: bare },
    });
    // A subject that does not follow the template keeps its whole name.
    expect(fromRegistryDocument(bare, 'other', 'tools.{tool}')).toMatchObject({ ok: true, definition: { name: 'other' } });
  });

  it('reads a full MCP definition registered as the schema', () => {
    expect(fromRegistryDocument({ name: 'mcp_tool', description: 'D.', inputSchema: schema }, 'x')).toEqual({
      ok: true,
      definition: { name: 'mcp_tool', description: 'D.', inputSchema: schema },
    });
  });

  it('falls back to the subject when x-tool has no name', () => {
    expect(fromRegistryDocument({ ...schema, 'x-tool': {} }, 't.search', 't.{tool}')).toEqual({
      ok: true,
      definition: { name: 'search', description: undefined, inputSchema: schema },
    });
  });

  it.each([
    ['not an object', [1], 'the registered schema is not a JSON object'],
    ['x-tool not an object', { ...schema, 'x-tool': 'search' }, '"x-tool" must be an object'],
    ['x-tool name empty', { ...schema, 'x-tool': { name: ' ' } }, '"x-tool.name" must be a non-empty string'],
    ['x-tool description not a string', { ...schema, 'x-tool': { name: 's', description: 3 } }, '"x-tool.description" must be a string'],
  ])('refuses %s', (_name, doc, reason) => {
    const result = fromRegistryDocument(doc, 'search');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });
});
