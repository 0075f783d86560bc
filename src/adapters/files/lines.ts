/**
 * Splits a byte stream into lines without decoding it, so each line is decoded (and its UTF-8 checked) on
 * its own, and a line larger than the limit is counted but never held in memory.
 */
import type { Readable } from 'node:stream';

export type Line = { readonly bytes: Buffer; readonly oversize: false } | { readonly size: number; readonly oversize: true };

const LF = 0x0a;
const CR = 0x0d;

/** Yields each `\n`-terminated line (a trailing `\r` removed) and a last line without `\n` if not empty. */
export async function* readLines(input: Readable, maxLineBytes: number): AsyncGenerator<Line> {
  for await (const batch of readLineBatches(input, maxLineBytes)) yield* batch;
}

/**
 * {@link readLines}, a chunk's lines at a time: one `await` per chunk of input instead of one per line, which
 * costs more than processing a short line does.
 */
export async function* readLineBatches(input: Readable, maxLineBytes: number): AsyncGenerator<Line[]> {
  let parts: Buffer[] = [];
  let pending = 0;
  let oversize = false;
  // A line may hold one byte over the limit while it is read: the `\r` of a CRLF ending, which is not the record's.
  const held = maxLineBytes + 1;
  const finish = (tail: Buffer): Line => {
    const size = pending + tail.length;
    if (oversize || size > held) return { size, oversize: true };
    let bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail], size);
    if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    return bytes.length > maxLineBytes ? { size, oversize: true } : { bytes, oversize: false };
  };
  for await (const chunk of input) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    const batch: Line[] = [];
    let start = 0;
    for (let nl = buffer.indexOf(LF, start); nl !== -1; nl = buffer.indexOf(LF, start)) {
      batch.push(finish(buffer.subarray(start, nl)));
      parts = [];
      pending = 0;
      oversize = false;
      start = nl + 1;
    }
    if (batch.length > 0) yield batch;
    const rest = buffer.subarray(start);
    if (rest.length === 0) continue;
    pending += rest.length;
    // Past the limit the bytes only need counting: drop them rather than buffer a huge line.
    if (oversize || pending > held) {
      oversize = true;
      parts = [];
    } else {
      parts.push(rest);
    }
  }
  if (pending > 0) yield [finish(Buffer.alloc(0))];
}
