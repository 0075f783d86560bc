/**
 * normalizeMcpServer against the MCP TypeScript SDK's 2.x packages: an McpServer of `@modelcontextprotocol/server`
 * with a zod tool, called by the Client of `@modelcontextprotocol/client` over the SDK's in-memory transport.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { normalizeMcpServer } from '../../../src/library/mcp.js';
import type { OutputRecord } from '../../../src/library/index.js';

const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function connected(wrap: boolean): Promise<{ client: Client; received: unknown[]; records: OutputRecord[] }> {
  const received: unknown[] = [];
  const records: OutputRecord[] = [];
  const server = new McpServer({ name: 'events', version: '1.0.0' });
  server.registerTool(
    'create_event',
    { description: 'Creates a calendar event', inputSchema: z.object({ title: z.string(), tags: z.array(z.string()) }) },
    (args) => {
      received.push(args);
      return { content: [{ type: 'text', text: 'created' }] };
    },
  );
  if (wrap) expect(normalizeMcpServer(server, { onRecord: (record) => records.push(record) })).toBe(server);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientTransport);
  open.push(client);
  return { client, received, records };
}

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((part) => part.text ?? '').join('\n');
}

describe('normalizeMcpServer on the SDK 2.x', () => {
  it('hands the tool a stringified array decoded, which the 2.x server rejects without it', async () => {
    const call = { name: 'create_event', arguments: { title: 'Ember &amp; Oak', tags: '["a","b"]' } };
    const bare = await connected(false);
    expect((await bare.client.callTool(call)).isError).toBe(true);
    expect(bare.received).toEqual([]);
    const { client, received, records } = await connected(true);
    const result = await client.callTool(call);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('created');
    expect(received).toEqual([{ title: 'Ember & Oak', tags: ['a', 'b'] }]);
    expect(records[0]?.repairs.map((repair) => repair.kind)).toEqual(['entities_decoded', 'json_decoded']);
  });

  it('answers a call still invalid with isError naming pointer, code and hint; the tool never runs', async () => {
    const { client, received } = await connected(true);
    const result = await client.callTool({ name: 'create_event', arguments: { title: 3, tags: [] } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Invalid arguments for tool "create_event"/);
    expect(textOf(result)).toContain('/title (wrong_type)');
    expect(textOf(result)).toContain('Hint:');
    expect(received).toEqual([]);
  });

  it('refuses what is not an McpServer, naming both SDK lines', () => {
    expect(() => normalizeMcpServer({ server: {}, sendToolListChanged: () => undefined })).toThrow(
      /sdk 1\.x or @modelcontextprotocol\/server 2\.x/,
    );
  });
});
