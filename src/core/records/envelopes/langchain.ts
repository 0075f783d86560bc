/**
 * LangChain's `ToolCall` (`{"name", "args": {...}, "id", "type": "tool_call"}`; `type` is optional in its
 * TypedDict) and `InvalidToolCall` (`"type": "invalid_tool_call"`, `args` the raw text LangChain failed to
 * parse, `error` its reason). An invalid call is flagged so that it is rejected with LangChain's error in the
 * details, unless its arguments text parses after all.
 */
import type { JsonObject } from '../../shared/json.js';
import { truncate } from '../../shared/text.js';
import { makeCall, type EnvelopeResult } from './common.js';

/** Longest upstream error text carried into a diagnostic. */
const MAX_UPSTREAM_ERROR = 1_000;

export function isLangChainCall(record: JsonObject): boolean {
  const type = record.type;
  return (
    type === 'tool_call' || type === 'invalid_tool_call' || (type === undefined && record.name !== undefined && record.args !== undefined)
  );
}

export function decodeLangChain(record: JsonObject): EnvelopeResult {
  if (record.type !== 'invalid_tool_call') return makeCall('langchain', record.id, record.name, 'name', record.args, 'is missing');
  // `args` is the text as the model wrote it (or null): absent, the call is still rejected, never run with {}.
  const result = makeCall('langchain', record.id, record.name, 'name', record.args ?? null, undefined);
  if (result.ok) {
    const error = record.error;
    result.call.flaggedInvalid = { error: typeof error === 'string' ? truncate(error, MAX_UPSTREAM_ERROR) : null };
  }
  return result;
}
