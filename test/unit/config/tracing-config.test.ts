/**
 * Tracing from OpenTelemetry's standard variables (src/config/config.ts): off unless an exporter or an endpoint
 * is set, the endpoint's `/v1/traces`, headers and resource attributes as `key=value` lists, the sampler, and
 * clear refusals that never quote a header value.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { BASE, problemsOf } from './config-problems.js';

describe('tracing configuration', () => {
  it('is off with nothing set, with OTEL_TRACES_EXPORTER=none, and with OTEL_SDK_DISABLED', () => {
    expect(loadConfig({ ...BASE }).tracing).toBeUndefined();
    expect(loadConfig({ ...BASE, OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).tracing).toBeUndefined();
    expect(loadConfig({ ...BASE, OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toBeUndefined();
  });

  it('turns on with an endpoint, appending /v1/traces; a traces endpoint is used as is', () => {
    // gRPC: the endpoint as given (no /v1/traces), and 4317 when none is.
    expect(
      loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).tracing,
    ).toMatchObject({
      url: 'http://collector:4317',
      protocol: 'grpc',
    });
    expect(loadConfig({ ...BASE, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }).tracing?.url).toBe(
      'http://localhost:4317',
    );
    expect(loadConfig({ ...BASE, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing).toMatchObject({
      url: 'http://localhost:4318/v1/traces',
      protocol: 'http/json',
    });
    expect(loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toMatchObject({
      exporter: 'otlp',
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      ratio: 1,
      serviceName: 'toolcall-normalizer',
      maxQueueSize: 2048,
    });
    const traces = loadConfig({ ...BASE, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://x/otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://y' });
    expect(traces.tracing?.url).toBe('https://x/otlp');
    expect(loadConfig({ ...BASE, OTEL_TRACES_EXPORTER: 'otlp' }).tracing?.url).toBe('http://localhost:4318/v1/traces');
  });

  it('reads headers, resource attributes, the service name and the sampler', () => {
    const config = loadConfig({
      ...BASE,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s%3Dcret,x=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x=2',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,service.name=from-attributes',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
    }).tracing;
    expect(config?.headers).toEqual({ 'api-key': 's=cret', x: '2' });
    expect(config?.resourceAttributes).toMatchObject({ 'deployment.environment.name': 'prod' });
    expect(config?.serviceName).toBe('from-attributes');
    expect(config?.sampler).toBe('parentbased_traceidratio');
    expect(config?.ratio).toBe(0.01);
  });

  it('refuses what it cannot honour, never quoting a header', () => {
    const problems = problemsOf({
      OTEL_TRACES_EXPORTER: 'zipkin',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift',
      OTEL_EXPORTER_OTLP_HEADERS: 'secret-without-equals',
      OTEL_TRACES_SAMPLER_ARG: '2',
    });
    expect(problems.join('\n')).toMatch(/OTEL_TRACES_EXPORTER: must be one of otlp, console, none/);
    expect(problems.join('\n')).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/);
    expect(problems.join('\n')).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http\/protobuf, http\/json, grpc, got "thrift"/);
    expect(problems.join('\n')).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: entry 1 is not key=value/);
    expect(problems.join('\n')).not.toContain('secret-without-equals');
    expect(problems.join('\n')).toMatch(/OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1/);
  });

  it('refuses header names that are no HTTP field name, line breaks in values, and keys gRPC metadata cannot carry', () => {
    const http = problemsOf({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_HEADERS: 'bad name=v1,ok=s%0D%0AInjected: yes',
    }).join('\n');
    expect(http).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: entry 1: "bad name" is not a header name/);
    expect(http).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: entry 2 \(ok\): the value holds a control character/);
    expect(http).not.toContain('Injected');
    expect(http).not.toContain('v1');
    // '~' is a valid HTTP field name character but no gRPC metadata key's; a "-bin" key would take bytes.
    const grpc = problemsOf({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_HEADERS: 'x~y=1,trace-bin=2,Authorization=Bearer%20t',
    }).join('\n');
    expect(grpc).toMatch(/"x~y" is not a gRPC metadata key/);
    expect(grpc).toMatch(/"trace-bin" is not a gRPC metadata key/);
    expect(grpc).not.toMatch(/Authorization/);
    expect(loadConfig({ ...BASE, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'x~y=1' }).tracing?.headers).toEqual({
      'x~y': '1',
    });
  });
});
