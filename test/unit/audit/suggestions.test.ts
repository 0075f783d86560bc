/**
 * Suggestions that hold (issue 23, deliverable 3): the examples a description gives (audit/examples.ts), and every
 * fix checked against them and the tool's draft (audit/suggestions.ts): kept, narrowed, or dropped.
 */
import { describe, expect, it } from 'vitest';
import { examplesIn } from '../../../src/audit/examples.js';
import { holdSuggestions } from '../../../src/audit/suggestions.js';
import { findingId, type Finding, type SchemaFix } from '../../../src/audit/types.js';
import type { JsonObject, JsonValue } from '../../../src/core/shared/json.js';
import { createSchemaChecker } from '../../../src/core/schema/meta-schema.js';
import type { ToolDefinition } from '../../../src/core/schema/tool-definition.js';

const checker = createSchemaChecker();

function tool(properties: JsonObject, description = 'A tool.', extra: JsonObject = {}): ToolDefinition {
  return { name: 't', description, inputSchema: { type: 'object', properties, ...extra } };
}

function finding(parameter: string | null, keyword: string, fix: SchemaFix): Finding {
  return {
    id: findingId('prose-only', 't', parameter, keyword),
    tool: 't',
    parameter,
    layer: 'prose-only',
    keyword,
    evidence: 'the description',
    suggestion: 'Add it.',
    path: fix.pointer,
    confidence: 'high',
    fix,
  };
}

function held(definition: ToolDefinition, f: Finding): Finding {
  const [out] = holdSuggestions(definition, [f], checker);
  if (out === undefined) throw new Error('no finding');
  return out;
}

describe('examples a description gives', () => {
  const positive: [string, string, JsonValue][] = [
    ['Start, ISO 8601 (e.g. 2024-03-01T10:00:00+0100).', '2024-03-01T10:00:00+0100', '2024-03-01T10:00:00+0100'],
    ["Format: 'csv' (default), 'json', or 'parquet'", 'parquet', 'parquet'],
    ['Period as `{from}/{to}`, for example 2024-01-01/2024-01-31.', '2024-01-01/2024-01-31', '2024-01-01/2024-01-31'],
    ['Period as `{from}/{to}`, for example 2024-01-01/2024-01-31.', '{from}/{to}', '{from}/{to}'],
    ['Example: {"city": "Paris"}', '{"city": "Paris"}', { city: 'Paris' }],
    ['Effective date in format "YYYY-MM-DD HH:MM"', 'YYYY-MM-DD HH:MM', '2024-01-01 01:01'],
    ['Page size, e.g. 5 or 10', '10', 10],
    ['Region such as us-east-1, eu-west-2', 'eu-west-2', 'eu-west-2'],
  ];
  it.each(positive)('%s gives %s', (text, example, reading) => {
    const found = examplesIn(text).find((e) => e.text === example);
    expect(found, JSON.stringify(examplesIn(text))).toBeDefined();
    expect(found?.readings).toContainEqual(reading);
  });

  const negative: [string, string][] = [
    ["Good: 'a question'. Bad: 'auth'", 'auth'],
    ["Don't pass the token here, it's read from the environment", 't pass the token here, it'],
    ['Names such as the repository name', 'the'],
    ['Tags (e.g. `prod`) are not supported', 'prod'],
  ];
  it.each(negative)('%s does not give %s', (text, example) => {
    expect(examplesIn(text).map((e) => e.text)).not.toContain(example);
  });

  it('reads a long description in linear time', () => {
    const text = `${"'a, ".repeat(20_000)} e.g. ${'x,'.repeat(20_000)}`;
    expect(examplesIn(text).length).toBeGreaterThan(0);
  });
});

