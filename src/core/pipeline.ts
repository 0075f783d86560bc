/**
 * One record's way through the core: record text -> envelope -> its calls -> arguments -> RT-TOOL-8 ->
 * validation -> one output record per call. Split in two halves so the worker can look each tool's schema up
 * (asynchronously, from the registry) between them: {@link readCalls} needs no schema, {@link processCall}
 * needs the compiled tool.
 */
import { ERROR_CODES, type ErrorCode } from './shared/codes.js';
import { truncate } from './shared/text.js';
import { decodeRecord, parseArguments, type CallSlot, type RecordCalls } from './records/envelope.js';
import type { JsonValue } from './shared/json.js';
import { DEFAULT_NORMALIZE_OPTIONS, mayHoldReferences, normalizeArguments, type NormalizeOptions } from './rule/normalize.js';
import {
  DEFAULT_RECORD_LIMITS,
  decodeRecordBytes,
  parseRecordText,
  type RecordFailure,
  type RecordLimits,
  type RecordResult,
} from './records/bytes.js';
import type { PipelineSettings } from './records/settings.js';
import type { CompiledTool } from './schema/tool.js';
import type { DecodedCall, Diagnostic, OutputRecord } from './shared/types.js';

export interface PipelineOptions {
  readonly limits: RecordLimits;
  readonly normalize: NormalizeOptions;
  readonly entityExemptions: EntityExemptions;
}

/**
 * Operator opt-out from entity decoding (beyond the rule): whole tools, or single parameters of a tool.
 * Written `tool` or `tool/parameter` in configuration (tool names cannot contain `/` in MCP or OpenAI).
 */
export interface EntityExemptions {
  readonly tools: ReadonlySet<string>;
  readonly parameters: ReadonlyMap<string, ReadonlySet<string>>;
}

export const NO_EXEMPTIONS: EntityExemptions = Object.freeze({
  tools: new Set<string>(),
  parameters: new Map<string, ReadonlySet<string>>(),
});

export const DEFAULT_PIPELINE_OPTIONS: PipelineOptions = Object.freeze({
  limits: DEFAULT_RECORD_LIMITS,
  normalize: DEFAULT_NORMALIZE_OPTIONS,
  entityExemptions: NO_EXEMPTIONS,
});

export type { PipelineSettings };

/** Builds {@link PipelineOptions}: the one place that knows how the settings combine (one depth bound for both stages). */
export function pipelineOptions(settings: PipelineSettings = {}): PipelineOptions {
  const maxDepth = settings.maxDepth ?? DEFAULT_RECORD_LIMITS.maxDepth;
  return {
    limits: { maxRecordBytes: settings.maxRecordBytes ?? DEFAULT_RECORD_LIMITS.maxRecordBytes, maxDepth },
    normalize: {
      ...DEFAULT_NORMALIZE_OPTIONS,
      deep: settings.deep ?? false,
      maxDepth,
      maxEntityPasses: settings.maxEntityPasses ?? DEFAULT_NORMALIZE_OPTIONS.maxEntityPasses,
    },
    entityExemptions: parseEntityExemptions(settings.entityExempt ?? []),
  };
}

/** Parses `tool` and `tool/parameter` entries. */
export function parseEntityExemptions(entries: readonly string[]): EntityExemptions {
  const tools = new Set<string>();
  const parameters = new Map<string, Set<string>>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const slash = entry.indexOf('/');
    if (slash === -1) {
      tools.add(entry);
      continue;
    }
    const tool = entry.slice(0, slash);
    const set = parameters.get(tool) ?? new Set<string>();
    set.add(entry.slice(slash + 1));
    parameters.set(tool, set);
  }
  return { tools, parameters };
}

/** Finds a tool's compiled schema by name; undefined when no such tool is known. */
export type ToolLookup = (name: string) => CompiledTool | undefined;

/**
 * The whole chain for callers that hold their tools in memory (`normalize`, `replay`, the library): one record,
 * as bytes (a file, a message) or as JSON text, to its output records: one per call it holds, in order (a
 * whole message fans out), or one dead letter when it cannot be read at all. Never throws on data.
 */
