/**
 * The MCP server wrapper: `node examples/library/mcp.ts` (after `npm run build`). A server with a zod tool and a
 * client, connected in memory; on stdio or HTTP it is the same call to normalizeMcpServer.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { normalizeMcpServer } from 'toolcall-normalizer/mcp';

const server = new McpServer({ name: 'issues', version: '1.0.0' });
server.registerTool(
  'label_issue',
  {
    description: 'Add labels to an issue.',
    inputSchema: { issue: z.number().int().describe('The issue number.'), labels: z.array(z.string()).describe('Labels to add.') },
  },
  ({ issue, labels }) => ({ content: [{ type: 'text', text: `issue ${issue} labelled ${labels.join(', ')}` }] }),
);
normalizeMcpServer(server);

const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
await server.connect(serverTransport);
const client = new Client({ name: 'agent', version: '1.0.0' });
await client.connect(clientTransport);

const show = (result: Awaited<ReturnType<typeof client.callTool>>): string =>
  (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('\n');

// `labels` sent as a JSON string: the SDK alone answers "expected array, received string".
console.log(show(await client.callTool({ name: 'label_issue', arguments: { issue: 7, labels: '["bug","p1"]' } })));
// `issue` missing: an error result the agent can act on.
const missing = await client.callTool({ name: 'label_issue', arguments: { labels: ['bug'] } });
console.log(`isError: ${String(missing.isError)}\n${show(missing)}`);
await client.close();
