/**
 * `toolcall-normalizer normalize`: JSON Lines in, one output record per call, in order: one per line, or one per
 * tool call of a line that is a whole message, each with the line number. An invalid call is data, not a
 * failure; a line that cannot be read yields a record with its line number.
 */
import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { readLineBatches } from '../../adapters/files/lines.js';
import { finishRecord, processRecord, type PipelineOptions, type ToolLookup } from '../../core/pipeline.js';
import { tooLargeFailure } from '../../core/records/bytes.js';
import { serializeOutputRecord } from '../../core/records/output.js';
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

/** Output handed to the stream and not yet written, past which the command waits for it to drain. */
const MAX_PENDING_CHARS = 1 << 22;

/** The input could not be read or the output written; `cause` is the stream's error. */
export class StreamFailure extends Error {
  constructor(
    readonly side: 'input' | 'output',
    override readonly cause: unknown,
  ) {
    super(`${side} failed`);
    this.name = 'StreamFailure';
  }
}

export async function normalizeStream(
  input: Readable,
  output: Writable,
  tools: ReadonlyMap<string, CompiledTool>,
  options: PipelineOptions,
): Promise<NormalizeSummary> {
  const lookup: ToolLookup = (name) => tools.get(name);
  const summary: NormalizeSummary = { lines: 0, calls: 0, normalized: 0, rejected: 0, deadLettered: 0, repairs: 0, passThroughs: 0 };
  // Lines are gathered and joined once per flush: `+=` line after line builds a rope that is flattened on write.
  let buffered: string[] = [];
  let bufferedChars = 0;
  // A write fails later, as an 'error' event: kept here and raised at the next flush, so the run stops there.
  let outputError: { error: unknown } | undefined;
  const onOutputError = (error: unknown): void => {
    outputError ??= { error };
  };
  output.on('error', onOutputError);
  const flush = async (): Promise<void> => {
    if (outputError !== undefined) throw new StreamFailure('output', outputError.error);
    if (buffered.length === 0) return;
    const chunk = buffered.join('');
    buffered = [];
    bufferedChars = 0;
    // Wait only once a few chunks are pending: waiting for each (a file stream's buffer is 16 KiB) would leave
    // the thread idle while every write completes, instead of normalizing the next lines meanwhile.
    if (!output.write(chunk) && output.writableLength >= MAX_PENDING_CHARS) {
      await once(output, 'drain').catch((error: unknown) => {
        throw new StreamFailure('output', error);
      });
    }
  };
  const lines = readLineBatches(input, options.limits.maxRecordBytes);
  for await (const batch of reading(lines)) {
    for (const line of batch) {
      summary.lines++;
      for (const record of normalizeLine(line.oversize ? undefined : line.bytes, line.oversize ? line.size : 0, lookup, options)) {
        summary.calls++;
        summary[record.disposition === 'normalized' ? 'normalized' : record.disposition === 'rejected' ? 'rejected' : 'deadLettered']++;
        summary.repairs += record.repairs.length;
        summary.passThroughs += record.passThroughs.length;
        // Prefix the line number onto the record's own JSON: an object spread here would cost more than the
        // normalization itself.
        const text = `{"line":${summary.lines},${serializeOutputRecord(record).slice(1)}\n`;
        buffered.push(text);
        bufferedChars += text.length;
      }
    }
    if (bufferedChars >= FLUSH_CHARS) await flush();
  }
  await flush();
  if (outputError !== undefined) throw new StreamFailure('output', outputError.error);
  output.removeListener('error', onOutputError);
  return summary;
}

/** The batches of `lines`, an error of the input raised as a {@link StreamFailure}. */
async function* reading<T>(lines: AsyncGenerator<T>): AsyncGenerator<T> {
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = await lines.next();
    } catch (error) {
      throw new StreamFailure('input', error);
    }
    if (next.done === true) return;
    yield next.value;
  }
}

function normalizeLine(bytes: Buffer | undefined, oversizeBytes: number, tools: ToolLookup, options: PipelineOptions): OutputRecord[] {
  // A line over the limit is never held whole: the reader gives its size, and the chain says what it says of any record that size.
  if (bytes === undefined)
    return finishRecord({ ok: false, error: tooLargeFailure(oversizeBytes, options.limits.maxRecordBytes) }, [], options);
  return processRecord(bytes, tools, options);
}
