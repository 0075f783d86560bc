/**
 * Envelope decoding: which of the supported shapes a record is, and the calls it holds, each with its call id,
 * tool name and arguments as sent. Pure: no I/O, never mutates or copies the input (a decoded call holds
 * references into it), never throws on data.
 *
 * A record is one call in one of the single-call formats (detect.ts gives the order), or a whole message that
 * fans out into one call per tool call it holds (messages.ts), or neither (`record_unknown_envelope`). A
 * message with no tool call is `record_no_tool_calls`; a call inside a message that cannot be read fails
 * alone, and its siblings go on.
 */
import type { RecordFailure } from '../bytes.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json.js';
import { describeType, fail, quoteKeys, type EnvelopeResult } from './common.js';
import { callDecoderFor, decodeSingleCall } from './detect.js';
import { findMessageCalls, type FoundCall } from './messages.js';

export { parseArguments, type ArgumentsResult } from './arguments.js';
export { chatFamilyFormat } from './detect.js';
export { FORMAT_LABELS, type EnvelopeResult } from './common.js';

/**
 * Most calls one record may hold. Models make a handful of parallel calls (providers cap them in the tens);
 * a thousand leaves room while keeping a hostile record from fanning out into tens of thousands of outputs.
 */
export const MAX_CALLS_PER_RECORD = 1_000;

/** One call of a record, decoded or not, and where it sits. */
export interface CallSlot {
  /** Position among the record's calls, from 0, in the record's order. */
  readonly index: number;
  /** The call as it sits in the record: the record itself, or the element of the message. */
  readonly raw: JsonValue;
  /** Where the call sits in a whole message (`tool_calls[1]`); undefined for a record that is one call. */
  readonly path: string | undefined;
  /** True when another call of the same record carries the same id: the id alone cannot tell them apart. */
  readonly sharedId: boolean;
  readonly read: EnvelopeResult;
}

/** The calls of one record; `message` says it is a whole message (its calls fan out). */
export type RecordCalls = { ok: true; message: boolean; calls: readonly CallSlot[] } | { ok: false; error: RecordFailure };

const ACCEPTED_SHAPES =
  'one call (canonical {"tool", "arguments"}; OpenAI Chat Completions, Mistral or Ollama {"function": {"name", "arguments"}}; ' +
  'OpenAI Responses {"type": "function_call", "name", "arguments"}; Anthropic {"type": "tool_use", "name", "input"}; ' +
  'MCP {"jsonrpc": "2.0", "method": "tools/call", "params"}; Gemini {"functionCall"} or {"function_call"}; Bedrock {"toolUse"}; ' +
  'AI SDK {"type": "tool-call"}; LangChain {"type": "tool_call"}; OpenAI legacy {"function_call": {"name", "arguments"}}), ' +
  'or a whole message holding calls in tool_calls, content or parts';

/** Reads every call of one parsed record. See the module comment. */
export function decodeRecord(value: JsonValue, maxCalls: number = MAX_CALLS_PER_RECORD): RecordCalls {
  if (!isJsonObject(value)) return notObject(value);
  const single = decodeSingleCall(value);
  if (single !== undefined) {
    return single.ok
      ? { ok: true, message: false, calls: [{ index: 0, raw: value, path: undefined, sharedId: false, read: single }] }
      : single;
  }
  const found = findMessageCalls(value);
  if (found === undefined) return unknownEnvelope(value);
  if (found.calls.length === 0) {
    const role = typeof value.role === 'string' ? ` (role ${JSON.stringify(value.role.slice(0, 40))})` : '';
    return fail(
      'record_no_tool_calls',
      `The object is a whole message${role} that holds no tool call (looked in ${found.looked}): there is nothing to run.`,
    );
  }
  if (found.calls.length > maxCalls) {
    return fail(
      'record_too_many_calls',
      `The message holds ${found.calls.length} tool calls (in ${found.looked}); at most ${maxCalls} are read from one record.`,
    );
  }
  const reads = found.calls.map(decodeFound);
  const ids = new Map<string, number>();
  for (const read of reads) if (read.ok && read.call.id !== null) ids.set(read.call.id, (ids.get(read.call.id) ?? 0) + 1);
  const calls = reads.map((read, index): CallSlot => {
    const place = found.calls[index] as FoundCall;
    const sharedId = read.ok && read.call.id !== null && (ids.get(read.call.id) ?? 0) > 1;
    return { index, raw: place.value, path: place.path, sharedId, read };
  });
  return { ok: true, message: true, calls };
}

/** The one call of a record in a single-call format (no fan-out): for callers that take one call per record. */
export function decodeEnvelope(value: JsonValue): EnvelopeResult {
  if (!isJsonObject(value)) return notObject(value);
  return decodeSingleCall(value) ?? unknownEnvelope(value);
}

function decodeFound(place: FoundCall): EnvelopeResult {
  const { value, path } = place;
  if (!isJsonObject(value)) return fail('record_not_object', `${path} is ${describeType(value)}, not a tool-call object.`);
  const decoder = callDecoderFor(value);
  if (decoder === undefined) {
    return fail('record_unknown_envelope', `${path} matches none of the accepted call envelopes (keys seen: ${quoteKeys(value)}).`);
  }
  const read = decoder.decode(value);
  return read.ok ? read : fail(read.error.code, `${path}: ${read.error.message}`);
}

function notObject(value: JsonValue): { ok: false; error: RecordFailure } {
  return fail(
    'record_not_object',
    `The record is ${describeType(value)}, not an object; send one tool call or one whole message per record.`,
  );
}

function unknownEnvelope(value: JsonObject): { ok: false; error: RecordFailure } {
  return fail(
    'record_unknown_envelope',
    `The object matches none of the accepted envelopes (keys seen: ${quoteKeys(value)}). Accepted: ${ACCEPTED_SHAPES}.`,
  );
}
