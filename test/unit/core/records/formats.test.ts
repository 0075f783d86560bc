/**
 * The formats added beside the original six, with payloads shaped as their SDKs and documentation write them,
 * and the rule that tells the OpenAI-shaped ones apart (records/envelopes/detect.ts).
 */
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, parseArguments, type EnvelopeResult } from '../../../../src/core/records/envelope.js';
import type { JsonObject, JsonValue } from '../../../../src/core/shared/json.js';
import type { DecodedCall, EnvelopeFormat } from '../../../../src/core/shared/types.js';
import { callOf, errorOf } from './envelope-results.js';

function decode(value: unknown): EnvelopeResult {
  return decodeEnvelope(JSON.parse(JSON.stringify(value)) as JsonValue);
}

function argsOf(call: DecodedCall): JsonObject {
  const parsed = parseArguments(call.rawArguments);
  if (!parsed.ok) throw new Error(`expected arguments, got ${parsed.diagnostic.code}`);
  return parsed.value;
}

const CASES: { name: string; record: unknown; format: EnvelopeFormat; id: string | null; tool: string; args: JsonObject }[] = [
  {
    name: 'Bedrock Converse toolUse block',
    record: { toolUse: { toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'top_song', input: { sign: 'WZPZ' } } },
    format: 'bedrock',
    id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
    tool: 'top_song',
    args: { sign: 'WZPZ' },
  },
  {
    name: 'Ollama /api/chat tool call (function.index, no id)',
    record: { function: { index: 0, name: 'get_current_weather', arguments: { format: 'celsius', location: 'Paris, FR' } } },
    format: 'ollama',
    id: null,
    tool: 'get_current_weather',
    args: { format: 'celsius', location: 'Paris, FR' },
  },
  {
    name: 'Ollama tool call from the Python client (no index, no type)',
    record: { function: { name: 'add_two_numbers', arguments: { a: 3, b: 1 } } },
    format: 'ollama',
    id: null,
    tool: 'add_two_numbers',
    args: { a: 3, b: 1 },
  },
  {
    name: 'Ollama tool call with an id (newer servers)',
    record: { id: 'call_4u8h1k', function: { index: 1, name: 'get_time', arguments: {} } },
    format: 'ollama',
    id: 'call_4u8h1k',
    tool: 'get_time',
    args: {},
  },
  {
    name: 'Mistral tool call with object arguments',
    record: { id: 'D681PevKs', type: 'function', function: { name: 'retrieve_payment_status', arguments: { transaction_id: 'T1001' } } },
    format: 'mistral',
    id: 'D681PevKs',
    tool: 'retrieve_payment_status',
    args: { transaction_id: 'T1001' },
  },
  {
    name: 'Mistral SDK call without an id ("null")',
    record: { id: 'null', type: 'function', function: { name: 'retrieve_payment_date', arguments: { transaction_id: 'T1002' } } },
    format: 'mistral',
    id: null,
    tool: 'retrieve_payment_date',
    args: { transaction_id: 'T1002' },
  },
  {
    name: 'Mistral tool call with text arguments reads as OpenAI (same bytes)',
    record: {
      id: 'D681PevKs',
      type: 'function',
      function: { name: 'retrieve_payment_status', arguments: '{"transaction_id": "T1001"}' },
      index: 0,
    },
    format: 'openai_chat',
    id: 'D681PevKs',
    tool: 'retrieve_payment_status',
    args: { transaction_id: 'T1001' },
  },
  {
    name: 'AI SDK 5 tool-call part (input object)',
    record: { type: 'tool-call', toolCallId: 'call_9xJ', toolName: 'weather', input: { location: 'San Francisco' }, providerOptions: {} },
    format: 'ai_sdk',
    id: 'call_9xJ',
    tool: 'weather',
    args: { location: 'San Francisco' },
  },
  {
    name: 'AI SDK 5 provider tool call (input as JSON text)',
    record: { type: 'tool-call', toolCallId: 'call_9xK', toolName: 'weather', input: '{"location":"Berlin"}' },
    format: 'ai_sdk',
    id: 'call_9xK',
    tool: 'weather',
    args: { location: 'Berlin' },
  },
  {
    name: 'AI SDK 4 tool-call part (args)',
    record: { type: 'tool-call', toolCallId: 'call_9xL', toolName: 'weather', args: { location: 'Oslo' } },
    format: 'ai_sdk',
    id: 'call_9xL',
    tool: 'weather',
    args: { location: 'Oslo' },
  },
  {
    name: 'LangChain ToolCall',
    record: { name: 'multiply', args: { a: 3, b: 12 }, id: 'call_Tk3a', type: 'tool_call' },
    format: 'langchain',
    id: 'call_Tk3a',
    tool: 'multiply',
    args: { a: 3, b: 12 },
  },
  {
    name: 'LangChain ToolCall without type (older langchain-core), id null',
    record: { name: 'multiply', args: { a: 1, b: 2 }, id: null },
    format: 'langchain',
    id: null,
    tool: 'multiply',
    args: { a: 1, b: 2 },
  },
  {
    name: 'Gemini from the Python SDK (to_json_dict: snake_case)',
    record: {
      function_call: { id: 'fc-1', name: 'set_light_values', args: { brightness: 25, color_temp: 'warm' } },
      thought_signature: 'CiQB',
    },
    format: 'gemini_python',
    id: 'fc-1',
    tool: 'set_light_values',
    args: { brightness: 25, color_temp: 'warm' },
  },
  {
    name: 'Gemini snake_case without args',
    record: { function_call: { name: 'get_time' } },
    format: 'gemini_python',
    id: null,
    tool: 'get_time',
    args: {},
  },
  {
    name: 'OpenAI legacy function_call message',
    record: {
      role: 'assistant',
      content: null,
      function_call: { name: 'get_current_weather', arguments: '{\n  "location": "Boston, MA"\n}' },
    },
    format: 'openai_function_call',
    id: null,
    tool: 'get_current_weather',
    args: { location: 'Boston, MA' },
  },
  {
    name: 'OpenAI legacy function_call without role (arguments tell it from Gemini)',
    record: { function_call: { name: 'get_current_weather', arguments: '{}' } },
    format: 'openai_function_call',
    id: null,
    tool: 'get_current_weather',
    args: {},
  },
];

