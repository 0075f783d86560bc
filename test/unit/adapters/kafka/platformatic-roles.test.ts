/**
 * The roles of the @platformatic/kafka port that need no broker: the claim's wait for stable offsets, holds, lag
 * polling, commits past transaction markers, grouping a read by partition, the failure classes and the client's retry delays. The whole port against
 * a real broker is in test/integration (worker, worker-faults, zombie, rebalance, scale-down).
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKOFF_POLICIES, backoffDelay } from '../../../../src/adapters/shared/retry.js';
import {
  claimPartition,
  STABLE_WAIT_MS,
  type ListGroupOffsets,
  type PartitionState,
} from '../../../../src/adapters/kafka/platformatic-claims.js';
import { platformaticBaseOptions } from '../../../../src/adapters/kafka/platformatic-client.js';
import {
  fencedFailure,
  producerToRenew,
  RENEW_AFTER_FAILURES,
  unstableOffsets,
} from '../../../../src/adapters/kafka/platformatic-failures.js';
import { byPartition, readUpTo } from '../../../../src/adapters/kafka/platformatic-fetch.js';
import { Holds } from '../../../../src/adapters/kafka/platformatic-holds.js';
import { LAG_INTERVAL_MS, LagPoller, type ListEndOffsets } from '../../../../src/adapters/kafka/platformatic-lag.js';
import { markerSkips } from '../../../../src/adapters/kafka/platformatic-markers.js';

const log = pino({ level: 'silent' });

/** The client's error for a request the broker answered with `apiId`, wrapped as its retries wrap it. */
function kafkaError(apiId: string): Error {
  return Object.assign(new AggregateError([Object.assign(new Error(apiId), { apiId })], 'request failed'), { code: 'PLT_KFK_MULTIPLE' });
}

const answer = (committedOffset: bigint): Awaited<ReturnType<ListGroupOffsets>> => [
  { topics: [{ name: 'in', partitions: [{ partitionIndex: 2, committedOffset }] }] },
];

const state = (partition: number, position?: bigint): PartitionState => ({ topic: 'in', partition, position, heldUntil: undefined });

describe('claimPartition', () => {
  it('waits out UNSTABLE_OFFSET_COMMIT on the stable-offsets policy, then takes the committed offset', async () => {
    const replies: (bigint | Error)[] = [kafkaError('UNSTABLE_OFFSET_COMMIT'), kafkaError('UNSTABLE_OFFSET_COMMIT'), 41n];
    const requests: unknown[] = [];
    const waits: number[] = [];
    const offset = await claimPartition(
      {
        listGroupOffsets: (request) => {
          requests.push(request);
          const reply = replies.shift();
          return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(answer(reply ?? -1n));
        },
        groupId: 'g',
        log,
        stopping: () => false,
        sleep: (ms) => Promise.resolve(waits.push(ms)),
      },
      'in',
      2,
    );
    expect(offset).toBe(41n);
    expect(waits).toEqual([200, 200]);
    expect(requests[0]).toEqual({ groups: [{ groupId: 'g', topics: [{ name: 'in', partitionIndexes: [2] }] }], requireStable: true });
  });

  it('starts a partition without a committed offset at 0', async () => {
    const deps = { listGroupOffsets: () => Promise.resolve(answer(-1n)), groupId: 'g', log, stopping: () => false };
    await expect(claimPartition(deps, 'in', 2)).resolves.toBe(0n);
  });

  it('throws any other failure at once, and an unstable answer once stopping or past the wait bound', async () => {
    const fail = (error: Error) => () => Promise.reject(error);
    const base = { groupId: 'g', log, sleep: () => Promise.resolve() };
    const other = kafkaError('COORDINATOR_NOT_AVAILABLE');
    await expect(claimPartition({ ...base, listGroupOffsets: fail(other), stopping: () => false }, 'in', 2)).rejects.toBe(other);
    const unstable = kafkaError('UNSTABLE_OFFSET_COMMIT');
    await expect(claimPartition({ ...base, listGroupOffsets: fail(unstable), stopping: () => true }, 'in', 2)).rejects.toBe(unstable);
    let clock = 0;
    const attempts: number[] = [];
    const timed = claimPartition(
      {
        ...base,
        listGroupOffsets: () => {
          attempts.push(clock);
          clock += 50_000;
          return Promise.reject(unstable);
        },
        stopping: () => false,
        now: () => clock,
      },
      'in',
      2,
    );
    await expect(timed).rejects.toBe(unstable);
    // 0, 50 s, 100 s are within the bound; the answer at 150 s is past it.
    expect(attempts).toEqual([0, 50_000, 100_000]);
    expect(STABLE_WAIT_MS).toBe(120_000);
  });
});

