/**
 * OTLP over gRPC (src/adapters/tracing/sdk.ts) against a real gRPC server (@grpc/grpc-js) standing in for the
 * collector's TraceService: spans arrive, and the headers of the configuration, read once with every other
 * setting, arrive as the call's metadata even when the process environment holds none.
 */
import { Metadata, Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../../../../src/adapters/tracing/sdk.js';
import { loadTracingConfig } from '../../../../src/config/config.js';

const EXPORT = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

interface Received {
  readonly metadata: Metadata;
  readonly bytes: number;
}

const received: Received[] = [];
const server = new Server();
let endpoint = '';

beforeAll(async () => {
  const asIs = (value: Buffer): Buffer => value;
  server.register(
    EXPORT,
    (call: ServerUnaryCall<Buffer, Buffer>, reply: sendUnaryData<Buffer>) => {
      received.push({ metadata: call.metadata, bytes: call.request.length });
      reply(null, Buffer.alloc(0)); // an empty ExportTraceServiceResponse: every span accepted
    },
    asIs,
    asIs,
    'unary',
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else reject(error);
    });
  });
  endpoint = `http://127.0.0.1:${String(port)}`;
});

afterAll(() => {
  server.forceShutdown();
});

describe('OTLP over gRPC', () => {
  it('sends spans with the configured headers as metadata, none of them from process.env', async () => {
    expect(process.env.OTEL_EXPORTER_OTLP_HEADERS).toBeUndefined();
    const config = loadTracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20tok-1,x-tenant=a',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=b',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    expect(config?.protocol).toBe('grpc');
    if (config === undefined) return;
    const dropped: string[] = [];
    const tracing = await startTracing(config, (reason) => dropped.push(reason), 'test');
    for (let i = 0; i < 3; i++) tracing.tracer.startSpan(`call ${String(i)}`).end();
    await tracing.shutdown(5_000);
    expect(dropped).toEqual([]);
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(received.reduce((sum, r) => sum + r.bytes, 0)).toBeGreaterThan(0);
    for (const { metadata } of received) {
      expect(metadata.get('authorization')).toEqual(['Bearer tok-1']);
      expect(metadata.get('x-tenant')).toEqual(['b']);
    }
  });
});
