/**
 * The worker's OpenTelemetry SDK: a tracer provider exporting over OTLP/HTTP (or to the console), built from the
 * configuration's `OTEL_*` values (src/config reads them). Imported only when tracing is on, so a worker without
 * it loads no SDK. A backend that is down or slow never slows the stream: spans end synchronously into a
 * bounded queue, exports run in the background with a timeout, and what cannot be queued or exported is
 * dropped and counted.
 */
import type { Tracer } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import { ExportResultCode, hrTimeToMicroseconds, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../../core/shared/tracing.js';

/** Why a span never reached the backend. */
export type SpanDropReason = 'queue_full' | 'export_failed';

export interface Tracing {
  readonly tracer: Tracer;
  /** Exports what is queued, bounded by `timeoutMs`, then stops; spans ended after it are dropped. */
  shutdown(timeoutMs: number): Promise<void>;
}

export function sampler(config: Pick<TracingConfig, 'sampler' | 'ratio'>): Sampler {
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) });
  }
}

/**
 * Counts what the exporter reports: each span of a failed export is dropped (the batch processor does not retry
 * beyond the exporter's own retries), each exported or failed one leaves the queue.
 */
class CountingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly settled: (spans: number, ok: boolean) => void,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.settled(spans.length, result.code === ExportResultCode.SUCCESS);
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * Holds back spans that would overflow the batch processor's queue (spans queued or being exported), so that
 * every drop is counted here instead of vanishing inside the processor.
 */
class BoundedProcessor implements SpanProcessor {
  #pending = 0;

  constructor(
    private readonly inner: SpanProcessor,
    private readonly maxPending: number,
    private readonly dropped: (reason: SpanDropReason, spans: number) => void,
  ) {}

  settled(spans: number, ok: boolean): void {
    this.#pending = Math.max(0, this.#pending - spans);
    if (!ok) this.dropped('export_failed', spans);
  }

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (this.#pending >= this.maxPending) {
      this.dropped('queue_full', 1);
      return;
    }
    this.#pending++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/**
 * `OTEL_TRACES_EXPORTER=console`: one JSON line per span on `write` (the OpenTelemetry console exporter's fields).
 * The SDK's own prints a multi-line inspection to stdout, which is the protocol itself in the MCP proxy's stdio mode.
 */
export class LineSpanExporter implements SpanExporter {
  readonly #write: (line: string) => void;

  constructor(write: (line: string) => void) {
    this.#write = write;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      for (const span of spans) {
        const context = span.spanContext();
        this.#write(
          `${JSON.stringify({
            resource: { attributes: span.resource.attributes },
            instrumentationScope: span.instrumentationScope,
            traceId: context.traceId,
            parentSpanContext: span.parentSpanContext,
            traceState: context.traceState?.serialize(),
            name: span.name,
            id: context.spanId,
            kind: span.kind,
            timestamp: hrTimeToMicroseconds(span.startTime),
            duration: hrTimeToMicroseconds(span.duration),
            attributes: span.attributes,
            status: span.status,
            events: span.events,
            links: span.links,
          })}\n`,
        );
      }
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** The OTLP exporter of the configured protocol, its module loaded only when chosen (gRPC brings @grpc/grpc-js). */
async function otlpExporter(config: TracingConfig): Promise<SpanExporter> {
  const options = { url: config.url, timeoutMillis: config.timeoutMs };
  switch (config.protocol) {
    case 'http/protobuf': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter({ ...options, headers: { ...config.headers } });
    }
    case 'http/json': {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter({ ...options, headers: { ...config.headers } });
    }
    case 'grpc': {
      // The headers read and checked with every other setting become its metadata, as they are the HTTP exporters' headers.
      const [{ OTLPTraceExporter }, { Metadata }] = await Promise.all([
        import('@opentelemetry/exporter-trace-otlp-grpc'),
        import('@grpc/grpc-js'),
      ]);
      const metadata = new Metadata();
      for (const [key, value] of Object.entries(config.headers)) metadata.set(key, value);
      return new OTLPTraceExporter({ ...options, metadata });
    }
  }
}

/**
 * Starts the SDK: a provider of its own (not registered globally), a tracer named after the package. `consoleTo`
 * is where the console exporter writes (stdout by default; the MCP proxy's stdio mode passes stderr).
 */
export async function startTracing(
  config: TracingConfig,
  dropped: (reason: SpanDropReason, spans: number) => void,
  version: string,
  consoleTo: NodeJS.WritableStream = process.stdout,
): Promise<Tracing> {
  const holder: { processor?: BoundedProcessor } = {};
  const settled = (spans: number, ok: boolean): void => {
    holder.processor?.settled(spans, ok);
  };
  const exporter: SpanExporter = new CountingExporter(
    config.exporter === 'console' ? new LineSpanExporter((line) => consoleTo.write(line)) : await otlpExporter(config),
    settled,
  );
  const batch = new BatchSpanProcessor({
    exporter,
    // One more than ours, so its own drop never happens before ours is counted.
    maxQueueSize: config.maxQueueSize + 1,
    maxExportBatchSize: config.maxExportBatchSize,
    scheduledDelayMillis: config.scheduleDelayMs,
    exportTimeoutMillis: config.exportTimeoutMs,
  });
  const processor = new BoundedProcessor(batch, config.maxQueueSize, dropped);
  holder.processor = processor;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...config.resourceAttributes,
      'service.name': config.serviceName,
      'service.version': version,
    }),
    sampler: sampler(config),
    spanProcessors: [processor],
    // Names, codes and pointers only; a long tool name or pointer is cut rather than bloating every export.
    spanLimits: { attributeValueLengthLimit: 512, eventCountLimit: 128, linkCountLimit: 128 },
  });
  const tracer = provider.getTracer('toolcall-normalizer', version);
  return {
    tracer,
    shutdown: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]).finally(() => {
        clearTimeout(timer);
      });
    },
  };
}
