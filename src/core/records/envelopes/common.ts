/**
 * What every envelope family shares: the result type, the call builder, and the wording of failures. Pure; the
 * decoded call holds references into the record, never copies.
 */
import type { RecordFailure } from '../bytes.js';
import { jsonTypeOf, type JsonObject, type JsonValue } from '../../shared/json.js';
import { truncate } from '../../shared/text.js';
import type { DecodedCall, EnvelopeFormat } from '../../shared/types.js';

export type EnvelopeResult = { ok: true; call: DecodedCall } | { ok: false; error: RecordFailure };

/** One single-call format: whether a record has its shape (a key or two), and how to read the call out of it. */
export interface CallDecoder {
  readonly format: EnvelopeFormat;
  readonly matches: (record: JsonObject) => boolean;
  readonly decode: (record: JsonObject) => EnvelopeResult;
}

export const FORMAT_LABELS: Record<EnvelopeFormat, string> = {
  canonical: 'canonical',
  openai_chat: 'OpenAI Chat Completions',
  openai_responses: 'OpenAI Responses',
  anthropic: 'Anthropic tool_use',
  mcp: 'MCP',
  gemini: 'Gemini functionCall',
  bedrock: 'Bedrock Converse toolUse',
  ollama: 'Ollama',
  mistral: 'Mistral',
  ai_sdk: 'AI SDK tool-call',
  langchain: 'LangChain tool call',
  gemini_python: 'Gemini function_call (Python SDK)',
  openai_function_call: 'OpenAI function_call (legacy)',
};

/** Where each format keeps its arguments, for messages. */
export const ARGUMENTS_FIELD: Record<EnvelopeFormat, string> = {
  canonical: 'arguments',
  openai_chat: 'function.arguments',
  openai_responses: 'arguments',
  anthropic: 'input',
  mcp: 'params.arguments',
  gemini: 'functionCall.args',
  bedrock: 'toolUse.input',
  ollama: 'function.arguments',
  mistral: 'function.arguments',
  ai_sdk: 'input (args before AI SDK 5)',
  langchain: 'args',
  gemini_python: 'function_call.args',
  openai_function_call: 'function_call.arguments',
};

export const DEFINITION_HINT = 'publish the calls the model made, never the list of tools it was given.';

const MAX_KEYS_QUOTED = 8;
export const MAX_KEY_CHARS = 40;

/**
 * `whenArgumentsMissing`: for formats whose arguments field is required (OpenAI's `arguments`, Anthropic's
 * `input`...), what to say when it is absent; undefined where absent arguments mean `{}` (canonical, MCP, Gemini:
 * see `parseArguments`). A required field that is absent is the producer's mistake, not the model's (a tool
 * definition published as a call looks like this), so the record is dead-lettered rather than run with `{}`.
 */
export function makeCall(
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
    return fail(
      'record_missing_arguments',
      `${envelopeLabel(format)} carries no arguments: ${ARGUMENTS_FIELD[format]} ${whenArgumentsMissing}.`,
    );
  }
  return { ok: true, call: { format, id: callId(id), tool: name, rawArguments } };
}

export function missingContainer(format: EnvelopeFormat, field: string, value: JsonValue | undefined): EnvelopeResult {
  const what = value === undefined ? 'is missing' : `is ${describeType(value)}, not an object`;
  return fail(
    'record_missing_tool_name',
    `${envelopeLabel(format)} carries no tool name: ${field}.name is absent because ${field} ${what}.`,
  );
}

/** Call ids are kept as strings: a JSON-RPC numeric id is stringified; anything else means "no id". */
export function callId(id: JsonValue | undefined): string | null {
  if (typeof id === 'string') return id;
  if (typeof id === 'number') return String(id);
  return null;
}

export function envelopeLabel(format: EnvelopeFormat): string {
  return `The ${FORMAT_LABELS[format]} envelope`;
}

export function fail(code: RecordFailure['code'], message: string): { ok: false; error: RecordFailure } {
  return { ok: false, error: { code, message } };
}

export function quoteKeys(record: JsonObject): string {
  const keys = Object.keys(record);
  if (keys.length === 0) return 'none';
  const shown = keys.slice(0, MAX_KEYS_QUOTED).map((key) => JSON.stringify(truncate(key, MAX_KEY_CHARS)));
  const more = keys.length > MAX_KEYS_QUOTED ? `, and ${keys.length - MAX_KEYS_QUOTED} more` : '';
  return shown.join(', ') + more;
}

/** "a JSON array", "JSON null"... for messages. */
export function describeType(value: JsonValue): string {
  const type = jsonTypeOf(value);
  return type === 'null' ? 'JSON null' : `a JSON ${type}`;
}

/** A scalar quoted (shortened), a container described by type: for messages about envelope fields. */
export function showValue(value: JsonValue): string {
  if (typeof value === 'object' && value !== null) return describeType(value);
  return truncate(JSON.stringify(value), MAX_KEY_CHARS);
}

function describeBadName(name: JsonValue | undefined): string {
  if (name === undefined) return 'is missing';
  if (typeof name !== 'string') return `is ${describeType(name)}, not a string`;
  return name.length === 0 ? 'is empty' : 'is only whitespace';
}
