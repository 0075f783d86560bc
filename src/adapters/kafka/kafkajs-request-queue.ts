/**
 * kafkajs 2.2.4's request queue re-arms its check timer after every check, even with nothing pending and no broker
 * throttle: `setTimeout(check, throttledUntil - Date.now())` with `throttledUntil` -1, a negative delay that Node.js
 * runs after 1 ms. Every broker connection then wakes 1,000 times a second for as long as it lives (an idle
 * worker's steady CPU), and Node.js 24 prints a `TimeoutNegativeWarning` on stderr, outside our JSON logs. The
 * replacement arms the timer only when a request waits or a throttle is to be waited out (tulios/kafkajs#1751).
 */
import { createRequire } from 'node:module';

/** The fields of kafkajs's `RequestQueue` the check reads and writes. */
interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** The version whose `scheduleCheckPendingRequests` this replaces; another one keeps its own. */
const PATCHED_VERSION = '2.2.4';
/** kafkajs's own interval for re-checking requests held back by `maxInFlightRequests`. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

let patched: boolean | undefined;

/**
 * Replaces `RequestQueue.prototype.scheduleCheckPendingRequests` once per process. Returns whether the
 * replacement is in place (false on a kafkajs other than {@link PATCHED_VERSION}, or one whose module moved).
 */
export function patchKafkajsRequestQueue(): boolean {
  if (patched !== undefined) return patched;
  patched = false;
  const require = createRequire(import.meta.url);
  const { version } = require('kafkajs/package.json') as { version?: unknown };
  if (version !== PATCHED_VERSION) return patched;
  const queue = require('kafkajs/src/network/requestQueue/index.js') as { prototype?: Partial<RequestQueue> } | undefined;
  if (typeof queue?.prototype?.scheduleCheckPendingRequests !== 'function') return patched;
  queue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  patched = true;
  return patched;
}

function scheduleCheckPendingRequests(this: RequestQueue): void {
  if (this.throttleCheckTimeoutId !== null) return;
  const throttledForMs = this.throttledUntil - Date.now();
  let delayMs: number;
  if (this.pending.length > 0) delayMs = throttledForMs > 0 ? throttledForMs : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  else if (throttledForMs > 0) delayMs = throttledForMs;
  else return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delayMs);
}