describe('new single-call formats', () => {
  it.each(CASES)('$name', ({ record, format, id, tool, args }) => {
    const call = callOf(decode(record));
    expect(call).toMatchObject({ format, id, tool });
    expect(argsOf(call)).toEqual(args);
    expect(call.flaggedInvalid).toBeUndefined();
  });

  it('keeps the arguments by reference', () => {
    const record = JSON.parse('{"toolUse":{"toolUseId":"t","name":"n","input":{"a":[1]}}}') as JsonObject;
    expect(callOf(decodeEnvelope(record)).rawArguments).toBe((record.toolUse as JsonObject).input);
  });

  it('AI SDK: input wins over args when both are sent', () => {
    expect(argsOf(callOf(decode({ type: 'tool-call', toolCallId: 'c', toolName: 't', input: { a: 1 }, args: { a: 2 } })))).toEqual({
      a: 1,
    });
  });

  it("Bedrock: input is any JSON value; a non-object is the model's mistake, rejected later, not the envelope's", () => {
    const call = callOf(decode({ toolUse: { toolUseId: 't', name: 'n', input: [1, 2] } }));
    expect(call.rawArguments).toEqual([1, 2]);
    expect(parseArguments(call.rawArguments).ok).toBe(false);
  });
});

describe('LangChain InvalidToolCall', () => {
  it("is flagged with LangChain's error and keeps the raw args text", () => {
    const call = callOf(
      decode({
        type: 'invalid_tool_call',
        name: 'multiply',
        args: '{"a": 3, "b": ',
        id: 'call_bad',
        error: 'Function multiply arguments:\n\n{"a": 3, "b": \n\nare not valid JSON. Received JSONDecodeError Expecting value',
      }),
    );
    expect(call).toMatchObject({ format: 'langchain', id: 'call_bad', tool: 'multiply', rawArguments: '{"a": 3, "b": ' });
    expect(call.flaggedInvalid?.error).toMatch(/are not valid JSON/);
  });

  it('without an error text, and with args null', () => {
    const call = callOf(decode({ type: 'invalid_tool_call', name: 'multiply', args: null, id: null, error: null }));
    expect(call.flaggedInvalid).toEqual({ error: null });
    expect(call.rawArguments).toBeNull();
  });

  it('bounds an enormous error text', () => {
    const call = callOf(decode({ type: 'invalid_tool_call', name: 'm', args: '{', error: 'x'.repeat(50_000) }));
    expect(call.flaggedInvalid?.error?.length).toBeLessThan(1_100);
  });

  it('without a name cannot be routed: record_missing_tool_name', () => {
    expect(errorOf(decode({ type: 'invalid_tool_call', name: null, args: '{"a":1}', id: 'x', error: 'no name' })).code).toBe(
      'record_missing_tool_name',
    );
  });
});

