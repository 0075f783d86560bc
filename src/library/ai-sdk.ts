/**
 * `import { toolcallMiddleware } from 'toolcall-normalizer/ai-sdk'`: RT-TOOL-8 inside the AI SDK (`ai` 7).
 *
 * The middleware sits between the model and the SDK: every tool call the model returns (a `tool-call` content
 * part of `generateText`, a `tool-call` stream part of `streamText`) is normalized against the input schema of
 * that tool in the call's own tool list, before the SDK parses and validates it, so the tool's `execute` receives
 * repaired arguments. A call that is still invalid goes on to the SDK, which reports it as it always does
 * (`InvalidToolInputError`, and `experimental_repairToolCall` if set); the `onRecord` option sees our diagnostics.
 * Only types come from `ai`: nothing here loads it.
 */
import type { LanguageModelMiddleware } from 'ai';
import { processRecord } from '../core/pipeline.js';
import { isJsonObject } from '../core/shared/json.js';
import type { OutputRecord } from '../core/shared/types.js';
import { checkedPipelineOptions, type RuleOptions } from './options.js';
import { ToolCache } from './tools.js';

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type CallParams = Parameters<WrapGenerate>[0]['params'];
type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
type ToolCallPart = Extract<GenerateResult['content'][number], { type: 'tool-call' }>;

/** The tool call an output record describes, as the model sent it. */
export interface ModelToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The arguments as the model sent them (JSON text). */
  readonly input: string;
}

/** Options of {@link toolcallMiddleware}: the rule's options, and a callback for each output record. */
export interface ToolcallMiddlewareOptions extends RuleOptions {
  /**
   * Called with the output record of every tool call normalized (valid or not), and the call as the model sent
   * it: log the repairs and pass-throughs, count them, or keep the diagnostics of a call the SDK will reject.
   * Called synchronously, before the SDK sees the call; an exception thrown here fails the generation.
   */
  readonly onRecord?: (record: OutputRecord, call: ModelToolCall) => void;
}

/**
 * A language-model middleware for `wrapLanguageModel` that normalizes the arguments of every tool call the model
 * returns, in `generateText` and `streamText`, against the tool's input schema as the call declares it
 * (`params.tools`). A call is rewritten only when a repair applied (its input becomes the repaired arguments'
 * JSON text); calls to tools not in the list, provider-executed calls, and streamed `tool-input-delta` parts (the
 * model's raw text, shown while it streams) pass unchanged.
 *
 * @throws TypeError or RangeError for a bad option, as `createNormalizer` does.
 * @example
 * ```ts
 * const model = wrapLanguageModel({ model: openai('gpt-5'), middleware: toolcallMiddleware() });
 * ```
 */
export function toolcallMiddleware(options: ToolcallMiddlewareOptions = {}): LanguageModelMiddleware {
  const where = 'toolcallMiddleware';
  const pipeline = checkedPipelineOptions(options, ['onRecord'], where);
  const onRecord = options.onRecord;
  if (onRecord !== undefined && typeof onRecord !== 'function') throw new TypeError(`${where}: "onRecord" must be a function`);
  const cache = new ToolCache();

  /** Normalizes one call against the call's tool list; returns the same part when nothing was repaired. */
  const repairer = (params: CallParams): ((part: ToolCallPart) => ToolCallPart) => {
    const schemas = new Map<string, unknown>();
    for (const tool of params.tools ?? []) if (tool.type === 'function') schemas.set(tool.name, tool.inputSchema);
    return (part) => {
      if (part.providerExecuted === true || !schemas.has(part.toolName)) return part;
      const tool = cache.schema(part.toolName, schemas.get(part.toolName));
      // The SDK reads an empty input as {} (a tool without parameters): so does the record.
      const input = part.input.trim() === '' ? '{}' : part.input;
      const record = JSON.stringify({ id: part.toolCallId, tool: part.toolName, arguments: input });
      const outputs = processRecord(record, (name) => (name === part.toolName ? tool : undefined), pipeline);
      if (onRecord !== undefined)
        for (const output of outputs) onRecord(output, { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      const output = outputs[0];
      if (output === undefined || output.repairs.length === 0 || !isJsonObject(output.arguments)) return part;
      return { ...part, input: JSON.stringify(output.arguments) };
    };
  };

  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      if (!result.content.some((part) => part.type === 'tool-call')) return result;
      const repair = repairer(params);
      return { ...result, content: result.content.map((part) => (part.type === 'tool-call' ? repair(part) : part)) };
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      const repair = repairer(params);
      const stream = result.stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          transform(part, controller) {
            controller.enqueue(part.type === 'tool-call' ? repair(part) : part);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

export type { OutputRecord } from '../core/shared/types.js';
