import { describe, expect, it } from 'vitest';
import { decodeEnvelope, parseArguments, type ArgumentsResult, type EnvelopeResult } from '../../../../src/core/records/envelope.js';
import type { JsonObject, JsonValue } from '../../../../src/core/shared/json.js';
import type { Diagnostic, EnvelopeFormat } from '../../../../src/core/shared/types.js';
import { callOf, errorOf } from './envelope-results.js';

/** Parses a record as the worker would: envelopes are always JSON text on the wire. */
function decodeText(text: string): EnvelopeResult {
  return decodeEnvelope(JSON.parse(text) as JsonValue);
}

function argsOf(result: ArgumentsResult): JsonObject {
  if (!result.ok) throw new Error(`expected arguments, got ${result.diagnostic.code}: ${result.diagnostic.message}`);
  return result.value;
}

function diagnosticOf(result: ArgumentsResult): Diagnostic {
  if (result.ok) throw new Error(`expected a diagnostic, got ${JSON.stringify(result.value)}`);
  return result.diagnostic;
}

function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === 'object' && item !== null && !Object.isFrozen(item)) {
      Object.freeze(item);
      stack.push(...Object.values(item as Record<string, unknown>));
    }
  }
  return value;
}

// Payloads shaped as in each vendor's documentation.
const FORMATS: {
  name: string;
  format: EnvelopeFormat;
  text: string;
  id: string | null;
  tool: string;
  args: JsonObject;
}[] = [
  {
    name: 'canonical, arguments as an object',
    format: 'canonical',
    text: '{"id":"c-0001","tool":"search_docs","arguments":{"query":"kafka retention","limit":5}}',
    id: 'c-0001',
    tool: 'search_docs',
    args: { query: 'kafka retention', limit: 5 },
  },
  {
    name: 'canonical, arguments as JSON text',
    format: 'canonical',
    text: '{"id":"c-0002","tool":"search_docs","arguments":"{\\"query\\":\\"kafka\\"}"}',
    id: 'c-0002',
    tool: 'search_docs',
    args: { query: 'kafka' },
  },
  {
    name: 'OpenAI Chat Completions tool_calls item',
    format: 'openai_chat',
    text: JSON.stringify({
      id: 'call_abc123',
      type: 'function',
      function: { name: 'get_current_weather', arguments: '{\n"location": "Boston, MA",\n"unit": "celsius"\n}' },
    }),
    id: 'call_abc123',
    tool: 'get_current_weather',
    args: { location: 'Boston, MA', unit: 'celsius' },
  },
  {
    name: 'OpenAI Responses function_call item',
    format: 'openai_responses',
    text: JSON.stringify({
      type: 'function_call',
      id: 'fc_12345xyz',
      call_id: 'call_12345xyz',
      name: 'get_weather',
      arguments: '{"location":"Paris, France"}',
      status: 'completed',
    }),
    id: 'call_12345xyz',
    tool: 'get_weather',
    args: { location: 'Paris, France' },
  },
  {
    name: 'Anthropic tool_use content block',
    format: 'anthropic',
    text: JSON.stringify({
      type: 'tool_use',
      id: 'toolu_01A09q90qw90lq917835lq9',
      name: 'get_weather',
      input: { location: 'San Francisco, CA', unit: 'celsius' },
    }),
    id: 'toolu_01A09q90qw90lq917835lq9',
    tool: 'get_weather',
    args: { location: 'San Francisco, CA', unit: 'celsius' },
  },
  {
    name: 'MCP tools/call request (numeric id)',
    format: 'mcp',
    text: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_weather', arguments: { location: 'New York' } },
    }),
    id: '2',
    tool: 'get_weather',
    args: { location: 'New York' },
  },
  {
    name: 'MCP tools/call request (string id, no arguments, _meta)',
    format: 'mcp',
    text: JSON.stringify({
      jsonrpc: '2.0',
      id: 'req-7',
      method: 'tools/call',
      params: { name: 'list_files', _meta: { progressToken: 'p1' } },
    }),
    id: 'req-7',
    tool: 'list_files',
    args: {},
  },
  {
    name: 'Gemini functionCall part (no id)',
    format: 'gemini',
    text: JSON.stringify({ functionCall: { name: 'find_theaters', args: { location: 'Mountain View, CA', movie: 'Barbie' } } }),
    id: null,
    tool: 'find_theaters',
    args: { location: 'Mountain View, CA', movie: 'Barbie' },
  },
  {
    name: 'Gemini functionCall part (id, thoughtSignature sibling, no args)',
    format: 'gemini',
    text: JSON.stringify({ functionCall: { id: 'fc-9', name: 'get_time' }, thoughtSignature: 'CiQB...' }),
    id: 'fc-9',
    tool: 'get_time',
    args: {},
  },
];

