/**
 * The replaced check timer of kafkajs's own RequestQueue class (src/adapters/kafka/kafkajs-request-queue.ts): no
 * timer while nothing waits, a held request still sent once the broker's throttle ends.
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { patchKafkajsRequestQueue } from '../../../../src/adapters/kafka/kafkajs-request-queue.js';

interface Queue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  sendSocketRequest(request: unknown): void;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  destroy(): void;
}

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as new (options: object) => Queue;

function queue(sent: unknown[]): Queue {
  const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const q = new RequestQueue({ maxInFlightRequests: null, requestTimeout: 30_000, clientId: 'test', broker: 'b:1', logger });
  q.sendSocketRequest = (request) => sent.push(request);
  return q;
}

describe('kafkajs request queue check timer', () => {
  it('is replaced on the kafkajs this project pins', () => {
    expect(patchKafkajsRequestQueue()).toBe(true);
    expect(patchKafkajsRequestQueue()).toBe(true);
  });

  it('arms no timer after a check with nothing pending and no throttle', () => {
    patchKafkajsRequestQueue();
    const q = queue([]);
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('sends a request held by a throttle once the throttle ends, then stops checking', async () => {
    patchKafkajsRequestQueue();
    const sent: unknown[] = [];
    const q = queue(sent);
    q.throttledUntil = Date.now() + 30;
    q.pending.push('held');
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    expect(sent).toEqual([]);
    await sleep(80);
    expect(sent).toEqual(['held']);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('waits out a throttle with nothing pending without re-arming after it', async () => {
    patchKafkajsRequestQueue();
    const q = queue([]);
    q.throttledUntil = Date.now() + 20;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    await sleep(60);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });
});
