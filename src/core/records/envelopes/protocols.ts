/** Our own canonical envelope and MCP's `tools/call` request. */
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json.js';
import { fail, makeCall, missingContainer, showValue, type EnvelopeResult } from './common.js';

export function decodeCanonical(record: JsonObject): EnvelopeResult {
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

export function decodeMcp(record: JsonObject): EnvelopeResult {
  const method = record.method;
  if (method !== 'tools/call') {
    const got = method === undefined ? 'missing' : showValue(method);
    return fail('record_unknown_envelope', `The MCP message's method is ${got}; only "tools/call" requests are processed.`);
  }
  const params = record.params;
  if (!isJsonObject(params)) return missingContainer('mcp', 'params', params);
  return makeCall('mcp', record.id, params.name, 'params.name', params.arguments, undefined);
}

function isPositiveInteger(value: JsonValue | undefined): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