describe('Holds and LagPoller', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds a partition until its time, then calls onEnd once per ending; all held stops reading', () => {
    const partitions = new Map([
      ['in:0', state(0)],
      ['in:1', state(1)],
    ]);
    const ends: number[] = [];
    const holds = new Holds(partitions, () => ends.push(Date.now()));
    expect(holds.allHeld()).toBe(false);
    const start = Date.now();
    holds.hold(partitions.get('in:0') as PartitionState, 1_000);
    expect(holds.allHeld()).toBe(false);
    holds.hold(partitions.get('in:1') as PartitionState, 3_000);
    expect(holds.allHeld()).toBe(true);
    vi.advanceTimersByTime(999);
    expect(ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ends).toEqual([start + 1_000]);
    expect(partitions.get('in:0')?.heldUntil).toBeUndefined();
    expect(partitions.get('in:1')?.heldUntil).toBe(start + 3_000);
    vi.advanceTimersByTime(2_000);
    expect(ends).toEqual([start + 1_000, start + 3_000]);
    expect(holds.allHeld()).toBe(false);
    holds.hold(partitions.get('in:0') as PartitionState, 500);
    holds.stop();
    vi.advanceTimersByTime(1_000);
    expect(ends).toHaveLength(2);
    expect(new Holds(new Map(), () => undefined).allHeld()).toBe(false);
  });

  it('reads the lag of claimed partitions at most once an interval, and once more after a burst', async () => {
    const partitions = new Map([
      ['in:0', state(0, 10n)],
      ['in:1', state(1)],
      ['in:2', state(2, 90n)],
    ]);
    const requests: Parameters<ListEndOffsets>[0][] = [];
    const listOffsets: ListEndOffsets = (request) => {
      requests.push(request);
      return Promise.resolve(new Map([['in', [25n, 7n, 80n]]]));
    };
    const lags: [string, number, number][] = [];
    const poller = new LagPoller({ partitions, listOffsets, observer: { lag: (...a) => lags.push(a) }, log });
    poller.soon();
    await vi.advanceTimersByTimeAsync(0);
    expect(requests).toEqual([{ topics: ['in'], partitions: { in: [0, 2] } }]);
    // Behind its end by 15; a position past the end reads as 0; the unclaimed partition is not read.
    expect(lags).toEqual([
      ['in', 0, 15],
      ['in', 2, 0],
    ]);
    for (let i = 0; i < 5; i++) poller.soon();
    await vi.advanceTimersByTimeAsync(LAG_INTERVAL_MS - 1);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(10 * LAG_INTERVAL_MS);
    expect(requests).toHaveLength(2);
    poller.soon();
    poller.stop();
    poller.soon();
    await vi.advanceTimersByTimeAsync(10 * LAG_INTERVAL_MS);
    expect(requests).toHaveLength(2);
  });

  it('reports no lag for a partition given away while its end offsets were read, and survives a failed read', async () => {
    const partitions = new Map([['in:0', state(0, 1n)]]);
    let reply: (value: ReadonlyMap<string, readonly bigint[]>) => void = () => undefined;
    let failNext = false;
    const listOffsets: ListEndOffsets = () =>
      failNext ? Promise.reject(new Error('broker gone')) : new Promise((resolve) => (reply = resolve));
    const lags: unknown[] = [];
    const poller = new LagPoller({ partitions, listOffsets, observer: { lag: (...a) => lags.push(a) }, log });
    poller.soon();
    await vi.advanceTimersByTimeAsync(0);
    partitions.set('in:0', state(0, 1n));
    reply(new Map([['in', [9n]]]));
    await vi.advanceTimersByTimeAsync(0);
    expect(lags).toEqual([]);
    failNext = true;
    poller.soon();
    await vi.advanceTimersByTimeAsync(LAG_INTERVAL_MS);
    failNext = false;
    poller.soon();
    await vi.advanceTimersByTimeAsync(LAG_INTERVAL_MS);
    reply(new Map([['in', [9n]]]));
    await vi.advanceTimersByTimeAsync(0);
    expect(lags).toEqual([['in', 0, 8]]);
  });
});

describe('reading', () => {
  it('groups a read by partition, runs of one partition into one list, in the order read', () => {
    const m = (partition: number, offset: number) => ({ topic: 'in', partition, offset });
    const read = [m(0, 1), m(0, 2), m(1, 5), m(0, 3), m(1, 6), m(1, 7)];
    expect([...byPartition(read)]).toEqual([
      ['in:0', [m(0, 1), m(0, 2), m(0, 3)]],
      ['in:1', [m(1, 5), m(1, 6), m(1, 7)]],
    ]);
    expect(byPartition([]).size).toBe(0);
  });

  it('reads at most the bound from what the stream buffers, and stops when it is empty', () => {
    const buffered = [1, 2, 3, 4, 5];
    const stream = { read: () => buffered.shift() ?? null } as unknown as Parameters<typeof readUpTo>[0];
    expect(readUpTo(stream, 3)).toHaveLength(3);
    expect(readUpTo(stream, 3)).toHaveLength(2);
    expect(readUpTo(stream, 3)).toEqual([]);
  });
});

