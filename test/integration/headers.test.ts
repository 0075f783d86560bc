/**
 * Poison header names, on each client, against the real local stack: records whose headers are named like
 * `Object.prototype`'s members (`constructor`, `toString`, `hasOwnProperty`, `valueOf`, `__proto__`), one of them
 * repeated, go through an exactly-once worker to every output topic with exactly those headers (names, values,
 * order of a repeated name), and the worker delivers every record once (a header it cannot encode would fail the
 * batch on every retry).
 */
import { describe, expect, it } from 'vitest';
import { HEADER } from '../../src/core/records/output.js';
import {
  KAFKA_CLIENTS,
  callNumber,
  freshTopics,
  numberedCalls,
  numberedIds,
  produce,
  readOutputs,
  startReadyWorker,
  tally,
  untilCommitted,
  type ProduceMessage,
} from './harness.js';
import { expectExactlyOnce, workerSuite } from './worker-suite.js';

const suite = workerSuite('ithd');
const OURS = new Set<string>(Object.values(HEADER));

/** The headers call `i` is sent with: every poison name, `constructor` twice, and an ordinary one. */
function poisonHeaders(i: number): Record<string, string[]> {
  const headers = Object.create(null) as Record<string, string[]>;
  headers['constructor'] = [`c1-${i}`, `c2-${i}`];
  for (const name of ['toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf']) headers[name] = [`${name}-${i}`];
  headers.traceparent = [`00-${i}-01`];
  return headers;
}

describe.each(KAFKA_CLIENTS)('poison header names (%s)', (client) => {
  it('are carried exactly to every output topic, and every record is delivered once', async () => {
    const topics = await freshTopics('ithd', 2);
    const N = 200;
    const messages: ProduceMessage[] = numberedCalls('hd', 0, N, 10).map((m, i) => ({ ...m, headers: poisonHeaders(i) }));
    await produce(topics.input, messages);
    const worker = await startReadyWorker(suite.env(topics, { KAFKA_CLIENT: client }));
    await untilCommitted(topics, N, 'every input record committed', 120_000, () => worker.tail());
    const out = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 1_000 });
    expect(await worker.stop(), worker.tail()).toBe(0);

    const wrong: string[] = [];
    for (const message of out) {
      const i = callNumber(message, 'hd');
      const carried = Object.entries(message.allHeaders).filter(([name]) => !OURS.has(name));
      const expected = Object.entries(poisonHeaders(i));
      if (JSON.stringify(carried) !== JSON.stringify(expected))
        wrong.push(`${message.topic} #${i}: ${JSON.stringify(carried)} != ${JSON.stringify(expected)}`);
    }
    console.log(
      `poison headers (${client}): records=${N} outputs=${out.length} topics=${new Set(out.map((m) => m.topic)).size} wrong=${wrong.length}`,
    );
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(new Set(out.map((m) => m.topic))).toEqual(new Set([topics.output, topics.rejected, topics.dlq]));
    await expectExactlyOnce(topics, 'hd', out, tally(out, numberedIds('hd', N)), N);
  }, 180_000);
});
