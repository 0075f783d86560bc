/**
 * Reading the input on @platformatic/kafka: the stream's options, a bounded read of what it buffers, the records
 * grouped by partition, and whether they were fetched for the assignment in hand.
 */
import { FetchIsolationLevels, type ConsumeOptions, type Message, type MessagesStream } from '@platformatic/kafka';
import { headersFromPairs } from './headers.js';
import type { InputRecord, StreamOptions } from './port.js';

export type InMessage = Message;
export type InStream = MessagesStream<Buffer, Buffer, Buffer, Buffer>;

/** Most records taken from the stream for one delivery: about what one kafkajs fetch brings a partition. */
export const MAX_RECORDS_PER_READ = 5_000;

/**
 * Most bytes one fetch brings, all partitions together (the client's default is 50 MB): what the stream buffers
 * beside the read in hand has one bound however many partitions the worker owns.
 */
const MAX_BYTES_PER_FETCH = 4 * 1_048_576;

/** The stream's options: it starts at the committed offsets and reads only committed input. */
export function consumeOptions(options: StreamOptions): ConsumeOptions<Buffer, Buffer, Buffer, Buffer> {
  return {
    topics: [options.topics.input],
    mode: 'committed',
    fallbackMode: 'earliest',
    autocommit: false,
    // Read only committed input: an upstream transactional producer's aborted records are never processed.
    isolationLevel: FetchIsolationLevels.READ_COMMITTED,
    maxWaitTime: options.fetchMaxWaitMs,
    maxBytesPerPartition: 1_048_576,
    maxBytes: MAX_BYTES_PER_FETCH,
    highWaterMark: MAX_RECORDS_PER_READ,
    sessionTimeout: options.sessionTimeoutMs,
    rebalanceTimeout: options.sessionTimeoutMs,
    heartbeatInterval: heartbeatInterval(options.sessionTimeoutMs),
  };
}

/** A tenth of the session, at least a second: a member misses several heartbeats before the group drops it. */
export function heartbeatInterval(sessionTimeoutMs: number): number {
  return Math.max(1_000, Math.floor(sessionTimeoutMs / 10));
}

/** Up to `max` records the stream has buffered, without waiting for more. */
export function readUpTo(stream: Pick<InStream, 'read'>, max: number): InMessage[] {
  const out: InMessage[] = [];
  for (let m = stream.read() as InMessage | null; m !== null; m = out.length < max ? (stream.read() as InMessage | null) : null)
    out.push(m);
  return out;
}

/** The records by `topic:partition`, each list in the order read. */
export function byPartition<M extends Pick<InMessage, 'topic' | 'partition'>>(messages: readonly M[]): Map<string, M[]> {
  const lists = new Map<string, M[]>();
  // The stream gives a partition's records in runs: the list is looked up once per run, not per record.
  let run: M | undefined;
  let runList: M[] = [];
  for (const m of messages) {
    if (run === undefined || m.partition !== run.partition || m.topic !== run.topic) {
      const key = `${m.topic}:${m.partition}`;
      const known = lists.get(key);
      if (known === undefined) lists.set(key, (runList = []));
      else runList = known;
      run = m;
    }
    runList.push(m);
  }
  return lists;
}

/**
 * True when every record carries `member`'s generation and member id, the ones its offset would be committed
 * with (the client stamps each fetch response's records with the consumer's ids at the time it arrives).
 */
export function stampedBy(
  list: readonly Pick<InMessage, 'metadata'>[],
  member: { readonly generationId: number; readonly memberId: string } | undefined,
): boolean {
  if (member === undefined) return false;
  let seen: unknown;
  for (const m of list) {
    // One metadata object per fetch response: each is looked at once.
    if (m.metadata === seen) continue;
    seen = m.metadata;
    const stamp = (m.metadata as { consumer?: { generationId?: unknown; memberId?: unknown } } | undefined)?.consumer;
    if (stamp?.generationId !== member.generationId || stamp.memberId !== member.memberId) return false;
  }
  return true;
}

export function inputRecord(message: InMessage): InputRecord {
  // The client's types promise a key and a value; a record without one has undefined there.
  const { key, value } = message as { key: Buffer | undefined; value: Buffer | undefined };
  return { key: key ?? null, value: value ?? null, headers: headersFromPairs(message.headers), offset: message.offset.toString() };
}
