/** The core path (src/core/pipeline.ts): calls to tools without a schema, and one output per call of a record. */
import { describe, expect, it } from 'vitest';
import { finishRecord, processCall, processRecord, readRecord } from '../../../src/core/pipeline.js';
import { compileTool } from '../../../src/core/schema/tool.js';
import { searchTool } from '../search-tool.js';
import { createSchemaCompiler } from '../../../src/core/validation/validate.js';
import type { DecodedCall } from '../../../src/core/shared/types.js';

const call = (tool: string): DecodedCall => ({ format: 'canonical', id: 'c1', tool, rawArguments: { a: 1 } });

describe('processCall for an unknown tool', () => {
  it('rejects the call with tool_unknown, its arguments kept, and a hint not to invent names', () => {
    const record = processCall(call('no_such_tool'), undefined);
    expect(record).toMatchObject({ valid: false, disposition: 'rejected', arguments: { a: 1 } });
    expect(record.errors).toEqual([
      {
        code: 'tool_unknown',
        path: '',
        message: 'No tool named "no_such_tool" is known.',
        hint: 'Call one of the tools you were given, with its exact name; do not invent tool names.',
        details: { tool: 'no_such_tool' },
      },
    ]);
  });

  it('says why no schema can exist when the schema source knows (a name no registry subject can have)', () => {
    const record = processCall(call('..'), {
      unknownReason: 'the registry subject of this tool name is "..", which cannot be addressed in a registry URL',
    });
    expect(record.errors[0]?.message).toBe(
      'No tool named ".." can be known: the registry subject of this tool name is "..", which cannot be addressed in a registry URL.',
    );
  });

  it('quotes at most 80 code units of a long name, never half of a surrogate pair', () => {
    const emojiAtTheCut = `${'a'.repeat(79)}😀${'b'.repeat(20)}`; // the emoji takes code units 80 and 81
    const message = processCall(call(emojiAtTheCut), undefined).errors[0]?.message ?? '';
    expect(message).toBe(`No tool named "${'a'.repeat(79)}…" is known.`);
    // No lone surrogate left anywhere in the message.
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(message)).toBe(false);
    const plain = processCall(call('x'.repeat(200)), undefined).errors[0]?.message ?? '';
    expect(plain).toBe(`No tool named "${'x'.repeat(80)}…" is known.`);
  });

  it('quotes a name of 81 code units whole (the cut would save nothing), and cuts one of 82', () => {
    const message = (name: string): string => processCall(call(name), undefined).errors[0]?.message ?? '';
    expect(message('y'.repeat(81))).toBe(`No tool named "${'y'.repeat(81)}" is known.`);
    expect(message('y'.repeat(82))).toBe(`No tool named "${'y'.repeat(80)}…" is known.`);
  });
});

