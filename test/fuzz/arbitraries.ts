/**
 * Generators of hostile and broken input for the fuzz campaign: raw bytes, invalid UTF-8, envelopes with mutated
 * fields, arguments full of character references, JSON text, lone surrogates, numbers at the edges of IEEE 754,
 * prototype keys at every level, deep nesting, huge strings and JSON Schemas with cycles and worse.
 *
 * Values are built with `Object.fromEntries` / `JSON.parse`, never with assignments, so a `__proto__` key is an
 * own data property, as it is when it arrives from the wire.
 */
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../src/core/shared/json.js';

// ---------------------------------------------------------------------------------------------------------------
// Raw JSON text for numbers JSON.stringify cannot write

/** A number written as raw JSON text by {@link toJsonText} (`-0`, `1e400`, 30-digit integers...). */
const RAW_MARK = '\u0000raw:';
const RAW_PATTERN = /"\\u0000raw:([^"\\]*)"/g;

export function rawNumber(text: string): string {
  return `${RAW_MARK}${text}`;
}

/** JSON text of `value`, with {@link rawNumber} placeholders replaced by their raw text. */
export function toJsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_PATTERN, '$1');
}

export const EDGE_NUMBER_TEXTS = [
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '1e309',
  '-1e400',
  '1e-400',
  '5e-324',
  '-0',
  '-0.0',
  '0e0',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890',
  `1${'0'.repeat(400)}`,
  `0.${'0'.repeat(400)}1`,
  '1E+2',
  '0.30000000000000004',
] as const;

/** Numbers at the edges, as JS numbers (JSON.stringify writes them) or as raw JSON text. */
export const edgeNumber: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom(
    1e308,
    -1e308,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    0.1,
    1e-7,
    1e21,
    0,
    255,
    2 ** 31,
    -(2 ** 31) - 1,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(...EDGE_NUMBER_TEXTS).map(rawNumber),
);

// ---------------------------------------------------------------------------------------------------------------
// Strings

const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', 'a\ud800b', '\udc00\ud800', '😀'.slice(0, 1), '😀'.slice(1)];

export const ENTITY_SNIPPETS = [
  '&amp;',
  '&amp;amp;',
  '&amp;amp;amp;amp;lt;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&#39;',
  '&#0;',
  '&#128;',
  '&#x1F600;',
  '&#xD800;',
  '&#x110000;',
  '&#99999999999999999999;',
  '&#38;#38;#38;',
  '&copy',
  '&copy=',
  '&copyright;',
  '&ampamp',
  '&notit;',
  '&',
  '&&&&',
  '&#',
  '&#x;',
  '?a=1&copy=2&lt=3',
] as const;

/** Text the normalizer and validator react to: references, JSON punctuation, URLs, surrogates, prototype words. */
export const trickyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 2, arbitrary: fc.constantFrom(...ENTITY_SNIPPETS) },
  { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '[1,2]',
      '["a","b"]',
      '{"a":"&lt;"}',
      '"[1]"',
      '"{\\"a\\":1}"',
      '[',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      'null',
      '1e400',
      '',
      ' ',
      'http://a.co/',
      `http://${':'.repeat(300)}`,
      'user@example.com',
      '2024-05-31T14:30:00Z',
      '__proto__',
      'constructor',
      'prototype',
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.constantFrom(
          '&',
          'amp;',
          'lt;',
          '#38;',
          '#x26;',
          'a',
          '[',
          ']',
          '{',
          '}',
          '"',
          ':',
          ',',
          '1',
          '\\',
          ';',
          '=',
          '\ud800',
          'é',
          '@',
          '/',
        ),
        { maxLength: 16 },
      )
      .map((parts) => parts.join('')),
  },
);

const KEY_WORDS = [
  '__proto__',
  'constructor',
  'prototype',
  'polluted',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '',
  '~',
  '/',
  '~1',
  'a/b',
  '&amp;',
  '\ud800',
] as const;

export const trickyKey: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...KEY_WORDS), fc.string({ maxLength: 10 }));

// ---------------------------------------------------------------------------------------------------------------
// JSON values

function objectOf(entries: [string, JsonValue][]): JsonObject {
  return Object.fromEntries<JsonValue>(entries);
}

/** Any JSON value, with tricky strings, edge numbers and prototype keys, a few levels deep. */
export const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    edgeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(trickyKey, tie('value')), { maxLength: 4 }).map(objectOf),
  ),
})).value;

