/** The tracing settings (docs/tracing.md) as the configuration hands them to the SDK adapter. Pure data. */

export const OTEL_TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
/** OTLP's transports: over HTTP with protobuf (the default) or JSON, and gRPC. */
export const OTEL_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export const OTEL_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export type OtelSampler = (typeof OTEL_SAMPLERS)[number];

/** How spans are made and exported; only read when tracing is on. */
export interface TracingConfig {
  readonly exporter: 'otlp' | 'console';
  /** Where spans go: the OTLP/HTTP traces URL, or the gRPC endpoint. */
  readonly url: string;
  readonly protocol: (typeof OTEL_PROTOCOLS)[number];
  /** Sent with every export (may hold an API key: never logged). */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: OtelSampler;
  /** The ratio of the `traceidratio` samplers. */
  readonly ratio: number;
  readonly maxQueueSize: number;
  readonly maxExportBatchSize: number;
  readonly scheduleDelayMs: number;
  readonly exportTimeoutMs: number;
}
