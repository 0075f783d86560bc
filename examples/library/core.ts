/**
 * The core in process: `node examples/library/core.ts` (after `npm run build`; Node.js 24 runs TypeScript as is).
 * Tool definitions in any form the schema directory accepts; records in any supported envelope.
 */
import { createNormalizer, normalizeToolArguments } from 'toolcall-normalizer';

const normalizer = createNormalizer({
  tools: [
    {
      name: 'create_event',
      description: 'Create a calendar event.',
      inputSchema: {
        type: 'object',
        properties: {
          title: { type: 'string', description: 'Event title.' },
          attendees: { type: 'array', items: { type: 'string' }, description: 'E-mail addresses of the attendees.' },
        },
        required: ['title', 'attendees'],
        additionalProperties: false,
      },
    },
  ],
});

// A doubly-escaped title and a stringified array, as models send them, in an Anthropic tool_use block.
const [repaired] = normalizer.normalize({
  type: 'tool_use',
  id: 'toolu_1',
  name: 'create_event',
  input: { title: 'Design review &amp;amp; planning', attendees: '["ana@example.com","bo@example.com"]' },
});
console.log(JSON.stringify(repaired));

// Still invalid once repaired: the record says what to send instead.
const [invalid] = normalizer.normalize('{"id": "c2", "tool": "create_event", "arguments": {"attendees": "[\\"ana@example.com\\"]"}}');
for (const error of invalid?.errors ?? []) console.log(`${error.code} at ${error.path}: ${error.message} Hint: ${error.hint}`);

// Arguments already in hand, against one schema.
const result = normalizeToolArguments({ type: 'object', properties: { tags: { type: 'array' } } }, { tags: '["a","b"]' });
console.log(JSON.stringify(result.arguments), result.valid);