/** `{"__proto__": {"polluted": true}}` and `{"constructor": {"prototype": {"polluted": true}}}` as parsed objects. */
export const pollutingObject: fc.Arbitrary<JsonValue> = fc
  .constantFrom(
    '{"__proto__":{"polluted":true,"isAdmin":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"__proto__":{"__proto__":{"polluted":"deep"}}}',
    '{"prototype":{"polluted":true},"__proto__":[1]}',
    '{"__proto__":null}',
    '{"__proto__":"&amp;lt;"}',
    '{"__proto__":"[\\"a\\"]"}',
  )
  .map((text) => JSON.parse(text) as JsonValue);

// ---------------------------------------------------------------------------------------------------------------
// Arguments and envelopes

/** Parameter names of the campaign's tools (see tools.ts), plus tricky ones. */
export const PARAMETER_NAMES = [
  'query',
  'labels',
  'filters',
  'limit',
  'title',
  'start',
  'duration_minutes',
  'attendees',
  'location',
  'from_account',
  'to_account',
  'amount',
  'currency',
  'memo',
  'table',
  'ops',
  'dry_run',
  'path',
  'content',
  'children',
  'name',
  'next',
  'value',
  'url',
  'uri',
  'email',
  'hostname',
  'date_time',
  'ipv6',
  'regex',
  'uuid',
  'template',
  'kind',
  'x_tags',
  'count',
  'ratio',
  'items',
  'choice',
  'meta',
] as const;

const argumentValue: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 6, arbitrary: jsonValue },
  { weight: 2, arbitrary: trickyString },
  { weight: 1, arbitrary: pollutingObject },
  // JSON text of a container, for parameters declared array/object (RT-TOOL-8 §1).
  { weight: 2, arbitrary: jsonValue.map((v) => toJsonText(v)) },
);

/** An arguments object: known parameter names and tricky keys, with hostile values. */
export const argumentsObject: fc.Arbitrary<JsonObject> = fc
  .array(
    fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PARAMETER_NAMES) }, { weight: 1, arbitrary: trickyKey }), argumentValue),
    { maxLength: 7 },
  )
  .map(objectOf);

/** The arguments as an envelope may carry them: an object, JSON text (once or twice encoded), absent, or garbage. */
export const argumentsAsSent: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
  { weight: 6, arbitrary: argumentsObject },
  { weight: 3, arbitrary: argumentsObject.map((args) => toJsonText(args)) },
  { weight: 1, arbitrary: argumentsObject.map((args) => JSON.stringify(toJsonText(args))) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', '   ', 'not json', '[1,2]', 'null', '{"a":', '{"a":1}x', '\ufeff{}', '{"a":"\\ud800"}', '1e400'),
  },
  { weight: 1, arbitrary: jsonValue },
);

export const TOOL_NAMES = [
  'search_issues',
  'create_event',
  'transfer_funds',
  'update_records',
  'write_file',
  'tree',
  'self_ref',
  'ref_cycle',
  'dangling_ref',
  'proto_keys',
  'formats',
  'patterns',
  'huge_enum',
  'combinators',
  'numbers',
  'draft06',
  'invalid_schema',
  'oversized',
  'overdeep',
] as const;

export const toolName: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...TOOL_NAMES) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '',
      ' ',
      '\t',
      'unknown_tool',
      'search_issues ',
      'Search_Issues',
      '\ud800',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

const callId: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: edgeNumber },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: jsonValue },
);

/** The original six, then the formats added beside them (docs/envelopes.md). */
export const ORIGINAL_FORMATS = ['canonical', 'openai_chat', 'openai_responses', 'anthropic', 'mcp', 'gemini'] as const;
const FORMATS = [
  ...ORIGINAL_FORMATS,
  'bedrock',
  'ollama',
  'mistral',
  'ai_sdk',
  'ai_sdk_v4',
  'langchain',
  'langchain_invalid',
  'gemini_python',
  'openai_function_call',
  'custom_tool_call',
] as const;

/** Drops `undefined` members, keeps every other key (including `__proto__`) as an own property. */
function record(entries: [string, JsonValue | undefined][]): JsonObject {
  return objectOf(entries.filter((entry): entry is [string, JsonValue] => entry[1] !== undefined));
}

