/**
 * What the worker writes for one input record: which topic, the value, the key and the headers. Pure: the
 * Kafka adapter only moves these bytes.
 */
import { createHash } from 'node:crypto';
import { truncate } from '../shared/text.js';
import type { JsonValue } from '../shared/json.js';
import type { SchemaIdentity } from '../schema/tool.js';
import type { OutputRecord } from '../shared/types.js';

export type HeaderValue = Buffer | string;
export type Headers = Record<string, HeaderValue | HeaderValue[] | undefined>;

/**
 * Header names are anyone's (`constructor`, `toString`, `__proto__`): a header map inherits nothing. Its prototype
 * is an empty, frozen object without one, so no name is found on it, and `__proto__` is an own data key on plain
 * assignment. Maps made by a constructor stay fast V8 objects, which `Object.create(null)` maps are not (those are
 * dictionaries, 2-3 times slower to fill and read).
 */
function HeaderMap(): void {
  // Instances only: every header is an own property.
}
HeaderMap.prototype = Object.freeze(Object.create(null) as object);

/** An empty header map (see {@link HeaderMap}). */
export function headerMap(): Headers {
  return new (HeaderMap as unknown as new () => Headers)();
}

export interface OutputMessage {
  readonly topic: string;
  readonly key: Buffer | null;
  /** null only for a dead-lettered tombstone: the DLQ carries the input value as it was. */
  readonly value: Buffer | string | null;
  readonly headers: Headers;
}

export interface OutputTopics {
  readonly output: string;
  readonly rejected: string;
  readonly dlq: string;
}

/** Header names. The dead-letter ones are Kafka Connect's, so existing DLQ tooling reads them as is. */
export const HEADER = {
  idempotencyKey: 'idempotency-key',
  errorCode: 'toolcall-error-code',
  dlqTopic: '__connect.errors.topic',
  dlqPartition: '__connect.errors.partition',
  dlqOffset: '__connect.errors.offset',
  dlqClass: '__connect.errors.exception.class.name',
  dlqMessage: '__connect.errors.exception.message',
  /** Set by `redrive` (`<topic>/<partition>@<offset>` of the dead letter or rejected call it came from). */
  redrivenFrom: 'toolcall-redriven-from',
} as const;

/** Headers no output carries any more (the topic says the disposition), dropped from incoming records too. */
const RETIRED_HEADERS = ['toolcall-disposition'] as const;

/**
 * Headers we set, and the retired ones: incoming headers with these names are dropped, so ours are replaced
 * rather than duplicated and a record replayed from an output topic carries no stale disposition.
 */
const OWN_HEADERS = new Set<string>([...Object.values(HEADER), ...RETIRED_HEADERS]);

/** Longest error message put in a header. */
const MAX_HEADER_MESSAGE = 1000;

/**
 * Default bound on an output value, in UTF-8 bytes: under Kafka's default `message.max.bytes` and
 * `max.message.bytes` (1,048,588) with room for the key, the headers and the record overhead. A rejected output
 * carries the arguments and the raw call, about twice its input, so a 600 KB input would otherwise become a
 * 1.2 MB record the broker refuses (MESSAGE_TOO_LARGE: not retriable, the batch fails, the worker restarts on
 * the same record, for ever).
 */
export const DEFAULT_MAX_OUTPUT_BYTES = 1_000_000;

/** One input record as the Kafka port hands it over: bytes, headers by name, the offset as decimal text. */
export interface InputMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Headers;
  readonly offset: string;
}

/**
 * Where the outputs of one partition's records go, and where those records came from (each record has its
 * offset): one per batch, so no record needs a copy of its coordinates.
 */
export interface OutputTarget {
  readonly topics: OutputTopics;
  /** Bound on an output value, in UTF-8 bytes ({@link buildBoundedOutput}). */
  readonly maxOutputBytes: number;
  /** The input topic and partition. */
  readonly topic: string;
  readonly partition: number;
}

/**
 * Where an output's call sits in a whole message that fanned out (undefined for a record that is one call):
 * its position among the message's calls, and whether its id is shared with another call of the message.
 */
export interface FanOut {
  readonly index: number;
  readonly sharedId: boolean;
}

/**
 * Builds the message for one processed record (or one call of a whole message: `fanOut`).
 * - normalized: the record's value ({@link OutputValue}) to the output topic;
 * - rejected: the same plus its errors and the raw call as received, to the rejected topic;
 * - dead letter: the input value unchanged, with headers naming the error and the source, to the DLQ topic; for
 *   one call of a whole message, that call as it sits in the message (`raw`, its JSON text), so that its
 *   siblings are not copied into the DLQ or replayed from it.
 * The key is the input key (order per key is kept downstream); incoming headers (`traceparent`...) are
 * carried on; `idempotency-key` carries the call id, or a stable hash of the record (and the call's position
 * in a message) when it has none.
 */
