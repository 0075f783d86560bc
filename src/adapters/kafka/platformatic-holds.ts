/**
 * Partitions held for a schema on @platformatic/kafka. The client has no per-partition pause: a held partition's
 * records are dropped until its hold ends, and then `onEnd` has a new stream read them again from the committed
 * offset. When every partition is held, nothing is read.
 */
import type { PartitionState } from './platformatic-claims.js';

export class Holds {
  readonly #partitions: ReadonlyMap<string, PartitionState>;
  readonly #onEnd: () => void;
  #timer: NodeJS.Timeout | undefined;

  /** `partitions` is the stream's own map; `onEnd` runs after one or more holds have ended. */
  constructor(partitions: ReadonlyMap<string, PartitionState>, onEnd: () => void) {
    this.#partitions = partitions;
    this.#onEnd = onEnd;
  }

  hold(state: PartitionState, holdMs: number): void {
    state.heldUntil = Date.now() + holdMs;
    this.#schedule();
  }

  /** True when the member owns partitions and every one is held. */
  allHeld(): boolean {
    if (this.#partitions.size === 0) return false;
    for (const state of this.#partitions.values()) if (state.heldUntil === undefined) return false;
    return true;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    let earliest: number | undefined;
    for (const state of this.#partitions.values())
      if (state.heldUntil !== undefined) earliest = Math.min(earliest ?? Infinity, state.heldUntil);
    if (earliest === undefined) return;
    this.#timer = setTimeout(
      () => {
        const now = Date.now();
        for (const state of this.#partitions.values())
          if (state.heldUntil !== undefined && state.heldUntil <= now) state.heldUntil = undefined;
        this.#schedule();
        this.#onEnd();
      },
      Math.max(0, earliest - Date.now()),
    );
  }
}
