/**
 * The lag metric on @platformatic/kafka: the records carry no high watermark, so the input's end offsets are read
 * with ListOffsets, at most once a second and once more after the last delivery of a burst.
 */
import type { Logger } from 'pino';
import { describeError } from './delivery.js';
import type { PartitionState } from './platformatic-claims.js';
import type { DeliveryObserver } from './port.js';

/** Least time between two reads of the input's end offsets. */
export const LAG_INTERVAL_MS = 1_000;

/** The one consumer request the poller makes (Consumer.listOffsets, as much of it as is read). */
export type ListEndOffsets = (request: {
  topics: string[];
  partitions: Record<string, number[]>;
}) => Promise<ReadonlyMap<string, readonly bigint[]>>;

export class LagPoller {
  readonly #partitions: ReadonlyMap<string, PartitionState>;
  readonly #listOffsets: ListEndOffsets;
  readonly #observer: Pick<DeliveryObserver, 'lag'>;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #readAt = 0;
  #again = false;
  #stopped = false;

  /** `partitions` is the stream's own map: what is owned when the poll runs is what is read. */
  constructor(deps: {
    partitions: ReadonlyMap<string, PartitionState>;
    listOffsets: ListEndOffsets;
    observer: Pick<DeliveryObserver, 'lag'>;
    log: Logger;
  }) {
    this.#partitions = deps.partitions;
    this.#listOffsets = deps.listOffsets;
    this.#observer = deps.observer;
    this.#log = deps.log;
  }

  /** Reads the lag at most every {@link LAG_INTERVAL_MS}, and once more after the last delivery of a burst. */
  soon(): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) {
      this.#again = true;
      return;
    }
    this.#timer = setTimeout(
      () => {
        this.#again = false;
        void this.#read().finally(() => {
          this.#readAt = Date.now();
          this.#timer = undefined;
          // A delivery ended while the offsets were read: read them again, so the last figure is the latest.
          if (this.#again) this.soon();
        });
      },
      Math.max(0, this.#readAt + LAG_INTERVAL_MS - Date.now()),
    );
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Records behind each owned partition's end offset, from its first offset not yet delivered. */
  async #read(): Promise<void> {
    const owned = new Map<string, { state: PartitionState; position: bigint }>();
    for (const [key, state] of this.#partitions) if (state.position !== undefined) owned.set(key, { state, position: state.position });
    if (owned.size === 0) return;
    const partitions: Record<string, number[]> = {};
    for (const { state } of owned.values()) (partitions[state.topic] ??= []).push(state.partition);
    try {
      const ends = await this.#listOffsets({ topics: Object.keys(partitions), partitions });
      for (const [key, { state, position }] of owned) {
        const { topic, partition } = state;
        const end = ends.get(topic)?.[partition];
        // Not reported for a partition given away meanwhile: its new owner reports it.
        if (end === undefined || this.#partitions.get(key) !== state) continue;
        this.#observer.lag(topic, partition, Number(end > position ? end - position : 0n));
      }
    } catch (error) {
      this.#log.debug(
        { err: describeError(error) },
        'reading the end offsets for the lag metric failed; read again after the next delivery',
      );
    }
  }
}
