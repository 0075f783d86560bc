/**
 * toolcallMiddleware against the real AI SDK: its own mock models (`ai/test`) in generateText and streamText,
 * with zod tools whose `execute` records what it receives.
 */
import { generateText, streamText, tool, wrapLanguageModel, type ToolSet } from 'ai';
import { MockLanguageModelV3, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolcallMiddleware, type ModelToolCall } from '../../../src/library/ai-sdk.js';
import type { OutputRecord } from '../../../src/library/index.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** Tools whose execute records each input it receives. */
function eventTools(): { received: unknown[]; tools: ToolSet } {
  const received: unknown[] = [];
  const tools = {
    create_event: tool({
      description: 'Creates a calendar event',
      inputSchema: z.object({
        title: z.string().describe('The event title'),
        attendees: z.array(z.string()).describe('E-mail addresses of the attendees'),
        duration_minutes: z.number().int().optional(),
      }),
      execute: (input) => {
        received.push(input);
        return Promise.resolve({ ok: true });
      },
    }),
  };
  return { received, tools };
}

/** A doubly-escaped title and a stringified array: each is what models send, and what zod alone rejects. */
const NEARLY_RIGHT = JSON.stringify({ title: 'Design review &amp;amp; planning', attendees: '["ana@example.com","bo@example.com"]' });
const REPAIRED = { title: 'Design review & planning', attendees: ['ana@example.com', 'bo@example.com'] };
/** Still invalid once repaired: the required title is missing. */
const MISSING_TITLE = JSON.stringify({ attendees: '["ana@example.com"]' });

function generatingModel(input: string, version: 'v3' | 'v4' = 'v4'): MockLanguageModelV3 | MockLanguageModelV4 {
  const result = {
    content: [{ type: 'tool-call' as const, toolCallId: 'call_1', toolName: 'create_event', input }],
    finishReason: { unified: 'tool-calls' as const, raw: undefined },
    usage,
    warnings: [],
  };
  return version === 'v4' ? new MockLanguageModelV4({ doGenerate: result }) : new MockLanguageModelV3({ doGenerate: result });
}

function streamingModel(input: string): MockLanguageModelV4 {
  const half = Math.floor(input.length / 2);
  const parts = [
    { type: 'stream-start' as const, warnings: [] },
    { type: 'tool-input-start' as const, id: 'call_1', toolName: 'create_event' },
    { type: 'tool-input-delta' as const, id: 'call_1', delta: input.slice(0, half) },
    { type: 'tool-input-delta' as const, id: 'call_1', delta: input.slice(half) },
    { type: 'tool-input-end' as const, id: 'call_1' },
    { type: 'tool-call' as const, toolCallId: 'call_1', toolName: 'create_event', input },
    { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage },
  ];
  return new MockLanguageModelV4({
    doStream: {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    },
  });
}

function recording(): {
  records: { record: OutputRecord; call: ModelToolCall }[];
  onRecord: (record: OutputRecord, call: ModelToolCall) => void;
} {
  const records: { record: OutputRecord; call: ModelToolCall }[] = [];
  return {
    records,
    onRecord: (record, call) => {
      records.push({ record, call });
    },
  };
}

/** `model` wrapped in the middleware, which reports to a {@link recording}; with {@link eventTools}. */
function withMiddleware(model: Parameters<typeof wrapLanguageModel>[0]['model']): ReturnType<typeof eventTools> & {
  records: ReturnType<typeof recording>['records'];
  model: ReturnType<typeof wrapLanguageModel>;
} {
  const { received, tools } = eventTools();
  const { records, onRecord } = recording();
  return { received, tools, records, model: wrapLanguageModel({ model, middleware: toolcallMiddleware({ onRecord }) }) };
}

