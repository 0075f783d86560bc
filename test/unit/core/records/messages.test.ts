/**
 * Whole messages fanned out into their calls (records/envelopes/messages.ts), in every shape docs/envelopes.md names,
 * with payloads shaped as the vendors' APIs answer, and the malformed ones.
 */
import { describe, expect, it } from 'vitest';
import { decodeRecord, MAX_CALLS_PER_RECORD, type CallSlot, type RecordCalls } from '../../../../src/core/records/envelope.js';
import type { JsonValue } from '../../../../src/core/shared/json.js';

function read(value: unknown, maxCalls?: number): RecordCalls {
  return decodeRecord(JSON.parse(JSON.stringify(value)) as JsonValue, maxCalls);
}

function slotsOf(value: unknown): readonly CallSlot[] {
  const result = read(value);
  if (!result.ok) throw new Error(`expected calls, got ${result.error.code}: ${result.error.message}`);
  expect(result.message).toBe(true);
  return result.calls;
}

/** [format, id, tool] of each slot, or the error code of a slot that could not be read. */
function summary(value: unknown): (readonly [string, string | null, string] | string)[] {
  return slotsOf(value).map((slot) =>
    slot.read.ok ? ([slot.read.call.format, slot.read.call.id, slot.read.call.tool] as const) : slot.read.error.code,
  );
}

function failure(value: unknown): { code: string; message: string } {
  const result = read(value);
  if (result.ok) throw new Error(`expected a failure, got ${result.calls.length} calls`);
  return result.error;
}

const chatCall = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

