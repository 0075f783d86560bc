/**
 * The OpenAI family and the shapes that copy it: Chat Completions tool calls (and Mistral's and Ollama's, which
 * share the `function` container), Responses `function_call` and `custom_tool_call` items, and the legacy
 * `function_call` of an assistant message.
 */
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import type { EnvelopeFormat } from '../../shared/types.js';
import { truncate } from '../../shared/text.js';
import { DEFINITION_HINT, fail, makeCall, MAX_KEY_CHARS, missingContainer, type EnvelopeResult } from './common.js';

/**
 * Which of the three formats a `function`-container call is. OpenAI always sends `function.arguments` as JSON
 * text; Mistral's SDK sends it as text or as an object; Ollama sends an object and writes `function.index`.
 * So, in this order: `function.index` present -> `ollama`; arguments an object and no `type` -> `ollama`;
 * arguments an object -> `mistral`; anything else -> `openai_chat`. A Mistral call with text arguments is
 * byte for byte an OpenAI one and is read as `openai_chat` (decoded the same way).
 */
export function chatFamilyFormat(record: JsonObject): EnvelopeFormat {
  const fn = record.function;
  if (!isJsonObject(fn)) return 'openai_chat';
  if (fn.index !== undefined) return 'ollama';
  if (!isJsonObject(fn.arguments)) return 'openai_chat';
  return record.type === undefined ? 'ollama' : 'mistral';
}

export function decodeChatFamily(record: JsonObject): EnvelopeResult {
  const fn = record.function;
  if (!isJsonObject(fn)) {
    // `{"type": "function", "name", "parameters"}` is how the Responses API (and MCP-to-OpenAI bridges) define a tool.
    if (fn === undefined && typeof record.name === 'string' && record.parameters !== undefined) {
      return fail(
        'record_missing_arguments',
        `The object is an OpenAI tool definition ("type": "function" with "name" and "parameters"), not a call: ${DEFINITION_HINT}`,
      );
    }
    return missingContainer('openai_chat', 'function', fn);
  }
  const format = chatFamilyFormat(record);
  // Mistral's Python SDK writes the string "null" for a call without an id.
  const id = format === 'mistral' && record.id === 'null' ? undefined : record.id;
  const definition = fn.arguments === undefined && fn.parameters !== undefined;
  return makeCall(
    format,
    id,
    fn.name,
    'function.name',
    fn.arguments,
    definition ? 'is missing and function.parameters is present: this is a tool definition, not a call' : 'is missing',
  );
}

/** The Responses item's own `id` ("fc_...") names the item, not the call: the call id is `call_id`. */
export function decodeResponses(record: JsonObject): EnvelopeResult {
  return makeCall('openai_responses', record.call_id, record.name, 'name', record.arguments, 'is missing');
}

/**
 * A `custom_tool_call` carries free text (`input`) for a tool whose input is defined by a grammar or left free,
 * not JSON arguments: there is no input schema to repair or validate it against.
 */
export function decodeCustomToolCall(record: JsonObject): EnvelopeResult {
  const name = typeof record.name === 'string' ? ` of tool ${JSON.stringify(truncate(record.name, MAX_KEY_CHARS))}` : '';
  const id = typeof record.call_id === 'string' ? ` (call_id ${JSON.stringify(truncate(record.call_id, MAX_KEY_CHARS))})` : '';
  return fail(
    'record_custom_tool_call',
    `The object is an OpenAI Responses custom_tool_call${name}${id}: its input is free text for a custom (grammar-defined) ` +
      'tool, not JSON arguments, so no input schema applies to it; route custom tool calls to their own executor.',
  );
}

/** `{"role": "assistant", "function_call": {"name", "arguments": "<json text>"}}`: one call, no call id. */
export function decodeLegacyFunctionCall(record: JsonObject): EnvelopeResult {
  const call = record.function_call;
  if (!isJsonObject(call)) return missingContainer('openai_function_call', 'function_call', call);
  return makeCall('openai_function_call', undefined, call.name, 'function_call.name', call.arguments, 'is missing');
}