describe('decodeEnvelope: each format', () => {
  it.each(FORMATS)('$name', ({ format, text, id, tool, args }) => {
    const call = callOf(decodeText(text));
    expect(call.format).toBe(format);
    expect(call.id).toBe(id);
    expect(call.tool).toBe(tool);
    expect(call.schemaVersion).toBeUndefined();
    expect(argsOf(parseArguments(call.rawArguments))).toEqual(args);
  });

  it('does not mutate the record and returns the arguments by reference', () => {
    const record = deepFreeze(JSON.parse(FORMATS[4]?.text ?? '') as JsonObject);
    const before = structuredClone(record);
    const call = callOf(decodeEnvelope(record));
    expect(record).toEqual(before);
    expect(call.rawArguments).toBe(record.input);
    expect(argsOf(parseArguments(call.rawArguments))).toBe(record.input);
  });

  it('keeps rawArguments exactly as sent (string, absent, wrong type)', () => {
    expect(callOf(decodeText(FORMATS[2]?.text ?? '')).rawArguments).toBe('{\n"location": "Boston, MA",\n"unit": "celsius"\n}');
    expect(callOf(decodeText('{"tool":"t"}')).rawArguments).toBeUndefined();
    expect(callOf(decodeText('{"tool":"t","arguments":[1]}')).rawArguments).toEqual([1]);
    expect(callOf(decodeText('{"tool":"t","arguments":null}')).rawArguments).toBeNull();
  });

  it('keeps tool names exactly as sent', () => {
    expect(callOf(decodeText('{"tool":"  search  "}')).tool).toBe('  search  ');
    expect(callOf(decodeText('{"type":"tool_use","id":"x","name":"Ünïcode-名前","input":{}}')).tool).toBe('Ünïcode-名前');
  });

  it('ignores unknown extra fields', () => {
    const call = callOf(decodeText('{"type":"tool_use","id":"t1","name":"n","input":{},"cache_control":{"type":"ephemeral"},"x":1}'));
    expect(call).toEqual({ format: 'anthropic', id: 't1', tool: 'n', rawArguments: {} });
  });
});

describe('decodeEnvelope: ids', () => {
  it.each<[string, string, string | null]>([
    ['canonical string id', '{"id":"abc","tool":"t"}', 'abc'],
    ['canonical empty id kept', '{"id":"","tool":"t"}', ''],
    ['canonical missing id', '{"tool":"t"}', null],
    ['canonical numeric id', '{"id":17,"tool":"t"}', '17'],
    ['canonical object id', '{"id":{"x":1},"tool":"t"}', null],
    ['MCP numeric id', '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"t"}}', '0'],
    ['MCP fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"t"}}', '1.5'],
    ['MCP null id', '{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}', null],
    [
      'Responses: call_id, not the item id',
      '{"type":"function_call","id":"fc_1","call_id":"call_1","name":"t","arguments":"{}"}',
      'call_1',
    ],
    ['Responses without call_id: null, not the item id', '{"type":"function_call","id":"fc_1","name":"t","arguments":"{}"}', null],
    ['Gemini id inside functionCall', '{"functionCall":{"id":"g1","name":"t"}}', 'g1'],
    ['Gemini id outside functionCall is not the call id', '{"id":"x","functionCall":{"name":"t"}}', null],
  ])('%s', (_name, text, id) => {
    expect(callOf(decodeText(text)).id).toBe(id);
  });
});

