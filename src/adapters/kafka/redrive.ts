/**
 * The redrive's Kafka half on @platformatic/kafka (docs/redrive.md): reads the source topic (read_committed) from
 * where the selection's consumer group stopped up to the end it has when the run starts, and sends each selected
 * record's original to the target in one transaction with the group's offsets, the worker's exactly-once scheme.
 * The group (`toolcall-normalizer-redrive-<selection id>`) is the marker: a second run of the same selection starts
 * where the first committed, so it adds nothing; a run that dies is aborted whole and resumed from there. The
 * transactional id is the group's, so a second run started meanwhile fences the first. Nothing is written to the
 * source topic, and nothing there is deleted or moved.
 */
import {
  Admin,
  Consumer,
  FetchIsolationLevels,
  MessagesStreamModes,
  Producer,
  type Message,
  type MessagesStream,
} from '@platformatic/kafka';
import type { Compression } from '../../core/shared/stream.js';
import { originalOf, redriveMessage, selectionId, selects, NONE, type Selection, type SourceRecord } from '../../core/records/redrive.js';
import type { KafkaConnectionOptions } from './client.js';
import { headersFromPairs } from './headers.js';
import { capAddPartitionsToTxn, platformaticBaseOptions, platformaticPartitioner } from './platformatic-client.js';
import { outMessage } from './platformatic-delivery.js';

/** Records read before each transaction (and each progress report). */
const RECORDS_PER_TRANSACTION = 500;

/** How long a read waits for records before it looks at the fetch positions (a fetch waits 500 ms on the broker). */
const IDLE_MS = 1_000;

export interface RedriveOptions {
  readonly selection: Selection;
  readonly dryRun: boolean;
  readonly compression: Compression;
  /** Called after each transaction (or each read, in a dry run). */
  readonly progress: (tally: RedriveTally) => void;
}

export interface RedriveTally {
  readonly group: string;
  /** Records of the source in this run's range (from the group's offsets to the end at start). */
  total: number;
  read: number;
  selected: number;
  /** Sent to the target and committed (0 in a dry run). */
  redriven: number;
  /** Selected records by `<code> <tool>` (counted in a dry run too). */
  readonly byCodeAndTool: Map<string, number>;
  /** Records the selection took that hold no original, by offset. */
  readonly unreadable: { topic: string; partition: number; offset: string; reason: string }[];
  /** Partitions already redriven to their end by an earlier run when this one started. */
  alreadyDone: boolean;
}

/** The consumer group (and transactional id) that records how far a selection was redriven. */
export function redriveGroup(selection: Selection): string {
  return `toolcall-normalizer-redrive-${selectionId(selection)}`;
}

