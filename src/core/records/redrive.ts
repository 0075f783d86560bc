/**
 * The redrive's pure half (docs/redrive.md): what a dead letter or a rejected call was before the worker set it
 * aside, whether a selection takes it, and the record that carries it back. Pure: the command reads and writes Kafka.
 *
 * - A dead letter (it has `__connect.errors.topic`) holds the input value unchanged: that value is sent back as is.
 * - A rejected call holds the call as received under `raw`: its JSON text is sent back.
 * - The headers the input came with (`traceparent`...) go back with it; the worker's own (error code, dead-letter
 *   coordinates) do not. `idempotency-key` is kept, and `toolcall-redriven-from` names the source record: the worker
 *   keeps an incoming idempotency key only on a record that carries it, so an executor sees the key it saw before.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, tryParseJson } from '../shared/json.js';
import { decodeRecordBytes } from './bytes.js';
import { decodeRecord } from './envelope.js';
import { HEADER, headerMap, type HeaderValue, type Headers } from './output.js';
import { unwrapWireFormat } from './wire.js';

/** The header a redriven record carries: `<topic>/<partition>@<offset>` of the record it was redriven from. */
export const REDRIVE_HEADER = HEADER.redrivenFrom;

/** Headers the worker set on a dead letter or a rejected call, left behind when it is redriven. */
const WORKER_HEADERS = new Set<string>([
  HEADER.errorCode,
  HEADER.dlqTopic,
  HEADER.dlqPartition,
  HEADER.dlqOffset,
  HEADER.dlqClass,
  HEADER.dlqMessage,
  REDRIVE_HEADER,
]);

/** One record of the source topic, as the command reads it. */
export interface SourceRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  /** Milliseconds since the epoch. */
  readonly timestamp: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Headers;
}

/** What a source record was: its original value, with the error code and the tool it is counted under. */
export type Original =
  | {
      readonly ok: true;
      readonly kind: 'dead_letter' | 'rejected';
      readonly value: Buffer;
      /** `(none)` when the record names none. */
      readonly code: string;
      readonly tool: string;
    }
  | { readonly ok: false; readonly reason: string };

/** The code and tool of a record that names none. */
export const NONE = '(none)';

function headerText(value: HeaderValue | HeaderValue[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined) return undefined;
  return typeof first === 'string' ? first : first.toString('utf8');
}

/** The tool a dead letter's first call names, as the worker reads it; {@link NONE} when it names none it can read. */
function toolOf(value: Buffer): string {
  let payload: Uint8Array = value;
  if (value[0] === 0) {
    const wire = unwrapWireFormat(value);
    if (!wire.ok) return NONE;
    payload = wire.payload;
  }
  const decoded = decodeRecordBytes(payload);
  if (!decoded.ok) return NONE;
  const read = decodeRecord(decoded.value);
  const first = read.ok ? read.calls[0]?.read : undefined;
  return first?.ok === true ? first.call.tool : NONE;
}

/** The original of a dead letter or a rejected call; `ok: false` with the reason when the record holds none. */
export function originalOf(record: SourceRecord): Original {
  const code = headerText(record.headers[HEADER.errorCode]) ?? NONE;
  if (Object.hasOwn(record.headers, HEADER.dlqTopic)) {
    if (record.value === null) {
      const [topic, partition, offset] = [HEADER.dlqTopic, HEADER.dlqPartition, HEADER.dlqOffset].map(
        (h) => headerText(record.headers[h]) ?? '?',
      );
      const where = `${topic ?? '?'}/${partition ?? '?'}@${offset ?? '?'}`;
      return { ok: false, reason: `dead letter without its value (too large to copy, or a tombstone): the input is at ${where}` };
    }
    return { ok: true, kind: 'dead_letter', value: record.value, code, tool: toolOf(record.value) };
  }
  if (record.value === null) return { ok: false, reason: 'no value (a tombstone): neither a dead letter nor a rejected call' };
  const parsed = tryParseJson(record.value.toString('utf8'));
  if (!parsed.ok || !isJsonObject(parsed.value))
    return { ok: false, reason: 'not JSON: neither a dead letter (no __connect.errors.topic header) nor a rejected call' };
  const { raw, tool, errors } = parsed.value;
  if (raw === undefined) return { ok: false, reason: 'a JSON value without "raw": not a rejected call' };
  const firstError = Array.isArray(errors) ? errors[0] : undefined;
  const errorCode = isJsonObject(firstError) && typeof firstError.code === 'string' ? firstError.code : code;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return { ok: true, kind: 'rejected', value: Buffer.from(text), code: errorCode, tool: typeof tool === 'string' ? tool : NONE };
}

/** What a redrive takes; every filter given must hold (an empty list is no filter). */
export interface Selection {
  readonly source: string;
  readonly target: string;
  /** Record timestamps, milliseconds since the epoch: from `since` (inclusive) to `until` (exclusive). */
  readonly since: bigint | undefined;
  readonly until: bigint | undefined;
  /** Offset ranges per partition: `from` inclusive, `to` exclusive (undefined: to the end). */
  readonly offsets: readonly { readonly partition: number; readonly from: bigint; readonly to: bigint | undefined }[];
  readonly codes: readonly string[];
  readonly tools: readonly string[];
  /** Record keys as UTF-8 text. */
  readonly keys: readonly string[];
}

/** True when the selection takes the record (its original already read: `original`). */
export function selects(selection: Selection, record: SourceRecord, original: Original): boolean {
  if (selection.since !== undefined && record.timestamp < selection.since) return false;
  if (selection.until !== undefined && record.timestamp >= selection.until) return false;
  if (selection.offsets.length > 0) {
    const inRange = selection.offsets.some(
      (r) => r.partition === record.partition && record.offset >= r.from && (r.to === undefined || record.offset < r.to),
    );
    if (!inRange) return false;
  }
  if (selection.keys.length > 0 && (record.key === null || !selection.keys.includes(record.key.toString('utf8')))) return false;
  if (!original.ok) return true; // an unreadable record the other filters take is reported, never silently passed over
  if (selection.codes.length > 0 && !selection.codes.includes(original.code)) return false;
  if (selection.tools.length > 0 && !selection.tools.includes(original.tool)) return false;
  return true;
}

/**
 * The selection's identity: the same source, target and filters always give the same id, whatever their order on
 * the command line. It names the consumer group whose committed offsets record how far the selection was redriven.
 */
export function selectionId(selection: Selection): string {
  const sorted = (list: readonly string[]) => [...new Set(list)].sort();
  const canonical = JSON.stringify({
    source: selection.source,
    target: selection.target,
    since: selection.since?.toString() ?? null,
    until: selection.until?.toString() ?? null,
    offsets: [...selection.offsets]
      .map((r) => `${r.partition}:${r.from}-${r.to ?? ''}`)
      .sort()
      .join(','),
    codes: sorted(selection.codes),
    tools: sorted(selection.tools),
    keys: sorted(selection.keys),
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** The record a selected one goes back as: its key, its original value, its carried headers and the provenance. */
export function redriveMessage(
  record: SourceRecord,
  original: Original & { ok: true },
  target: string,
): { topic: string; key: Buffer | null; value: Buffer; headers: Headers } {
  const headers = headerMap();
  for (const name of Object.keys(record.headers)) {
    if (!WORKER_HEADERS.has(name) && record.headers[name] !== undefined) headers[name] = record.headers[name];
  }
  headers[REDRIVE_HEADER] = `${record.topic}/${record.partition}@${record.offset}`;
  return { topic: target, key: record.key, value: original.value, headers };
}
