/**
 * The worker's spans (src/adapters/tracing/worker-spans.ts) through the worker on the fake port, recorded by the
 * real SDK into memory: each call's span is a child of its record's traceparent (a new root when malformed,
 * counted), carries outcome, repairs and error codes, never argument values, and its output names it; batch spans
 * end committed or aborted as the delivery settles. With tracing off the outputs keep the incoming traceparent.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { WorkerTracing } from '../../../../src/adapters/tracing/worker-spans.js';
import { HEADER } from '../../../../src/core/records/output.js';
import { searchTool } from '../../search-tool.js';
import { batchOf, counterValues, fakeWorker, FakeSchemas } from './fake-port.js';

const INCOMING = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const tools = new Map([['search_issues', searchTool({ subject: 'search_issues', version: 1, id: 42 })]]);
const call = (id: string, args: unknown): string => JSON.stringify({ id, tool: 'search_issues', arguments: args });
const SECRET = 'a-value-that-must-never-reach-a-span';

function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { exporter, tracer: provider.getTracer('test') };
}

async function tracedWorker() {
  const { exporter, tracer } = recorder();
  let malformed = 0;
  const tracing = new WorkerTracing(tracer, {
    groupId: 'g',
    onMalformedContext: () => {
      malformed++;
    },
  });
  const worker = await fakeWorker(new FakeSchemas(tools, { cached: true }), {}, tracing);
  return { ...worker, exporter, malformed: () => malformed };
}

describe('worker spans', () => {
  it('makes one span per call, child of the record traceparent, and the output names it', async () => {
    const { stream, exporter } = await tracedWorker();
    const result = await stream.deliver(
      batchOf([call('c1', { query: `${SECRET} &amp; b`, labels: '["x"]' }), call('c2', { labels: [] }), '{not json'], { first: 7 }),
    );
    const spans = exporter.getFinishedSpans();
    const calls = spans.filter((s) => s.name === 'process calls.raw');
    expect(calls).toHaveLength(3);
    for (const [i, span] of calls.entries()) {
      expect(span.kind).toBe(SpanKind.CONSUMER);
      expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      // The output carries the worker's span, not the incoming one.
      expect(result.outputs[i]?.headers.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
      expect(span.attributes).toMatchObject({
        'messaging.system': 'kafka',
        'messaging.destination.name': 'calls.raw',
        'messaging.destination.partition.id': '0',
        'messaging.consumer.group.name': 'g',
        'messaging.kafka.offset': 7 + i,
      });
    }
    const [normalized, rejected, dead] = calls;
    expect(normalized?.attributes).toMatchObject({
      'gen_ai.tool.name': 'search_issues',
      'gen_ai.tool.call.id': 'c1',
      'toolcall.envelope.format': 'canonical',
      'toolcall.outcome': 'normalized',
      'toolcall.schema.id': 42,
      'toolcall.repairs': 2,
    });
    expect(normalized?.status.code).toBe(SpanStatusCode.UNSET);
    expect(normalized?.events.map((e) => [e.name, e.attributes?.['toolcall.repair.kind']])).toEqual(
      expect.arrayContaining([
        ['toolcall.repair', 'entities_decoded'],
        ['toolcall.repair', 'json_decoded'],
      ]),
    );
    expect(rejected?.attributes['toolcall.outcome']).toBe('rejected');
    expect(rejected?.status.code).toBe(SpanStatusCode.ERROR);
    const code = rejected?.events.find((e) => e.name === 'toolcall.error')?.attributes?.['toolcall.error.code'];
    const value = JSON.parse(result.outputs[1]?.value as string) as { errors: { code: string }[] };
    expect(code).toBe(value.errors[0]?.code);
    expect(rejected?.attributes['error.type']).toBe(code);
    expect(dead?.attributes).toMatchObject({ 'toolcall.outcome': 'dead_lettered', 'error.type': 'record_not_json' });
    expect(dead?.status.code).toBe(SpanStatusCode.ERROR);
    expect(result.outputs[2]?.headers[HEADER.errorCode]).toBe('record_not_json');
    // Argument values never go into a span.
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]))).not.toContain(SECRET);

    const batch = spans.find((s) => s.name === 'process calls.raw batch');
    expect(batch?.parentSpanContext).toBeUndefined();
    expect(batch?.links.map((l) => l.context.spanId)).toEqual(calls.map((s) => s.spanContext().spanId));
    expect(batch?.attributes).toMatchObject({ 'toolcall.batch.result': 'committed', 'messaging.batch.message_count': 3 });
    expect(batch?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('starts a new root for a malformed traceparent, counts it, and drops the incoming tracestate', async () => {
    const { stream, exporter, malformed } = await tracedWorker();
    const batch = batchOf([call('c1', { query: 'q' })]);
    const record = batch.records[0];
    if (record === undefined) throw new Error('no record');
    const bad = { ...batch, records: [{ ...record, headers: { traceparent: 'not-a-traceparent', tracestate: 'v=1', other: 'kept' } }] };
    const result = await stream.deliver(bad);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'process calls.raw');
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.attributes['toolcall.trace_context']).toBe('malformed');
    expect(malformed()).toBe(1);
    expect(result.outputs[0]?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(result.outputs[0]?.headers.other).toBe('kept');
    expect(result.outputs[0]?.headers.tracestate).toBeUndefined();
  });

  it('gives each call of a whole message its own span, and marks a batch whose delivery failed as aborted', async () => {
    const { stream, exporter } = await tracedWorker();
    const message = JSON.stringify({
      role: 'assistant',
      tool_calls: [
        { id: 't1', type: 'function', function: { name: 'search_issues', arguments: '{"query":"q"}' } },
        { id: 't2', type: 'function', function: { name: 'search_issues', arguments: '{"query":"r"}' } },
      ],
    });
    const result = await stream.process(batchOf([message]));
    stream.settle([]);
    const [first, second] = result.outputs.map((o) => o.headers.traceparent);
    expect(first).not.toBe(second);
    const calls = exporter.getFinishedSpans().filter((s) => s.name === 'process calls.raw');
    expect(calls.map((s) => s.attributes['toolcall.call.index'])).toEqual([0, 1]);
    const batch = exporter.getFinishedSpans().find((s) => s.name === 'process calls.raw batch');
    expect(batch?.attributes['toolcall.batch.result']).toBe('aborted');
    expect(batch?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('without tracing, the outputs carry the incoming traceparent and nothing is counted', async () => {
    const { stream, metrics } = await fakeWorker(new FakeSchemas(tools, { cached: true }));
    const result = await stream.deliver(batchOf([call('c1', { query: 'q' })]));
    expect(result.outputs[0]?.headers.traceparent).toBe(INCOMING);
    expect(await counterValues(metrics, 'toolcall_trace_context_invalid_total')).toEqual({});
  });
});
