/**
 * The library's spans, with @opentelemetry/api only: the host application's tracer provider when it registered one
 * (its SDK, exporter and sampler), nothing otherwise (the api's no-op tracer: no span is recorded). One span per call,
 * a child of the host's active span, attributed as the worker's call spans are (docs/tracing.md), without the
 * messaging attributes.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { callSpanData } from '../core/records/call-span.js';
import type { OutputRecord } from '../core/shared/types.js';

const TRACER = 'toolcall-normalizer';

/** Spans for the records of one normalized input, started at `startMs` and ended now (epoch ms). */
export function traceRecords(records: readonly OutputRecord[], startMs: number): void {
  const tracer = trace.getTracer(TRACER);
  const active = context.active();
  const endMs = performance.timeOrigin + performance.now();
  for (const record of records) {
    const span = tracer.startSpan(`normalize ${record.tool ?? 'tool call'}`, { kind: SpanKind.INTERNAL, startTime: startMs }, active);
    if (span.isRecording()) {
      const data = callSpanData(record, undefined);
      span.setAttributes(data.attributes);
      for (const event of data.events) span.addEvent(event.name, event.attributes);
      if (data.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: data.error });
    }
    span.end(endMs);
  }
}
