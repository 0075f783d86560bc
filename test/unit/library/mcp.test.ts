/**
 * normalizeMcpServer against the real MCP TypeScript SDK: an McpServer with zod tools, and its own Client, over
 * the SDK's in-memory transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { normalizeMcpServer, type McpToolCall } from '../../../src/library/mcp.js';
import type { OutputRecord } from '../../../src/library/index.js';

interface Harness {
  client: Client;
  server: McpServer;
  received: unknown[];
  records: { record: OutputRecord; call: McpToolCall }[];
}

const open: Harness[] = [];

afterEach(async () => {
  for (const harness of open.splice(0)) await harness.client.close();
});

/** Registers tools through both APIs (registerTool, and the older tool), each handler recording what it receives. */
function serverWithTools(): { server: McpServer; received: unknown[] } {
  const received: unknown[] = [];
  const server = new McpServer({ name: 'events', version: '1.0.0' });
  server.registerTool(
    'create_event',
    {
      description: 'Creates a calendar event',
      inputSchema: {
        title: z.string().describe('The event title'),
        tags: z.array(z.string()).describe('Labels for the event'),
        duration_minutes: z.number().int().min(5).optional(),
      },
    },
    (args) => {
      received.push(args);
      return { content: [{ type: 'text', text: 'created' }] };
    },
  );
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the older API must work too
  server.tool('add_labels', { labels: z.array(z.string()) }, (args) => {
    received.push(args);
    return { content: [{ type: 'text', text: 'labelled' }] };
  });
  return { server, received };
}

async function connect(server: McpServer, received: unknown[], wrap = true): Promise<Harness> {
  const records: Harness['records'] = [];
  if (wrap) {
    normalizeMcpServer(server, {
      onRecord: (record, call) => {
        records.push({ record, call });
      },
    });
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientTransport);
  const harness = { client, server, received, records };
  open.push(harness);
  return harness;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((part) => part.text ?? '').join('\n');
}

describe('normalizeMcpServer', () => {
  it('hands the tool a stringified array decoded and a doubly-escaped string decoded', async () => {
    const { server, received } = serverWithTools();
    const { client, records } = await connect(server, received);
    const result = await client.callTool({ name: 'create_event', arguments: { title: 'Ember &amp;amp; Oak', tags: '["a","b"]' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('created');
    expect(received).toEqual([{ title: 'Ember & Oak', tags: ['a', 'b'] }]);
    expect(records).toHaveLength(1);
    expect(records[0]?.record).toMatchObject({ tool: 'create_event', format: 'mcp', valid: true });
    expect(records[0]?.record.repairs).toEqual([
      { pointer: '/title', kind: 'entities_decoded' },
      { pointer: '/tags', kind: 'json_decoded' },
    ]);
    expect(records[0]?.call).toEqual({ name: 'create_event', arguments: { title: 'Ember &amp;amp; Oak', tags: '["a","b"]' } });
  });

  it('without it, the SDK answers the stringified array with its own error and the tool never runs', async () => {
    const { server, received } = serverWithTools();
    const { client } = await connect(server, received, false);
    const result = await client.callTool({ name: 'create_event', arguments: { title: 'x', tags: '["a"]' } });
    expect(result.isError).toBe(true);
    expect(received).toEqual([]);
  });

  it('works for tools registered with the older tool() API', async () => {
    const { server, received } = serverWithTools();
    const { client } = await connect(server, received);
    await client.callTool({ name: 'add_labels', arguments: { labels: '["bug"]' } });
    expect(received).toEqual([{ labels: ['bug'] }]);
  });

  it('answers a call missing a required field with isError and our diagnostics, message and hint', async () => {
    const { server, received } = serverWithTools();
    const { client, records } = await connect(server, received);
    const result = await client.callTool({ name: 'create_event', arguments: { tags: '["a"]', duration_minutes: 1 } });
    expect(result.isError).toBe(true);
    expect(received).toEqual([]);
    const text = textOf(result);
    const [missing, minimum] = records[0]?.record.errors ?? [];
    expect(missing?.code).toBe('missing_required');
    expect(minimum?.code).toBe('below_minimum');
    for (const error of [missing, minimum]) {
      expect(text).toContain(error?.message);
      expect(text).toContain(error?.hint);
    }
    expect(text).toMatch(/^Invalid arguments for tool "create_event"/);
    expect(text).toContain('The event title');
  });

  it('passes a call that needs no repair to the tool as sent', async () => {
    const { server, received } = serverWithTools();
    const { client, records } = await connect(server, received);
    await client.callTool({ name: 'create_event', arguments: { title: 'Plain', tags: ['a'] } });
    expect(received).toEqual([{ title: 'Plain', tags: ['a'] }]);
    expect(records[0]?.record.repairs).toEqual([]);
  });

  it('leaves unknown tools to the SDK', async () => {
    const { server, received } = serverWithTools();
    const { client, records } = await connect(server, received);
    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('Tool nope not found');
    expect(records).toEqual([]);
  });

  it('follows the tool list as it changes: a schema updated, a tool disabled, after calls were made', async () => {
    const { server, received } = serverWithTools();
    const late = server.registerTool('late', { inputSchema: { ids: z.string() } }, (args) => {
      received.push(args);
      return { content: [] };
    });
    const { client } = await connect(server, received);
    await client.callTool({ name: 'late', arguments: { ids: '[1,2]' } });
    late.update({ paramsSchema: { ids: z.array(z.number()) } });
    await client.callTool({ name: 'late', arguments: { ids: '[1,2]' } });
    expect(received).toEqual([{ ids: '[1,2]' }, { ids: [1, 2] }]);
    late.disable();
    const disabled = await client.callTool({ name: 'late', arguments: { ids: '[3]' } });
    expect(disabled.isError).toBe(true);
    expect(textOf(disabled)).toContain('disabled');
    expect(received).toHaveLength(2);
  });

  it('sees a tool registered after it was applied, and after connect', async () => {
    const { server, received } = serverWithTools();
    const { client } = await connect(server, received);
    server.registerTool('late', { inputSchema: { ids: z.array(z.number()) } }, (args) => {
      received.push(args);
      return { content: [] };
    });
    await client.callTool({ name: 'late', arguments: { ids: '[1,2]' } });
    expect(received).toEqual([{ ids: [1, 2] }]);
  });

  it('is idempotent, and refuses a server without tools', async () => {
    const { server, received } = serverWithTools();
    normalizeMcpServer(server);
    expect(normalizeMcpServer(server)).toBe(server);
    const { client } = await connect(server, received);
    await client.callTool({ name: 'add_labels', arguments: { labels: '["x"]' } });
    expect(received).toEqual([{ labels: ['x'] }]);
    expect(() => normalizeMcpServer(new McpServer({ name: 'empty', version: '1.0.0' }))).toThrow(/register its tools/);
    expect(() => normalizeMcpServer({} as unknown as McpServer)).toThrow(/expects an McpServer/);
  });
});