/** One well-shaped envelope of the given format. */
export function envelope(
  format: (typeof FORMATS)[number],
  name: JsonValue,
  id: JsonValue | undefined,
  args: JsonValue | undefined,
  version: JsonValue | undefined,
): JsonObject {
  switch (format) {
    case 'bedrock':
      return record([
        [
          'toolUse',
          record([
            ['toolUseId', id],
            ['name', name],
            ['input', args],
          ]),
        ],
      ]);
    case 'ollama':
      return record([
        ['id', id],
        [
          'function',
          record([
            ['index', 0],
            ['name', name],
            ['arguments', args],
          ]),
        ],
      ]);
    case 'ai_sdk':
      return record([
        ['type', 'tool-call'],
        ['toolCallId', id],
        ['toolName', name],
        ['input', args],
      ]);
    case 'ai_sdk_v4':
      return record([
        ['type', 'tool-call'],
        ['toolCallId', id],
        ['toolName', name],
        ['args', args],
      ]);
    case 'langchain':
      return record([
        ['name', name],
        ['args', args],
        ['id', id],
        ['type', 'tool_call'],
      ]);
    case 'langchain_invalid':
      return record([
        ['name', name],
        ['args', typeof args === 'string' ? args : toJsonText(args ?? null)],
        ['id', id],
        ['error', 'not valid JSON'],
        ['type', 'invalid_tool_call'],
      ]);
    case 'gemini_python':
      return record([
        [
          'function_call',
          record([
            ['id', id],
            ['name', name],
            ['args', args],
          ]),
        ],
      ]);
    case 'openai_function_call':
      return record([
        ['role', 'assistant'],
        ['content', null],
        [
          'function_call',
          record([
            ['name', name],
            ['arguments', args],
          ]),
        ],
      ]);
    case 'custom_tool_call':
      return record([
        ['type', 'custom_tool_call'],
        ['call_id', id],
        ['name', name],
        ['input', typeof args === 'string' ? args : 'free text'],
      ]);
    case 'canonical':
      return record([
        ['id', id],
        ['tool', name],
        ['arguments', args],
        ['schemaVersion', version],
      ]);
    // Mistral's call is OpenAI's chat call on the wire; the decoder tells them apart by the arguments' type.
    case 'mistral':
    case 'openai_chat':
      return record([
        ['id', id],
        ['type', 'function'],
        [
          'function',
          record([
            ['name', name],
            ['arguments', args],
          ]),
        ],
      ]);
    case 'openai_responses':
      return record([
        ['type', 'function_call'],
        ['id', 'fc_1'],
        ['call_id', id],
        ['name', name],
        ['arguments', args],
      ]);
    case 'anthropic':
      return record([
        ['type', 'tool_use'],
        ['id', id],
        ['name', name],
        ['input', args],
      ]);
    case 'mcp':
      return record([
        ['jsonrpc', '2.0'],
        ['id', id],
        ['method', 'tools/call'],
        [
          'params',
          record([
            ['name', name],
            ['arguments', args],
          ]),
        ],
      ]);
    case 'gemini':
      return record([
        [
          'functionCall',
          record([
            ['id', id],
            ['name', name],
            ['args', args],
          ]),
        ],
      ]);
  }
}

type Mutation =
  | { kind: 'none' }
  | { kind: 'replace'; at: number; value: JsonValue }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; key: string; value: JsonValue }
  | { kind: 'proto'; value: JsonValue };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: jsonValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), key: trickyKey, value: jsonValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('proto' as const), value: pollutingObject }) },
);

/** Every object in the envelope (the record and its `function`/`params`/`functionCall` containers). */
function containers(value: JsonObject): JsonObject[] {
  const out: JsonObject[] = [value];
  for (const key of ['function', 'params', 'functionCall', 'toolUse', 'function_call']) {
    const inner = value[key];
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) out.push(inner);
  }
  return out;
}

