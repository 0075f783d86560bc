/**
 * The scrape's two formats: the Prometheus text format, unchanged, and OpenMetrics (asked for by `Accept`), in
 * which the per-record histogram carries each bucket's last exemplar as prom-client's own histogram writes it.
 */
import { Counter, Histogram, Registry, type OpenMetricsContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { exposition, prefersOpenMetrics, RecordHistogram } from '../../../../src/adapters/metrics/metrics.js';

const BUCKETS = [0.0001, 0.001, 0.01, 0.1];
const HELP = 'Time to process one record.';
/** What Prometheus 2.x sends on every scrape. */
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

const span = (n: number): { traceId: string; spanId: string } => ({
  traceId: n.toString(16).padStart(32, '0'),
  spanId: n.toString(16).padStart(16, 'a'),
});

/** Exemplar timestamps taken out: the two histograms take theirs at slightly different moments. */
const untimed = (text: string): string => text.replace(/(# \{[^}]*\} \S+) \S+$/gm, '$1 T');

describe('the metrics exposition', () => {
  it('answers OpenMetrics only when the scrape prefers it', () => {
    expect(prefersOpenMetrics(PROMETHEUS_ACCEPT)).toBe(true);
    expect(prefersOpenMetrics('application/openmetrics-text')).toBe(true);
    expect(prefersOpenMetrics(undefined)).toBe(false);
    expect(prefersOpenMetrics('*/*')).toBe(false);
    expect(prefersOpenMetrics('text/plain;version=0.0.4')).toBe(false);
    expect(prefersOpenMetrics('text/plain,application/openmetrics-text;q=0.5')).toBe(false);
    expect(prefersOpenMetrics('application/openmetrics-text;q=0')).toBe(false);
  });

  it('writes the exemplars as prom-client does: the last one per bucket, with the trace and span ids', async () => {
    const ours = new Registry();
    const histogram = new RecordHistogram('toolcall_processing_seconds', HELP, BUCKETS, ours);
    const theirs = new Registry<OpenMetricsContentType>();
    theirs.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const reference = new Histogram({
      name: 'toolcall_processing_seconds',
      help: HELP,
      buckets: BUCKETS,
      registers: [theirs],
      enableExemplars: true,
    });
    const observations: [number, number | undefined][] = [
      [0.00005, 1],
      [0.00007, 2],
      [0.0005, undefined],
      [0.05, 3],
      [7, 4],
      [0.002, undefined],
    ];
    for (const [value, n] of observations) {
      histogram.observe(value, n === undefined ? undefined : span(n));
      if (n === undefined) reference.observe({ value });
      else reference.observe({ value, exemplarLabels: { trace_id: span(n).traceId, span_id: span(n).spanId } });
    }
    const { contentType, text } = await exposition(ours, PROMETHEUS_ACCEPT);
    expect(contentType).toBe(Registry.OPENMETRICS_CONTENT_TYPE);
    expect(untimed(text)).toBe(untimed(await theirs.metrics()));
    expect(text).toMatch(
      new RegExp(
        `^toolcall_processing_seconds_bucket\\{le="0.0001"\\} 2 # \\{trace_id="${span(2).traceId}",span_id="${span(2).spanId}"\\} 0.00007 \\d+(\\.\\d+)?$`,
        'm',
      ),
    );
    expect(text).toMatch(/^toolcall_processing_seconds_bucket\{le="0.001"\} 3$/m);
    expect(text).toContain(`toolcall_processing_seconds_bucket{le="+Inf"} 6 # {trace_id="${span(4).traceId}"`);
    expect(text.endsWith('\n# EOF\n')).toBe(true);
    // Seconds since the epoch, as OpenMetrics has it.
    const stamp = Number(/# \{[^}]*\} \S+ (\S+)$/m.exec(text)?.[1]);
    expect(Math.abs(stamp - Date.now() / 1e3)).toBeLessThan(60);
  });

  it('leaves the Prometheus text format as it was: no exemplar, the same text as prom-client', async () => {
    const ours = new Registry();
    const histogram = new RecordHistogram('toolcall_processing_seconds', HELP, BUCKETS, ours);
    const theirs = new Registry();
    const reference = new Histogram({ name: 'toolcall_processing_seconds', help: HELP, buckets: BUCKETS, registers: [theirs] });
    for (const [i, value] of [0.00005, 0.05, 3].entries()) {
      histogram.observe(value, span(i + 1));
      reference.observe(value);
    }
    for (const accept of [undefined, 'text/plain;version=0.0.4', '*/*']) {
      const { contentType, text } = await exposition(ours, accept);
      expect(contentType).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
      expect(text).toBe(await theirs.metrics());
      expect(text).not.toContain('trace_id');
    }
  });

  it('names counters the OpenMetrics way and leaves the registry as it was for the next text scrape', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'toolcall_calls_total', help: 'Calls.', labelNames: ['outcome'], registers: [registry] });
    counter.inc({ outcome: 'rejected' }, 3);
    const before = await registry.metrics();
    const open = (await exposition(registry, PROMETHEUS_ACCEPT)).text;
    expect(open).toContain('# TYPE toolcall_calls counter\n');
    expect(open).toContain('toolcall_calls_total{outcome="rejected"} 3\n');
    expect((await exposition(registry, undefined)).text).toBe(before);
    expect(before).toContain('toolcall_calls_total{outcome="rejected"} 3');
  });

  it('drops the exemplars on reset', async () => {
    const registry = new Registry();
    const histogram = new RecordHistogram('h_seconds', HELP, BUCKETS, registry);
    histogram.observe(0.05, span(9));
    registry.resetMetrics();
    histogram.observe(0.05);
    expect((await exposition(registry, PROMETHEUS_ACCEPT)).text).not.toContain('trace_id');
  });
});
