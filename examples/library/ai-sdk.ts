/**
 * The AI SDK middleware: `node examples/library/ai-sdk.ts` (after `npm run build`). The SDK's own mock model stands
 * in for a provider's (`openai('gpt-5')`, `anthropic(...)`): it answers with a stringified, doubly-escaped call.
 */
import { generateText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { toolcallMiddleware } from 'toolcall-normalizer/ai-sdk';

const model = new MockLanguageModelV4({
  doGenerate: {
    content: [
      {
        type: 'tool-call',
        toolCallId: 'call_1',
        toolName: 'create_event',
        input: JSON.stringify({ title: 'Design review &amp;amp; planning', attendees: '["ana@example.com"]' }),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 10, text: 10, reasoning: undefined },
    },
    warnings: [],
  },
});

const result = await generateText({
  model: wrapLanguageModel({
    model,
    middleware: toolcallMiddleware({
      onRecord: (record) => {
        console.log(`repairs: ${JSON.stringify(record.repairs)}`);
      },
    }),
  }),
  tools: {
    create_event: tool({
      description: 'Create a calendar event.',
      inputSchema: z.object({ title: z.string(), attendees: z.array(z.string()) }),
      execute: (input) => {
        console.log(`execute received: ${JSON.stringify(input)}`);
        return Promise.resolve({ created: true });
      },
    }),
  },
  prompt: 'Plan the design review with Ana.',
});
console.log(`tool results: ${JSON.stringify(result.toolResults.map((r) => r.output))}`);