/** Applies a mutation to a fresh copy (the copy is made through JSON text, so prototype keys stay plain data). */
function mutate(value: JsonObject, change: Mutation): JsonObject {
  if (change.kind === 'none') return value;
  const copy = JSON.parse(toJsonText(value)) as JsonObject;
  const places = containers(copy).flatMap((object) => Object.keys(object).map((key) => [object, key] as const));
  const pick = (at: number): readonly [JsonObject, string] | undefined => places[at % Math.max(1, places.length)];
  switch (change.kind) {
    case 'replace': {
      const place = pick(change.at);
      if (place !== undefined)
        Object.defineProperty(place[0], place[1], { value: change.value, enumerable: true, writable: true, configurable: true });
      return copy;
    }
    case 'delete': {
      const place = pick(change.at);
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a generated key, on a copy
      if (place !== undefined) delete place[0][place[1]];
      return copy;
    }
    case 'add':
      Object.defineProperty(copy, change.key, { value: change.value, enumerable: true, writable: true, configurable: true });
      return copy;
    case 'proto':
      for (const object of containers(copy))
        Object.defineProperty(object, '__proto__', { value: change.value, enumerable: true, writable: true, configurable: true });
      return copy;
  }
}

/** A call in one of the six envelopes, with a mutated field now and then, and the format that built it. */
export const envelopeRecord: fc.Arbitrary<{ format: string; value: JsonObject }> = fc
  .record({
    format: fc.constantFrom(...FORMATS),
    name: toolName,
    id: callId,
    args: argumentsAsSent,
    version: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom<JsonValue>(1, 2, 0, -1, 1.5, '1', null, 2 ** 60) },
    ),
    change: mutation,
  })
  .map(({ format, name, id, args, version, change }) => ({ format, value: mutate(envelope(format, name, id, args, version), change) }));

/**
 * A whole message holding calls (each a generated envelope, now and then mutated) among text and other blocks,
 * in one of the shapes that fan out, sometimes wrapped in its API response.
 */
export const messageRecord: fc.Arbitrary<{ shape: string; value: JsonObject }> = fc
  .record({
    shape: fc.constantFrom('openai', 'anthropic', 'bedrock', 'gemini', 'ai_sdk', 'langchain', 'responses'),
    wrap: fc.boolean(),
    calls: fc.array(envelopeRecord, { maxLength: 6 }),
    filler: fc.array(fc.oneof(fc.constant<JsonValue>({ type: 'text', text: 'hm' }), fc.constant<JsonValue>({ text: 'plain' }), jsonValue), {
      maxLength: 3,
    }),
  })
  .map(({ shape, wrap, calls, filler }) => {
    const items: JsonValue[] = [...calls.map((c) => c.value), ...filler];
    const body: JsonObject =
      shape === 'openai' || shape === 'langchain'
        ? { role: 'assistant', content: null, tool_calls: calls.map((c) => c.value) }
        : shape === 'gemini'
          ? { role: 'model', parts: items }
          : shape === 'responses'
            ? { object: 'response', output: items }
            : { role: 'assistant', content: items };
    if (!wrap || shape === 'responses') return { shape, value: body };
    const wrapped: JsonObject =
      shape === 'bedrock'
        ? { output: { message: body }, stopReason: 'tool_use' }
        : shape === 'gemini'
          ? { candidates: [{ content: body }] }
          : shape === 'openai'
            ? { choices: [{ message: body }] }
            : { model: 'm', message: body, done: true };
    return { shape, value: wrapped };
  });

/** Record text: compact, pretty, with a BOM or surrounding white space. */
export const layout: fc.Arbitrary<(value: JsonValue) => string> = fc.constantFrom(
  (value: JsonValue) => toJsonText(value),
  (value: JsonValue) => toJsonText(value, 2),
  (value: JsonValue) => `\ufeff${toJsonText(value)}`,
  (value: JsonValue) => ` \n\t${toJsonText(value)}\r\n`,
);

// ---------------------------------------------------------------------------------------------------------------
// Bytes

const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc0, 0x80], // overlong NUL
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80], // overlong
  [0xed, 0xa0, 0x80], // U+D800 encoded (CESU-8 / WTF-8): a lone surrogate in bytes
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82], // truncated euro sign
  [0xf0, 0x9f, 0x98], // truncated emoji
  [0xc3], // lone lead byte
];

/** Valid record bytes with invalid UTF-8 spliced in at one or more positions. */
export function corruptUtf8(text: string): fc.Arbitrary<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  return fc
    .array(fc.tuple(fc.nat({ max: bytes.length }), fc.constantFrom(...INVALID_UTF8)), { minLength: 1, maxLength: 3 })
    .map((splices) => {
      const sorted = [...splices].sort((a, b) => b[0] - a[0]);
      let out = bytes;
      for (const [at, bad] of sorted) out = Buffer.concat([out.subarray(0, at), Buffer.from(bad), out.subarray(at)]);
      return out;
    });
}

