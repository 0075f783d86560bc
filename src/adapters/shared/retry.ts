/**
 * The one retry and backoff helper of the I/O edges: exponential delays from named policies, and a loop that
 * retries what an attempt reports as transient. Each loop that waits and tries again names its policy here, so
 * every first delay, factor, cap and jitter is found in one table.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface BackoffPolicy {
  /** Delay before the first retry, in ms. */
  readonly firstMs: number;
  /** Growth of the delay per further retry. */
  readonly factor: number;
  /** Longest delay, whatever the attempt or a server's `Retry-After` asks for. */
  readonly maxMs: number;
  /** `equal`: half the delay fixed, half random, so clients that failed together spread out; `none`: exact. */
  readonly jitter: 'equal' | 'none';
}

/** Every backoff policy in src/, by the loop that uses it. */
export const BACKOFF_POLICIES = {
  /** Registry HTTP attempts (src/adapters/registry/client.ts); `firstMs` is the client's `retryBackoffMs`. */
  registryHttp: { firstMs: 200, factor: 2, maxMs: 5_000, jitter: 'equal' },
  /**
   * A partition waiting for the registry (src/app/worker/worker.ts): 500 ms, doubled per consecutive wait;
   * `maxMs` is the worker's `MAX_BACKOFF_MS`.
   */
  schemaWait: { firstMs: 500, factor: 2, maxMs: 30_000, jitter: 'none' },
  /** kafkajs's `sendOffsets` answered CONCURRENT_TRANSACTIONS, which kafkajs does not retry (src/adapters/kafka/kafkajs.ts). */
  concurrentTransactions: { firstMs: 50, factor: 2, maxMs: 1_600, jitter: 'none' },
  /** OAUTHBEARER token requests (src/adapters/kafka/oauth.ts): the first token at start, and refreshes that fail. */
  oauthToken: { firstMs: 500, factor: 2, maxMs: 30_000, jitter: 'equal' },
  /**
   * @platformatic/kafka's own request retries (src/adapters/kafka/platformatic-client.ts). The client's default, a
   * flat second, would make each transaction wait about a second: CONCURRENT_TRANSACTIONS, answered for a few ms
   * after each commit, is retried.
   */
  platformaticRequest: { firstMs: 50, factor: 2, maxMs: 2_000, jitter: 'none' },
  /** A claim waiting for an open transaction on its partition to end (src/adapters/kafka/platformatic-claims.ts). */
  stableOffsets: { firstMs: 200, factor: 1, maxMs: 200, jitter: 'none' },
  /**
   * The pause before a new stream after a failed delivery (src/adapters/kafka/platformatic.ts), so a broker outage
   * is not met with a busy loop of new streams.
   */
  platformaticRedelivery: { firstMs: 500, factor: 1, maxMs: 500, jitter: 'none' },
  /**
   * Creating the missing topics at start while the broker answers "not yet" (src/adapters/kafka/delivery.ts): 7
   * retries, about 30 s in all.
   */
  topicCreation: { firstMs: 500, factor: 2, maxMs: 8_000, jitter: 'none' },
} as const satisfies Record<string, BackoffPolicy>;

/**
 * The delay before retry number `retry` (0 for the first), raised to `atLeastMs` (a `Retry-After`), capped at the
 * policy's `maxMs`. `random` is injectable for tests.
 */
export function backoffDelay(policy: BackoffPolicy, retry: number, atLeastMs = 0, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxMs, policy.firstMs * policy.factor ** retry);
  const delay = policy.jitter === 'equal' ? exponential / 2 + (random() * exponential) / 2 : exponential;
  return Math.min(policy.maxMs, Math.max(delay, atLeastMs));
}

/** What one attempt came to: a result, or a transient failure worth another attempt. */
export type AttemptOutcome<T, F> =
  { readonly done: true; readonly value: T } | { readonly done: false; readonly failure: F; readonly retryAfterMs?: number | undefined };

export interface RetryOptions<F> {
  readonly policy: BackoffPolicy;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Called once retries are spent, with the last failure and the number of attempts made; its error is thrown. */
  readonly giveUp: (failure: F, attempts: number) => Error;
  readonly sleep?: (ms: number) => Promise<unknown>;
  readonly random?: () => number;
}

/**
 * Runs `attempt` until it is done or retries are spent, waiting {@link backoffDelay} between attempts. An attempt
 * that throws ends the loop with its error: throwing is how an attempt says retrying will not help.
 */
export async function retry<T, F>(attempt: (index: number) => Promise<AttemptOutcome<T, F>>, options: RetryOptions<F>): Promise<T> {
  const wait = options.sleep ?? sleep;
  for (let index = 0; ; index++) {
    const outcome = await attempt(index);
    if (outcome.done) return outcome.value;
    if (index >= options.maxRetries) throw options.giveUp(outcome.failure, index + 1);
    await wait(backoffDelay(options.policy, index, outcome.retryAfterMs ?? 0, options.random));
  }
}
