/**
 * `toolcall-normalizer normalize`: JSON Lines in, one output record per call, in order: one per line, or one per
 * tool call of a line that is a whole message, each with the line number. An invalid call is data, not a
 * failure; a line that cannot be read yields a record with its line number.
 */
import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { readLines } from '../../adapters/files/lines.js';
import { processRecord, unreadableRecord, type PipelineOptions } from '../../core/pipeline.js';
import type { CompiledTool } from '../../core/schema/tool.js';
import type { OutputRecord } from '../../core/shared/types.js';

export interface NormalizeSummary {
  lines: number;
  /** Output records: one per call (a whole message holds several), one per unreadable line. */
  calls: number;
  normalized: number;
  rejected: number;
  deadLettered: number;
  repairs: number;
  passThroughs: number;
}

/** Flush output in chunks of about this many characters: one write per line would dominate the run time. */
const FLUSH_CHARS = 1 << 16;

export async function normalizeStream(
  input: Readable,
  output: Writable,
  tools: ReadonlyMap<string, CompiledTool>,
  options: PipelineOptions,
): Promise<NormalizeSummary> {
  const summary: NormalizeSummary = { lines: 0, calls: 0, normalized: 0, rejected: 0, deadLettered: 0, repairs: 0, passThroughs: 0 };
  let buffered = '';
  const flush = async (): Promise<void> => {
    if (buffered === '') return;
    const chunk = buffered;
    buffered = '';
    if (!output.write(chunk)) await once(output, 'drain');
  };
  for await (const line of readLines(input, options.limits.maxRecordBytes)) {
    summary.lines++;
    for (const record of normalizeLine(line.oversize ? undefined : line.bytes, line.oversize ? line.size : 0, tools, options)) {
      summary.calls++;
      summary[record.disposition === 'normalized' ? 'normalized' : record.disposition === 'rejected' ? 'rejected' : 'deadLettered']++;
      summary.repairs += record.repairs.length;
      summary.passThroughs += record.passThroughs.length;
      // Prefix the line number onto the record's own JSON: an object spread here would cost more than the
      // normalization itself.
      buffered += `{"line":${summary.lines},${JSON.stringify(record).slice(1)}\n`;
    }
    if (buffered.length >= FLUSH_CHARS) await flush();
  }
  await flush();
  return summary;
}

function normalizeLine(
  bytes: Buffer | undefined,
  oversizeBytes: number,
  tools: ReadonlyMap<string, CompiledTool>,
  options: PipelineOptions,
): OutputRecord[] {
  if (bytes === undefined) {
    return [
      unreadableRecord({
        code: 'record_too_large',
        message: `The record is ${oversizeBytes} bytes, over the limit of ${options.limits.maxRecordBytes} bytes.`,
      }),
    ];
  }
  return processRecord(bytes, (name) => tools.get(name), options);
}
