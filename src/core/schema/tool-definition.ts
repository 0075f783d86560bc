/**
 * Tool definitions as teams keep them: a bare JSON Schema, or a definition with `name`, `description` and the
 * input schema under `inputSchema` (MCP), `input_schema` (Anthropic) or `parameters` (OpenAI, bare or
 * wrapped as `{"type": "function", "function": {...}}`).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../shared/json.js';

export interface ToolDefinition {
  readonly name: string;
  readonly description: string | undefined;
  readonly inputSchema: JsonObject;
}

export type ToolDefinitionResult = { ok: true; definition: ToolDefinition } | { ok: false; reason: string };

const SCHEMA_KEYS = ['inputSchema', 'input_schema', 'parameters'] as const;

/**
 * Reads one definition. `fallbackName` (the file name without `.json`) names a bare schema, and a definition
 * without a `name`.
 */
export function parseToolDefinition(value: JsonValue, fallbackName: string): ToolDefinitionResult {
  if (!isJsonObject(value)) return { ok: false, reason: 'a tool definition must be a JSON object' };
  const wrapped = value.type === 'function' && isJsonObject(value.function) ? value.function : value;
  const schemaKey = SCHEMA_KEYS.find((key) => Object.hasOwn(wrapped, key));
  if (schemaKey === undefined) {
    // A bare JSON Schema: the file name is the tool name.
    return { ok: true, definition: { name: fallbackName, description: stringOrUndefined(value.description), inputSchema: value } };
  }
  const schema = wrapped[schemaKey];
  if (!isJsonObject(schema)) return { ok: false, reason: `"${schemaKey}" must be a JSON Schema object` };
  const name = wrapped.name ?? fallbackName;
  if (typeof name !== 'string' || name.trim() === '') return { ok: false, reason: '"name" must be a non-empty string' };
  return { ok: true, definition: { name, description: stringOrUndefined(wrapped.description), inputSchema: schema } };
}

function stringOrUndefined(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