/** Arbitrary bytes: random, random after a wire-format header, and short or odd headers. */
export const arbitraryBytes: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.uint8Array({ maxLength: 128 }))
      .map(([id, b]) => Buffer.concat([Buffer.from([0]), Buffer.from(id), Buffer.from(b)])),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.concat([Buffer.from([0]), Buffer.from(b)])) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.alloc(0),
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
      Buffer.from('\ufeff\ufeff{}'),
      Buffer.from('{}\u0000'),
      Buffer.from([0x7b, 0x7d, 0x00]),
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }).map((s) => Buffer.from(s, 'utf16le')) },
);

// ---------------------------------------------------------------------------------------------------------------
// Deep nesting

export type DeepPlace =
  'record' | 'argument_value' | 'arguments_text' | 'array_parameter_text' | 'object_parameter_text' | 'deep_mode_parameter' | 'truncated';

/** Nested arrays/objects as JSON text, built without recursion. */
export function nestedText(depth: number, shape: 'array' | 'object' | 'mixed', leaf = '"&amp;"'): string {
  if (depth <= 0) return leaf;
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i += 1) {
    const object = shape === 'object' || (shape === 'mixed' && i % 2 === 1);
    open.push(object ? '{"__proto__":' : '[');
    close.push(object ? '}' : ']');
  }
  return open.join('') + leaf + close.reverse().join('');
}

export const deepCase: fc.Arbitrary<{ depth: number; shape: 'array' | 'object' | 'mixed'; place: DeepPlace }> = fc.record({
  depth: fc.oneof(
    fc.constantFrom(62, 63, 64, 65, 66, 128, 998, 999, 1_000, 1_001, 5_000, 20_000, 100_000),
    fc.integer({ min: 1, max: 3_000 }),
  ),
  shape: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
  place: fc.constantFrom<DeepPlace>(
    'record',
    'argument_value',
    'arguments_text',
    'array_parameter_text',
    'object_parameter_text',
    'deep_mode_parameter',
    'truncated',
  ),
});

/** The record text for a deep-nesting case. */
export function deepRecordText(depth: number, shape: 'array' | 'object' | 'mixed', place: DeepPlace): string {
  const nested = nestedText(depth, shape);
  switch (place) {
    case 'record':
      return nested;
    case 'argument_value':
      return `{"tool":"search_issues","arguments":{"query":"q","filters":${nested}}}`;
    case 'arguments_text':
      return (
        '{"type":"function","id":"d","function":{"name":"search_issues",' +
        `"arguments":${JSON.stringify(`{"query":"q","labels":${nested}}`)}}}`
      );
    case 'array_parameter_text':
      return `{"type":"tool_use","id":"d","name":"search_issues","input":{"query":"q","labels":${JSON.stringify(nested)}}}`;
    case 'object_parameter_text':
      return (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_issues",' +
        `"arguments":{"query":"q","filters":${JSON.stringify(nested)}}}}`
      );
    case 'deep_mode_parameter':
      return `{"tool":"tree","arguments":{"children":${JSON.stringify(nestedText(Math.min(depth, 60), 'array', JSON.stringify(nested)))}}}`;
    case 'truncated':
      return `{"tool":"search_issues","arguments":{"labels":${nested.slice(0, Math.floor(nested.length / 2))}`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Huge strings and entity bombs

export const HUGE_SIZES = [1_048_576 - 200, 1_048_576 - 64, 1_048_577, 3 * 1_048_576, 8 * 1_048_576] as const;

/** A unit repeated to fill a string parameter: plain, multi-byte, escapes, references, JSON text, surrogates. */
export const HUGE_UNITS = [
  'a',
  'é',
  '😀',
  '\\u0000',
  '\\"',
  '&amp;',
  '&amp;amp;',
  '&lt;&gt;',
  '&#38;#38;',
  '&',
  '\\ud800',
  '[1,',
  '&copy',
  ':',
] as const;

/** The record text of a huge-string case: a string parameter filled to about `size` bytes of record. */
export function hugeRecordText(size: number, unit: string, tool: 'write_file' | 'search_issues' | 'formats'): string {
  const head =
    tool === 'write_file'
      ? '{"tool":"write_file","arguments":{"path":"big.txt","content":"'
      : tool === 'formats'
        ? '{"tool":"formats","arguments":{"url":"http://'
        : '{"tool":"search_issues","arguments":{"query":"q","labels":"[\\"';
  const tail = tool === 'search_issues' ? '\\"]"}}' : '"}}';
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  const count = Math.max(0, Math.floor((size - head.length - tail.length) / unitBytes));
  return head + unit.repeat(count) + tail;
}

/** Entity bombs: nested `&amp;` chains hundreds deep, long runs of references, numeric references of any size. */
export const entityBomb: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1, max: 800 }).map((n) => `&${'amp;'.repeat(n)}lt;`),
  fc.integer({ min: 1, max: 800 }).map((n) => '&amp;'.repeat(n)),
  fc.integer({ min: 1, max: 400 }).map((n) => `&${'#38;'.repeat(n)}`),
  fc.integer({ min: 1, max: 20_000 }).map((n) => '&lt;'.repeat(n)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => '&'.repeat(n)),
  fc.integer({ min: 1, max: 5_000 }).map((n) => '&copy'.repeat(n)),
  fc.integer({ min: 1, max: 2_000 }).map((n) => `&#${'9'.repeat(n)};`),
  fc.integer({ min: 1, max: 2_000 }).map((n) => `&#x${'f'.repeat(n)};`),
  fc.integer({ min: 1, max: 2_000 }).map((n) => `&${'a'.repeat(n)};`),
  fc.array(fc.constantFrom(...ENTITY_SNIPPETS, 'x', ' ', '\ud800'), { maxLength: 200 }).map((parts) => parts.join('')),
);

