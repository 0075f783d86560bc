/** server-memory, a knowledge graph MCP server from npm: stringified arrays rejected direct, repaired by the proxy. */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, logLines, resultText, serverScript, tempDir, type Connected } from './harness.js';

const opened: Connected[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

async function memory(proxy?: readonly string[]): Promise<Connected> {
  const file = join(tempDir('memory'), 'memory.jsonl');
  const connected = await connect(process.execPath, [serverScript('memory')], { env: { MEMORY_FILE_PATH: file }, proxy });
  opened.push(connected);
  return connected;
}

const ENTITIES = [{ name: 'Ana', entityType: 'person', observations: ['writes the release notes'] }];

describe('mcp-proxy in front of @modelcontextprotocol/server-memory', () => {
  it('a stringified entities array: rejected direct, accepted through the proxy, stored as an array', async () => {
    const direct = await memory();
    const refused = await direct.client
      .callTool({ name: 'create_entities', arguments: { entities: JSON.stringify(ENTITIES) } })
      .catch((e: unknown) => e);
    // The SDK answers an input validation failure with isError (newer) or a JSON-RPC error (older).
    expect(refused instanceof Error ? refused.message : resultText(refused)).toMatch(/expected array/i);
    const graphDirect = await direct.client.callTool({ name: 'read_graph', arguments: {} });
    expect(resultText(graphDirect)).not.toContain('Ana');

    const proxied = await memory([]);
    const created = await proxied.client.callTool({ name: 'create_entities', arguments: { entities: JSON.stringify(ENTITIES) } });
    expect(created.isError).not.toBe(true);
    const graph = await proxied.client.callTool({ name: 'read_graph', arguments: {} });
    const stored = JSON.parse(resultText(graph)) as { entities: unknown[] };
    expect(stored.entities).toEqual([expect.objectContaining(ENTITIES[0])]);

    const [line] = logLines(proxied.stderr()).filter((l) => l.msg === 'tools/call repaired');
    expect(line).toMatchObject({
      tool: 'create_entities',
      outcome: 'repaired',
      repairs: [{ kind: 'json_decoded', pointer: '/entities' }],
      codes: [],
    });
    // Values are never logged without --log-arguments.
    expect(proxied.stderr()).not.toContain('release notes');
  });

  it('a call still invalid after repair is answered by the proxy, naming pointer, code and hint; the server untouched', async () => {
    const proxied = await memory([]);
    const result = await proxied.client.callTool({
      name: 'create_entities',
      arguments: { entities: JSON.stringify([{ name: 'Bo', observations: [] }]) },
    });
    expect(result.isError).toBe(true);
    const text = resultText(result);
    expect(text).toContain('Invalid arguments for tool "create_entities"');
    expect(text).toMatch(/\/entities\/0\/entityType \(missing_required\): .*Hint: Add "entityType"/);
    expect(text).toContain('entityType');
    const meta = (result._meta as Record<string, { errors: { code: string; path: string }[] }>)['toolcall-normalizer/diagnostics'];
    expect(meta?.errors[0]).toMatchObject({ code: 'missing_required', path: '/entities/0/entityType' });
    // create_entities declares an outputSchema: no structuredContent, which the client would check against it.
    expect(result.structuredContent).toBeUndefined();
    const graph = await proxied.client.callTool({ name: 'read_graph', arguments: {} });
    expect(resultText(graph)).not.toContain('Bo');
    expect(logLines(proxied.stderr()).find((l) => l.msg === 'tools/call refused')).toMatchObject({
      tool: 'create_entities',
      codes: ['missing_required'],
    });
  });

  it('--forward-invalid sends the invalid call on unchanged, and the server answers it', async () => {
    const proxied = await memory(['--forward-invalid']);
    const result = await proxied.client
      .callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Bo', observations: [] }] } })
      .catch((e: unknown) => e);
    const text = result instanceof Error ? result.message : resultText(result);
    expect(text).not.toContain('Invalid arguments for tool "create_entities" (checked against its inputSchema)');
    expect(text).toMatch(/entityType/);
  });

  it('tools/list, a clean call and an unknown tool are the same direct and through the proxy', async () => {
    const direct = await memory();
    const proxied = await memory([]);
    expect(await proxied.client.listTools()).toEqual(await direct.client.listTools());
    const clean = { name: 'create_entities', arguments: { entities: ENTITIES } };
    expect(await proxied.client.callTool(clean)).toEqual(await direct.client.callTool(clean));
    const unknown = { name: 'no_such_tool', arguments: { entities: '[]' } };
    const a = await direct.client.callTool(unknown).catch((e: unknown) => String(e));
    const b = await proxied.client.callTool(unknown).catch((e: unknown) => String(e));
    expect(b).toEqual(a);
    expect(logLines(proxied.stderr())).toEqual([]);
  });

  it('OTEL_TRACES_EXPORTER=console over stdio: the protocol is untouched, each call is a span line on stderr', async () => {
    const file = join(tempDir('memory'), 'memory.jsonl');
    const proxied = await connect(process.execPath, [serverScript('memory')], {
      env: { MEMORY_FILE_PATH: file, OTEL_TRACES_EXPORTER: 'console', OTEL_BSP_SCHEDULE_DELAY: '100' },
      proxy: [],
    });
    opened.push(proxied);
    const created = await proxied.client.callTool({ name: 'create_entities', arguments: { entities: JSON.stringify(ENTITIES) } });
    expect(created.isError).not.toBe(true);
    const graph = await proxied.client.callTool({ name: 'read_graph', arguments: {} });
    expect(resultText(graph)).toContain('Ana');
    const spans = async (): Promise<Record<string, unknown>[]> => {
      for (let waited = 0; waited < 10_000; waited += 100) {
        const found = logLines(proxied.stderr()).filter((l) => typeof l.traceId === 'string');
        if (found.length >= 2) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [];
    };
    const names = (await spans()).map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(['tools/call create_entities', 'tools/call read_graph']));
  });

  it('--log-arguments logs the values as sent and as repaired', async () => {
    const proxied = await memory(['--log-arguments']);
    await proxied.client.callTool({ name: 'create_entities', arguments: { entities: JSON.stringify(ENTITIES) } });
    const [line] = logLines(proxied.stderr()).filter((l) => l.msg === 'tools/call repaired');
    expect(line).toMatchObject({ argumentsSent: { entities: JSON.stringify(ENTITIES) }, argumentsRepaired: { entities: ENTITIES } });
  });

  it("--metrics-port serves the worker's repair and outcome counters", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => {
          resolve(free);
        });
      });
    });
    const proxied = await memory(['--metrics-port', String(port)]);
    await proxied.client.callTool({ name: 'create_entities', arguments: { entities: JSON.stringify(ENTITIES) } });
    await proxied.client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Bo' }] } });
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toContain('toolcall_repairs_total{kind="json_decoded",tool="create_entities"} 1');
    expect(text).toContain('toolcall_calls_total{outcome="normalized",tool="create_entities"} 1');
    expect(text).toContain('toolcall_calls_total{outcome="rejected",tool="create_entities"} 1');
  });
});
