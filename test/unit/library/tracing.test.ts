/**
 * The library's spans (src/library/tracing.ts): with the host's tracer provider registered, each call is a span,
 * child of the host's active span, with outcome, repairs and codes and no argument value; with none registered
 * nothing is recorded and results are the same.
 */
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, StackContextManager, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { createNormalizer } from '../../../src/library/index.js';

const tools = [
  {
    name: 'search',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, labels: { type: 'array', items: { type: 'string' } } },
      required: ['query'],
      additionalProperties: false,
    },
  },
];

afterEach(() => {
  trace.disable();
  context.disable();
});

describe('library spans', () => {
  it("records a span per call under the host's active span when the host registered a provider", () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    context.setGlobalContextManager(new StackContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    const normalizer = createNormalizer({ tools });
    const host = provider.getTracer('host').startSpan('agent step');
    const ok = context.with(trace.setSpan(context.active(), host), () =>
      normalizer.normalizeArguments('search', { query: 'secret &amp; x', labels: '["a"]' }),
    );
    const bad = context.with(trace.setSpan(context.active(), host), () => normalizer.normalizeArguments('search', { labels: [] }));
    host.end();
    expect(ok.valid).toBe(true);
    expect(bad.valid).toBe(false);
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'normalize search');
    expect(spans).toHaveLength(2);
    for (const span of spans) expect(span.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
    expect(spans[0]?.attributes).toMatchObject({ 'gen_ai.tool.name': 'search', 'toolcall.outcome': 'normalized', 'toolcall.repairs': 2 });
    expect(spans[1]?.attributes['toolcall.outcome']).toBe('rejected');
    expect(spans[1]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[1]?.events.some((e) => e.name === 'toolcall.error' && e.attributes?.['toolcall.error.code'] === bad.errors[0]?.code)).toBe(
      true,
    );
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain('secret');
  });

  it('records nothing without a provider, and gives the same results', () => {
    const exporter = new InMemorySpanExporter();
    const result = createNormalizer({ tools }).normalizeArguments('search', { query: 'a &amp; b' });
    expect(result.arguments).toEqual({ query: 'a & b' });
    expect(trace.getTracer('toolcall-normalizer').startSpan('probe').isRecording()).toBe(false);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