// ---------------------------------------------------------------------------------------------------------------
// Schemas

const typeName = fc.constantFrom('string', 'array', 'object', 'number', 'integer', 'boolean', 'null', 'nonsense');

const PATTERNS = [
  '^[a-z0-9_-]{1,64}$',
  '^[A-Z]{2}[0-9]{8}$',
  '\\p{L}+',
  '(?<=a)b',
  '^(?:(a)|b)\\1$',
  '[',
  '(',
  '\\',
  'a{2,1}',
  '^.*$',
  '^[^\\s@]+@[^\\s@]+$',
  'x{0,100000}',
  '(?<name>a)\\k<name>',
  '\\ud800',
  '',
  '^([a-z]+-)*[a-z]+$',
] as const;

const REFS = [
  '#',
  '#/$defs/a',
  '#/$defs/b',
  '#/$defs/self',
  '#/definitions/a',
  '#/nowhere',
  '#/properties/x',
  'http://example.invalid/s.json',
  '#anchor',
  'other.json#/x',
  '#/$defs/a/properties/%7E',
  '#/$defs/~1',
] as const;

const FORMAT_NAMES = [
  'url',
  'uri',
  'uri-reference',
  'email',
  'hostname',
  'date-time',
  'date',
  'time',
  'duration',
  'ipv4',
  'ipv6',
  'uuid',
  'regex',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'byte',
  'int32',
  'no-such-format',
] as const;

