/**
 * Envelope decoding: recognising which of the six supported shapes a record is, and pulling out the call id,
 * the tool name and the arguments as sent. Pure: no I/O, never mutates or copies the input (the decoded call
 * holds references into it), never throws on data.
 *
 * Detection order (the first match wins; each test looks at one or two top-level keys):
 *
 * 1. `canonical`: has a `tool` key.
 * 2. `mcp`: has a `jsonrpc` key (then only `method: "tools/call"` is processed).
 * 3. `gemini`: has a `functionCall` key.
 * 4. `openai_responses`: `type` is `"function_call"`.
 * 5. `anthropic`: `type` is `"tool_use"`.
 * 6. `openai_chat`: `type` is `"function"`, or a `function` key is present.
 *
 * Our own format comes first so that a canonical record carrying a stray vendor field stays canonical. The
 * vendor shapes share no distinguishing key, so their relative order only matters for contrived records.
 * Once a shape is recognised, a problem inside it (no tool name, an MCP method other than `tools/call`) is
 * reported against that shape instead of falling through to the next one. Unknown extra fields are ignored.
 */
import { DEFAULT_RECORD_LIMITS, tooDeepFailure, truncateReason, type RecordFailure } from './bytes.js';
import { isJsonObject, jsonTypeOf, nestsDeeperThan, tryParseJson, type JsonObject, type JsonValue } from '../shared/json.js';
import type { DecodedCall, Diagnostic, EnvelopeFormat } from '../shared/types.js';

export type EnvelopeResult = { ok: true; call: DecodedCall } | { ok: false; error: RecordFailure };
export type ArgumentsResult = { ok: true; value: JsonObject } | { ok: false; diagnostic: Diagnostic };

interface EnvelopeDecoder {
  format: EnvelopeFormat;
  matches: (record: JsonObject) => boolean;
  decode: (record: JsonObject) => EnvelopeResult;
}

const FORMAT_LABELS: Record<EnvelopeFormat, string> = {
  canonical: 'canonical',
  openai_chat: 'OpenAI Chat Completions',
  openai_responses: 'OpenAI Responses',
  anthropic: 'Anthropic tool_use',
  mcp: 'MCP',
  gemini: 'Gemini functionCall',
};

const ACCEPTED_SHAPES =
  'canonical {"id", "tool", "arguments"}; ' +
  'OpenAI Chat Completions {"id", "type": "function", "function": {"name", "arguments"}}; ' +
  'OpenAI Responses {"type": "function_call", "call_id", "name", "arguments"}; ' +
  'Anthropic {"type": "tool_use", "id", "name", "input"}; ' +
  'MCP {"jsonrpc": "2.0", "id", "method": "tools/call", "params": {"name", "arguments"}}; ' +
  'Gemini {"functionCall": {"id"?, "name", "args"}}';

const MAX_KEYS_QUOTED = 8;
const MAX_KEY_CHARS = 40;

const DECODERS: readonly EnvelopeDecoder[] = [
  { format: 'canonical', matches: (r) => r.tool !== undefined, decode: decodeCanonical },
  { format: 'mcp', matches: (r) => r.jsonrpc !== undefined, decode: decodeMcp },
  { format: 'gemini', matches: (r) => r.functionCall !== undefined, decode: decodeGemini },
  { format: 'openai_responses', matches: (r) => r.type === 'function_call', decode: decodeResponses },
  { format: 'anthropic', matches: (r) => r.type === 'tool_use', decode: decodeAnthropic },
  { format: 'openai_chat', matches: (r) => r.type === 'function' || r.function !== undefined, decode: decodeChat },
];

/** Recognises the envelope of one parsed record and extracts the call. See the module comment for the order. */
export function decodeEnvelope(value: JsonValue): EnvelopeResult {
  if (!isJsonObject(value)) {
    return fail(
      'record_not_object',
      `The record is ${describeType(value)}, not an object; send one tool-call object per record.`,
    );
  }
  for (const decoder of DECODERS) {
    if (decoder.matches(value)) return decoder.decode(value);
  }
  const wrapper = messageWrapper(value);
  if (wrapper !== undefined) return fail('record_unknown_envelope', wrapper);
  return fail(
    'record_unknown_envelope',
    `The object matches none of the accepted envelopes (keys seen: ${quoteKeys(value)}). Accepted: ${ACCEPTED_SHAPES}.`,
  );
}

