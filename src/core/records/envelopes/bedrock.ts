/** AWS Bedrock Converse: a `toolUse` content block, whose `input` is any JSON value (required). */
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import { makeCall, missingContainer, type EnvelopeResult } from './common.js';

export function decodeBedrock(record: JsonObject): EnvelopeResult {
  const use = record.toolUse;
  if (!isJsonObject(use)) return missingContainer('bedrock', 'toolUse', use);
  return makeCall('bedrock', use.toolUseId, use.name, 'toolUse.name', use.input, 'is missing');
}