describe('OpenAI Responses custom_tool_call', () => {
  it('is its own dead letter, saying why, naming the tool and call', () => {
    const error = errorOf(
      decode({ type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_aEe', name: 'code_exec', input: 'print("hello world")' }),
    );
    expect(error.code).toBe('record_custom_tool_call');
    expect(error.message).toContain('free text');
    expect(error.message).toContain('"code_exec"');
    expect(error.message).toContain('"call_aEe"');
    expect(error.message).not.toContain('matches none');
  });

  it('without name or call_id still says what it is', () => {
    expect(errorOf(decode({ type: 'custom_tool_call', input: 'x' })).code).toBe('record_custom_tool_call');
  });
});

describe('missing pieces in the new formats', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      'Bedrock without input',
      { toolUse: { toolUseId: 't', name: 'n' } },
      'record_missing_arguments',
      /Bedrock Converse toolUse envelope carries no arguments: toolUse.input is missing/,
    ],
    [
      'Bedrock toolUse not an object',
      { toolUse: 'n' },
      'record_missing_tool_name',
      /toolUse.name is absent because toolUse is a JSON string/,
    ],
    ['Bedrock without name', { toolUse: { toolUseId: 't', input: {} } }, 'record_missing_tool_name', /toolUse.name is missing/],
    ['Ollama without arguments', { function: { index: 0, name: 'n' } }, 'record_missing_arguments', /function.arguments is missing/],
    [
      'Ollama with an empty name',
      { function: { name: '', arguments: {} } },
      'record_missing_tool_name',
      /Ollama envelope carries no tool name: function.name is empty/,
    ],
    ['Mistral without a name', { type: 'function', function: { arguments: { a: 1 } } }, 'record_missing_tool_name', /Mistral envelope/],
    [
      'AI SDK without input or args',
      { type: 'tool-call', toolCallId: 'c', toolName: 't' },
      'record_missing_arguments',
      /input \(args before AI SDK 5\) and args are both missing/,
    ],
    ['AI SDK without toolName', { type: 'tool-call', toolCallId: 'c', input: {} }, 'record_missing_tool_name', /toolName is missing/],
    [
      'LangChain without args',
      { type: 'tool_call', name: 'n', id: 'x' },
      'record_missing_arguments',
      /LangChain tool call envelope carries no arguments: args is missing/,
    ],
    ['LangChain with a numeric name', { type: 'tool_call', name: 7, args: {} }, 'record_missing_tool_name', /name is a JSON number/],
    ['Gemini snake_case without a name', { function_call: { args: {} } }, 'record_missing_tool_name', /function_call.name is missing/],
    [
      'legacy function_call without arguments',
      { role: 'assistant', function_call: { name: 'n' } },
      'record_missing_arguments',
      /function_call.arguments is missing/,
    ],
  ])('%s', (_name, record, code, message) => {
    const error = errorOf(decode(record));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('function_call null beside a role is no call (an OpenAI SDK message with no legacy call)', () => {
    expect(decode({ role: 'assistant', content: 'hi', function_call: null }).ok).toBe(false);
  });
});

describe('detection: the new formats never take a record of the original six', () => {
  it.each<[string, unknown, EnvelopeFormat]>([
    ['canonical with toolUse and function_call beside it', { tool: 't', toolUse: {}, function_call: { name: 'x' } }, 'canonical'],
    ['MCP with a type tool-call', { jsonrpc: '2.0', method: 'tools/call', params: { name: 't' }, type: 'tool-call' }, 'mcp'],
    ['Gemini camelCase beats snake_case', { functionCall: { name: 'g' }, function_call: { name: 's' } }, 'gemini'],
    ['Responses function_call beats toolUse', { type: 'function_call', name: 'r', arguments: '{}', toolUse: {} }, 'openai_responses'],
    ['Anthropic tool_use with name and args', { type: 'tool_use', name: 'a', input: {}, args: {} }, 'anthropic'],
    [
      'OpenAI chat with text arguments and a toolUse key',
      { id: 'c', type: 'function', function: { name: 'c', arguments: '{}' }, toolUse: {} },
      'openai_chat',
    ],
    ['OpenAI chat item without type', { id: 'call_1', function: { name: 'c', arguments: '{}' } }, 'openai_chat'],
  ])('%s', (_name, record, format) => {
    expect(callOf(decode(record)).format).toBe(format);
  });

  it.each<[string, unknown, EnvelopeFormat]>([
    ['object arguments and function.index -> ollama', { type: 'function', function: { index: 2, name: 'n', arguments: {} } }, 'ollama'],
    ['text arguments and function.index -> ollama', { function: { index: 0, name: 'n', arguments: '{}' } }, 'ollama'],
    ['object arguments, no type -> ollama', { id: 'x', function: { name: 'n', arguments: {} } }, 'ollama'],
    ['object arguments with type -> mistral', { type: 'function', function: { name: 'n', arguments: {} } }, 'mistral'],
    ['text arguments -> openai_chat', { type: 'function', function: { name: 'n', arguments: '{}' } }, 'openai_chat'],
    ['no arguments -> openai_chat (and a dead letter)', { type: 'function', function: { name: 'n' } }, 'openai_chat'],
  ])('the OpenAI-shaped call with object arguments (documented): %s', (_name, record, format) => {
    const result = decode(record);
    if (result.ok) expect(result.call.format).toBe(format);
    else expect(result.error.message).toContain('OpenAI Chat Completions');
  });

  it('a tool definition in the OpenAI shape is still refused as one', () => {
    const error = errorOf(decode({ type: 'function', function: { name: 'purge', description: 'd', parameters: { type: 'object' } } }));
    expect(error.code).toBe('record_missing_arguments');
    expect(error.message).toContain('tool definition');
  });

  it('a name and arguments without args or type stays unknown', () => {
    expect(errorOf(decode({ name: 't', arguments: {} })).code).toBe('record_unknown_envelope');
  });
});
