/**
 * The MCP proxy's spans in a real Jaeger: a `tools/call` whose `_meta` carries a W3C `traceparent` is a span of
 * that trace, child of the client's span, with what the proxy made of the call, and no argument values.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, serverScript, tempDir, type Connected } from '../mcp/harness.js';
import { eventually } from './harness.js';
import { Jaeger, tag, type JaegerSpan } from './jaeger.js';

const CLIENT_SPAN = 'c7ad6b7169203331';
let jaeger: Jaeger | undefined;
const opened: Connected[] = [];

beforeAll(async () => {
  jaeger = await Jaeger.start();
}, 3_600_000);
afterAll(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  await jaeger?.stop();
});

describe('mcp-proxy spans in Jaeger', () => {
  it('a call with a traceparent in _meta is a span of that trace, child of the client span, with its outcome', async () => {
    const backend = jaeger;
    if (backend === undefined) throw new Error('jaeger not started');
    const proxied = await connect(process.execPath, [serverScript('memory')], {
      env: {
        MEMORY_FILE_PATH: join(tempDir('memory'), 'memory.jsonl'),
        OTEL_EXPORTER_OTLP_ENDPOINT: backend.otlpUrl,
        OTEL_SERVICE_NAME: 'toolcall-normalizer-proxy-it',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      proxy: [],
    });
    opened.push(proxied);
    const trace = randomBytes(16).toString('hex');
    const entities = [{ name: 'Ana', entityType: 'person', observations: ['writes the release notes'] }];
    const created = await proxied.client.callTool({
      name: 'create_entities',
      arguments: { entities: JSON.stringify(entities) },
      _meta: { traceparent: `00-${trace}-${CLIENT_SPAN}-01` },
    });
    expect(created.isError).not.toBe(true);

    let span: JaegerSpan | undefined;
    await eventually(
      async () => {
        span = (await backend.trace(trace)).find((s) => s.operationName === 'tools/call create_entities');
        return span !== undefined;
      },
      `the proxy's span in trace ${trace}`,
      30_000,
      250,
    );
    if (span === undefined) throw new Error('unreachable');
    expect(span.references).toContainEqual(expect.objectContaining({ refType: 'CHILD_OF', traceID: trace, spanID: CLIENT_SPAN }));
    expect(tag(span, 'toolcall.proxy.outcome')).toBe('repaired');
    expect(tag(span, 'gen_ai.tool.name')).toBe('create_entities');
    // Argument values stay out of spans.
    expect(JSON.stringify(span)).not.toContain('release notes');
  }, 120_000);
});