export function processRecord(
  input: Uint8Array | string,
  tools: ToolLookup,
  options: PipelineOptions = DEFAULT_PIPELINE_OPTIONS,
): OutputRecord[] {
  let text: string;
  let parsed: RecordResult;
  if (typeof input === 'string') {
    text = input;
    parsed = parseRecordText(input, options.limits);
  } else {
    const decoded = decodeRecordBytes(input, options.limits);
    if (!decoded.ok) return [unreadableRecord(decoded.error)];
    text = decoded.text;
    parsed = decoded;
  }
  if (!parsed.ok) return [unreadableRecord(parsed.error)];
  const read = readCalls(parsed.value);
  if (!read.ok) return [unreadableRecord(read.error)];
  const references = mayHoldReferences(text);
  return read.calls.map((slot) =>
    slot.read.ok
      ? processCall(slot.read.call, tools(slot.read.call.tool), options, undefined, references)
      : unreadableRecord(slot.read.error),
  );
}

export type { CallSlot };
export { mayHoldReferences };
export type ReadCallsResult = RecordCalls;

/**
 * The envelope half: which calls does this record hold? A failure here is a record that cannot be processed at
 * all; a call of a whole message that cannot be read is a failed slot beside its siblings.
 */
export function readCalls(value: JsonValue): ReadCallsResult {
  return decodeRecord(value);
}

/**
 * The schema half: parse, normalize and validate the arguments of a decoded call against its tool.
 * `unknownReason`, for a tool that is undefined, says why no schema can exist for it when there is more to say
 * than "none is registered" (a name no registry subject can have, say). `referencesPossible` false says the
 * record's text holds no `&` ({@link mayHoldReferences}), which spares the entity walk.
 */
export function processCall(
  call: DecodedCall,
  tool: CompiledTool | undefined,
  options: PipelineOptions = DEFAULT_PIPELINE_OPTIONS,
  unknownReason?: string,
  referencesPossible = true,
): OutputRecord {
  const parsed = parseArguments(call.rawArguments, options.limits.maxDepth);
  if (call.flaggedInvalid !== undefined && (!parsed.ok || typeof call.rawArguments !== 'string')) {
    const ours = typeof call.rawArguments === 'string' && !parsed.ok ? parsed.diagnostic : undefined;
    return failed(call, asJson(call.rawArguments), flaggedDiagnostic(call, ours));
  }
  if (!parsed.ok) return failed(call, asJson(call.rawArguments), parsed.diagnostic);
  if (tool === undefined) return failed(call, parsed.value, unknownTool(call.tool, unknownReason));
  if (!tool.usable) return failed(call, parsed.value, tool.diagnostic);

  const exemptions = options.entityExemptions;
  const exempt = exemptions.tools.has(call.tool) || exemptions.parameters.has(call.tool);
  const normalizeOptions: NormalizeOptions = exempt
    ? {
        ...options.normalize,
        skipEntities: exemptions.tools.has(call.tool),
        entityExemptParameters: exemptions.parameters.get(call.tool) ?? new Set(),
      }
    : options.normalize;
  const references = referencesPossible && (typeof call.rawArguments !== 'string' || mayHoldReferences(call.rawArguments));
  const result = normalizeArguments(parsed.value, tool.plan, normalizeOptions, references);
  const errors = tool.validate(result.arguments);
  const valid = errors.length === 0;
  // Written out field by field: an object spread here costs more than the whole validation step.
  return {
    id: call.id,
    tool: call.tool,
    format: call.format,
    arguments: result.arguments,
    valid,
    disposition: valid ? 'normalized' : 'rejected',
    errors,
    repairs: result.repairs,
    passThroughs: result.passThroughs,
  };
}