describe('decodeEnvelope: canonical schemaVersion', () => {
  it('carries a positive integer pin', () => {
    expect(callOf(decodeText('{"id":"a","tool":"t","arguments":{},"schemaVersion":3}')).schemaVersion).toBe(3);
  });

  it('treats null as absent', () => {
    const call = callOf(decodeText('{"tool":"t","schemaVersion":null}'));
    expect('schemaVersion' in call).toBe(false);
  });

  it.each(['0', '-1', '1.5', '"3"', 'true', '[3]', '1e300'])('refuses schemaVersion %s', (version) => {
    const error = errorOf(decodeText(`{"tool":"t","schemaVersion":${version}}`));
    expect(error.code).toBe('record_unknown_envelope');
    expect(error.message).toMatch(/schemaVersion must be a positive integer/);
  });
});

describe('decodeEnvelope: detection order', () => {
  it.each<[string, string, EnvelopeFormat]>([
    ['tool beats a vendor type', '{"tool":"t","type":"tool_use","name":"n"}', 'canonical'],
    ['jsonrpc beats functionCall', '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"},"functionCall":{"name":"g"}}', 'mcp'],
    ['functionCall beats type', '{"functionCall":{"name":"g"},"type":"function_call","name":"r"}', 'gemini'],
    [
      'function_call beats a function key',
      '{"type":"function_call","name":"r","arguments":"{}","function":{"name":"c"}}',
      'openai_responses',
    ],
    ['tool_use beats a function key', '{"type":"tool_use","name":"a","input":{},"function":{"name":"c"}}', 'anthropic'],
    ['chat item without type', '{"id":"call_1","function":{"name":"c","arguments":"{}"}}', 'openai_chat'],
  ])('%s', (_name, text, format) => {
    expect(callOf(decodeText(text)).format).toBe(format);
  });
});

describe('decodeEnvelope: records that are not envelopes', () => {
  it.each<[string, string, RegExp]>([
    ['array', '[{"tool":"t"}]', /a JSON array, not an object/],
    ['number', '42', /a JSON number, not an object/],
    ['string', '"{\\"tool\\":\\"t\\"}"', /a JSON string, not an object/],
    ['null', 'null', /JSON null, not an object/],
    ['boolean', 'true', /a JSON boolean, not an object/],
  ])('top-level %s → record_not_object', (_name, text, message) => {
    const error = errorOf(decodeText(text));
    expect(error.code).toBe('record_not_object');
    expect(error.message).toMatch(message);
  });

  it.each<[string, string, RegExp]>([
    ['empty object', '{}', /keys seen: none/],
    ['unrelated object', '{"name":"t","arguments":{}}', /keys seen: "name", "arguments"/],
    ['other content block type', '{"type":"text","text":"hello"}', /keys seen: "type", "text"/],
    ['Gemini function response', '{"functionResponse":{"name":"t","response":{}}}', /"functionResponse"/],
  ])('%s → record_unknown_envelope listing the accepted shapes', (_name, text, message) => {
    const error = errorOf(decodeText(text));
    expect(error.code).toBe('record_unknown_envelope');
    expect(error.message).toMatch(message);
    for (const shape of ['canonical', 'OpenAI Chat Completions', 'OpenAI Responses', 'Anthropic', 'MCP', 'Gemini']) {
      expect(error.message).toContain(shape);
    }
  });

  it('bounds the keys it quotes', () => {
    const record: JsonObject = {};
    for (let i = 0; i < 50; i += 1) record[`k${i}-${'x'.repeat(100)}`] = i;
    const error = errorOf(decodeEnvelope(record));
    expect(error.message).toContain('and 42 more');
    expect(error.message.length).toBeLessThan(1200);
  });

  it.each<[string, string, RegExp]>([
    ['tools/list', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', /method is "tools\/list"/],
    ['initialize', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', /method is "initialize"/],
    ['a response (no method)', '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}', /method is missing/],
    ['a non-string method', '{"jsonrpc":"2.0","id":1,"method":7}', /method is 7/],
  ])('MCP %s → record_unknown_envelope', (_name, text, message) => {
    const error = errorOf(decodeText(text));
    expect(error.code).toBe('record_unknown_envelope');
    expect(error.message).toMatch(message);
    expect(error.message).toContain('only "tools/call" requests are processed');
  });
});

describe('decodeEnvelope: arguments absent where the format requires them', () => {
  it.each<[string, string, RegExp]>([
    [
      'Chat call without function.arguments',
      '{"id":"call_1","type":"function","function":{"name":"purge_cache"}}',
      /OpenAI Chat Completions envelope carries no arguments: function.arguments is missing\./,
    ],
    [
      'Chat tool definition sent as a call',
      '{"type":"function","function":{"name":"purge_cache","description":"Purges the CDN cache.","parameters":{"type":"object"}}}',
      /function.arguments is missing and function.parameters is present: this is a tool definition, not a call/,
    ],
    [
      'Responses tool definition',
      '{"type":"function","name":"purge_cache","parameters":{"type":"object"}}',
      /an OpenAI tool definition .* not a call: publish the calls the model made/,
    ],
    [
      'Responses item without arguments',
      '{"type":"function_call","call_id":"call_1","name":"purge_cache"}',
      /OpenAI Responses envelope carries no arguments: arguments is missing/,
    ],
    [
      'Anthropic tool_use without input',
      '{"type":"tool_use","id":"toolu_1","name":"purge_cache"}',
      /Anthropic tool_use envelope carries no arguments: input is missing/,
    ],
  ])('%s → record_missing_arguments, never a call with {}', (_name, text, message) => {
    const error = errorOf(decodeText(text));
    expect(error.code).toBe('record_missing_arguments');
    expect(error.message).toMatch(message);
  });

  it('reads absent arguments as {} where the format makes them optional (MCP, Gemini) and in the canonical envelope', () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}',
      '{"functionCall":{"name":"t"}}',
      '{"id":"a","tool":"t"}',
    ]) {
      expect(argsOf(parseArguments(callOf(decodeText(text)).rawArguments))).toEqual({});
    }
  });
});