describe('whole messages fan out, in order', () => {
  it('OpenAI Chat assistant message (tool_calls, function_call null beside it)', () => {
    const message = {
      role: 'assistant',
      content: null,
      refusal: null,
      function_call: null,
      tool_calls: [chatCall('call_a', 'get_weather', '{"city":"Paris"}'), chatCall('call_b', 'get_time', '{}')],
    };
    expect(summary(message)).toEqual([
      ['openai_chat', 'call_a', 'get_weather'],
      ['openai_chat', 'call_b', 'get_time'],
    ]);
    const [first] = slotsOf(message);
    expect(first).toMatchObject({ index: 0, path: 'tool_calls[0]', sharedId: false });
    expect(first?.raw).toEqual(message.tool_calls[0]);
  });

  it('OpenAI Chat Completions response: choices[0].message', () => {
    const response = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: { role: 'assistant', content: null, tool_calls: [chatCall('call_a', 'a', '{}')] },
        },
        { index: 1, message: { role: 'assistant', tool_calls: [chatCall('call_z', 'z', '{}')] } },
      ],
    };
    expect(summary(response)).toEqual([['openai_chat', 'call_a', 'a']]);
    expect(slotsOf(response)[0]?.path).toBe('choices[0].message.tool_calls[0]');
  });

  it('Mistral assistant message (text arguments, top-level index)', () => {
    const message = {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'D681PevKs', function: { name: 'retrieve_payment_status', arguments: '{"transaction_id": "T1001"}' }, index: 0 },
        { id: 'null', type: 'function', function: { name: 'retrieve_payment_date', arguments: { transaction_id: 'T1001' } } },
      ],
    };
    expect(summary(message)).toEqual([
      ['openai_chat', 'D681PevKs', 'retrieve_payment_status'],
      ['mistral', null, 'retrieve_payment_date'],
    ]);
  });

  it('Ollama message, and the /api/chat answer that wraps it in `message`', () => {
    const message = {
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { index: 0, name: 'get_weather', arguments: { city: 'Toronto' } } },
        { function: { index: 1, name: 'get_weather', arguments: { city: 'Paris' } } },
      ],
    };
    expect(summary(message)).toEqual([
      ['ollama', null, 'get_weather'],
      ['ollama', null, 'get_weather'],
    ]);
    const answer = { model: 'llama3.2', created_at: '2026-01-01T00:00:00Z', message, done_reason: 'stop', done: true };
    expect(summary(answer)).toHaveLength(2);
    expect(slotsOf(answer).map((s) => s.path)).toEqual(['message.tool_calls[0]', 'message.tool_calls[1]']);
  });

  it('Anthropic message: tool_use blocks, text and thinking skipped', () => {
    const message = {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Let me look.', signature: 'sig' },
        { type: 'text', text: 'I will check both.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { location: 'SF' } },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'tool_use', id: 'toolu_02', name: 'get_time', input: {} },
      ],
      stop_reason: 'tool_use',
    };
    expect(summary(message)).toEqual([
      ['anthropic', 'toolu_01', 'get_weather'],
      ['anthropic', 'toolu_02', 'get_time'],
    ]);
    expect(slotsOf(message).map((s) => [s.index, s.path])).toEqual([
      [0, 'content[2]'],
      [1, 'content[4]'],
    ]);
  });

  it('Bedrock Converse message, and the whole response (output.message)', () => {
    const message = {
      role: 'assistant',
      content: [
        { text: 'Checking.' },
        { toolUse: { toolUseId: 'tooluse_1', name: 'top_song', input: { sign: 'WZPZ' } } },
        { toolUse: { toolUseId: 'tooluse_2', name: 'top_song', input: { sign: 'KQED' } } },
      ],
    };
    expect(summary(message)).toEqual([
      ['bedrock', 'tooluse_1', 'top_song'],
      ['bedrock', 'tooluse_2', 'top_song'],
    ]);
    const response = {
      output: { message },
      stopReason: 'tool_use',
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      metrics: { latencyMs: 5 },
    };
    expect(slotsOf(response).map((s) => s.path)).toEqual(['output.message.content[1]', 'output.message.content[2]']);
  });

  it("Gemini content (parts), a response (candidates[0].content), and the Python SDK's snake_case parts", () => {
    const content = {
      role: 'model',
      parts: [
        { text: 'Sure.' },
        { functionCall: { name: 'power_disco_ball', args: { power: true } } },
        { functionCall: { name: 'start_music', args: { energetic: true } }, thoughtSignature: 'abc' },
      ],
    };
    expect(summary(content)).toEqual([
      ['gemini', null, 'power_disco_ball'],
      ['gemini', null, 'start_music'],
    ]);
    const response = { candidates: [{ content, finishReason: 'STOP' }], usageMetadata: {} };
    expect(slotsOf(response).map((s) => s.path)).toEqual(['candidates[0].content.parts[1]', 'candidates[0].content.parts[2]']);
    const snake = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ function_call: { name: 'a', args: {} } }, { function_call: { id: 'x', name: 'b', args: {} } }],
          },
        },
      ],
    };
    expect(summary(snake)).toEqual([
      ['gemini_python', null, 'a'],
      ['gemini_python', 'x', 'b'],
    ]);
  });

  it('AI SDK assistant message (tool-call parts) and an OpenAI Responses response (output items)', () => {
    const ai = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'ok' },
        { type: 'reasoning', text: 'hm' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Rome' } },
      ],
    };
    expect(summary(ai)).toEqual([['ai_sdk', 'c1', 'weather']]);
    const responses = {
      id: 'resp_1',
      object: 'response',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'code_exec', input: 'print(1)' },
        { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] },
      ],
    };
    expect(summary(responses)).toEqual([['openai_responses', 'call_1', 'get_weather'], 'record_custom_tool_call']);
  });

  it('LangChain AIMessage: tool_calls then invalid_tool_calls, never the Anthropic content blocks again', () => {
    const message = {
      type: 'ai',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'multiply', input: { a: 1, b: 2 } }],
      tool_calls: [{ name: 'multiply', args: { a: 1, b: 2 }, id: 'toolu_1', type: 'tool_call' }],
      invalid_tool_calls: [{ name: 'add', args: '{"a": 1,', id: 'toolu_2', error: 'not valid JSON', type: 'invalid_tool_call' }],
    };
    expect(summary(message)).toEqual([
      ['langchain', 'toolu_1', 'multiply'],
      ['langchain', 'toolu_2', 'add'],
    ]);
  });

  it('a message of one call is still a message (its key carries the position)', () => {
    const result = read({ role: 'assistant', tool_calls: [chatCall('c', 't', '{}')] });
    expect(result.ok && result.message).toBe(true);
  });

  it('a single call is not a message', () => {
    const result = read(chatCall('c', 't', '{}'));
    expect(result.ok && result.message).toBe(false);
    expect(result.ok && result.calls[0]?.path).toBeUndefined();
  });
});

describe('one unreadable call does not sink its siblings', () => {
  it('tool_calls elements that are not calls, or broken calls, fail alone with their place named', () => {
    const message = {
      role: 'assistant',
      tool_calls: [
        chatCall('a', 'one', '{}'),
        'call_b',
        { id: 'c', kind: 'mystery' },
        { id: 'd', type: 'function', function: { arguments: '{}' } },
        chatCall('e', 'five', 'not json'),
      ],
    };
    const slots = slotsOf(message);
    expect(slots.map((s) => (s.read.ok ? s.read.call.tool : s.read.error.code))).toEqual([
      'one',
      'record_not_object',
      'record_unknown_envelope',
      'record_missing_tool_name',
      'five',
    ]);
    expect(slots.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    const messages = slots.map((s) => (s.read.ok ? '' : s.read.error.message));
    expect(messages[1]).toBe('tool_calls[1] is a JSON string, not a tool-call object.');
    expect(messages[2]).toMatch(/^tool_calls\[2\] matches none of the accepted call envelopes \(keys seen: "id", "kind"\)/);
    expect(messages[3]).toMatch(/^tool_calls\[3\]: The OpenAI Chat Completions envelope carries no tool name/);
  });

  it('a broken tool_use block in content fails alone (a block with a call shape counts)', () => {
    const message = {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 't1', name: 'ok', input: {} },
        { type: 'tool_use', id: 't2', input: {} },
      ],
    };
    expect(summary(message)).toEqual([['anthropic', 't1', 'ok'], 'record_missing_tool_name']);
  });
});

