/**
 * Gemini function calls: the `functionCall` part of the REST API and the JS SDK, and the snake_case
 * `function_call` the Python SDKs write (`to_json_dict`, `MessageToDict`). `args` is optional in both.
 */
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import { makeCall, missingContainer, type EnvelopeResult } from './common.js';

export function decodeGemini(record: JsonObject): EnvelopeResult {
  const call = record.functionCall;
  if (!isJsonObject(call)) return missingContainer('gemini', 'functionCall', call);
  return makeCall('gemini', call.id, call.name, 'functionCall.name', call.args, undefined);
}

export function decodeGeminiPython(record: JsonObject): EnvelopeResult {
  const call = record.function_call;
  if (!isJsonObject(call)) return missingContainer('gemini_python', 'function_call', call);
  return makeCall('gemini_python', call.id, call.name, 'function_call.name', call.args, undefined);
}
