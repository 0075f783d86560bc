/** The one way the library feeds a record to the core's chain. */
import { processRecord, unreadableRecord, type PipelineOptions, type ToolLookup } from '../core/pipeline.js';
import type { OutputRecord } from '../core/shared/types.js';
import { toJsonValue } from './json-value.js';

/**
 * One record through `processRecord`: text and bytes as they are; any other value first read as the JSON it
 * stands for, within the record limits (a value JSON cannot carry is a record the chain could not read).
 */
export function runRecord(input: unknown, lookup: ToolLookup, options: PipelineOptions): OutputRecord[] {
  if (typeof input === 'string' || input instanceof Uint8Array) return processRecord(input, lookup, options);
  if (input instanceof ArrayBuffer) return processRecord(new Uint8Array(input), lookup, options);
  const json = toJsonValue(input, { maxDepth: options.limits.maxDepth, maxBytes: options.limits.maxRecordBytes });
  if (!json.ok) return [unreadableRecord({ code: json.code, message: json.message })];
  return processRecord(JSON.stringify(json.value), lookup, options);
}
