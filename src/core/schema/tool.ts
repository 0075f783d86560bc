/**
 * A tool ready for the hot path: its normalization plan and its validator, each compiled once.
 */
import { checkSchemaLimits, DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from './limits.js';
import { compileSchemaPlan, type SchemaPlan } from '../rule/plan.js';
import type { ToolDefinition } from './tool-definition.js';
import type { Diagnostic } from '../shared/types.js';
import type { SchemaCompiler } from '../validation/validate.js';
import type { JsonValue } from '../shared/json.js';

export interface SchemaIdentity {
  readonly subject: string;
  readonly version: number;
  readonly id: number;
}

export type CompiledTool =
  | {
      readonly usable: true;
      readonly definition: ToolDefinition;
      readonly plan: SchemaPlan;
      readonly validate: (args: JsonValue) => Diagnostic[];
      /** Where the schema came from, when it came from a registry. */
      readonly identity: SchemaIdentity | undefined;
    }
  | {
      readonly usable: false;
      readonly name: string;
      /** Why calls to this tool cannot be checked (code `tool_schema_unusable`). */
      readonly diagnostic: Diagnostic;
      readonly identity: SchemaIdentity | undefined;
    };

/**
 * Compiles a tool once for the hot path. Every schema, from a directory or the registry, comes through here:
 * one over the size, depth or complexity limit ({@link SchemaLimits}) is refused before anything compiles it, and
 * calls to the tool get `tool_schema_unusable` with a message naming the limit.
 */
export function compileTool(
  definition: ToolDefinition,
  compiler: SchemaCompiler,
  identity?: SchemaIdentity,
  limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
): CompiledTool {
  const violation = checkSchemaLimits(definition.inputSchema, limits);
  if (violation !== undefined) return unusableTool(definition.name, violation.message, identity, violation.details);
  const compiled = compiler.compile(definition.inputSchema);
  if (!compiled.ok) return { usable: false, name: definition.name, diagnostic: compiled.diagnostic, identity };
  return {
    usable: true,
    definition,
    plan: compileSchemaPlan(definition.inputSchema),
    validate: (args) => compiled.validate(args),
    identity,
  };
}

/** A tool whose definition could not even be read (not JSON, not a schema): calls to it are rejected. */
export function unusableTool(name: string, reason: string, identity?: SchemaIdentity, details?: Diagnostic['details']): CompiledTool {
  const diagnostic: Diagnostic = {
    code: 'tool_schema_unusable',
    path: '',
    message: `The schema of tool "${name}" cannot be used: ${reason}.`,
    hint: 'The call cannot be checked until the tool definition is fixed; report this to the tool owner rather than retrying.',
  };
  if (details !== undefined) diagnostic.details = details;
  return { usable: false, name, identity, diagnostic };
}
