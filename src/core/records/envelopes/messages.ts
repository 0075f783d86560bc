/**
 * Whole messages: an assistant message or model turn, or the API response that wraps one, holding any number of
 * tool calls. Each call is read with the single-call decoders; the message only says where the calls are.
 *
 * A record is a whole message when it has a `role`, or one of the call lists below, or is a response wrapping
 * one: Ollama's `/api/chat` (`message`), Bedrock Converse (`output.message`), OpenAI Chat Completions
 * (`choices[0].message`), OpenAI Responses (the `output` list of items), Gemini (`candidates[0].content`). The
 * first choice or candidate is the answer, as the SDKs' own accessors read it.
 *
 * A message's calls come from the first of these that holds any, so a call is never read twice (a LangChain
 * `AIMessage` keeps its calls both in `tool_calls` and in Anthropic `content` blocks):
 * - `tool_calls`, then LangChain's `invalid_tool_calls` (OpenAI, Mistral, Ollama, LangChain): every element is a
 *   call, and one without a call's shape is a call that cannot be read;
 * - `content` blocks (Anthropic, Bedrock, the AI SDK), `parts` (Gemini), a Responses `output` list: the
 *   elements with a call's shape; text, images, reasoning and results are skipped.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json.js';
import { callDecoderFor } from './detect.js';

/** A call's place in a message, before it is decoded: its path (for messages) and the element as sent. */
export interface FoundCall {
  readonly path: string;
  readonly value: JsonValue;
  /** True where every element of the list is meant to be a call (`tool_calls`). */
  readonly listed: boolean;
}

/** The calls of a whole message, and where it looked; undefined when the record is no message at all. */
export function findMessageCalls(record: JsonObject): { calls: FoundCall[]; looked: string } | undefined {
  if (isBody(record)) return bodyCalls(record, '');
  const { message, output, choices, candidates } = record;
  if (isJsonObject(message)) return bodyCalls(message, 'message.');
  if (isJsonObject(output) && isJsonObject(output.message)) return bodyCalls(output.message, 'output.message.');
  if (Array.isArray(output)) return { calls: picked(output, 'output'), looked: 'the output items' };
  if (Array.isArray(choices)) return firstOf(choices, 'choices', 'message');
  if (Array.isArray(candidates)) return firstOf(candidates, 'candidates', 'content');
  return undefined;
}

function isBody(record: JsonObject): boolean {
  return (
    record.role !== undefined ||
    Array.isArray(record.tool_calls) ||
    Array.isArray(record.invalid_tool_calls) ||
    Array.isArray(record.content) ||
    Array.isArray(record.parts)
  );
}

function firstOf(list: JsonValue[], key: string, inner: string): { calls: FoundCall[]; looked: string } {
  const first = list[0];
  const body = isJsonObject(first) ? first[inner] : undefined;
  if (isJsonObject(body)) return bodyCalls(body, `${key}[0].${inner}.`);
  return { calls: [], looked: list.length === 0 ? `${key} (empty)` : `${key}[0].${inner} (absent)` };
}

function bodyCalls(body: JsonObject, prefix: string): { calls: FoundCall[]; looked: string } {
  const listed = [
    ...listedCalls(body.tool_calls, `${prefix}tool_calls`),
    ...listedCalls(body.invalid_tool_calls, `${prefix}invalid_tool_calls`),
  ];
  if (listed.length > 0) return { calls: listed, looked: `${prefix}tool_calls` };
  for (const key of ['content', 'parts'] as const) {
    const list = body[key];
    if (!Array.isArray(list)) continue;
    const calls = picked(list, `${prefix}${key}`);
    if (calls.length > 0) return { calls, looked: `${prefix}${key}` };
  }
  return { calls: [], looked: `${prefix}tool_calls, ${prefix}content and ${prefix}parts` };
}

function listedCalls(list: JsonValue | undefined, path: string): FoundCall[] {
  if (!Array.isArray(list)) return [];
  return list.map((value, i) => ({ path: `${path}[${i}]`, value, listed: true }));
}

function picked(list: readonly JsonValue[], path: string): FoundCall[] {
  const calls: FoundCall[] = [];
  list.forEach((value, i) => {
    if (isJsonObject(value) && callDecoderFor(value) !== undefined) calls.push({ path: `${path}[${i}]`, value, listed: false });
  });
  return calls;
}
