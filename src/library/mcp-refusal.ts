/** The text of a refused MCP tool call, shared by `normalizeMcpServer` and the MCP proxy so both word it alike. */
import type { OutputRecord } from '../core/shared/types.js';

/** Every diagnostic, with its JSON pointer, code, message and hint, as one text an agent reads. */
export function describeErrors(name: string, record: OutputRecord): string {
  const lines = record.errors.map((error) => {
    const where = error.path === '' ? 'the arguments' : error.path;
    return `- ${where} (${error.code}): ${error.message} Hint: ${error.hint}`;
  });
  return [`Invalid arguments for tool "${name}" (checked against its inputSchema):`, ...lines].join('\n');
}