describe('toolcallMiddleware in generateText', () => {
  it('hands execute the repaired arguments: entities decoded twice, the stringified array decoded', async () => {
    const { received, tools, records, model } = withMiddleware(generatingModel(NEARLY_RIGHT));
    const result = await generateText({ model, tools, prompt: 'plan the review' });
    expect(received).toEqual([REPAIRED]);
    expect(result.toolCalls.map((call): unknown => call.input)).toEqual([REPAIRED]);
    expect(records).toHaveLength(1);
    expect(records[0]?.call).toEqual({ toolCallId: 'call_1', toolName: 'create_event', input: NEARLY_RIGHT });
    expect(records[0]?.record).toMatchObject({ id: 'call_1', tool: 'create_event', valid: true, arguments: REPAIRED });
    expect(records[0]?.record.repairs).toEqual([
      { pointer: '/title', kind: 'entities_decoded' },
      { pointer: '/attendees', kind: 'json_decoded' },
    ]);
  });

  it('without the middleware the same call never reaches execute (zod rejects the string), and the title would be wrong', async () => {
    const { received, tools } = eventTools();
    const result = await generateText({ model: generatingModel(NEARLY_RIGHT), tools, prompt: 'plan the review' });
    expect(received).toEqual([]);
    expect(result.content.some((part) => part.type === 'tool-error')).toBe(true);
  });

  it('works on a V3 model wrapped by the SDK', async () => {
    const { received, tools } = eventTools();
    const model = wrapLanguageModel({ model: generatingModel(NEARLY_RIGHT, 'v3'), middleware: toolcallMiddleware() });
    await generateText({ model, tools, prompt: 'plan the review' });
    expect(received).toEqual([REPAIRED]);
  });

  it('leaves a call that is still invalid to the SDK, and hands our diagnostics with its hint to onRecord', async () => {
    const { received, tools, records, model } = withMiddleware(generatingModel(MISSING_TITLE));
    const result = await generateText({ model, tools, prompt: 'plan the review' });
    expect(received).toEqual([]);
    const error = result.content.find((part) => part.type === 'tool-error');
    expect(String(error?.error)).toMatch(/^AI_InvalidToolInputError/);
    const record = records[0]?.record;
    expect(record?.valid).toBe(false);
    expect(record?.errors.map((e) => [e.code, e.path])).toEqual([['missing_required', '/title']]);
    expect(record?.errors[0]?.hint).toContain('title');
    expect(record?.errors[0]?.hint).toContain('The event title');
  });

  it('leaves a call that needs no repair byte for byte as the model sent it', async () => {
    const { tools } = eventTools();
    const input = '{"title":"Plain","attendees":["a@example.com"]}';
    const seen: string[] = [];
    const model = wrapLanguageModel({
      model: wrapLanguageModel({ model: generatingModel(input), middleware: toolcallMiddleware() }),
      middleware: {
        specificationVersion: 'v4',
        wrapGenerate: async ({ doGenerate }) => {
          const result = await doGenerate();
          for (const part of result.content) if (part.type === 'tool-call') seen.push(part.input);
          return result;
        },
      },
    });
    await generateText({ model, tools, prompt: 'x' });
    expect(seen).toEqual([input]);
  });

  it('leaves calls to tools missing from the call list, and provider-executed calls, untouched', async () => {
    const { records, onRecord } = recording();
    const mock = new MockLanguageModelV4({
      doGenerate: {
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'not_listed', input: '{"a":"[1]"}' },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'create_event', input: NEARLY_RIGHT, providerExecuted: true },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      },
    });
    const middleware = toolcallMiddleware({ onRecord });
    const params = { prompt: [], tools: [{ type: 'function' as const, name: 'create_event', inputSchema: { type: 'object' as const } }] };
    const wrapped = await middleware.wrapGenerate?.({
      doGenerate: () => mock.doGenerate(params),
      doStream: () => mock.doStream(params),
      params,
      model: mock,
    });
    expect(wrapped?.content).toEqual([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'not_listed', input: '{"a":"[1]"}' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'create_event', input: NEARLY_RIGHT, providerExecuted: true },
    ]);
    expect(records).toEqual([]);
  });

  it('applies the options: an entity exemption keeps the references of that parameter', async () => {
    const { received, tools } = eventTools();
    const model = wrapLanguageModel({
      model: generatingModel(NEARLY_RIGHT),
      middleware: toolcallMiddleware({ entityExempt: ['create_event/title'] }),
    });
    await generateText({ model, tools, prompt: 'x' });
    expect(received).toEqual([{ ...REPAIRED, title: 'Design review &amp;amp; planning' }]);
  });

  it('refuses bad options at creation', () => {
    expect(() => toolcallMiddleware({ maxDepth: 0 })).toThrow(/maxDepth/);
    expect(() => toolcallMiddleware({ onRecord: 'log' } as never)).toThrow(/onRecord/);
    expect(() => toolcallMiddleware({ entity_exempt: [] } as never)).toThrow(/unknown option "entity_exempt"/);
  });
});

describe('toolcallMiddleware in streamText', () => {
  it('hands execute the repaired arguments and streams the repaired tool-call', async () => {
    const { received, tools, records, model } = withMiddleware(streamingModel(NEARLY_RIGHT));
    const result = streamText({ model, tools, prompt: 'plan the review' });
    const calls: unknown[] = [];
    const deltas: string[] = [];
    for await (const part of result.stream) {
      if (part.type === 'tool-call') calls.push(part.input);
      if (part.type === 'tool-input-delta') deltas.push(part.delta);
    }
    expect(received).toEqual([REPAIRED]);
    expect(calls).toEqual([REPAIRED]);
    // The deltas are the model's own text, shown while it streams.
    expect(deltas.join('')).toBe(NEARLY_RIGHT);
    expect(records.map((r) => r.record.valid)).toEqual([true]);
  });

  it('leaves a call that is still invalid to the SDK', async () => {
    const { received, tools, records, model } = withMiddleware(streamingModel(MISSING_TITLE));
    const result = streamText({ model, tools, prompt: 'x' });
    const errors: unknown[] = [];
    for await (const part of result.stream) if (part.type === 'tool-error') errors.push(part.error);
    expect(received).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(records[0]?.record.errors[0]?.code).toBe('missing_required');
  });
});
