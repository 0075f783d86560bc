/** Anthropic's `tool_use` content block. */
import type { JsonObject } from '../../shared/json.js';
import { makeCall, type EnvelopeResult } from './common.js';

export function decodeAnthropic(record: JsonObject): EnvelopeResult {
  return makeCall('anthropic', record.id, record.name, 'name', record.input, 'is missing');
}
