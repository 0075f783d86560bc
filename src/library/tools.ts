/**
 * Tool definitions handed over in code, read as the schema directory reads its files (docs/cli.md "Tool definitions"):
 * a definition that cannot be used is reported and its tool kept as unusable, so its calls get
 * `tool_schema_unusable`. Unlike a directory, a list has no file names to fall back on, so a definition without a
 * name, or a name given twice, is the caller's mistake and throws.
 */
import { compileTool, unusableTool, type CompiledTool } from '../core/schema/tool.js';
import { parseToolDefinition } from '../core/schema/tool-definition.js';
import { DEFAULT_SCHEMA_LIMITS } from '../core/schema/limits.js';
import { isJsonObject, type JsonValue } from '../core/shared/json.js';
import { createSchemaCompiler, type SchemaCompiler } from '../core/validation/validate.js';
import { toJsonValue } from './json-value.js';

/**
 * One tool definition, in any form the schema directory accepts: an MCP tool `{name, description, inputSchema}`,
 * an Anthropic tool `{name, description, input_schema}`, an OpenAI function `{name, description, parameters}`
 * (bare or wrapped as `{type: "function", function: {...}}`), or, keyed by its name in the object form of
 * {@link ToolsInput}, a bare JSON Schema.
 */
export type ToolDefinitionInput = object;

/**
 * Tool definitions: a list of named definitions, or an object whose keys name them (a key names a bare schema, or
 * a definition without its own `name`, as a file name does in the schema directory).
 */
export type ToolsInput = readonly ToolDefinitionInput[] | Readonly<Record<string, ToolDefinitionInput>>;

/** A tool definition that cannot be used, reported as the `normalize` command reports a file. */
export interface ToolProblem {
  /** The tool's name; its calls get `tool_schema_unusable`. */
  readonly tool: string;
  /** Where the definition was given: `tools[2]`, or `tools["search"]` in the object form. */
  readonly source: string;
  readonly message: string;
}

export interface LoadedTools {
  readonly tools: ReadonlyMap<string, CompiledTool>;
  readonly problems: readonly ToolProblem[];
}

/** Bounds of the copy taken of a definition: loose, so that the schema limits of `compileTool` speak first. */
const DEFINITION_COPY_LIMITS = { maxDepth: 1_000, maxBytes: 16 * DEFAULT_SCHEMA_LIMITS.maxSchemaBytes };

/**
 * Reads and compiles every definition. Throws a TypeError for a definition without a name, a name given twice,
 * or `tools` that is neither a list nor an object.
 */
export function loadTools(tools: unknown, compiler: SchemaCompiler, where: string): LoadedTools {
  let entries: [source: string, fallbackName: string, value: unknown][];
  if (Array.isArray(tools)) entries = tools.map((value: unknown, index) => [`tools[${index}]`, '', value]);
  else if (typeof tools === 'object' && tools !== null)
    entries = Object.entries(tools).map(([key, value]) => [`tools[${JSON.stringify(key)}]`, key, value]);
  else throw new TypeError(`${where}: "tools" must be a list of tool definitions or an object of them keyed by name`);

  const compiled = new Map<string, CompiledTool>();
  const problems: ToolProblem[] = [];
  for (const [source, fallbackName, value] of entries) {
    const tool = readDefinition(value, fallbackName, source, compiler, where);
    const name = tool.usable ? tool.definition.name : tool.name;
    if (compiled.has(name)) throw new TypeError(`${where}: ${source} defines tool "${name}" again; each tool must be defined once`);
    if (!tool.usable) problems.push({ tool: name, source, message: tool.diagnostic.message });
    compiled.set(name, tool);
  }
  return { tools: compiled, problems };
}

function readDefinition(value: unknown, fallbackName: string, source: string, compiler: SchemaCompiler, where: string): CompiledTool {
  const copy = toJsonValue(value, DEFINITION_COPY_LIMITS, 'The definition');
  if (!copy.ok) {
    const name = declaredName(value) ?? fallbackName;
    if (name === '') throw new TypeError(`${where}: ${source} has no tool name, and is not JSON data either (${copy.message})`);
    return unusableTool(name, `its definition (${source}) is not JSON data: ${copy.message}`);
  }
  const read = parseToolDefinition(copy.value, fallbackName);
  if (!read.ok) {
    const name = declaredName(copy.value) ?? fallbackName;
    if (name === '') throw new TypeError(`${where}: ${source} has no tool name (${read.reason})`);
    return unusableTool(name, `its definition (${source}) is not usable (${read.reason})`);
  }
  if (read.definition.name === '') {
    throw new TypeError(
      `${where}: ${source} has no tool name: give it a "name" beside its inputSchema, input_schema or parameters, ` +
        'or pass tools as an object keyed by name',
    );
  }
  return compileTool(read.definition, compiler);
}

/** The `name` a definition gives itself, read without trusting the value (a getter may throw). */
function declaredName(value: unknown): string | undefined {
  try {
    if (!isJsonObject(value)) return undefined;
    const inner = value.function;
    const wrapped = value.type === 'function' && isJsonObject(inner) ? inner : value;
    const name = (wrapped as { name?: JsonValue }).name;
    return typeof name === 'string' && name.trim() !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}

let compiler: SchemaCompiler | undefined;

/** One compiler (one Ajv instance per draft) for the whole process, as ajv advises. */
export function sharedCompiler(): SchemaCompiler {
  compiler ??= createSchemaCompiler();
  return compiler;
}

/**
 * Compiled tools for schemas met at call time (an AI SDK call's tool list, an MCP server's advertised tools, a
 * schema handed to `normalizeToolArguments`): one compile per distinct name and text, the most recent `capacity`
 * kept. Never throws: what cannot be compiled is an unusable tool.
 */
export class ToolCache {
  private readonly entries = new Map<string, CompiledTool>();

  constructor(
    private readonly compiler: SchemaCompiler = sharedCompiler(),
    private readonly capacity = 256,
  ) {}

  /** The tool `name` whose input schema is `schema` (any JavaScript value; unusable when not a schema). */
  schema(name: string, schema: unknown): CompiledTool {
    const copy = toJsonValue(schema, DEFINITION_COPY_LIMITS, 'The input schema');
    if (!copy.ok) return unusableTool(name, copy.message);
    return this.cached(`s${name}\u0000${JSON.stringify(copy.value)}`, () =>
      isJsonObject(copy.value)
        ? compileTool({ name, description: undefined, inputSchema: copy.value }, this.compiler)
        : unusableTool(name, 'its input schema is not a JSON Schema object'),
    );
  }

  /**
   * The tool a definition in any form describes; `fallbackName` names a bare schema or a definition without a
   * name, as a file name does in the schema directory.
   */
  definition(fallbackName: string, value: unknown): CompiledTool {
    const copy = toJsonValue(value, DEFINITION_COPY_LIMITS, 'The definition');
    if (!copy.ok) return unusableTool(declaredName(value) ?? fallbackName, `its definition is not JSON data: ${copy.message}`);
    return this.cached(`d${fallbackName}\u0000${JSON.stringify(copy.value)}`, () => {
      const read = parseToolDefinition(copy.value, fallbackName);
      if (!read.ok) return unusableTool(declaredName(copy.value) ?? fallbackName, `its definition is not usable (${read.reason})`);
      return compileTool(read.definition, this.compiler);
    });
  }

  private cached(key: string, build: () => CompiledTool): CompiledTool {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Re-inserted: the Map's order is then least recently used first.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const tool = build();
    this.entries.set(key, tool);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    return tool;
  }
}