export async function runRedrive(connection: KafkaConnectionOptions, options: RedriveOptions): Promise<RedriveTally> {
  const { selection } = options;
  const base = platformaticBaseOptions(connection);
  const group = redriveGroup(selection);
  const tally: RedriveTally = {
    group,
    total: 0,
    read: 0,
    selected: 0,
    redriven: 0,
    byCodeAndTool: new Map(),
    unreadable: [],
    alreadyDone: false,
  };
  const admin = new Admin({ ...base });
  const consumer = new Consumer({ ...base, groupId: group, autocommit: false, sessionTimeout: 30_000, heartbeatInterval: 3_000 });
  let producer: Producer<Buffer, Buffer, Buffer | string> | undefined;
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(selection.source)) throw new Error(`the source topic "${selection.source}" does not exist`);
    if (!options.dryRun && !topics.includes(selection.target)) throw new Error(`the target topic "${selection.target}" does not exist`);
    if (!options.dryRun) {
      producer = new Producer({
        ...base,
        idempotent: true,
        transactionalId: group,
        producerId: -1n,
        producerEpoch: -1,
        timeout: 30_000,
        compression: options.compression,
        partitioner: platformaticPartitioner(),
      });
      capAddPartitionsToTxn(producer);
    }
    // Where this run ends: the source's last stable offsets now; what arrives later is for a later run.
    const ends = (await consumer.listOffsets({ topics: [selection.source], isolationLevel: FetchIsolationLevels.READ_COMMITTED })).get(
      selection.source,
    );
    const starts = (await consumer.listOffsets({ topics: [selection.source], timestamp: -2n })).get(selection.source);
    if (ends === undefined || starts === undefined) throw new Error(`no offsets for "${selection.source}"`);
    // requireStable: an earlier run's transaction still open (it died) is waited out, not read past.
    const committed = await admin.listConsumerGroupOffsets({ groups: [group], requireStable: true });
    const from = new Map<number, bigint>();
    for (let partition = 0; partition < ends.length; partition++) {
      const offset = committed[0]?.topics
        .find((t) => t.name === selection.source)
        ?.partitions.find((p) => p.partitionIndex === partition)?.committedOffset;
      const start = starts[partition] ?? 0n;
      from.set(partition, offset === undefined || offset < start ? start : offset);
    }
    const pending = new Map<number, bigint>();
    for (const [partition, start] of from) {
      const end = ends[partition] ?? 0n;
      if (start < end) {
        pending.set(partition, end);
        tally.total += Number(end - start);
      }
    }
    if (pending.size === 0) {
      tally.alreadyDone = true;
      options.progress(tally);
      return tally;
    }
    stream = await consumer.consume({
      topics: [selection.source],
      mode: MessagesStreamModes.MANUAL,
      offsets: [...from].map(([partition, offset]) => ({ topic: selection.source, partition, offset })),
      autocommit: false,
      isolationLevel: FetchIsolationLevels.READ_COMMITTED,
      maxWaitTime: 500,
    });
    const failed = new Promise<never>((_, reject) => stream?.once('error', reject));
    failed.catch(() => undefined);
    let metadata: Message['metadata'] | undefined;
    while (pending.size > 0) {
      const batch = await Promise.race([readSome(stream, RECORDS_PER_TRANSACTION, IDLE_MS), failed]);
      const outputs: ReturnType<typeof outMessage>[] = [];
      /** The next offset of each partition read this round: what the transaction commits. */
      const next = new Map<number, bigint>();
      for (const message of batch) {
        const end = pending.get(message.partition);
        if (end === undefined || message.offset >= end) continue;
        next.set(message.partition, message.offset + 1n);
        metadata = message.metadata;
        tally.read++;
        const record = sourceRecord(message);
        const original = originalOf(record);
        if (!selects(selection, record, original)) continue;
        tally.selected++;
        if (!original.ok) {
          tally.unreadable.push({
            topic: record.topic,
            partition: record.partition,
            offset: record.offset.toString(),
            reason: original.reason,
          });
          continue;
        }
        const label = `${original.code === NONE ? NONE : original.code} ${original.tool}`;
        tally.byCodeAndTool.set(label, (tally.byCodeAndTool.get(label) ?? 0) + 1);
        outputs.push(outMessage(redriveMessage(record, original, selection.target)));
      }
      // A partition whose fetch position passed the end with nothing left to read ends in transaction markers or
      // aborted records, which are never handed over: it is done, committed at its end.
      for (const [partition, end] of pending) {
        const position = stream.offsetsToFetch.get(`${selection.source}:${partition}`) ?? 0n;
        if (stream.readableLength === 0 && position >= end && (next.get(partition) ?? -1n) < end && metadata !== undefined)
          next.set(partition, end);
      }
      if (producer !== undefined && next.size > 0 && metadata !== undefined) {
        const transaction = await producer.beginTransaction();
        try {
          if (outputs.length > 0) await transaction.send({ messages: outputs });
          await transaction.addConsumer(consumer);
          // One after the other: concurrent addOffset calls are merged by the client and only the first is sent.
          for (const [partition, offset] of next)
            await transaction.addOffset({ topic: selection.source, partition, offset: offset - 1n, metadata } as Message);
          await transaction.commit();
        } catch (error) {
          await transaction.abort().catch(() => undefined);
          throw error;
        }
        tally.redriven += outputs.length;
      }
      for (const [partition, offset] of next) if (offset >= (pending.get(partition) ?? 0n)) pending.delete(partition);
      // A range of nothing but markers, with no record read this run to stamp a commit with: nothing to redrive there.
      if (metadata === undefined && batch.length === 0 && stream.readableLength === 0) {
        for (const [partition, end] of pending)
          if ((stream.offsetsToFetch.get(`${selection.source}:${partition}`) ?? 0n) >= end) pending.delete(partition);
      }
      options.progress(tally);
    }
    return tally;
  } finally {
    await stream?.close().catch(() => undefined);
    await consumer.close(true).catch(() => undefined);
    await producer?.close().catch(() => undefined);
    await admin.close().catch(() => undefined);
  }
}

/** What the stream holds now, up to `max` records; waits up to `idleMs` for one (none: the fetch position is checked). */
async function readSome(stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>, max: number, idleMs: number): Promise<Message[]> {
  const out: Message[] = [];
  const take = (): void => {
    for (let m = stream.read() as Message | null; m !== null; m = out.length < max ? (stream.read() as Message | null) : null) out.push(m);
  };
  take();
  if (out.length > 0) return out;
  let timer: NodeJS.Timeout | undefined;
  let onReadable: (() => void) | undefined;
  await new Promise<void>((resolve) => {
    onReadable = resolve;
    stream.once('readable', onReadable);
    timer = setTimeout(resolve, idleMs);
  });
  clearTimeout(timer);
  if (onReadable !== undefined) stream.off('readable', onReadable);
  take();
  return out;
}

function sourceRecord(message: Message): SourceRecord {
  const { key, value } = message as { key: Buffer | undefined; value: Buffer | undefined };
  return {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    timestamp: message.timestamp,
    key: key ?? null,
    value: value ?? null,
    headers: headersFromPairs(message.headers),
  };
}