/**
 * A whole chat message instead of one call: the commonest near miss, worth its own message. OpenAI's assistant
 * message holds its calls in `tool_calls`, Anthropic's in `content` blocks of type `tool_use`.
 */
function messageWrapper(record: JsonObject): string | undefined {
  const calls = record.tool_calls;
  if (Array.isArray(calls)) {
    return `The object is an OpenAI Chat Completions message holding ${calls.length} tool call(s) in tool_calls, not one call: send each element of tool_calls as its own record.`;
  }
  const content = record.content;
  if (Array.isArray(content) && content.some((block) => isJsonObject(block) && block.type === 'tool_use')) {
    return 'The object is an Anthropic message whose content holds tool_use blocks, not one call: send each tool_use block as its own record.';
  }
  return undefined;
}

function decodeCanonical(record: JsonObject): EnvelopeResult {
  const version = record.schemaVersion;
  if (version !== undefined && version !== null && !isPositiveInteger(version)) {
    return fail(
      'record_unknown_envelope',
      `The canonical envelope's schemaVersion must be a positive integer (or absent); it is ${showValue(version)}.`,
    );
  }
  const result = makeCall('canonical', record.id, record.tool, 'tool', record.arguments, undefined);
  if (result.ok && isPositiveInteger(version)) result.call.schemaVersion = version;
  return result;
}

function decodeChat(record: JsonObject): EnvelopeResult {
  const fn = record.function;
  if (!isJsonObject(fn)) {
    // `{"type": "function", "name", "parameters"}` is how the Responses API (and MCP-to-OpenAI bridges) define a tool.
    if (fn === undefined && typeof record.name === 'string' && record.parameters !== undefined) {
      return fail('record_missing_arguments', `The object is an OpenAI tool definition ("type": "function" with "name" and "parameters"), not a call: ${DEFINITION_HINT}`);
    }
    return missingContainer('openai_chat', 'function', fn);
  }
  const definition = fn.arguments === undefined && fn.parameters !== undefined;
  return makeCall('openai_chat', record.id, fn.name, 'function.name', fn.arguments, definition ? 'is missing and function.parameters is present: this is a tool definition, not a call' : 'is missing');
}

/** The Responses item's own `id` ("fc_...") names the item, not the call: the call id is `call_id`. */
function decodeResponses(record: JsonObject): EnvelopeResult {
  return makeCall('openai_responses', record.call_id, record.name, 'name', record.arguments, 'is missing');
}

function decodeAnthropic(record: JsonObject): EnvelopeResult {
  return makeCall('anthropic', record.id, record.name, 'name', record.input, 'is missing');
}

const DEFINITION_HINT = 'publish the calls the model made, never the list of tools it was given.';

function decodeMcp(record: JsonObject): EnvelopeResult {
  const method = record.method;
  if (method !== 'tools/call') {
    const got = method === undefined ? 'missing' : showValue(method);
    return fail(
      'record_unknown_envelope',
      `The MCP message's method is ${got}; only "tools/call" requests are processed.`,
    );
  }
  const params = record.params;
  if (!isJsonObject(params)) return missingContainer('mcp', 'params', params);
  return makeCall('mcp', record.id, params.name, 'params.name', params.arguments, undefined);
}

function decodeGemini(record: JsonObject): EnvelopeResult {
  const call = record.functionCall;
  if (!isJsonObject(call)) return missingContainer('gemini', 'functionCall', call);
  return makeCall('gemini', call.id, call.name, 'functionCall.name', call.args, undefined);
}