export function buildOutputMessage(
  input: InputMessage,
  record: OutputRecord,
  schema: SchemaIdentity | undefined,
  raw: JsonValue | undefined,
  target: OutputTarget,
  fanOut?: FanOut,
): OutputMessage {
  const { topics } = target;
  const headers = carriedHeaders(input.headers);
  headers[HEADER.idempotencyKey] =
    redrivenKey(input.headers, fanOut) ?? idempotencyKey(fanOut?.sharedId === true ? null : record.id, input, fanOut?.index);
  if (record.disposition === 'dead_letter') {
    const error = record.errors[0];
    const code = error?.code ?? 'record_unknown_envelope';
    headers[HEADER.errorCode] = code;
    headers[HEADER.dlqTopic] = target.topic;
    headers[HEADER.dlqPartition] = String(target.partition);
    headers[HEADER.dlqOffset] = input.offset;
    headers[HEADER.dlqClass] = code;
    headers[HEADER.dlqMessage] = truncate(error?.message ?? '', MAX_HEADER_MESSAGE);
    const value = fanOut === undefined ? input.value : JSON.stringify(raw ?? null);
    return { topic: topics.dlq, key: input.key, value, headers };
  }
  const rejected = record.disposition === 'rejected';
  if (record.errors[0] !== undefined) headers[HEADER.errorCode] = record.errors[0].code;
  return {
    topic: rejected ? topics.rejected : topics.output,
    key: input.key,
    value: JSON.stringify(outputValue(record, schema, target.partition, input.offset, rejected ? (raw ?? null) : undefined)),
    headers,
  };
}

/**
 * The value of a normalized or rejected record on its topic: what an executor and an auditor need, nothing the
 * topic says (the disposition, `valid`) or that is the same on every record (the input topic, the subject,
 * which is the tool under the subject template).
 */
export interface OutputValue {
  readonly id: string | null;
  readonly tool: string | null;
  readonly format: OutputRecord['format'];
  readonly arguments: OutputRecord['arguments'];
  /** Rejected only: why, for the agent to act on. */
  readonly errors?: OutputRecord['errors'];
  /** Left out when empty. */
  readonly repairs?: OutputRecord['repairs'];
  /** Left out when empty. */
  readonly passThroughs?: OutputRecord['passThroughs'];
  /** The registry's id of the schema the call was checked against; left out when there is none (unknown tool). */
  readonly schemaId?: number;
  /** Where the input is: its partition and offset on the input topic. */
  readonly source: { readonly partition: number; readonly offset: string };
  /** Rejected only: the call as received. */
  readonly raw?: JsonValue;
}

/**
 * The value, without undefined members: `JSON.stringify` leaves its fast path for an object holding one. The two
 * common shapes are literals; the rest is built member by member.
 */
function outputValue(
  record: OutputRecord,
  schema: SchemaIdentity | undefined,
  partition: number,
  offset: string,
  raw: JsonValue | undefined,
): OutputValue {
  const { id, tool, format, repairs, passThroughs } = record;
  const where = { partition, offset };
  if (record.disposition === 'normalized' && schema !== undefined && passThroughs.length === 0) {
    return repairs.length === 0
      ? { id, tool, format, arguments: record.arguments, schemaId: schema.id, source: where }
      : { id, tool, format, arguments: record.arguments, repairs, schemaId: schema.id, source: where };
  }
  const value: Record<string, unknown> = { id, tool, format, arguments: record.arguments };
  if (record.disposition === 'rejected') value.errors = record.errors;
  if (repairs.length > 0) value.repairs = repairs;
  if (passThroughs.length > 0) value.passThroughs = passThroughs;
  if (schema !== undefined) value.schemaId = schema.id;
  value.source = where;
  if (raw !== undefined) value.raw = raw;
  return value as unknown as OutputValue;
}

/** An output message and the record it finally carries (a dead letter when the output would be too large). */
export interface BoundedOutput {
  readonly message: OutputMessage;
  readonly record: OutputRecord;
}

/**
 * {@link buildOutputMessage}, with every value bounded to `target.maxOutputBytes` (UTF-8), so that no record is one the output
 * topics refuse:
 * - a normalized or rejected output over the bound is dead-lettered instead (`output_too_large`), the input
 *   unchanged in the DLQ as for every dead letter;
 * - a dead letter whose input value is over the bound (an input topic that takes larger records than the DLQ)
 *   goes without its value (null), its headers naming the error, the size and where the input is.
 * Nothing is dropped silently: the DLQ record always points at the input's topic, partition and offset.
 */
