/**
 * kafkajs 2.2.4 drops the records of aborted transactions (read_committed) by walking a partition's records with the
 * fetch response's aborted-transaction list, taking at most one entry per record and assuming the list is ordered
 * by first offset. The broker lists them in the order they were aborted: a producer killed inside a transaction is
 * aborted long after it began (when its transactional id is fenced or times out), after other producers' aborted
 * transactions that began later, and its records are then given as committed (a worker reprocessing an aborted
 * upstream transaction; our fault campaign's reader seeing a killed worker's aborted outputs). The replacement
 * marks them in the decoded response as the Java client finds them (entries by first offset, every one a record
 * reaches) and hands kafkajs an empty list. An aborted record stays in the batch flagged as a control record, as
 * a transaction marker is: kafkajs hands neither to the application and still counts both in the batch's last
 * offset, so the next fetch starts after them (removing them would make a batch of nothing but aborted records
 * look empty, and kafkajs would move on to the high watermark).
 */
import { createRequire } from 'node:module';

/** A decoded record as kafkajs's fetch response holds it (what the filter reads). */
export interface FetchedRecord {
  readonly offset: string;
  readonly key?: Buffer | null;
  readonly isControlRecord?: boolean;
  readonly batchContext: { readonly producerId: string; readonly inTransaction: boolean };
}

export interface AbortedTransaction {
  readonly producerId: string;
  readonly firstOffset: string;
}

/** The key of an ABORT control record: version 0, type 0. */
const ABORT_KEY = Buffer.from([0, 0, 0, 0]);

/**
 * The records of a partition, those of an aborted transaction flagged `isControlRecord` (and only those: markers
 * are control records already).
 */
export function markAborted<T extends FetchedRecord>(records: readonly T[], aborted: readonly AbortedTransaction[]): T[] {
  if (aborted.length === 0) return [...records];
  const pending = [...aborted].sort((a, b) => (BigInt(a.firstOffset) < BigInt(b.firstOffset) ? -1 : 1));
  const abortedProducers = new Set<string>();
  let next = 0;
  return records.map((record) => {
    const offset = BigInt(record.offset);
    for (; next < pending.length && offset >= BigInt(pending[next]?.firstOffset ?? '0'); next++) {
      const entry = pending[next];
      if (entry !== undefined) abortedProducers.add(entry.producerId);
    }
    const { producerId, inTransaction } = record.batchContext;
    if (record.isControlRecord === true) {
      if (record.key != null && Buffer.from(record.key).equals(ABORT_KEY)) abortedProducers.delete(producerId);
      return record;
    }
    return inTransaction && abortedProducers.has(producerId) ? { ...record, isControlRecord: true } : record;
  });
}

interface FetchResponse {
  responses?: { partitions?: { abortedTransactions?: AbortedTransaction[]; messages?: FetchedRecord[] }[] }[];
}

/** The version whose fetch response this filters; another one keeps its own filter. */
const PATCHED_VERSION = '2.2.4';
/** The Fetch versions kafkajs 2.2.4 sends to a broker that has them all (v11 to Kafka 4.x); older ones parse alike. */
const FETCH_VERSIONS = [4, 5, 6, 7, 8, 9, 10, 11];

let patched: boolean | undefined;

/** Wraps the fetch responses' parse once per process; whether it is in place (false on another kafkajs). */
export function patchKafkajsAbortedFilter(): boolean {
  if (patched !== undefined) return patched;
  patched = false;
  const require = createRequire(import.meta.url);
  const { version } = require('kafkajs/package.json') as { version?: unknown };
  if (version !== PATCHED_VERSION) return patched;
  for (const v of FETCH_VERSIONS) {
    const response = require(`kafkajs/src/protocol/requests/fetch/v${String(v)}/response.js`) as {
      parse?: (data: FetchResponse) => Promise<FetchResponse>;
    };
    const parse = response.parse;
    if (typeof parse !== 'function') return patched;
    response.parse = async (data: FetchResponse): Promise<FetchResponse> => {
      const parsed = await parse(data);
      for (const topic of parsed.responses ?? [])
        for (const partition of topic.partitions ?? []) {
          const aborted = partition.abortedTransactions ?? [];
          if (aborted.length === 0 || partition.messages === undefined) continue;
          partition.messages = markAborted(partition.messages, aborted);
          partition.abortedTransactions = [];
        }
      return parsed;
    };
  }
  patched = true;
  return patched;
}