/**
 * `whenArgumentsMissing`: for formats whose arguments field is required (OpenAI's `arguments`, Anthropic's
 * `input`), what to say when it is absent; undefined where absent arguments mean `{}` (canonical, MCP, Gemini:
 * see {@link parseArguments}). A required field that is absent is the producer's mistake, not the model's (a
 * tool definition published as a call looks like this), so the record is dead-lettered rather than run with `{}`.
 */
function makeCall(
  format: EnvelopeFormat,
  id: JsonValue | undefined,
  name: JsonValue | undefined,
  nameField: string,
  rawArguments: JsonValue | undefined,
  whenArgumentsMissing: string | undefined,
): EnvelopeResult {
  if (typeof name !== 'string' || name.trim().length === 0) {
    return fail('record_missing_tool_name', `${envelopeLabel(format)} carries no tool name: ${nameField} ${describeBadName(name)}.`);
  }
  if (rawArguments === undefined && whenArgumentsMissing !== undefined) {
    return fail('record_missing_arguments', `${envelopeLabel(format)} carries no arguments: ${ARGUMENTS_FIELD[format]} ${whenArgumentsMissing}.`);
  }
  return { ok: true, call: { format, id: callId(id), tool: name, rawArguments } };
}

const ARGUMENTS_FIELD: Record<EnvelopeFormat, string> = {
  canonical: 'arguments',
  openai_chat: 'function.arguments',
  openai_responses: 'arguments',
  anthropic: 'input',
  mcp: 'params.arguments',
  gemini: 'functionCall.args',
};

function missingContainer(format: EnvelopeFormat, field: string, value: JsonValue | undefined): EnvelopeResult {
  const what = value === undefined ? 'is missing' : `is ${describeType(value)}, not an object`;
  return fail('record_missing_tool_name', `${envelopeLabel(format)} carries no tool name: ${field}.name is absent because ${field} ${what}.`);
}

/** Call ids are kept as strings: a JSON-RPC numeric id is stringified; anything else means "no id". */
function callId(id: JsonValue | undefined): string | null {
  if (typeof id === 'string') return id;
  if (typeof id === 'number') return String(id);
  return null;
}

function describeBadName(name: JsonValue | undefined): string {
  if (name === undefined) return 'is missing';
  if (typeof name !== 'string') return `is ${describeType(name)}, not a string`;
  return name.length === 0 ? 'is empty' : 'is only whitespace';
}

function envelopeLabel(format: EnvelopeFormat): string {
  return `The ${FORMAT_LABELS[format]} envelope`;
}

function isPositiveInteger(value: JsonValue | undefined): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function quoteKeys(record: JsonObject): string {
  const keys = Object.keys(record);
  if (keys.length === 0) return 'none';
  const shown = keys.slice(0, MAX_KEYS_QUOTED).map((key) => JSON.stringify(truncateReason(key, MAX_KEY_CHARS)));
  const more = keys.length > MAX_KEYS_QUOTED ? `, and ${keys.length - MAX_KEYS_QUOTED} more` : '';
  return shown.join(', ') + more;
}

function fail(code: RecordFailure['code'], message: string): EnvelopeResult {
  return { ok: false, error: { code, message } };
}

// ---------------------------------------------------------------------------------------------------------
// Arguments

const OBJECT_HINT =
  'Send the arguments as one JSON object whose keys are the parameter names, e.g. {"path": "README.md"}; ' +
  'send {} when the tool takes no parameters.';

/**
 * Turns the arguments as sent into the arguments object. This is envelope decoding, not a repair: nothing is
 * substituted or unwrapped, and the object is returned as is (never copied, so `__proto__` stays plain data).
 *
 * - an object: itself;
 * - absent (`undefined`): `{}`. MCP (`params.arguments`) and Gemini (`args`) make arguments optional for tools
 *   without parameters, and so does our canonical envelope (OpenAI and Anthropic require theirs: the envelope
 *   decoder refuses those records before this runs);
 * - a string: JSON text that must parse to an object (`arguments_empty`, `arguments_not_json`,
 *   `arguments_not_object`; an object JSON-encoded twice is refused, not unwrapped). Because the record's depth
 *   check sees this text as one string, the parsed value's depth is checked here against `maxDepth`
 *   (`record_too_deep`), so later recursive walks and `JSON.stringify` stay within the stack;
 * - anything else (array, number, boolean, null): `arguments_not_object`.
 */