/** A subschema with every keyword the pipeline reads, cycles and dangling references included. */
const subschema: fc.Arbitrary<JsonValue> = fc.letrec<{ s: JsonValue }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: typeName }),
    fc.record({ type: fc.uniqueArray(typeName, { maxLength: 3 }) }),
    fc.record({ type: fc.constant('string'), pattern: fc.constantFrom(...PATTERNS) }),
    fc.record({ type: fc.constant('string'), format: fc.constantFrom(...FORMAT_NAMES) }),
    fc.record({ $ref: fc.constantFrom(...REFS) }),
    fc.record({ anyOf: fc.array(tie('s'), { maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('s'), { maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('s'), { maxLength: 3 }) }),
    fc.record({ not: tie('s') }),
    fc.record({ if: tie('s'), then: tie('s'), else: tie('s') }),
    fc.record({
      type: fc.constant('array'),
      items: tie('s'),
      minItems: fc.constantFrom<JsonValue>(0, 1, -1, 1.5, 1e308),
      uniqueItems: fc.boolean(),
    }),
    fc.record({ type: fc.constant('array'), prefixItems: fc.array(tie('s'), { maxLength: 3 }), contains: tie('s') }),
    fc.record({
      type: fc.constant('object'),
      properties: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMETER_NAMES), trickyKey), tie('s')), { maxLength: 3 }).map(objectOf),
      additionalProperties: tie('s'),
    }),
    fc.record({
      type: fc.constant('object'),
      patternProperties: fc.array(fc.tuple(fc.constantFrom(...PATTERNS), tie('s')), { maxLength: 2 }).map(objectOf),
    }),
    fc.record({
      type: fc.constantFrom('number', 'integer'),
      minimum: edgeNumber,
      maximum: edgeNumber,
      multipleOf: fc.constantFrom<JsonValue>(0.01, 1e-300, 1e308, 3, 0, -1),
    }),
    fc.record({
      type: fc.constant('string'),
      minLength: fc.constantFrom<JsonValue>(0, 1, 1e9),
      maxLength: fc.constantFrom<JsonValue>(0, 3, 1e308, -1),
    }),
    fc.record({ enum: fc.array(jsonValue, { maxLength: 6 }) }),
    // Huge enums: up to 5 000 values (compiled in well under a second), and now and then over the 10 000 limit.
    fc
      .oneof(
        { weight: 9, arbitrary: fc.integer({ min: 1, max: 5_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 10_001, max: 30_000 }) },
      )
      .map((n) => ({ enum: Array.from({ length: n }, (_, i) => `v${i}`) })),
    fc.record({ const: jsonValue }),
    fc.record({ propertyNames: tie('s'), dependentRequired: fc.constant<JsonValue>({ a: ['b'] }), unevaluatedProperties: fc.boolean() }),
    fc.record({ description: trickyString, title: trickyString, default: jsonValue, examples: fc.array(jsonValue, { maxLength: 2 }) }),
    fc.boolean(),
    jsonValue,
  ),
})).s;

/** A tool input schema: usually object-shaped, with `$defs` that may loop, under any draft we or others name. */
export const toolSchema: fc.Arbitrary<JsonObject> = fc
  .record({
    $schema: fc.constantFrom<JsonValue | undefined>(
      undefined,
      undefined,
      'https://json-schema.org/draft/2020-12/schema',
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-06/schema#',
      'http://json-schema.org/draft-04/schema#',
      42,
    ),
    type: fc.constantFrom<JsonValue | undefined>('object', 'object', undefined, 'array', ['object', 'null']),
    properties: fc
      .array(
        fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PARAMETER_NAMES) }, { weight: 1, arbitrary: trickyKey }), subschema),
        { maxLength: 5 },
      )
      .map(objectOf),
    required: fc.constantFrom<JsonValue | undefined>(undefined, ['query'], ['__proto__'], [1], 'query', ['labels', 'labels']),
    $defs: fc.record({
      a: subschema,
      b: subschema,
      self: fc.constantFrom<JsonValue>(
        { $ref: '#/$defs/self' },
        { $ref: '#' },
        { allOf: [{ $ref: '#/$defs/self' }] },
        { properties: { next: { $ref: '#/$defs/self' } } },
      ),
    }),
    additionalProperties: fc.oneof(fc.constant(undefined), subschema),
    $ref: fc.constantFrom<JsonValue | undefined>(undefined, undefined, undefined, '#/$defs/a', '#/$defs/self', '#', '#/nowhere'),
    $id: fc.constantFrom<JsonValue | undefined>(undefined, undefined, 'https://example.invalid/tool.json', 'tool.json', '#frag', 7),
  })
  .map((schema) => JSON.parse(toJsonText(schema)) as JsonObject);

/** How a tool definition may be wrapped in a file or registry document. */
export const definitionWrapper: fc.Arbitrary<(schema: JsonObject, name: string) => JsonValue> = fc.constantFrom(
  (schema: JsonObject) => schema,
  (schema: JsonObject, name: string) => ({ name, description: 'fuzz', inputSchema: schema }),
  (schema: JsonObject, name: string) => ({ name, input_schema: schema }),
  (schema: JsonObject, name: string) => ({ type: 'function', function: { name, parameters: schema } }),
  (schema: JsonObject, name: string) => JSON.parse(toJsonText({ ...schema, 'x-tool': { name, description: 'fuzz' } })) as JsonValue,
  (schema: JsonObject) => ({ inputSchema: schema, name: '' }),
  (schema: JsonObject) => ({ parameters: [schema] }),
);
