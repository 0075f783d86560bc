/**
 * Claiming a partition on @platformatic/kafka: its committed offset, read once no open transaction holds offsets
 * for it (requireStable). The broker answers UNSTABLE_OFFSET_COMMIT while one is open (a zombie's, or a killed
 * worker's until its transaction times out), so the claim waits that out.
 */
import type { Logger } from 'pino';
import { BACKOFF_POLICIES, retry } from '../shared/retry.js';
import { unstableOffsets } from './platformatic-failures.js';

/** How long a claim waits for a partition's offsets to become stable before it gives up (the batch is read again). */
export const STABLE_WAIT_MS = 120_000;

/** A partition this member owns in the current generation. */
export interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** First offset not yet delivered in this generation; undefined until claimed. */
  position: bigint | undefined;
  heldUntil: number | undefined;
}

/** The one admin request a claim makes (Admin.listConsumerGroupOffsets, as much of it as is read). */
export type ListGroupOffsets = (request: {
  groups: { groupId: string; topics: { name: string; partitionIndexes: number[] }[] }[];
  requireStable: boolean;
}) => Promise<
  readonly { topics: readonly { name: string; partitions: readonly { partitionIndex: number; committedOffset: bigint }[] }[] }[]
>;

export interface ClaimDeps {
  readonly listGroupOffsets: ListGroupOffsets;
  readonly groupId: string;
  readonly log: Logger;
  readonly stopping: () => boolean;
  readonly sleep?: (ms: number) => Promise<unknown>;
  readonly now?: () => number;
}

/**
 * The first offset to deliver of a partition: its committed offset (0 when none), once stable. The stream's own
 * read does not wait, so it may start below this; those records are skipped.
 */
export async function claimPartition(deps: ClaimDeps, topic: string, partition: number): Promise<bigint> {
  const now = deps.now ?? Date.now;
  const started = now();
  return retry<bigint, unknown>(
    async (attempt) => {
      try {
        const groups = await deps.listGroupOffsets({
          groups: [{ groupId: deps.groupId, topics: [{ name: topic, partitionIndexes: [partition] }] }],
          requireStable: true,
        });
        const offset =
          groups[0]?.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === partition)?.committedOffset ?? -1n;
        if (attempt > 0)
          deps.log.info({ topic, partition, waitedMs: now() - started }, 'partition offsets stable: an open transaction ended');
        deps.log.debug({ topic, partition, from: offset.toString() }, 'partition claimed');
        return { done: true, value: offset < 0n ? 0n : offset };
      } catch (error) {
        if (!unstableOffsets(error) || deps.stopping() || now() - started > STABLE_WAIT_MS) throw error;
        if (attempt === 0)
          deps.log.info({ topic, partition }, 'waiting for an open transaction on this partition to end before reading its offset');
        return { done: false, failure: error };
      }
    },
    {
      policy: BACKOFF_POLICIES.stableOffsets,
      // Bounded by STABLE_WAIT_MS, not by a count.
      maxRetries: Number.POSITIVE_INFINITY,
      giveUp: (failure) => (failure instanceof Error ? failure : new Error(String(failure))),
      ...(deps.sleep === undefined ? {} : { sleep: deps.sleep }),
    },
  );
}
