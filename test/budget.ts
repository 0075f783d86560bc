/**
 * Bounds on work that hold on a loaded machine. A wall-clock bound also counts every other process sharing the
 * cores, so it fails under load without any change of ours; these count the CPU time of this thread only
 * (`process.threadCpuUsage`), in **reference passes**: one pass is `JSON.parse` and `JSON.stringify` of 800 KB of
 * JSON text (about 3 ms of CPU on the 2-core development machine), timed on the same thread, so a slower core
 * scales the budget with it. A linear path over 100 000 characters costs a fraction of a pass; a quadratic or
 * exponential one costs thousands.
 */
import { expect } from 'vitest';

/** CPU time of this thread, in milliseconds. Reliable over tens of milliseconds, not over one (kernel accounting). */
export function cpuMs(action: () => unknown): number {
  const start = process.threadCpuUsage();
  action();
  const spent = process.threadCpuUsage(start);
  return (spent.user + spent.system) / 1000;
}

const REFERENCE_TEXT = JSON.stringify({ text: 'x&amp;y\u00e9'.repeat(100_000) });
const REFERENCE_PASSES = 20;
let passMs: number | undefined;

/** CPU milliseconds of one reference pass on this thread: the least of three runs of 20 passes. */
export function referencePassMs(): number {
  if (passMs === undefined) {
    const runs = Array.from({ length: 3 }, () =>
      cpuMs(() => {
        for (let i = 0; i < REFERENCE_PASSES; i += 1) JSON.stringify(JSON.parse(REFERENCE_TEXT));
      }),
    );
    passMs = Math.max(Math.min(...runs) / REFERENCE_PASSES, 0.5);
  }
  return passMs;
}

/** What `action` cost, in reference passes. */
export function passesOf(action: () => unknown): number {
  return cpuMs(action) / referencePassMs();
}

/**
 * The least cost of `action` over up to `tries` runs, in reference passes, stopping at the first run within `budget`.
 * A pause of this thread (a major garbage collection of a large heap, a first-run compile) inflates one run; a
 * superlinear path costs as much on every run. `action` must be repeatable.
 */
export function leastPassesOf(action: () => unknown, budget: number, tries = 3): number {
  let least = Number.POSITIVE_INFINITY;
  for (let run = 0; run < tries && least >= budget; run += 1) least = Math.min(least, passesOf(action));
  return least;
}

/** Runs `action` (up to three times, see {@link leastPassesOf}) and fails, naming `what`, when it costs more than `budget` reference passes. */
export function expectWithinPasses(action: () => unknown, budget: number, what = 'the action'): number {
  const passes = leastPassesOf(action, budget);
  expect(passes, `${what} cost ${passes.toFixed(1)} reference passes (budget ${budget})`).toBeLessThan(budget);
  return passes;
}

/** A mark to measure from with {@link passesSince}, for work that is not one function call. */
export function cpuMark(): NodeJS.CpuUsage {
  return process.threadCpuUsage();
}

/** The CPU time of this thread since `mark`, in reference passes. */
export function passesSince(mark: NodeJS.CpuUsage): number {
  const spent = process.threadCpuUsage(mark);
  return (spent.user + spent.system) / 1000 / referencePassMs();
}