describe('a fix must accept the description’s own examples', () => {
  const dateTime: SchemaFix = { pointer: '/properties/start', set: { format: 'date-time' } };
  const table: [string, string, SchemaFix, 'kept' | 'dropped'][] = [
    ['ISO 8601 with a +0100 offset', 'Start, ISO 8601 (e.g. 2024-03-01T10:00:00+0100).', dateTime, 'dropped'],
    ['RFC 3339 offset', 'Start, ISO 8601 (e.g. 2024-03-01T10:00:00+01:00).', dateTime, 'kept'],
    ['a {from}/{to} interval', 'Window as `{from}/{to}`, e.g. 2024-01-01T00:00:00Z/2024-02-01T00:00:00Z.', dateTime, 'dropped'],
    ['a layout with a space', 'Start in format "YYYY-MM-DD HH:MM".', dateTime, 'dropped'],
    [
      'an enum whose example is outside it',
      'Sort: "asc" or "desc", e.g. "relevance".',
      { pointer: '/properties/start', set: { enum: ['asc', 'desc'] } },
      'dropped',
    ],
    [
      'an enum holding every example',
      'Sort: "asc" or "desc", e.g. "desc".',
      { pointer: '/properties/start', set: { enum: ['asc', 'desc'] } },
      'kept',
    ],
    ['a fix that does not compile under the draft', 'Start.', { pointer: '/properties/start', set: { minLength: -1 } }, 'dropped'],
  ];
  it.each(table)('%s: %s', (_, description, fix, outcome) => {
    const definition = tool({ start: { type: 'string', description } });
    const out = held(definition, finding('start', Object.keys(fix.set)[0] ?? '', fix));
    if (outcome === 'kept') {
      expect(out.fix).toEqual(fix);
      expect(out.confidence).toBe('high');
    } else {
      expect(out.fix).toBeUndefined();
      expect(out.suggestion).toMatch(/would reject the description's own example|does not compile/);
      expect(out.confidence).toBe('medium');
    }
  });

  it('narrows a fix to the keywords that hold: drops "format", keeps "type"', () => {
    const definition = tool({ start: { description: 'Start, ISO 8601 (e.g. 2024-03-01T10:00:00+0100).' } });
    const out = held(
      definition,
      finding('start', 'format', { pointer: '/properties/start', set: { type: 'string', format: 'date-time' } }),
    );
    expect(out.fix).toEqual({ pointer: '/properties/start', set: { type: 'string' } });
    expect(out.suggestion).toContain('2024-03-01T10:00:00+0100');
  });

  it('checks numbers as numbers, and ignores an example the schema already rejects', () => {
    const cap: SchemaFix = { pointer: '/properties/n', set: { maximum: 100 } };
    const over = tool({ n: { type: 'integer', description: 'How many, e.g. 500.' } });
    expect(held(over, finding('n', 'maximum', cap)).fix).toBeUndefined();
    const word = tool({ n: { type: 'integer', description: 'How many, e.g. "ten".' } });
    expect(held(word, finding('n', 'maximum', cap)).fix).toEqual(cap);
  });

  it('takes the tool description’s examples for the one parameter a sentence names', () => {
    const fix: SchemaFix = { pointer: '/properties/kind', set: { enum: ['pod', 'node'] } };
    const one = tool({ kind: { type: 'string' }, name: { type: 'string' } }, 'Use kind="cluster" for cluster logs.');
    expect(held(one, finding('kind', 'enum', fix)).fix).toBeUndefined();
    const two = tool({ kind: { type: 'string' }, name: { type: 'string' } }, 'Set kind and name, e.g. "cluster".');
    expect(held(two, finding('kind', 'enum', fix)).fix).toEqual(fix);
  });

  it('checks a fix of the whole input schema against the example calls the tool description gives', () => {
    const fix: SchemaFix = { pointer: '', set: { required: ['a', 'b'] } };
    const definition = tool({ a: { type: 'integer' }, b: { type: 'integer' } }, 'Adds. Example: {"a": 1}');
    expect(held(definition, finding(null, 'required', fix)).fix).toBeUndefined();
    const both = tool({ a: { type: 'integer' }, b: { type: 'integer' } }, 'Adds. Example: {"a": 1, "b": 2}');
    expect(held(both, finding(null, 'required', fix)).fix).toEqual(fix);
  });

  it('checks under the tool’s own draft', () => {
    const fix: SchemaFix = { pointer: '/properties/start', set: { format: 'date-time' } };
    const definition = tool({ start: { type: 'string', description: 'e.g. 2024-03-01T10:00:00+0100' } }, 'A tool.', {
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    expect(held(definition, finding('start', 'format', fix)).fix).toBeUndefined();
  });
});

describe("a fix and the subschema's own default", () => {
  it('is dropped when it would reject the default the schema gives, and says so', () => {
    const definition = tool({ end_date: { type: 'string', default: '', description: 'End date.' } });
    const out = held(definition, finding('end_date', 'format', { pointer: '/properties/end_date', set: { format: 'date' } }));
    expect(out.fix).toBeUndefined();
    expect(out.confidence).toBe('medium');
    expect(out.suggestion).toContain('would reject the subschema\'s own "default" ("")');
  });

  it('is kept when the default holds under it, or when the default is null', () => {
    const dated = tool({ end_date: { type: 'string', default: '2024-01-31' } });
    expect(held(dated, finding('end_date', 'format', { pointer: '/properties/end_date', set: { format: 'date' } })).fix).toBeDefined();
    const nullable = tool({ end_date: { type: ['string', 'null'], default: null } });
    expect(held(nullable, finding('end_date', 'format', { pointer: '/properties/end_date', set: { format: 'date' } })).fix).toBeDefined();
  });
});
