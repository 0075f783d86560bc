/**
 * `import { createNormalizer } from 'toolcall-normalizer'`: the core in process. Every result comes from
 * `processRecord`: the core's two halves (`readRecord`, `finishRecord`) that the `normalize` command, `replay`
 * and the worker run, so the library, the CLI and the worker cannot disagree (docs/library.md).
 */
import type { CompiledTool } from '../core/schema/tool.js';
import type { OutputRecord } from '../core/shared/types.js';
import { runRecord } from './run.js';
import { checkedPipelineOptions, type RuleOptions } from './options.js';
import { loadTools, sharedCompiler, ToolCache, type ToolDefinitionInput, type ToolProblem, type ToolsInput } from './tools.js';

export type { RuleOptions } from './options.js';
export type { ToolDefinitionInput, ToolProblem, ToolsInput } from './tools.js';
export type {
  Diagnostic,
  EnvelopeFormat,
  JsonObject,
  JsonValue,
  OutputRecord,
  PassThrough,
  PassThroughReason,
  Repair,
  RepairKind,
} from '../core/shared/types.js';
export type { Disposition, ErrorCode } from '../core/shared/codes.js';

/** Options of {@link createNormalizer}: the tool definitions, and the rule's options as the `normalize` command has them. */
export interface NormalizerOptions extends RuleOptions {
  /** The tools calls may name, in any form the schema directory accepts (see {@link ToolsInput}). */
  readonly tools: ToolsInput;
}

/** What the rule and validation made of one call's arguments: an {@link OutputRecord} without the envelope's fields. */
export type ArgumentsResult = Pick<OutputRecord, 'arguments' | 'valid' | 'disposition' | 'errors' | 'repairs' | 'passThroughs'>;

/** The normalizer {@link createNormalizer} returns. */
export interface Normalizer {
  /**
   * Decodes one record and returns an output record for each call it holds, exactly as the `normalize` command
   * prints them (without `line`). The record is an envelope object (any of the supported envelopes,
   * docs/envelopes.md), its JSON text (a string), or its UTF-8 bytes (an `ArrayBuffer`, `SharedArrayBuffer` or any
   * view on one; a detached buffer is `record_not_json`).
   * Never throws on data: whatever is not JSON, not an object, too large or too deep (for objects: cycles,
   * BigInts, functions too) gives records with the command's error codes.
   */
  normalize(input: unknown): OutputRecord[];
  /**
   * Applies the rule to arguments a caller already holds for one of the normalizer's tools (an object, or its
   * JSON text), and validates the result. Equivalent to `normalize({ tool, arguments })`.
   */
  normalizeArguments(tool: string, args: unknown): ArgumentsResult;
  /** The names of the tools given, usable or not, in the order given. */
  readonly tools: readonly string[];
  /** The definitions that cannot be used, reported once at creation; their calls get `tool_schema_unusable`. */
  readonly problems: readonly ToolProblem[];
}

/**
 * Creates a normalizer over a fixed set of tools. Each definition is compiled once, here.
 *
 * @throws TypeError when a definition has no name, a name is defined twice, or an option is unknown or of the
 *   wrong type; RangeError when a limit is not a positive integer (or `maxDepth` is over 1000). A definition that
 *   is present but unusable does not throw: it is listed in {@link Normalizer.problems}.
 */
export function createNormalizer(options: NormalizerOptions): Normalizer {
  const where = 'createNormalizer';
  if (typeof options !== 'object' || (options as unknown) === null) throw new TypeError(`${where}: expects an options object with "tools"`);
  const pipeline = checkedPipelineOptions(options, ['tools'], where);
  const loaded = loadTools(options.tools, sharedCompiler(), where);
  const lookup = (name: string): CompiledTool | undefined => loaded.tools.get(name);
  const normalize = (input: unknown): OutputRecord[] => runRecord(input, lookup, pipeline);
  return Object.freeze({
    normalize,
    normalizeArguments: (tool: string, args: unknown) => argumentsResult(normalize({ tool, arguments: args })),
    tools: Object.freeze([...loaded.tools.keys()]),
    problems: Object.freeze([...loaded.problems]),
  });
}

/** Options of {@link normalizeToolArguments}. */
export interface ToolArgumentsOptions extends RuleOptions {
  /**
   * The tool's name, for a bare schema (a definition names itself): used in messages and by `entityExempt`.
   * Default `"tool"`.
   */
  readonly toolName?: string;
}

/**
 * Applies the rule to arguments a caller already holds, against one tool's schema (a bare JSON Schema or a tool
 * definition in any form {@link ToolDefinitionInput} names), and validates the result. The schema is compiled
 * once per distinct text and kept (the 256 most recent). Never throws on data; a schema that cannot be used gives
 * `tool_schema_unusable`.
 *
 * @throws TypeError or RangeError for a bad option, as {@link createNormalizer}.
 */
export function normalizeToolArguments(schema: ToolDefinitionInput, args: unknown, options: ToolArgumentsOptions = {}): ArgumentsResult {
  const where = 'normalizeToolArguments';
  const pipeline = checkedPipelineOptions(options, ['toolName'], where);
  const fallbackName = options.toolName ?? 'tool';
  if (typeof fallbackName !== 'string' || fallbackName === '') throw new TypeError(`${where}: "toolName" must be a non-empty string`);
  const tool = definitionCache().definition(fallbackName, schema);
  const name = tool.usable ? tool.definition.name : tool.name;
  return argumentsResult(runRecord({ tool: name, arguments: args }, (called) => (called === name ? tool : undefined), pipeline));
}

function argumentsResult(records: OutputRecord[]): ArgumentsResult {
  // A canonical envelope holds exactly one call.
  const record = records[0] as OutputRecord;
  const { arguments: args, valid, disposition, errors, repairs, passThroughs } = record;
  return { arguments: args, valid, disposition, errors, repairs, passThroughs };
}

let cache: ToolCache | undefined;

/** Definitions handed to normalizeToolArguments, compiled once per text. */
function definitionCache(): ToolCache {
  cache ??= new ToolCache();
  return cache;
}
