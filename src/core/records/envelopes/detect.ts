/**
 * Which single-call format a record is. Each test looks at one or two top-level keys; the first match wins:
 *
 *  1. `canonical`: has a `tool` key.
 *  2. `mcp`: has a `jsonrpc` key (then only `method: "tools/call"` is processed).
 *  3. `gemini`: has a `functionCall` key.
 *  4. `openai_responses`: `type` is `"function_call"`.
 *  5. `anthropic`: `type` is `"tool_use"`.
 *  6. `openai_chat`, `mistral` or `ollama`: `type` is `"function"`, or a `function` key is present; which of the
 *     three is decided by the `function` container (see {@link chatFamilyFormat}).
 *  7. OpenAI Responses `custom_tool_call` (`type`): recognised, and dead-lettered (`record_custom_tool_call`).
 *  8. `bedrock`: has a `toolUse` key.
 *  9. `ai_sdk`: `type` is `"tool-call"`.
 * 10. `langchain`: `type` is `"tool_call"` or `"invalid_tool_call"`, or no `type` with both `name` and `args`.
 * 11. `openai_function_call` or `gemini_python`: `function_call` is an object (and no non-empty `tool_calls`
 *     list sits beside it, which makes the record a whole message): OpenAI's legacy call when the record has a
 *     `role` or the call has `arguments`, else Gemini's snake_case call (whose arguments are `args`).
 *
 * Rules 7 to 11 match only records none of the first six matches, so a record of those six formats keeps its
 * format (except an OpenAI-shaped call with object arguments, which OpenAI never sends: Mistral or Ollama, by
 * rule 6). Our own format comes first so
 * that a canonical record carrying a stray vendor field stays canonical. Once a shape is recognised, a
 * problem inside it (no tool name, an MCP method other than `tools/call`) is reported against that shape
 * instead of falling through to the next one. Unknown extra fields are ignored.
 */
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import { decodeAiSdk } from './ai-sdk.js';
import { decodeAnthropic } from './anthropic.js';
import { decodeBedrock } from './bedrock.js';
import type { CallDecoder, EnvelopeResult } from './common.js';
import { decodeGemini, decodeGeminiPython } from './gemini.js';
import { decodeLangChain, isLangChainCall } from './langchain.js';
import { decodeChatFamily, decodeCustomToolCall, decodeLegacyFunctionCall, decodeResponses } from './openai.js';
import { decodeCanonical, decodeMcp } from './protocols.js';

export { chatFamilyFormat } from './openai.js';

const CALL_DECODERS: readonly CallDecoder[] = [
  { format: 'canonical', matches: (r) => r.tool !== undefined, decode: decodeCanonical },
  { format: 'mcp', matches: (r) => r.jsonrpc !== undefined, decode: decodeMcp },
  { format: 'gemini', matches: (r) => r.functionCall !== undefined, decode: decodeGemini },
  { format: 'openai_responses', matches: (r) => r.type === 'function_call', decode: decodeResponses },
  { format: 'anthropic', matches: (r) => r.type === 'tool_use', decode: decodeAnthropic },
  { format: 'openai_chat', matches: (r) => r.type === 'function' || r.function !== undefined, decode: decodeChatFamily },
  { format: 'openai_responses', matches: (r) => r.type === 'custom_tool_call', decode: decodeCustomToolCall },
  { format: 'bedrock', matches: (r) => r.toolUse !== undefined, decode: decodeBedrock },
  { format: 'ai_sdk', matches: (r) => r.type === 'tool-call', decode: decodeAiSdk },
  { format: 'langchain', matches: isLangChainCall, decode: decodeLangChain },
  {
    format: 'openai_function_call',
    matches: hasFunctionCall,
    decode: (r) => (isLegacyOpenAi(r) ? decodeLegacyFunctionCall(r) : decodeGeminiPython(r)),
  },
];

/** The decoder whose shape the record has, or undefined when it is none of the single-call formats. */
export function callDecoderFor(record: JsonObject): CallDecoder | undefined {
  for (const decoder of CALL_DECODERS) if (decoder.matches(record)) return decoder;
  return undefined;
}

/** Reads the one call of a record in a single-call format; undefined when the record has none of their shapes. */
export function decodeSingleCall(record: JsonObject): EnvelopeResult | undefined {
  return callDecoderFor(record)?.decode(record);
}

function hasFunctionCall(record: JsonObject): boolean {
  if (!isJsonObject(record.function_call)) return false;
  const calls = record.tool_calls;
  return !(Array.isArray(calls) && calls.length > 0);
}

function isLegacyOpenAi(record: JsonObject): boolean {
  const call = record.function_call;
  return record.role !== undefined || (isJsonObject(call) && call.arguments !== undefined);
}
