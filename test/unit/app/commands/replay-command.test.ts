/** Golden cases that are whole messages: `expect` as a list, one expectation per call (src/app/commands/replay-command.ts). */
import { describe, expect, it } from 'vitest';
import { parseGoldenCase, renderResults, runCase, type GoldenCase } from '../../../../src/app/commands/replay-command.js';
import { DEFAULT_PIPELINE_OPTIONS } from '../../../../src/core/pipeline.js';
import { compileTool, type CompiledTool } from '../../../../src/core/schema/tool.js';
import { parseToolDefinition } from '../../../../src/core/schema/tool-definition.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

const definition = parseToolDefinition(
  { name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  'search',
);
if (!definition.ok) throw new Error(definition.reason);
const tools = new Map<string, CompiledTool>([['search', compileTool(definition.definition, createSchemaCompiler())]]);

const message = {
  role: 'assistant',
  tool_calls: [
    { id: 'a', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
    { id: 'b', type: 'function', function: { name: 'search', arguments: '{}' } },
  ],
};

function golden(value: unknown): GoldenCase {
  const parsed = parseGoldenCase(JSON.stringify(value), 1);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.golden;
}

describe('replay: whole messages', () => {
  it('passes when each call meets its expectation, in order', () => {
    const result = runCase(
      golden({ call: message, expect: [{ valid: true }, { errors: ['missing_required'] }] }),
      tools,
      DEFAULT_PIPELINE_OPTIONS,
    );
    expect(result.failures).toEqual([]);
    expect(result.results.map((r) => r.id)).toEqual(['a', 'b']);
    expect(result.result?.id).toBe('a');
  });

  it('names the call that failed its expectation', () => {
    const result = runCase(golden({ call: message, expect: [{ valid: true }, { valid: true }] }), tools, DEFAULT_PIPELINE_OPTIONS);
    expect(result.failures).toEqual(['call 2: expected a valid call, got a rejected one']);
    const text = renderResults([result]);
    expect(text).toContain('got:      normalized call of "search" (openai_chat)');
    expect(text).toContain('got:      rejected call of "search" (openai_chat)');
  });

  it('fails when the number of calls differs, or an object is given for several calls', () => {
    expect(runCase(golden({ call: message, expect: [{ valid: true }] }), tools, DEFAULT_PIPELINE_OPTIONS).failures).toEqual([
      'expected 1 call, the record holds 2',
    ]);
    expect(runCase(golden({ call: message, expect: { valid: true } }), tools, DEFAULT_PIPELINE_OPTIONS).failures).toEqual([
      'the call is a whole message holding 2 calls: give "expect" as a list of 2 expectations, one per call in order',
    ]);
  });

  it('an object still serves a message of one call, and a dead letter', () => {
    const one = { role: 'assistant', tool_calls: [message.tool_calls[0]] };
    expect(runCase(golden({ call: one, expect: { valid: true } }), tools, DEFAULT_PIPELINE_OPTIONS).passed).toBe(true);
    expect(
      runCase(
        golden({ call: { role: 'assistant', content: 'hi' }, expect: { errors: ['record_no_tool_calls'] } }),
        tools,
        DEFAULT_PIPELINE_OPTIONS,
      ).passed,
    ).toBe(true);
  });

  it.each<[unknown, RegExp]>([
    [[], /needs one expectation per call/],
    [[{ valid: true }, 3], /"expect\[1\]" must be an object/],
    [[{ bogus: 1 }], /"expect\[0\]": unknown "expect" key "bogus"/],
    ['x', /must be an object \(or, for a whole message, a list of objects\)/],
  ])('refuses a malformed expectation list: %j', (expectation, reason) => {
    const parsed = parseGoldenCase(JSON.stringify({ call: message, expect: expectation }), 3);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });
});