describe('failure classes', () => {
  it('tells a fenced member or producer from other failures', () => {
    for (const t of ['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'PRODUCER_FENCED', 'STALE_MEMBER_EPOCH'])
      expect(fencedFailure(kafkaError(t))).toBe(true);
    expect(fencedFailure(kafkaError('TOPIC_AUTHORIZATION_FAILED'))).toBe(false);
    expect(fencedFailure(new Error('socket hang up'))).toBe(false);
  });

  it('renews the producer when the abort failed, the broker moved past its epoch, or it failed twice in a row', () => {
    expect(producerToRenew(kafkaError('ILLEGAL_GENERATION'), true, 1)).toBe(false);
    expect(producerToRenew(kafkaError('ILLEGAL_GENERATION'), false, 1)).toBe(true);
    expect(producerToRenew(kafkaError('PRODUCER_FENCED'), true, 1)).toBe(true);
    expect(producerToRenew(kafkaError('INVALID_PRODUCER_EPOCH'), true, 1)).toBe(true);
    // A failure no rule names (after a broker restart, Produce answered with an error the client does not type).
    expect(producerToRenew(new Error('Producing messages failed.'), true, 1)).toBe(false);
    expect(producerToRenew(new Error('Producing messages failed.'), true, RENEW_AFTER_FAILURES)).toBe(true);
  });

  it('reads UNSTABLE_OFFSET_COMMIT however deep the client wraps it', () => {
    expect(unstableOffsets(kafkaError('UNSTABLE_OFFSET_COMMIT'))).toBe(true);
    expect(unstableOffsets(new Error('wrapped', { cause: kafkaError('UNSTABLE_OFFSET_COMMIT') }))).toBe(true);
    expect(unstableOffsets(kafkaError('NOT_COORDINATOR'))).toBe(false);
  });
});

describe("the client's retry delays", () => {
  it('are the platformaticRequest policy: 50 ms doubling up to 2 s, from the first attempt', () => {
    const options = platformaticBaseOptions({ clientId: 'c', brokers: ['b:9092'], connectionTimeoutMs: 1_000, ssl: false } as never);
    const delay = options.retryDelay as unknown as (client: unknown, operation: string, attempt: number) => number;
    expect([1, 2, 3, 6, 7, 20].map((attempt) => delay(undefined, 'op', attempt))).toEqual([50, 100, 200, 1_600, 2_000, 2_000]);
    expect(backoffDelay(BACKOFF_POLICIES.platformaticRedelivery, 0)).toBe(500);
    expect(backoffDelay(BACKOFF_POLICIES.stableOffsets, 9)).toBe(200);
  });
});

describe('markerSkips: how far a commit can pass what the client filtered out', () => {
  const state = (partition: number, position: bigint | undefined, heldUntil?: number): PartitionState => ({
    topic: 'in',
    partition,
    position,
    heldUntil,
  });

  it('moves a delivered partition to the next fetch offset when nothing at or after its position was read', () => {
    const delivered = state(0, 6n);
    const { skips, unclaimed } = markerSkips([delivered], new Map([['in:0', 10n]]), new Map([['in:0', 6n]]));
    expect(skips).toEqual([{ state: delivered, to: 10n }]);
    expect(unclaimed).toEqual([]);
  });

  it('leaves a partition whose records read are not all delivered, one held, and one at its fetch offset', () => {
    const behind = state(0, 6n);
    const held = state(1, 3n, Date.now() + 1_000);
    const atEnd = state(2, 8n);
    const fetched = new Map([
      ['in:0', 10n],
      ['in:1', 9n],
      ['in:2', 8n],
    ]);
    const { skips, unclaimed } = markerSkips([behind, held, atEnd], fetched, new Map([['in:0', 7n]]));
    expect(skips).toEqual([]);
    expect(unclaimed).toEqual([]);
  });

  it('names for a claim the partitions without a position of which nothing was read, and only those', () => {
    const fresh = state(0, undefined);
    const readFrom = state(1, undefined);
    const unknown = state(2, undefined);
    const fetched = new Map([
      ['in:0', 4n],
      ['in:1', 4n],
    ]);
    const { skips, unclaimed } = markerSkips([fresh, readFrom, unknown], fetched, new Map([['in:1', 2n]]));
    expect(skips).toEqual([]);
    expect(unclaimed).toEqual([fresh]);
  });
});
