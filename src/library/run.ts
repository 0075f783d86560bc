/** The one way the library feeds a record to the core's chain. */
import { processRecord, unreadableRecord, type PipelineOptions, type ToolLookup } from '../core/pipeline.js';
import type { OutputRecord } from '../core/shared/types.js';
import { toJsonValue } from './json-value.js';
import { traceRecords } from './tracing.js';

/**
 * One record through `processRecord`: text and bytes as they are; any other value first read as the JSON it
 * stands for, within the record limits (a value JSON cannot carry is a record the chain could not read).
 */
export function runRecord(input: unknown, lookup: ToolLookup, options: PipelineOptions): OutputRecord[] {
  const startMs = performance.timeOrigin + performance.now();
  const records = readAndProcess(input, lookup, options);
  traceRecords(records, startMs);
  return records;
}

function readAndProcess(input: unknown, lookup: ToolLookup, options: PipelineOptions): OutputRecord[] {
  if (typeof input === 'string') return processRecord(input, lookup, options);
  const bytes = recordBytes(input);
  if (bytes !== undefined) {
    if (typeof bytes === 'string') return [unreadableRecord({ code: 'record_not_json', message: bytes })];
    return processRecord(bytes, lookup, options);
  }
  const json = toJsonValue(input, { maxDepth: options.limits.maxDepth, maxBytes: options.limits.maxRecordBytes });
  if (!json.ok) return [unreadableRecord({ code: json.code, message: json.message })];
  return processRecord(JSON.stringify(json.value), lookup, options);
}

/**
 * The bytes of a binary record (an `ArrayBuffer`, a `SharedArrayBuffer`, or any view on one: `Uint8Array`,
 * `Buffer`, `DataView`, other typed arrays, read as their bytes as `TextDecoder` does), a message when they cannot
 * be read (a detached buffer, a view past the end of a shrunk one), undefined for any other value.
 */
function recordBytes(input: unknown): Uint8Array | string | undefined {
  let buffer: ArrayBufferLike;
  if (ArrayBuffer.isView(input)) buffer = input.buffer;
  else if (input instanceof ArrayBuffer || input instanceof SharedArrayBuffer) buffer = input;
  else return undefined;
  // A view's offset and length throw once its buffer is detached (a DataView's do), so this is asked first.
  if ((buffer as { detached?: boolean }).detached === true) {
    return "The record's bytes are in a detached ArrayBuffer (transferred or neutered): there are no bytes to read.";
  }
  try {
    const view = ArrayBuffer.isView(input) ? new Uint8Array(buffer, input.byteOffset, input.byteLength) : new Uint8Array(buffer);
    // A shared buffer can change while it is read: the record is a copy of its bytes as they are now.
    return buffer instanceof SharedArrayBuffer ? view.slice() : view;
  } catch (error) {
    return `The record's bytes cannot be read: ${error instanceof Error ? error.message : String(error)}.`;
  }
}
