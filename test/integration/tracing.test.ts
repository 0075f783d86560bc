/**
 * Traces against a real Jaeger (test/integration/jaeger.ts) and the real stack, as a user checks them: records
 * produced with a known `traceparent` appear in Jaeger as spans of that trace, children of the producer's span,
 * with outcome, repairs and error codes; each output's `traceparent` names the worker's span; a malformed one
 * starts a new root and is counted. Then, with Jaeger stopped, the stream goes on: every record is delivered
 * once and the spans that could not be exported are counted.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callNumber,
  eventually,
  freshTopics,
  metricValue,
  numberedCalls,
  numberedIds,
  produce,
  readOutputs,
  startReadyWorker,
  tally,
  untilCommitted,
  type ReadMessage,
} from './harness.js';
import { events, Jaeger, tag, type JaegerSpan } from './jaeger.js';
import { expectExactlyOnce, workerSuite } from './worker-suite.js';

const PARENT_SPAN = 'b7ad6b7169203331';
let jaeger: Jaeger | undefined;
const suite = workerSuite('ittr');

// On a machine without the cached binary, the first run builds it (tens of minutes on 2 cores).
beforeAll(async () => {
  jaeger = await Jaeger.start();
}, 3_600_000);
afterAll(async () => {
  await jaeger?.stop();
});

const traceIdOf = (i: number): string => `${(i + 1).toString(16).padStart(8, '0')}${randomBytes(12).toString('hex')}`;

function parse(traceparent: string | undefined): { traceId: string; spanId: string } {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(traceparent ?? '');
  if (m === null) throw new Error(`not a traceparent: ${String(traceparent)}`);
  return { traceId: m[1] as string, spanId: m[2] as string };
}

// Before the test below, which stops Jaeger at its end.
describe.each([
  ['http/json', (j: Jaeger) => j.otlpUrl],
  ['grpc', (j: Jaeger) => j.otlpGrpcUrl],
] as const)('OTEL_EXPORTER_OTLP_PROTOCOL=%s', (protocol, endpoint) => {
  it('the worker exports its spans to Jaeger over it', async () => {
    const backend = jaeger;
    if (backend === undefined) throw new Error('jaeger not started');
    const topics = await freshTopics('ittr', 1);
    const trace = traceIdOf(0);
    await produce(
      topics.input,
      numberedCalls('tp', 0, 3, 6).map((m) => ({ ...m, headers: { traceparent: `00-${trace}-${PARENT_SPAN}-01` } })),
    );
    const worker = await startReadyWorker(
      suite.env(topics, {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint(backend),
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'toolcall-normalizer-it',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    );
    await untilCommitted(topics, 3, 'every input record committed', 60_000, () => worker.tail());
    await eventually(async () => (await backend.trace(trace)).length === 3, `three spans of trace ${trace} in jaeger`, 30_000, 250);
    const spans = await backend.trace(trace);
    expect(spans.map((s) => s.operationName)).toEqual(Array.from({ length: 3 }, () => `process ${topics.input}`));
    expect(await worker.stop(), worker.tail()).toBe(0);
  }, 120_000);
});

describe('worker spans in Jaeger', () => {
  it('every call is a span of its trace with outcome, repairs and codes; outputs name it; a stopped Jaeger loses nothing', async () => {
    const backend = jaeger;
    if (backend === undefined) throw new Error('jaeger not started');
    const topics = await freshTopics('ittr', 2);
    const N = 60;
    const traces = Array.from({ length: N }, (_, i) => traceIdOf(i));
    // Call 7 carries a malformed traceparent: a new root, counted.
    const messages = numberedCalls('tr', 0, N, 6).map((m, i) => ({
      ...m,
      headers: { traceparent: i === 7 ? 'not-a-traceparent' : `00-${traces[i] ?? ''}-${PARENT_SPAN}-01`, tracestate: 'vendor=kept' },
    }));
    await produce(topics.input, messages);
    const worker = await startReadyWorker(
      suite.env(topics, {
        OTEL_EXPORTER_OTLP_ENDPOINT: backend.otlpUrl,
        OTEL_SERVICE_NAME: 'toolcall-normalizer-it',
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
        OTEL_BSP_EXPORT_TIMEOUT: '3000',
      }),
    );
    expect(worker.logs().some((l) => l.msg === 'tracing on')).toBe(true);
    await untilCommitted(topics, N, 'every input record committed', 120_000, () => worker.tail());
    const out = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 500 });
    expect(out).toHaveLength(N);

    const byCall = new Map<number, ReadMessage>(out.map((m) => [callNumber(m, 'tr'), m]));
    for (const [i, message] of byCall) {
      const { traceId, spanId } = parse(message.headers.traceparent);
      if (i === 7) {
        expect(traceId).not.toBe(traces[7]);
        expect(message.headers.tracestate).toBeUndefined();
      } else {
        expect(traceId).toBe(traces[i]);
        expect(spanId).not.toBe(PARENT_SPAN);
        expect(message.headers.tracestate).toBe('vendor=kept');
      }
    }
    expect(await metricValue(worker, 'toolcall_trace_context_invalid_total')).toBe(1);

    // One call of each outcome, found in Jaeger by the trace its producer started.
    const find = async (i: number): Promise<JaegerSpan> => {
      const { traceId, spanId } = parse(byCall.get(i)?.headers.traceparent);
      let span: JaegerSpan | undefined;
      await eventually(
        async () => {
          span = (await backend.trace(traceId)).find((s) => s.spanID === spanId);
          return span !== undefined;
        },
        `span of call ${String(i)} in jaeger`,
        30_000,
        250,
      );
      if (span === undefined) throw new Error('unreachable');
      return span;
    };
    const normalized = await find(1);
    expect(normalized.operationName).toBe(`process ${topics.input}`);
    expect(normalized.references).toContainEqual(expect.objectContaining({ refType: 'CHILD_OF', traceID: traces[1], spanID: PARENT_SPAN }));
    expect(tag(normalized, 'toolcall.outcome')).toBe('normalized');
    expect(tag(normalized, 'gen_ai.tool.name')).toBe('search_issues');
    expect(tag(normalized, 'gen_ai.tool.call.id')).toBe('tr-1');
    expect(tag(normalized, 'messaging.destination.name')).toBe(topics.input);
    expect(events(normalized).map((e) => [e.event, e['toolcall.repair.kind']])).toEqual(
      expect.arrayContaining([
        ['toolcall.repair', 'entities_decoded'],
        ['toolcall.repair', 'json_decoded'],
      ]),
    );
    const rejected = await find(10);
    expect(tag(rejected, 'toolcall.outcome')).toBe('rejected');
    expect(tag(rejected, 'otel.status_code')).toBe('ERROR');
    const code = byCall.get(10)?.headers['toolcall-error-code'];
    expect(events(rejected).some((e) => e.event === 'toolcall.error' && e['toolcall.error.code'] === code)).toBe(true);
    const dead = await find(25);
    expect(tag(dead, 'toolcall.outcome')).toBe('dead_lettered');
    expect(tag(dead, 'otel.status_code')).toBe('ERROR');
    // Argument values stay out of spans.
    expect(JSON.stringify([normalized, rejected, dead])).not.toContain('q &amp; 1');
    const root = await find(7);
    expect(root.references.filter((r) => r.refType === 'CHILD_OF')).toEqual([]);
    expect(tag(root, 'toolcall.trace_context')).toBe('malformed');

    // The backend goes away: the stream goes on, nothing is lost, the spans that cannot be exported are counted.
    await backend.stop();
    const M = 120;
    await produce(
      topics.input,
      numberedCalls('tr', N, N + M, 6).map((m, k) => ({ ...m, headers: { traceparent: `00-${traceIdOf(N + k)}-${PARENT_SPAN}-01` } })),
    );
    await untilCommitted(topics, N + M, 'every record committed with jaeger stopped', 120_000, () => worker.tail());
    await eventually(
      async () => (await metricValue(worker, 'toolcall_spans_dropped_total', { reason: 'export_failed' })) > 0,
      'failed exports counted',
      30_000,
      250,
    );
    const all = await readOutputs(topics, { until: N + M, timeoutMs: 60_000, settleMs: 1_000 });
    expect(worker.running()).toBe(true);
    expect(await worker.stop(), worker.tail()).toBe(0);
    await expectExactlyOnce(topics, 'tr', all, tally(all, numberedIds('tr', N + M)), N + M);
  }, 300_000);
});
