/**
 * A refused MCP tool call, shared by `normalizeMcpServer` and the MCP proxy so both refuse the same calls and word
 * it alike.
 */
import type { ErrorCode } from '../core/shared/codes.js';
import type { OutputRecord } from '../core/shared/types.js';

/** Codes the rule cannot judge a call by: the server answers such a call itself, as it would without us. */
const DEFERRED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'tool_unknown',
  'tool_schema_unusable',
  'arguments_empty',
  'arguments_not_json',
  'arguments_not_object',
]);

/** True when an invalid call goes to the server as sent: a dead letter, or a code the rule cannot judge it by. */
export function deferredToServer(record: OutputRecord): boolean {
  return record.disposition === 'dead_letter' || record.errors.some((error) => DEFERRED.has(error.code));
}

/** Every diagnostic, with its JSON pointer, code, message and hint, as one text an agent reads. */
export function describeErrors(name: string, record: OutputRecord): string {
  const lines = record.errors.map((error) => {
    const where = error.path === '' ? 'the arguments' : error.path;
    return `- ${where} (${error.code}): ${error.message} Hint: ${error.hint}`;
  });
  return [`Invalid arguments for tool "${name}" (checked against its inputSchema):`, ...lines].join('\n');
}