describe('decodeEnvelope: a whole message is not one call', () => {
  // decodeEnvelope reads single calls only; decodeRecord fans messages out (messages.test.ts).
  it.each([
    '{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"t","arguments":"{}"}}]}',
    '{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"t","input":{}}]}',
  ])('%s -> record_unknown_envelope', (text) => {
    expect(errorOf(decodeText(text)).code).toBe('record_unknown_envelope');
  });
});

describe('decodeEnvelope: missing tool name', () => {
  // [format, field, build a record given the JSON of the name value, or undefined to omit it]
  const builders: [EnvelopeFormat, string, (name: string | undefined) => string][] = [
    ['canonical', 'tool', (n) => (n === undefined ? '{"id":"a","arguments":{}}' : `{"id":"a","tool":${n}}`)],
    [
      'openai_chat',
      'function.name',
      (n) => `{"id":"call_1","type":"function","function":{${n === undefined ? '' : `"name":${n},`}"arguments":"{}"}}`,
    ],
    [
      'openai_responses',
      'name',
      (n) => `{"type":"function_call","call_id":"call_1"${n === undefined ? '' : `,"name":${n}`},"arguments":"{}"}`,
    ],
    ['anthropic', 'name', (n) => `{"type":"tool_use","id":"toolu_1"${n === undefined ? '' : `,"name":${n}`},"input":{}}`],
    [
      'mcp',
      'params.name',
      (n) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{${n === undefined ? '' : `"name":${n},`}"arguments":{}}}`,
    ],
    ['gemini', 'functionCall.name', (n) => `{"functionCall":{${n === undefined ? '' : `"name":${n},`}"args":{}}}`],
  ];
  const badNames: [string, string | undefined, RegExp][] = [
    ['missing', undefined, /is missing/],
    ['empty', '""', /is empty/],
    ['whitespace only', '" \\t\\n "', /is only whitespace/],
    ['a number', '42', /is a JSON number, not a string/],
    ['null', 'null', /is JSON null, not a string/],
    ['an object', '{"name":"t"}', /is a JSON object, not a string/],
  ];
  const cases = builders.flatMap(([format, field, build]) =>
    badNames.map(([what, name, reason]) => ({ format, field, what, text: build(name), reason })),
  );

  // The canonical format is detected by its `tool` key, so a record without one is not canonical at all.
  it.each(cases.filter((c) => !(c.format === 'canonical' && c.what === 'missing')))(
    '$format: name $what → record_missing_tool_name naming $field',
    ({ format, field, text, reason }) => {
      const error = errorOf(decodeText(text));
      expect(error.code).toBe('record_missing_tool_name');
      expect(error.message).toContain(` ${field} `);
      expect(error.message).toMatch(reason);
      expect(error.message).toContain(format === 'mcp' ? 'MCP' : 'envelope');
    },
  );

  it('a canonical-looking record without tool is an unknown envelope', () => {
    expect(errorOf(decodeText('{"id":"a","arguments":{}}')).code).toBe('record_unknown_envelope');
  });

  it.each<[string, string, string]>([
    ['chat with no function object', '{"id":"call_1","type":"function"}', 'function.name'],
    ['chat with function as a string', '{"id":"call_1","type":"function","function":"get_weather"}', 'function.name'],
    ['MCP without params', '{"jsonrpc":"2.0","id":1,"method":"tools/call"}', 'params.name'],
    ['MCP with params as an array', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["t"]}', 'params.name'],
    ['Gemini with functionCall null', '{"functionCall":null}', 'functionCall.name'],
  ])('%s → record_missing_tool_name naming %s', (_name, text, field) => {
    const error = errorOf(decodeText(text));
    expect(error.code).toBe('record_missing_tool_name');
    expect(error.message).toContain(field);
  });
});

describe('parseArguments: accepted', () => {
  it('returns an object as the same reference', () => {
    const args = { path: 'a.txt' };
    expect(argsOf(parseArguments(args))).toBe(args);
  });

  it('reads absent arguments as {}', () => {
    expect(argsOf(parseArguments(undefined))).toEqual({});
  });

  it.each<[string, string, JsonObject]>([
    ['compact', '{"a":1}', { a: 1 }],
    ['pretty with surrounding whitespace', '\n  {\n  "a": [1, 2],\n  "b": {"c": null}\n}\n', { a: [1, 2], b: { c: null } }],
    ['empty object', '{}', {}],
    ['nested JSON text inside stays a string', '{"payload":"{\\"x\\":1}"}', { payload: '{"x":1}' }],
    ['entities are left alone (that is a repair)', '{"q":"a &amp; b"}', { q: 'a &amp; b' }],
  ])('JSON text: %s', (_name, text, expected) => {
    expect(argsOf(parseArguments(text))).toEqual(expected);
  });

  it('keeps __proto__ as data, from text and from an object', () => {
    const fromText = argsOf(parseArguments('{"__proto__": {"x":1}}'));
    expect(Object.hasOwn(fromText, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(fromText, '__proto__')?.value).toEqual({ x: 1 });
    expect(Object.getPrototypeOf(fromText)).toBe(Object.prototype);
    expect((fromText as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();

    const record = JSON.parse('{"type":"tool_use","id":"t","name":"n","input":{"__proto__":{"x":1},"constructor":"c"}}') as JsonValue;
    const fromObject = argsOf(parseArguments(callOf(decodeEnvelope(record)).rawArguments));
    expect(Object.keys(fromObject)).toEqual(['__proto__', 'constructor']);
    expect((fromObject as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('parseArguments: refused', () => {
  it.each<[string, unknown, string, RegExp, Record<string, JsonValue> | undefined]>([
    ['empty text', '', 'arguments_empty', /empty text/, undefined],
    ['whitespace text', ' \n\t ', 'arguments_empty', /only whitespace/, undefined],
    ['not JSON', '{location: Boston}', 'arguments_not_json', /not valid JSON: .*position 1/, { position: 1 }],
    ['truncated JSON', '{"location": "Bos', 'arguments_not_json', /not valid JSON: Unterminated string/, { position: 17 }],
    ['Python-style dict', "{'a': 1}", 'arguments_not_json', /not valid JSON/, { position: 1 }],
    ['plain words', 'Boston', 'arguments_not_json', /not valid JSON: Unexpected token/, undefined],
    [
      'an object JSON-encoded twice',
      JSON.stringify(JSON.stringify({ location: 'Boston' })),
      'arguments_not_object',
      /JSON-encoded twice/,
      { received: 'string', encodedTwice: true },
    ],
    ['a JSON string', '"Boston"', 'arguments_not_object', /parses to a JSON string, not an object/, { received: 'string' }],
    ['a JSON string of an array', JSON.stringify('[1,2]'), 'arguments_not_object', /parses to a JSON string/, { received: 'string' }],
    ['a JSON array', '[1, 2]', 'arguments_not_object', /parses to a JSON array, not an object/, { received: 'array' }],
    ['a JSON number', '42', 'arguments_not_object', /parses to a JSON number, not an object/, { received: 'number' }],
    ['JSON null', 'null', 'arguments_not_object', /parses to JSON null, not an object/, { received: 'null' }],
    ['a JSON boolean', 'true', 'arguments_not_object', /parses to a JSON boolean, not an object/, { received: 'boolean' }],
    ['an array value', ['a', 'b'], 'arguments_not_object', /are a JSON array, not an object/, { received: 'array' }],
    ['a number value', 7, 'arguments_not_object', /are a JSON number, not an object/, { received: 'number' }],
    ['a null value', null, 'arguments_not_object', /are JSON null, not an object/, { received: 'null' }],
    ['a boolean value', false, 'arguments_not_object', /are a JSON boolean, not an object/, { received: 'boolean' }],
  ])('%s', (_name, raw, code, message, details) => {
    const diagnostic = diagnosticOf(parseArguments(raw));
    expect(diagnostic.code).toBe(code);
    expect(diagnostic.path).toBe('');
    expect(diagnostic.message).toMatch(message);
    expect(diagnostic.hint.length).toBeGreaterThan(20);
    expect(diagnostic.hint).toMatch(/JSON/);
    expect(diagnostic.details).toEqual(details);
  });

  it('hints at the parser position when there is one', () => {
    const diagnostic = diagnosticOf(parseArguments('{"a": 1,}'));
    expect(diagnostic.hint).toMatch(/one complete JSON object/);
    expect(diagnostic.hint).toMatch(/stopped at character 8/);
  });

  it('tells a twice-encoded object to be encoded once, without unwrapping it', () => {
    const diagnostic = diagnosticOf(parseArguments('"{\\"a\\": 1}"'));
    expect(diagnostic.hint).toMatch(/Encode the arguments once/);
  });

  it('truncates a long parser reason', () => {
    const diagnostic = diagnosticOf(parseArguments(`{"a": "${'x'.repeat(5000)}`));
    expect(diagnostic.message.length).toBeLessThan(300);
  });

  it('never throws on non-JSON values', () => {
    for (const raw of [Symbol('s'), 1n, () => 1]) {
      expect(diagnosticOf(parseArguments(raw)).code).toBe('arguments_not_object');
    }
  });
});

describe('parseArguments: depth of arguments sent as text', () => {
  // The record's depth check sees JSON text arguments as one string, so their depth is bounded here:
  // otherwise later recursive walks (and JSON.stringify) could overflow the stack.
  const nested = (depth: number): string => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

  it('refuses 10 000 levels inside the text with record_too_deep', () => {
    const text = `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const call = callOf(decodeText(JSON.stringify({ tool: 't', arguments: text })));
    const diagnostic = diagnosticOf(parseArguments(call.rawArguments));
    expect(diagnostic.code).toBe('record_too_deep');
    expect(diagnostic.path).toBe('');
    expect(diagnostic.message).toContain('64');
    expect(diagnostic.details).toEqual({ maxDepth: 64 });
  });

  it('accepts exactly the default bound, refuses one more', () => {
    expect(parseArguments(nested(64)).ok).toBe(true);
    expect(diagnosticOf(parseArguments(nested(65))).code).toBe('record_too_deep');
  });

  it('honours a custom bound', () => {
    expect(parseArguments(nested(3), 3).ok).toBe(true);
    expect(diagnosticOf(parseArguments(nested(4), 3)).message).toContain('more than 3 levels');
  });
});
