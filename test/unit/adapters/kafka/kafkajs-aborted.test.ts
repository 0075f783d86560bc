/**
 * The read_committed filter in place of kafkajs's, on the shape the fault campaign met on a real broker (output
 * partition 0 of a kill run): a killed worker's transaction (producer 185) began at 724 and was aborted at 1095,
 * after the survivor's (producer 178) transaction 1091-1093 was aborted at 1094; the broker lists the two in that
 * order (by abort), and kafkajs's own filter gave 185's records as committed.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { markAborted, patchKafkajsAbortedFilter, type FetchedRecord } from '../../../../src/adapters/kafka/kafkajs-aborted.js';

const ABORT = Buffer.from([0, 0, 0, 0]);
const COMMIT = Buffer.from([0, 0, 0, 1]);
const data = (producerId: string, from: number, to: number): FetchedRecord[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    offset: String(from + i),
    key: Buffer.from('k'),
    batchContext: { producerId, inTransaction: true },
  }));
const marker = (producerId: string, offset: number, key: Buffer): FetchedRecord => ({
  offset: String(offset),
  key,
  isControlRecord: true,
  batchContext: { producerId, inTransaction: true },
});

// 724-728 killed (aborted at 1095); 729-1089 survivor, committed at 1090; 1091-1093 survivor, aborted at 1094.
const records = [
  ...data('185', 724, 728),
  ...data('178', 729, 1089),
  marker('178', 1090, COMMIT),
  ...data('178', 1091, 1093),
  marker('178', 1094, ABORT),
  marker('185', 1095, ABORT),
];
const abortedByAbortOrder = [
  { producerId: '178', firstOffset: '1091' },
  { producerId: '185', firstOffset: '724' },
];
const dataOffsets = (list: readonly FetchedRecord[]): number[] =>
  list.filter((r) => r.isControlRecord !== true).map((r) => Number(r.offset));
const committed = Array.from({ length: 1089 - 729 + 1 }, (_, i) => 729 + i);

describe('markAborted', () => {
  it('drops every aborted transaction whatever the order the broker lists them in, keeping every offset in the batch', () => {
    const marked = markAborted(records, abortedByAbortOrder);
    expect(dataOffsets(marked)).toEqual(committed);
    expect(marked.map((r) => r.offset)).toEqual(records.map((r) => r.offset));
  });

  it('drops a transaction the fetch starts inside of, with another aborted one begun before the first record', () => {
    const fromInside = records.filter((r) => Number(r.offset) >= 1092);
    expect(dataOffsets(markAborted(fromInside, abortedByAbortOrder))).toEqual([]);
    const both = [...data('185', 800, 801), ...data('178', 802, 803), marker('178', 804, ABORT), marker('185', 805, ABORT)];
    const list = [
      { producerId: '185', firstOffset: '724' },
      { producerId: '178', firstOffset: '790' },
    ];
    expect(dataOffsets(markAborted(both, list))).toEqual([]);
  });

  it("is needed: kafkajs 2.2.4's own filter gives the killed worker's aborted records as committed", () => {
    const require = createRequire(import.meta.url);
    const kafkajsFilter = require('kafkajs/src/consumer/filterAbortedMessages.js') as (args: {
      messages: FetchedRecord[];
      abortedTransactions: typeof abortedByAbortOrder;
    }) => FetchedRecord[];
    expect(dataOffsets(kafkajsFilter({ messages: records, abortedTransactions: abortedByAbortOrder }))).toEqual([
      724,
      725,
      726,
      727,
      728,
      ...committed,
    ]);
  });

  it('is in place on kafkajs 2.2.4', () => {
    expect(patchKafkajsAbortedFilter()).toBe(true);
    expect(patchKafkajsAbortedFilter()).toBe(true);
  });
});
