/** The one retry helper: delays from a named policy, attempts bounded, a throwing attempt ends the loop. */
import { describe, expect, it } from 'vitest';
import { BACKOFF_POLICIES, backoffDelay, retry, type AttemptOutcome } from '../../../../src/adapters/shared/retry.js';

describe('backoffDelay', () => {
  it('doubles from firstMs up to maxMs; equal jitter keeps at least half of it', () => {
    const policy = BACKOFF_POLICIES.registryHttp;
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(policy, n, 0, () => 1))).toEqual([200, 400, 800, 1600, 3200, 5000]);
    expect([0, 1, 2].map((n) => backoffDelay(policy, n, 0, () => 0))).toEqual([100, 200, 400]);
  });

  it('is raised to a Retry-After, and still capped', () => {
    expect(backoffDelay(BACKOFF_POLICIES.registryHttp, 0, 3_000, () => 0)).toBe(3_000);
    expect(backoffDelay(BACKOFF_POLICIES.registryHttp, 0, 60_000, () => 0)).toBe(5_000);
  });

  it('without jitter is exact: the schema wait goes 500, 1000, 2000 ... up to its cap', () => {
    const policy = { ...BACKOFF_POLICIES.schemaWait, maxMs: 3_000 };
    expect([0, 1, 2, 3].map((n) => backoffDelay(policy, n))).toEqual([500, 1_000, 2_000, 3_000]);
  });
});

describe('retry', () => {
  const policy = { firstMs: 10, factor: 2, maxMs: 1_000, jitter: 'none' } as const;

  it('retries transient failures with the policy delays, then gives up with the last failure and the count', async () => {
    const waits: number[] = [];
    const attempts: number[] = [];
    const run = retry<string, string>(
      (index) => {
        attempts.push(index);
        return Promise.resolve({ done: false, failure: `failure ${index}` });
      },
      {
        policy,
        maxRetries: 3,
        giveUp: (failure, count) => new Error(`${failure} after ${count}`),
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      },
    );
    await expect(run).rejects.toThrow('failure 3 after 4');
    expect(attempts).toEqual([0, 1, 2, 3]);
    expect(waits).toEqual([10, 20, 40]);
  });

  it('returns the first result, honours retryAfterMs, and stops at an attempt that throws', async () => {
    const waits: number[] = [];
    const outcomes: AttemptOutcome<number, string>[] = [
      { done: false, failure: 'busy', retryAfterMs: 300 },
      { done: true, value: 7 },
    ];
    const sleep = (ms: number) => {
      waits.push(ms);
      return Promise.resolve();
    };
    const giveUp = () => new Error('gave up');
    await expect(
      retry((i) => Promise.resolve(outcomes[i] ?? { done: true, value: -1 }), { policy, maxRetries: 5, giveUp, sleep }),
    ).resolves.toBe(7);
    expect(waits).toEqual([300]);
    let calls = 0;
    const failing = retry<number, string>(
      () => {
        calls++;
        return Promise.reject(new Error('fatal'));
      },
      { policy, maxRetries: 5, giveUp, sleep },
    );
    await expect(failing).rejects.toThrow('fatal');
    expect(calls).toBe(1);
  });
});
