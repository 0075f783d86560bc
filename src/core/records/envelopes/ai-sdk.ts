/**
 * The AI SDK's `tool-call` part: `input` since AI SDK 5 (an object, or JSON text from a provider), `args`
 * before it. One of the two is required; `input` wins when both are present.
 */
import type { JsonObject } from '../../shared/json.js';
import { makeCall, type EnvelopeResult } from './common.js';

export function decodeAiSdk(record: JsonObject): EnvelopeResult {
  const raw = record.input !== undefined ? record.input : record.args;
  return makeCall('ai_sdk', record.toolCallId, record.toolName, 'toolName', raw, 'and args are both missing');
}