/** The output for a record that could not be read as a call at all. */
export function unreadableRecord(error: RecordFailure): OutputRecord {
  return {
    id: null,
    tool: null,
    format: null,
    arguments: null,
    valid: false,
    disposition: 'dead_letter',
    errors: [{ code: error.code, path: '', message: error.message, hint: RECORD_HINTS[error.code] ?? GENERIC_RECORD_HINT }],
    repairs: [],
    passThroughs: [],
  };
}

function failed(call: DecodedCall, args: JsonValue | null, diagnostic: Diagnostic): OutputRecord {
  return {
    id: call.id,
    tool: call.tool,
    format: call.format,
    arguments: args,
    valid: false,
    disposition: ERROR_CODES[diagnostic.code].disposition,
    errors: [diagnostic],
    repairs: [],
    passThroughs: [],
  };
}

/**
 * A call its producer reported unreadable (LangChain's `InvalidToolCall`): our own reading of the arguments
 * (when there was text to read), with the producer's error beside it in the message and the details.
 */
function flaggedDiagnostic(call: DecodedCall, ours: Diagnostic | undefined): Diagnostic {
  const upstream = call.flaggedInvalid?.error ?? null;
  const said =
    upstream === null ? 'LangChain reported the call invalid' : `LangChain reported: ${truncate(upstream, MAX_QUOTED_UPSTREAM + 1)}`;
  const base: Diagnostic = ours ?? {
    code: 'arguments_not_json',
    path: '',
    message: 'The call carries no arguments text.',
    hint: 'Send the arguments the model produced as one JSON object in valid JSON text.',
  };
  return { ...base, message: `${base.message.replace(/\.$/, '')} (${said})`, details: { ...base.details, upstreamError: upstream } };
}

/**
 * Longest part of a producer's own error quoted in a message, in UTF-16 code units (the details hold it whole): a
 * longer one is cut to it and an ellipsis.
 */
const MAX_QUOTED_UPSTREAM = 200;

/** Longest tool name quoted in a message, in UTF-16 code units: a longer one is cut to 80 and an ellipsis. */
const MAX_QUOTED_NAME = 81;

function unknownTool(name: string, reason: string | undefined): Diagnostic {
  const quoted = truncate(name, MAX_QUOTED_NAME);
  return {
    code: 'tool_unknown',
    path: '',
    message: reason === undefined ? `No tool named "${quoted}" is known.` : `No tool named "${quoted}" can be known: ${reason}.`,
    hint: 'Call one of the tools you were given, with its exact name; do not invent tool names.',
    details: { tool: name },
  };
}

/** The arguments as sent, for the output record; `undefined` (absent) becomes null. */
function asJson(raw: unknown): JsonValue | null {
  return raw === undefined ? null : (raw as JsonValue);
}

const GENERIC_RECORD_HINT = 'Send one JSON object per record in one of the supported envelopes.';

const RECORD_HINTS: Partial<Record<ErrorCode, string>> = {
  record_not_json: 'Send one complete JSON object per record (JSON Lines: one object per line).',
  record_not_object: 'Wrap the call in a JSON object in one of the supported envelopes.',
  record_unknown_envelope:
    'Use one of the supported envelopes (README "Envelopes"): one call (canonical, OpenAI, Anthropic, ' +
    'MCP, Gemini, Bedrock, Mistral, Ollama, AI SDK, LangChain), or a whole assistant message holding calls.',
  record_no_tool_calls:
    'Publish assistant messages that hold tool calls (or the calls themselves); a message with only text has nothing to run.',
  record_custom_tool_call:
    'Route custom (grammar-defined) tool calls to their own executor; publish function_call items, whose arguments are JSON, here.',
  record_too_many_calls: 'Split the message: publish its calls as separate records, or fewer calls per message.',
  record_missing_tool_name: "Name the tool being called in the envelope's name field.",
  record_missing_arguments:
    "Send the arguments the model produced in the envelope's arguments field " +
    '("{}" when the tool takes none); publish calls, never tool definitions.',
  record_too_large: 'Send smaller arguments, or raise the configured record size limit.',
  record_too_deep: 'Flatten the arguments, or raise the configured depth limit.',
  record_invalid_encoding: 'Encode records as UTF-8 text.',
};
