/**
 * Reading one record's text into a JSON value, within documented limits. Pure: no I/O, never throws on data.
 *
 * Order of checks, cheapest first: size (UTF-8 bytes, before any parsing), then `JSON.parse`, then nesting
 * depth. A record that fails yields a {@link RecordFailure} with one of the `record_*` codes, which the worker
 * sends to the dead-letter topic.
 */
import { Buffer } from 'node:buffer';
import type { ErrorCode } from '../shared/codes.js';
import { nestsDeeperThan, noteNumberProblems, tryParseJson, type JsonValue } from '../shared/json.js';
import { truncate } from '../shared/text.js';

/** Bounds applied to every record before it is decoded. */
export interface RecordLimits {
  /** Largest record accepted, in UTF-8 bytes (a BOM counts). A record of exactly this size is accepted. */
  maxRecordBytes: number;
  /** Deepest nesting of arrays/objects accepted (a flat object is depth 1). Exactly this depth is accepted. */
  maxDepth: number;
}

/**
 * Defaults for {@link RecordLimits}.
 *
 * - `maxRecordBytes`: 1 MiB (1 048 576 bytes), Kafka's default maximum message size (`message.max.bytes`),
 *   so any record the broker accepts with default settings fits, and nothing much larger is ever parsed.
 * - `maxDepth`: 64. Real tool calls nest a handful of levels (envelope, arguments, a few nested parameters);
 *   64 leaves ample room while keeping every later recursive walk (normalizer, validator, `JSON.stringify`)
 *   far from the stack limit, which hostile input of thousands of levels would otherwise reach.
 */
export const DEFAULT_RECORD_LIMITS: RecordLimits = Object.freeze({ maxRecordBytes: 1_048_576, maxDepth: 64 });

/** Largest `maxRecordBytes` a caller may configure: far above any broker's message size, far below the heap. */
export const MAX_CONFIGURABLE_RECORD_BYTES = 256 * 1024 * 1024;

/** Largest `maxDepth` a caller may configure: `JSON.stringify` and the recursive walks overflow the stack a little above 4000. */
export const MAX_CONFIGURABLE_DEPTH = 1_000;

/** Why a record could not be read; `code` is one of the `record_*` codes. */
export type RecordFailure = { code: ErrorCode; message: string };

export type RecordResult = { ok: true; value: JsonValue } | { ok: false; error: RecordFailure };

/** A record read from bytes: on success, the text they decoded to beside the value. */
export type DecodedRecordResult = { ok: true; value: JsonValue; text: string } | { ok: false; error: RecordFailure };

/** Longest parser message quoted back (V8 quotes part of the input in its messages). */
export const MAX_REASON_CHARS = 200;

/** One decoder for all calls: `decode` without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Parses one record's text. A leading U+FEFF (byte order mark) is ignored, as editors on some platforms
 * write one at the start of a file and `JSON.parse` would reject it.
 */
export function parseRecordText(text: string, limits: RecordLimits = DEFAULT_RECORD_LIMITS): RecordResult {
  const tooLarge = checkTextSize(text, limits.maxRecordBytes);
  if (tooLarge !== undefined) return { ok: false, error: tooLarge };
  return parseWithinDepth(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, limits.maxDepth);
}

/**
 * Decodes one record's bytes as UTF-8 (fatal: invalid sequences are refused, never replaced) and parses it.
 * The size limit is checked on the byte length before decoding. A UTF-8 BOM is stripped. The decoded text comes
 * back too: a scan of it costs a fraction of one of the bytes.
 */
export function decodeRecordBytes(bytes: Uint8Array, limits: RecordLimits = DEFAULT_RECORD_LIMITS): DecodedRecordResult {
  if (bytes.length > limits.maxRecordBytes) {
    return { ok: false, error: tooLargeFailure(bytes.length, limits.maxRecordBytes) };
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return {
      ok: false,
      error: { code: 'record_invalid_encoding', message: `The record (${bytes.length} bytes) is not valid UTF-8 text.` },
    };
  }
  const parsed = parseWithinDepth(text, limits.maxDepth);
  // JSON text never holds a raw NUL, but UTF-16 text read as UTF-8 is full of them (`{` is 7B 00 in UTF-16LE):
  // say what is wrong with the encoding rather than quote a parser error about a character nobody sees.
  // Checked only once parsing failed, so records that parse pay nothing for it.
  if (!parsed.ok && parsed.error.code === 'record_not_json' && text.includes('\u0000')) {
    return {
      ok: false,
      error: {
        code: 'record_invalid_encoding',
        message:
          `The record (${bytes.length} bytes) holds NUL bytes, which JSON text ` +
          'never does: it looks like UTF-16 (or other non-UTF-8) text, not UTF-8.',
      },
    };
  }
  return parsed.ok ? { ok: true, value: parsed.value, text } : parsed;
}

function checkTextSize(text: string, maxBytes: number): RecordFailure | undefined {
  // A UTF-16 code unit takes 1 to 3 UTF-8 bytes: skip counting when the text is surely small enough.
  if (text.length * 3 <= maxBytes) return undefined;
  // At least one byte per code unit: refuse a huge text without encoding it.
  if (text.length > maxBytes) return tooLargeFailure(text.length, maxBytes, true);
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > maxBytes ? tooLargeFailure(bytes, maxBytes) : undefined;
}

/** The one `record_too_large` failure: `size` bytes (at least, when only a lower bound is known) over `maxBytes`. */
export function tooLargeFailure(size: number, maxBytes: number, atLeast = false): RecordFailure {
  const amount = atLeast ? `at least ${size}` : `${size}`;
  return {
    code: 'record_too_large',
    message: `The record is ${amount} bytes (UTF-8); the limit is ${maxBytes} bytes.`,
  };
}

function parseWithinDepth(text: string, maxDepth: number): RecordResult {
  const parsed = tryParseJson(text);
  if (!parsed.ok) {
    return {
      ok: false,
      error: { code: 'record_not_json', message: `The record is not JSON text: ${truncate(parsed.reason, MAX_REASON_CHARS)}` },
    };
  }
  if (nestsDeeperThan(text, parsed.value, maxDepth)) return { ok: false, error: tooDeepFailure(maxDepth) };
  // Numbers a double cannot carry are noted beside the value: the arguments they sit in are refused
  // (`number_out_of_range`, records/envelopes/arguments.ts), not the whole record.
  return { ok: true, value: noteNumberProblems(text, parsed.value) };
}

/** The failure for a value nested deeper than `maxDepth`; also used for arguments sent as JSON text. */
export function tooDeepFailure(maxDepth: number, what = 'The record'): RecordFailure {
  return {
    code: 'record_too_deep',
    message: `${what} nests arrays/objects more than ${maxDepth} levels deep (the configured depth limit).`,
  };
}
