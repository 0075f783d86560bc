import { describe, expect, it } from 'vitest';
import { parseToolDefinition } from '../../../../src/core/schema/tool-definition.js';

const schema = { type: 'object', properties: { q: { type: 'string' } } };

describe('tool definitions', () => {
  it.each([
    ['bare JSON Schema (named by its file)', schema, 'fallback', undefined],
    ['MCP inputSchema', { name: 'search', description: 'Search.', inputSchema: schema }, 'search', 'Search.'],
    ['Anthropic input_schema', { name: 'search', description: 'Search.', input_schema: schema }, 'search', 'Search.'],
    ['OpenAI parameters', { name: 'search', description: 'Search.', parameters: schema }, 'search', 'Search.'],
    [
      'OpenAI wrapped function',
      { type: 'function', function: { name: 'search', description: 'Search.', parameters: schema } },
      'search',
      'Search.',
    ],
    ['definition without a name', { inputSchema: schema }, 'fallback', undefined],
  ])('%s', (_name, value, name, description) => {
    const result = parseToolDefinition(value, 'fallback');
    expect(result).toEqual({ ok: true, definition: { name, description, inputSchema: schema } });
  });

  it.each([
    ['not an object', [1, 2], 'a tool definition must be a JSON object'],
    ['schema not an object', { name: 'x', inputSchema: 'nope' }, '"inputSchema" must be a JSON Schema object'],
    ['empty name', { name: ' ', parameters: schema }, '"name" must be a non-empty string'],
  ])('refuses %s', (_name, value, reason) => {
    expect(parseToolDefinition(value, 'fallback')).toEqual({ ok: false, reason });
  });
});