export function parseArguments(raw: unknown, maxDepth: number = DEFAULT_RECORD_LIMITS.maxDepth): ArgumentsResult {
  if (raw === undefined) return { ok: true, value: {} };
  if (typeof raw === 'string') return parseArgumentsText(raw, maxDepth);
  if (isJsonObject(raw)) return { ok: true, value: raw };
  return notObject(`The arguments are ${describeValue(raw)}, not an object.`, jsonTypeOf(raw));
}

function parseArgumentsText(text: string, maxDepth: number): ArgumentsResult {
  if (text.trim().length === 0) {
    const what = text.length === 0 ? 'empty text' : 'text with only whitespace';
    return diagnose('arguments_empty', `The arguments were sent as ${what}.`, OBJECT_HINT);
  }
  const parsed = tryParseJson(text);
  if (!parsed.ok) return notJson(parsed.reason);
  const value = parsed.value;
  if (isJsonObject(value)) {
    if (!nestsDeeperThan(text, value, maxDepth)) return { ok: true, value };
    return diagnose(
      'record_too_deep',
      tooDeepFailure(maxDepth, 'The arguments text').message,
      `Flatten the arguments: nesting deeper than ${maxDepth} levels is refused.`,
      { maxDepth },
    );
  }
  if (typeof value === 'string' && holdsObjectText(value)) {
    return diagnose(
      'arguments_not_object',
      'The arguments are a JSON object that was JSON-encoded twice: the text parses to a string, which holds the object text.',
      'Encode the arguments once: send the JSON text of the object itself (e.g. {"path": "README.md"}), not a JSON string containing that text.',
      { received: 'string', encodedTwice: true },
    );
  }
  return notObject(`The arguments text parses to ${describeType(value)}, not an object.`, jsonTypeOf(value));
}

function holdsObjectText(text: string): boolean {
  // Only texts that start like an object are worth a second parse.
  if (text.trimStart().charCodeAt(0) !== 0x7b /* { */) return false;
  const inner = tryParseJson(text);
  return inner.ok && isJsonObject(inner.value);
}

function notJson(reason: string): ArgumentsResult {
  const position = /at position (\d+)/.exec(reason)?.[1];
  const where = position === undefined ? '' : ` (the parser stopped at character ${position})`;
  return diagnose(
    'arguments_not_json',
    `The arguments text is not valid JSON: ${truncateReason(reason)}`,
    `Send the arguments as one complete JSON object in valid JSON text${where}: double-quote keys and strings, escape quotes and newlines inside strings, no trailing commas.`,
    position === undefined ? undefined : { position: Number(position) },
  );
}

function notObject(message: string, received: string): ArgumentsResult {
  return diagnose('arguments_not_object', message, OBJECT_HINT, { received });
}

function diagnose(
  code: Diagnostic['code'],
  message: string,
  hint: string,
  details?: Record<string, JsonValue>,
): ArgumentsResult {
  const diagnostic: Diagnostic = { code, path: '', message, hint };
  if (details !== undefined) diagnostic.details = details;
  return { ok: false, diagnostic };
}

/** "a JSON array", "JSON null"... for messages. */
function describeType(value: JsonValue): string {
  const type = jsonTypeOf(value);
  return type === 'null' ? 'JSON null' : `a JSON ${type}`;
}

/** A scalar quoted (shortened), a container described by type: for messages about envelope fields. */
function showValue(value: JsonValue): string {
  if (typeof value === 'object' && value !== null) return describeType(value);
  return truncateReason(JSON.stringify(value), MAX_KEY_CHARS);
}

/** Like {@link describeType}, for values that may not be JSON at all (`parseArguments` takes `unknown`). */
function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  const type = typeof value;
  if (type === 'function' || type === 'symbol' || type === 'bigint') return `a ${type} (not a JSON value)`;
  return describeType(value as JsonValue);
}
