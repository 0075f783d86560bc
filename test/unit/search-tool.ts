/** The `search_issues` tool the pipeline and worker unit tests share: a required string, an array of strings, nothing else. */
import { compileTool, type CompiledTool, type SchemaIdentity } from '../../src/core/schema/tool.js';
import { parseToolDefinition } from '../../src/core/schema/tool-definition.js';
import { createSchemaCompiler } from '../../src/core/validation/validate.js';

export function searchTool(identity?: SchemaIdentity): CompiledTool {
  const parsed = parseToolDefinition(
    {
      name: 'search_issues',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, labels: { type: 'array', items: { type: 'string' } } },
        required: ['query'],
        additionalProperties: false,
      },
    },
    'search_issues',
  );
  if (!parsed.ok) throw new Error(parsed.reason);
  return compileTool(parsed.definition, createSchemaCompiler(), identity);
}
