/**
 * Loads tool definitions from a directory: one `<tool>.json` per tool (format in docs/cli.md "Tool definitions").
 * A file that cannot be used (unreadable, not UTF-8, not JSON, not a definition) is reported by name and its tool
 * is kept as unusable, so calls to it get `tool_schema_unusable` while every other tool keeps working. Symbolic
 * links are followed (Kubernetes mounts each ConfigMap key as `<key> -> ..data/<key>`), but not out of the
 * directory, and a loop is refused by name.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { ioReason } from './io-reason.js';
import { DEFAULT_SCHEMA_LIMITS } from '../../core/schema/limits.js';
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

/** Largest definition file read: loose, so that the schema limits of `compileTool` speak first. */
const MAX_DEFINITION_FILE_BYTES = 16 * DEFAULT_SCHEMA_LIMITS.maxSchemaBytes;

/** Reads every `*.json` entry directly in `dir`, in file-name order. Throws only when `dir` cannot be read. */
export async function loadSchemaDir(dir: string, compiler: SchemaCompiler): Promise<LoadedSchemaDir> {
  const root = await realpath(dir);
  const files = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.name.endsWith('.json'))
    .map((entry) => entry.name)
    .sort();
  const tools = new Map<string, CompiledTool>();
  const definitions: { file: string; definition: ToolDefinition }[] = [];
  const problems: SchemaDirProblem[] = [];
  for (const file of files) {
    const stem = basename(file, '.json');
    const text = await readDefinitionFile(root, join(dir, file));
    if (!text.ok) {
      problems.push({ file, message: text.reason });
      tools.set(stem, unusableTool(stem, `its definition file ${file} ${text.reason}`));
      continue;
    }
    const parsed = tryParseJson(text.text);
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

/**
 * The text of one definition file: followed through symbolic links within `root`, a regular file of a bounded
 * size, UTF-8 (a byte order mark dropped, as records have it). Otherwise why not, as a phrase after the file name.
 */
async function readDefinitionFile(root: string, path: string): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  let target: string;
  try {
    target = await realpath(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ELOOP') return { ok: false, reason: 'is a loop of symbolic links: refused' };
    if (code === 'ENOENT') return { ok: false, reason: 'is a symbolic link to nothing (its target does not exist)' };
    return { ok: false, reason: `cannot be read: ${ioReason(error)}` };
  }
  const inside = relative(root, target);
  // `..data/...` is inside (Kubernetes names its directories so); only `..` itself, as a whole segment, leads out.
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return { ok: false, reason: `links out of the directory (to ${target}): refused` };
  try {
    const info = await stat(target);
    if (!info.isFile()) return { ok: false, reason: 'is not a regular file' };
    if (info.size > MAX_DEFINITION_FILE_BYTES) {
      return { ok: false, reason: `is ${info.size} bytes, over the ${MAX_DEFINITION_FILE_BYTES} bytes a definition file may hold` };
    }
    const bytes = await readFile(target);
    try {
      return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      return { ok: false, reason: 'is not UTF-8 text' };
    }
  } catch (error) {
    return { ok: false, reason: `cannot be read: ${ioReason(error)}` };
  }
}
