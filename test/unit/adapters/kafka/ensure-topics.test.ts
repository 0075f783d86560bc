/**
 * Creating the missing topics at start: asked again while the broker answers "not yet" (a loaded broker still
 * spreading a new topic's metadata), refused at once on any other failure.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ensureTopics, TOPIC_CREATION_RETRIES } from '../../../../src/adapters/kafka/delivery.js';
import type { StreamOptions } from '../../../../src/adapters/kafka/port.js';

const topics = { input: 'in', output: 'out', rejected: 'rej', dlq: 'dlq' };
const options = (createTopics: boolean): StreamOptions => ({ topics, createTopics }) as unknown as StreamOptions;
const log = pino({ enabled: false });

/** A broker whose CREATE_TOPICS answers with the given errors first (the topics exist after the first call). */
function broker(failures: Error[]) {
  const existing = new Set<string>();
  const waits: number[] = [];
  let creates = 0;
  return {
    waits,
    sleep: (ms: number) => Promise.resolve(void waits.push(ms)),
    creates: () => creates,
    list: () => Promise.resolve([...existing]),
    create: (missing: string[]) => {
      creates += 1;
      const failure = failures.shift();
      // The first call creates them even when its answer is an error: the metadata is what lags.
      if (creates === 1 || failure === undefined) for (const t of missing) existing.add(t);
      return failure === undefined ? Promise.resolve() : Promise.reject(failure);
    },
  };
}

const kafkaError = (type: string) => Object.assign(new Error('This server does not host this topic-partition'), { type });

describe('ensureTopics', () => {
  it('asks again after "not yet", and is done once the listing shows the topics', async () => {
    const b = broker([kafkaError('UNKNOWN_TOPIC_OR_PARTITION')]);
    await ensureTopics(options(true), b.list, b.create, log, b.sleep);
    expect(b.creates()).toBe(1);
    expect(b.waits).toEqual([500]);
  });

  it('keeps asking while the broker answers "not yet", then gives up with its error', async () => {
    const b = broker([]);
    const create = () => Promise.reject(kafkaError('LEADER_NOT_AVAILABLE'));
    await expect(ensureTopics(options(true), () => Promise.resolve([]), create, log, b.sleep)).rejects.toThrow('does not host');
    expect(b.waits).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(b.waits).toHaveLength(TOPIC_CREATION_RETRIES);
  });

  it('fails at once on any other error, and names the topics when it may not create them', async () => {
    const b = broker([kafkaError('TOPIC_AUTHORIZATION_FAILED')]);
    await expect(ensureTopics(options(true), () => Promise.resolve([]), b.create, log, b.sleep)).rejects.toThrow();
    expect(b.waits).toEqual([]);
    await expect(ensureTopics(options(false), () => Promise.resolve(['in']), b.create, log, b.sleep)).rejects.toThrow(
      'topics missing and CREATE_TOPICS=false: out, rej, dlq',
    );
  });
});