describe('processRecord: one output per call', () => {
  const tools = new Map([['search_issues', searchTool()]]);
  const lookup = (name: string) => tools.get(name);
  const run = (value: unknown) => processRecord(JSON.stringify(value), lookup);

  it('a whole message: each call in order with its own id and disposition, an unreadable one alone', () => {
    const out = run({
      role: 'assistant',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'search_issues', arguments: '{"query":"lag","labels":"[\\"kafka\\"]"}' } },
        { id: 'call_2', type: 'function', function: { name: 'search_issues', arguments: '{"labels":[]}' } },
        { id: 'call_3', type: 'function', function: { arguments: '{}' } },
        { id: 'call_4', type: 'function', function: { name: 'launch', arguments: '{}' } },
      ],
    });
    expect(out.map((r) => [r.id, r.disposition, r.errors[0]?.code ?? null])).toEqual([
      ['call_1', 'normalized', null],
      ['call_2', 'rejected', 'missing_required'],
      [null, 'dead_letter', 'record_missing_tool_name'],
      ['call_4', 'rejected', 'tool_unknown'],
    ]);
    expect(out[0]).toMatchObject({
      format: 'openai_chat',
      arguments: { query: 'lag', labels: ['kafka'] },
      repairs: [{ pointer: '/labels', kind: 'json_decoded' }],
    });
    expect(out[2]?.errors[0]?.message).toMatch(/^tool_calls\[2\]: /);
  });

  it('a single call: one output, as before', () => {
    expect(run({ type: 'tool_use', id: 't', name: 'search_issues', input: { query: 'q' } }).map((r) => r.disposition)).toEqual([
      'normalized',
    ]);
  });

  it('a message without calls, and a custom_tool_call: one dead letter each, with its own code and hint', () => {
    const [none] = run({ role: 'assistant', content: 'Just text.' });
    expect(none).toMatchObject({ disposition: 'dead_letter', errors: [{ code: 'record_no_tool_calls' }] });
    expect(none?.errors[0]?.hint).toMatch(/hold tool calls/);
    const [custom] = run({ type: 'custom_tool_call', call_id: 'c', name: 'code_exec', input: 'print(1)' });
    expect(custom).toMatchObject({ disposition: 'dead_letter', errors: [{ code: 'record_custom_tool_call' }] });
    expect(custom?.errors[0]?.hint).toMatch(/own executor/);
  });

  it('every new format reaches validation with the right arguments', () => {
    const records = [
      { toolUse: { toolUseId: 'b1', name: 'search_issues', input: { query: 'q', labels: '["x"]' } } },
      { function: { index: 0, name: 'search_issues', arguments: { query: 'q', labels: '["x"]' } } },
      { id: 'm1', type: 'function', function: { name: 'search_issues', arguments: { query: 'q', labels: '["x"]' } } },
      { type: 'tool-call', toolCallId: 'a1', toolName: 'search_issues', input: '{"query":"q","labels":"[\\"x\\"]"}' },
      { type: 'tool-call', toolCallId: 'a2', toolName: 'search_issues', args: { query: 'q', labels: '["x"]' } },
      { name: 'search_issues', args: { query: 'q', labels: '["x"]' }, id: 'l1', type: 'tool_call' },
      { function_call: { name: 'search_issues', args: { query: 'q', labels: '["x"]' } } },
      { role: 'assistant', function_call: { name: 'search_issues', arguments: '{"query":"q","labels":"[\\"x\\"]"}' } },
    ];
    for (const record of records) {
      const out = run(record);
      expect(out, JSON.stringify(record)).toHaveLength(1);
      expect(out[0], JSON.stringify(record)).toMatchObject({
        valid: true,
        arguments: { query: 'q', labels: ['x'] },
        repairs: [{ pointer: '/labels', kind: 'json_decoded' }],
      });
    }
  });

  it("a LangChain InvalidToolCall is rejected with our reading and LangChain's error in the details", () => {
    const [out] = run({
      type: 'invalid_tool_call',
      name: 'search_issues',
      args: '{"query": "q",',
      id: 'bad',
      error: 'Function search_issues arguments are not valid JSON.',
    });
    expect(out).toMatchObject({ id: 'bad', format: 'langchain', disposition: 'rejected', arguments: '{"query": "q",' });
    expect(out?.errors[0]?.code).toBe('arguments_not_json');
    expect(out?.errors[0]?.message).toMatch(
      /not valid JSON: .*\(LangChain reported: Function search_issues arguments are not valid JSON\.\)$/,
    );
    expect(out?.errors[0]?.details).toMatchObject({ upstreamError: 'Function search_issues arguments are not valid JSON.' });
  });

  it('an InvalidToolCall with no args text, or no error text, is still rejected, never run with {}', () => {
    const [noArgs] = run({ type: 'invalid_tool_call', name: 'search_issues', args: null, id: 'x', error: null });
    expect(noArgs).toMatchObject({ disposition: 'rejected', errors: [{ code: 'arguments_not_json', details: { upstreamError: null } }] });
    expect(noArgs?.errors[0]?.message).toMatch(/carries no arguments text \(LangChain reported the call invalid\)/);
  });

  it('an InvalidToolCall whose text parses after all is processed like any call', () => {
    const [out] = run({ type: 'invalid_tool_call', name: 'search_issues', args: '{"query":"q"}', id: 'x', error: 'chunk merge' });
    expect(out).toMatchObject({ disposition: 'normalized', arguments: { query: 'q' } });
  });
});

describe('readRecord and finishRecord: the two halves every caller runs', () => {
  const text = JSON.stringify({ id: 'c', tool: 't', arguments: { a: 'x &amp; y' } });

  it('reads text, bytes and bytes in the wire format alike; a tombstone and a short wire header are dead letters', () => {
    const fromText = readRecord(text);
    expect(fromText).toMatchObject({ ok: true, message: false, references: true });
    expect(readRecord(Buffer.from(text))).toEqual(fromText);
    expect(readRecord(Buffer.concat([Buffer.from([0, 0, 0, 0, 3]), Buffer.from(text)]))).toEqual(fromText);
    expect(readRecord(null)).toEqual({ ok: false, error: { code: 'record_not_json', message: 'The record has no value (a tombstone).' } });
    expect(readRecord(Buffer.from([0, 1]))).toMatchObject({ ok: false, error: { code: 'record_invalid_encoding' } });
  });

  it('says whether the record can hold a reference, and whether it is a whole message', () => {
    expect(readRecord('{"tool":"t","arguments":{}}')).toMatchObject({ ok: true, references: false, message: false });
    const message = readRecord(
      JSON.stringify({ role: 'assistant', tool_calls: [{ id: '1', type: 'function', function: { name: 't', arguments: '{}' } }] }),
    );
    expect(message).toMatchObject({ ok: true, message: true });
  });

  it('finishes each call with the tool it was given, the reason for a missing one included, and spares the walk only when told', () => {
    const read = readRecord(text);
    if (!read.ok) throw new Error('unreadable');
    const [unknown] = finishRecord(read, [{ unknownReason: 'no subject can be "t"' }]);
    expect(unknown?.errors[0]?.message).toBe('No tool named "t" can be known: no subject can be "t".');
    // The record's facts are data: a record said to hold no reference is not decoded.
    const tool = compileTool({ name: 't', description: undefined, inputSchema: { type: 'object' } }, createSchemaCompiler());
    expect(finishRecord(read, [tool])[0]?.arguments).toEqual({ a: 'x & y' });
    expect(finishRecord({ ...read, references: false }, [tool])[0]?.arguments).toEqual({ a: 'x &amp; y' });
    expect(finishRecord(readRecord('[]'), [])).toMatchObject([{ disposition: 'dead_letter', errors: [{ code: 'record_not_object' }] }]);
  });
});
