/**
 * Loads tool definitions from a directory: one `<tool>.json` per tool (format in README "Tool definitions").
 * A file that cannot be used is reported by name and its tool is kept as unusable, so calls to it get
 * `tool_schema_unusable` while every other tool keeps working.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tryParseJson } from '../../core/shared/json.js';
import { compileTool, unusableTool, type CompiledTool } from '../../core/schema/tool.js';
import { parseToolDefinition, type ToolDefinition } from '../../core/schema/tool-definition.js';
import type { SchemaCompiler } from '../../core/validation/validate.js';

export interface SchemaDirProblem {
  readonly file: string;
  readonly message: string;
}

export interface LoadedSchemaDir {
  readonly tools: ReadonlyMap<string, CompiledTool>;
  readonly definitions: readonly { file: string; definition: ToolDefinition }[];
  readonly problems: readonly SchemaDirProblem[];
}

/** Reads every `*.json` file directly in `dir`, in file-name order. Throws only when `dir` cannot be read. */
export async function loadSchemaDir(dir: string, compiler: SchemaCompiler): Promise<LoadedSchemaDir> {
  const files = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => entry.name)
    .sort();
  const tools = new Map<string, CompiledTool>();
  const definitions: { file: string; definition: ToolDefinition }[] = [];
  const problems: SchemaDirProblem[] = [];
  for (const file of files) {
    const stem = basename(file, '.json');
    const parsed = tryParseJson(await readFile(join(dir, file), 'utf8'));
    if (!parsed.ok) {
      problems.push({ file, message: `not JSON: ${parsed.reason}` });
      tools.set(stem, unusableTool(stem, `its definition file ${file} is not JSON`));
      continue;
    }
    const read = parseToolDefinition(parsed.value, stem);
    if (!read.ok) {
      problems.push({ file, message: read.reason });
      tools.set(stem, unusableTool(stem, `its definition file ${file} is not usable (${read.reason})`));
      continue;
    }
    const { definition } = read;
    if (tools.has(definition.name)) {
      problems.push({ file, message: `defines tool "${definition.name}" again; the first definition is kept` });
      continue;
    }
    const tool = compileTool(definition, compiler);
    if (!tool.usable) problems.push({ file, message: tool.diagnostic.message });
    tools.set(definition.name, tool);
    definitions.push({ file, definition });
  }
  return { tools, definitions, problems };
}
