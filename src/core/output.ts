/**
 * What the worker writes for one input record: which topic, the value, the key and the headers. Pure: the
 * Kafka adapter only moves these bytes.
 */
import { createHash } from 'node:crypto';
import type { JsonValue } from './json.js';
import type { SchemaIdentity } from './tool.js';
import type { OutputRecord } from './types.js';

/** Where an input record came from. */
export interface SourceCoordinates {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

export type HeaderValue = Buffer | string;
export type Headers = Record<string, HeaderValue | HeaderValue[] | undefined>;

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
  disposition: 'toolcall-disposition',
  errorCode: 'toolcall-error-code',
  dlqTopic: '__connect.errors.topic',
  dlqPartition: '__connect.errors.partition',
  dlqOffset: '__connect.errors.offset',
  dlqClass: '__connect.errors.exception.class.name',
  dlqMessage: '__connect.errors.exception.message',
} as const;

/** Headers we set; incoming headers with these names are replaced rather than duplicated. */
const OWN_HEADERS = new Set<string>(Object.values(HEADER));

/** Longest error message put in a header. */
const MAX_HEADER_MESSAGE = 1000;

export interface InputMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Headers;
  readonly source: SourceCoordinates;
}

/**
 * Builds the message for one processed record.
 * - normalized: the output record, with schema identity and source coordinates, to the output topic;
 * - rejected: the same plus the raw call as received, to the rejected topic;
 * - dead letter: the input value unchanged, with headers naming the error and the source, to the DLQ topic.
 * The key is the input key (order per key is kept downstream); incoming headers (`traceparent`...) are
 * carried on; `idempotency-key` carries the call id, or a stable hash of the record when it has none.
 */
export function buildOutputMessage(
  input: InputMessage,
  record: OutputRecord,
  schema: SchemaIdentity | undefined,
  raw: JsonValue | undefined,
  topics: OutputTopics,
): OutputMessage {
  const headers = carriedHeaders(input.headers);
  headers[HEADER.idempotencyKey] = record.id ?? recordHash(input);
  headers[HEADER.disposition] = record.disposition;
  if (record.disposition === 'dead_letter') {
    const error = record.errors[0];
    const code = error?.code ?? 'record_unknown_envelope';
    headers[HEADER.errorCode] = code;
    headers[HEADER.dlqTopic] = input.source.topic;
    headers[HEADER.dlqPartition] = String(input.source.partition);
    headers[HEADER.dlqOffset] = input.source.offset;
    headers[HEADER.dlqClass] = code;
    headers[HEADER.dlqMessage] = truncate(error?.message ?? '', MAX_HEADER_MESSAGE);
    return { topic: topics.dlq, key: input.key, value: input.value, headers };
  }
  if (record.errors[0] !== undefined) headers[HEADER.errorCode] = record.errors[0].code;
  const value: Record<string, unknown> = {
    id: record.id,
    tool: record.tool,
    format: record.format,
    arguments: record.arguments,
    valid: record.valid,
    disposition: record.disposition,
    errors: record.errors,
    repairs: record.repairs,
    passThroughs: record.passThroughs,
    schema: schema ?? null,
    source: input.source,
  };
  if (record.disposition === 'rejected') value.raw = raw ?? null;
  return {
    topic: record.disposition === 'normalized' ? topics.output : topics.rejected,
    key: input.key,
    value: JSON.stringify(value),
    headers,
  };
}

function carriedHeaders(incoming: Headers): Headers {
  const out: Headers = {};
  for (const name of Object.keys(incoming)) {
    if (!OWN_HEADERS.has(name) && incoming[name] !== undefined) out[name] = incoming[name];
  }
  return out;
}

/** A stable id for a record without a call id: the same bytes always give the same key. */
export function recordHash(input: Pick<InputMessage, 'key' | 'value'>): string {
  const hash = createHash('sha256');
  if (input.key !== null) hash.update(input.key);
  hash.update('\u0000');
  if (input.value !== null) hash.update(input.value);
  return `sha256:${hash.digest('hex').slice(0, 32)}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