export function buildBoundedOutput(
  input: InputMessage,
  record: OutputRecord,
  schema: SchemaIdentity | undefined,
  raw: JsonValue | undefined,
  target: OutputTarget,
  fanOut?: FanOut,
): BoundedOutput {
  const maxBytes = target.maxOutputBytes;
  let final = record;
  let message = buildOutputMessage(input, record, schema, raw, target, fanOut);
  const size = byteSize(message.value, maxBytes);
  if (size !== undefined && record.disposition !== 'dead_letter') {
    final = outputTooLarge(record, size, maxBytes);
    message = buildOutputMessage(input, final, schema, raw, target, fanOut);
  }
  const inputSize = message.topic === target.topics.dlq ? byteSize(message.value, maxBytes) : undefined;
  if (inputSize !== undefined) {
    const note =
      `; the input value (${String(inputSize)} bytes, over the ${String(maxBytes)}-byte output bound) is not copied: ` +
      `read it at ${target.topic}/${String(target.partition)}@${input.offset}`;
    const headers = carriedHeaders(message.headers, false);
    headers[HEADER.dlqMessage] = truncate(`${String(message.headers[HEADER.dlqMessage] ?? '')}${note}`, MAX_HEADER_MESSAGE);
    message = { ...message, value: null, headers };
  }
  return { message, record: final };
}

/** The byte size of a value when it is over `maxBytes`, else undefined (counted only when it could be over). */
function byteSize(value: Buffer | string | null, maxBytes: number): number | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'string') return value.length > maxBytes ? value.length : undefined;
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short strings need no count.
  if (value.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(value);
  return bytes > maxBytes ? bytes : undefined;
}

function outputTooLarge(record: OutputRecord, size: number, maxBytes: number): OutputRecord {
  const what = record.disposition === 'rejected' ? 'rejected output (arguments, errors and the raw call)' : 'normalized output';
  return {
    ...record,
    valid: false,
    disposition: 'dead_letter',
    errors: [
      {
        code: 'output_too_large',
        path: '',
        message:
          `The ${what} would be ${String(size)} bytes, over the ${String(maxBytes)}-byte bound (MAX_OUTPUT_BYTES); ` +
          'the call is dead-lettered unchanged instead.',
        hint: "Send smaller arguments; operators can raise MAX_OUTPUT_BYTES together with the output topics' max.message.bytes.",
      },
      ...record.errors,
    ],
  };
}

/**
 * The output record as JSON text (each line of `normalize`, without its line number). One `JSON.stringify` of
 * the record: on Node.js 24 it is faster than writing the fixed parts out by hand.
 */
export function serializeOutputRecord(record: OutputRecord): string {
  return JSON.stringify(record);
}

/** A copy of `incoming` ({@link headerMap}) without our own headers, unless `dropOwn` is false. */
function carriedHeaders(incoming: Headers, dropOwn = true): Headers {
  const out = headerMap();
  for (const name of Object.keys(incoming)) {
    const value = incoming[name];
    if (value !== undefined && !(dropOwn && OWN_HEADERS.has(name))) out[name] = value;
  }
  return out;
}

/**
 * The idempotency key a redriven record brings back (the one its call had before it was set aside), so executors
 * deduplicate it; undefined for any other record, and for a call of a whole message (each call has its own key).
 */
function redrivenKey(incoming: Headers, fanOut: FanOut | undefined): string | undefined {
  if (fanOut !== undefined || !Object.hasOwn(incoming, HEADER.redrivenFrom)) return undefined;
  const key = Object.hasOwn(incoming, HEADER.idempotencyKey) ? incoming[HEADER.idempotencyKey] : undefined;
  const text = typeof key === 'string' ? key : Buffer.isBuffer(key) ? key.toString('utf8') : undefined;
  return text !== undefined && text !== '' && text.length <= MAX_IDEMPOTENCY_ID_CHARS ? text : undefined;
}

/**
 * Longest call id carried as the `idempotency-key` as is, in UTF-16 code units. Ids are model- or producer-chosen,
 * and the output bound counts only the value: a huge id in a header would make a record the broker refuses on
 * every retry. Real ids are far shorter (`call_…`, `toolu_…`: under 64).
 */
export const MAX_IDEMPOTENCY_ID_CHARS = 256;

/**
 * The `idempotency-key` of a record: its call id; `sha256:` of the id when the id is longer than
 * {@link MAX_IDEMPOTENCY_ID_CHARS} (the same id always gives the same key); `sha256:` of the record's key and
 * value when it has no id or an empty one (an empty id shared by every such call would make consumers drop all
 * but the first as duplicates), followed by `#` and the call's position for a call of a whole message
 * (`index`), which one record's calls never share.
 */
export function idempotencyKey(id: string | null, input: Pick<InputMessage, 'key' | 'value'>, index?: number): string {
  if (id === null || id === '') return index === undefined ? recordHash(input) : `${recordHash(input)}#${String(index)}`;
  if (id.length <= MAX_IDEMPOTENCY_ID_CHARS) return id;
  return `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}

/** A stable id for a record without a call id: the same bytes always give the same key. */
export function recordHash(input: Pick<InputMessage, 'key' | 'value'>): string {
  const hash = createHash('sha256');
  if (input.key !== null) hash.update(input.key);
  hash.update('\u0000');
  if (input.value !== null) hash.update(input.value);
  return `sha256:${hash.digest('hex').slice(0, 32)}`;
}
