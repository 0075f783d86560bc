/**
 * Committing past what the client filters out on @platformatic/kafka: transaction markers (one closes every
 * upstream transaction) and the records of aborted transactions are never handed to the worker, so an offset
 * committed after the last record read stops short of them. A partition that ends with a marker would then show
 * lag for good, and an idle input never scale to zero. The stream's next fetch offset says how far it has read.
 */
import type { PartitionState } from './platformatic-claims.js';

/** A partition whose committed offset can move from its delivered position to `to` without delivering anything. */
export interface MarkerSkip {
  readonly state: PartitionState;
  readonly to: bigint;
}

/**
 * What can be committed past filtered records, once the stream has nothing buffered (every record it fetched was
 * read): a partition not held, delivered to its position, with nothing read at or after that position
 * (`readTo`, one past the last record read from this stream), whose next fetch offset is further on. `unclaimed`
 * are partitions not claimed in this generation of which nothing was read: their position is their committed
 * offset, claimed first, then they are looked at again.
 */
export function markerSkips(
  partitions: Iterable<PartitionState>,
  fetchOffsets: ReadonlyMap<string, bigint>,
  readTo: ReadonlyMap<string, bigint>,
): { readonly skips: MarkerSkip[]; readonly unclaimed: PartitionState[] } {
  const skips: MarkerSkip[] = [];
  const unclaimed: PartitionState[] = [];
  for (const state of partitions) {
    if (state.heldUntil !== undefined) continue;
    const key = `${state.topic}:${state.partition}`;
    const to = fetchOffsets.get(key);
    if (to === undefined) continue;
    const read = readTo.get(key);
    if (state.position === undefined) {
      if (read === undefined) unclaimed.push(state);
      continue;
    }
    if (to > state.position && (read === undefined || read <= state.position)) skips.push({ state, to });
  }
  return { skips, unclaimed };
}