describe('ids within one message', () => {
  it('marks calls whose id another call of the record shares', () => {
    const slots = slotsOf({
      role: 'assistant',
      tool_calls: [chatCall('same', 'a', '{}'), chatCall('same', 'b', '{}'), chatCall('other', 'c', '{}')],
    });
    expect(slots.map((s) => s.sharedId)).toEqual([true, true, false]);
  });

  it('calls without an id share nothing (their key is the record and the position)', () => {
    const slots = slotsOf({ role: 'model', parts: [{ functionCall: { name: 'a' } }, { functionCall: { name: 'b' } }] });
    expect(slots.map((s) => s.sharedId)).toEqual([false, false]);
  });
});

describe('messages with no tool call, and records that are neither', () => {
  it.each<[string, unknown, RegExp]>([
    [
      'an assistant message with only text',
      { role: 'assistant', content: 'I will search the issues for you.' },
      /whole message \(role "assistant"\) that holds no tool call/,
    ],
    [
      'an Anthropic message with only text',
      { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      /looked in tool_calls, content and parts/,
    ],
    ['an empty tool_calls list', { role: 'assistant', tool_calls: [] }, /holds no tool call/],
    ['a Gemini response blocked (no candidates)', { candidates: [], promptFeedback: { blockReason: 'SAFETY' } }, /candidates \(empty\)/],
    ['a Gemini candidate without content', { candidates: [{ finishReason: 'SAFETY' }] }, /candidates\[0\]\.content \(absent\)/],
    [
      'a Bedrock response that ended its turn',
      { output: { message: { role: 'assistant', content: [{ text: 'Hi.' }] } }, stopReason: 'end_turn' },
      /output\.message\.content/,
    ],
    [
      'a Responses response with only a message item',
      { object: 'response', output: [{ type: 'message', role: 'assistant', content: [] }] },
      /the output items/,
    ],
    [
      'a user message of tool results',
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
      /role "user"/,
    ],
  ])('%s -> record_no_tool_calls', (_name, record, message) => {
    const error = failure(record);
    expect(error.code).toBe('record_no_tool_calls');
    expect(error.message).toMatch(message);
  });

  it.each<[string, string, unknown]>([
    ['a text block alone', 'record_unknown_envelope', { type: 'text', text: 'hello' }],
    ['a top-level array of calls', 'record_not_object', [chatCall('a', 'b', '{}')]],
    [
      'a tool result',
      'record_unknown_envelope',
      { type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'x' } },
    ],
    ['output without a message', 'record_unknown_envelope', { output: { text: 'x' } }],
  ])('%s -> %s', (_name, code, record) => {
    expect(failure(record).code).toBe(code);
  });

  it('names every accepted shape when nothing matches', () => {
    const { message } = failure({ foo: 1 });
    for (const shape of [
      'canonical',
      'OpenAI Chat Completions',
      'Mistral',
      'Ollama',
      'OpenAI Responses',
      'Anthropic',
      'MCP',
      'Gemini',
      'function_call',
      'Bedrock',
      'AI SDK',
      'LangChain',
      'whole message',
    ]) {
      expect(message).toContain(shape);
    }
  });
});

describe('bounds', () => {
  it(`dead-letters a message of more than ${MAX_CALLS_PER_RECORD} calls as a whole, and reads exactly the limit`, () => {
    const calls = (n: number) => ({ role: 'assistant', tool_calls: Array.from({ length: n }, (_, i) => chatCall(`c${i}`, 't', '{}')) });
    const over = failure(calls(MAX_CALLS_PER_RECORD + 1));
    expect(over.code).toBe('record_too_many_calls');
    expect(over.message).toContain(`${MAX_CALLS_PER_RECORD + 1} tool calls`);
    expect(slotsOf(calls(MAX_CALLS_PER_RECORD))).toHaveLength(MAX_CALLS_PER_RECORD);
  });

  it('honours a custom bound', () => {
    expect(read({ role: 'assistant', tool_calls: [chatCall('a', 't', '{}'), chatCall('b', 't', '{}')] }, 1)).toMatchObject({
      ok: false,
      error: { code: 'record_too_many_calls' },
    });
  });

  it('does not mutate the message and hands out references into it', () => {
    const message = JSON.parse(
      JSON.stringify({ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: { a: 1 } }] }),
    ) as { content: { input: unknown }[] };
    const before = JSON.stringify(message);
    const result = decodeRecord(message as unknown as JsonValue);
    const slot = result.ok ? result.calls[0] : undefined;
    expect(JSON.stringify(message)).toBe(before);
    expect(slot?.read.ok === true && slot.read.call.rawArguments).toBe(message.content[0]?.input);
  });
});
