/**
 * The worker's per-record histogram (RecordHistogram) against prom-client's own: the same observations give the
 * same exposition text, byte for byte, so dashboards and alerts read it as before.
 */
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RecordHistogram } from '../../../../src/adapters/metrics/metrics.js';

const BUCKETS = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const HELP = 'Time to process one record.';

function pair(buckets: readonly number[] = BUCKETS): { ours: RecordHistogram; theirs: Histogram; a: Registry; b: Registry } {
  const a = new Registry();
  const b = new Registry();
  const ours = new RecordHistogram('toolcall_processing_seconds', HELP, buckets, a);
  const theirs = new Histogram({ name: 'toolcall_processing_seconds', help: HELP, buckets: [...buckets], registers: [b] });
  return { ours, theirs, a, b };
}

describe('RecordHistogram', () => {
  it('exports what prom-client exports before any observation', async () => {
    const { a, b } = pair();
    expect(await a.metrics()).toBe(await b.metrics());
  });

  it('exports what prom-client exports for the same observations: on a bound, between, below all, above all', async () => {
    const { ours, theirs, a, b } = pair();
    const values = [0, 0.00001, 0.0000100001, 0.00003, 0.001, 0.7, 1, 1.5, 42, 3e-7];
    for (let i = 0; i < 500; i++) values.push(((i * 7919) % 1000) / 3000);
    for (const v of values) {
      ours.observe(v);
      theirs.observe(v);
    }
    const text = await a.metrics();
    expect(text).toBe(await b.metrics());
    expect(text).toContain('toolcall_processing_seconds_bucket{le="+Inf"} 510');
    expect(text).toContain('toolcall_processing_seconds_count 510');
    expect(await a.getMetricsAsJSON()).toEqual(await b.getMetricsAsJSON());
  });

  it('takes ascending buckets only', () => {
    expect(() => new RecordHistogram('h', HELP, [0.5, 0.1, 1], new Registry())).toThrow(/ascend/);
  });

  it('resets with the registry', async () => {
    const { ours, theirs, a, b } = pair([0.1, 0.5, 1]);
    for (const v of [0.05, 0.3, 0.7, 2]) {
      ours.observe(v);
      theirs.observe(v);
    }
    expect(await a.metrics()).toBe(await b.metrics());
    a.resetMetrics();
    b.resetMetrics();
    expect(await a.metrics()).toBe(await b.metrics());
    ours.observe(0.2);
    theirs.observe(0.2);
    expect(await a.metrics()).toBe(await b.metrics());
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const { ours, theirs } = pair();
    for (const bad of [NaN, Infinity]) {
      expect(() => {
        theirs.observe(bad);
      }).toThrow(TypeError);
      expect(() => {
        ours.observe(bad);
      }).toThrow(TypeError);
    }
  });
});
