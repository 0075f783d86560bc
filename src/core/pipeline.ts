/**
 * One record's way through the core: record text -> envelope -> its calls -> arguments -> RT-TOOL-8 ->
 * validation -> one output record per call. Split in two halves so the worker can look each tool's schema up
 * (asynchronously, from the registry) between them: {@link readRecord} needs no schema, {@link finishRecord}
 * (and {@link finishMessages}, the worker's) needs the compiled tools. Every caller runs these two.
 */
import { ERROR_CODES, type ErrorCode } from './shared/codes.js';
import { truncate } from './shared/text.js';
import { decodeRecord, parseArguments, type CallSlot } from './records/envelope.js';
import { buildBoundedOutput, type BoundedOutput, type InputMessage, type OutputTarget } from './records/output.js';
import { unwrapWireFormat } from './records/wire.js';
import type { JsonValue } from './shared/json.js';
import { DEFAULT_NORMALIZE_OPTIONS, mayHoldReferences, normalizeArguments, type NormalizeOptions } from './rule/normalize.js';
import { DEFAULT_RECORD_LIMITS, decodeRecordBytes, parseRecordText, type RecordFailure, type RecordLimits } from './records/bytes.js';
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

/**
 * What looking a call's tool up gave: the compiled tool; undefined when none is known; an {@link UnknownTool}
 * when the schema source says why none can be (a name no registry subject can have, say).
 */
export type FoundTool = CompiledTool | UnknownTool | undefined;

/** A tool no schema can exist for, and why (more than "none is registered"). */
export interface UnknownTool {
  readonly unknownReason: string;
}

/** The compiled tool of a lookup's answer, when there is one. */
export function compiledTool(found: FoundTool): CompiledTool | undefined {
  return found === undefined || 'unknownReason' in found ? undefined : found;
}

/** Finds a call's tool by name and pinned schema version (undefined: latest). */
export type ToolLookup = (name: string, version: number | undefined) => FoundTool;

/**
 * A record read into its calls, with the facts about it the second half needs: `message`, a whole message whose
 * calls fan out (each output says where its call sits); `references`, false when the record's text holds no `&`
 * ({@link mayHoldReferences}), which spares every entity walk. What each call needs is in its slot: the tool
 * name and the pinned schema version (`slot.read.call.tool`, `.schemaVersion`).
 */
export interface RecordRead {
  readonly ok: true;
  readonly message: boolean;
  readonly references: boolean;
  readonly calls: readonly CallSlot[];
}

/** A record that cannot be read as calls at all: one dead letter. */
export interface RecordUnreadable {
  readonly ok: false;
  readonly error: RecordFailure;
}

export type ReadRecordResult = RecordRead | RecordUnreadable;

const TOMBSTONE: RecordUnreadable = Object.freeze({
  ok: false,
  error: Object.freeze({ code: 'record_not_json', message: 'The record has no value (a tombstone).' }),
});

/**
 * The first half of a record's way: a Kafka value or a file line (bytes: a Confluent wire-format header is
 * unwrapped, then UTF-8 within the limits), JSON text, or null (a tombstone), to the calls it holds. Never
 * throws on data.
 */
export function readRecord(input: Uint8Array | string | null, limits: RecordLimits = DEFAULT_RECORD_LIMITS): ReadRecordResult {
  if (input === null) return TOMBSTONE;
  let text: string;
  let value: JsonValue;
  if (typeof input === 'string') {
    const parsed = parseRecordText(input, limits);
    if (!parsed.ok) return parsed;
    text = input;
    value = parsed.value;
  } else {
    // JSON text never starts with a zero byte: only a record that does is in the wire format.
    let payload = input;
    if (input[0] === 0) {
      const wire = unwrapWireFormat(input);
      if (!wire.ok) return wire;
      payload = wire.payload;
    }
    const decoded = decodeRecordBytes(payload, limits);
    if (!decoded.ok) return decoded;
    text = decoded.text;
    value = decoded.value;
  }
  const read = decodeRecord(value);
  if (!read.ok) return read;
  // Scanned on the decoded text: cheaper than on the bytes.
  return { ok: true, message: read.message, references: mayHoldReferences(text), calls: read.calls };
}

/** Each call's tool, looked up synchronously (undefined for a call that could not be read). */
export function lookupTools(read: RecordRead, lookup: ToolLookup): FoundTool[] {
  return read.calls.map((slot) => (slot.read.ok ? lookup(slot.read.call.tool, slot.read.call.schemaVersion) : undefined));
}

/**
 * The second half: a read record's calls, given their tools (`tools[i]` for `read.calls[i]`), to one output
 * record each, in order; an unreadable record to its one dead letter. Never throws on data.
 */
export function finishRecord(
  read: ReadRecordResult,
  tools: readonly FoundTool[],
  options: PipelineOptions = DEFAULT_PIPELINE_OPTIONS,
): OutputRecord[] {
  if (!read.ok) return [unreadableRecord(read.error)];
  const outputs = new Array<OutputRecord>(read.calls.length);
  for (let i = 0; i < outputs.length; i++) outputs[i] = finishCall(read, i, tools[i], options);
  return outputs;
}

/** The output record of a read record's call `i`. */
function finishCall(read: RecordRead, i: number, tool: FoundTool, options: PipelineOptions): OutputRecord {
  const slot = read.calls[i] as CallSlot;
  return slot.read.ok ? processCall(slot.read.call, tool, options, read) : unreadableRecord(slot.read.error);
}

/**
 * {@link finishRecord}, each output record then built into the message the worker publishes, within the output
 * bound ({@link buildBoundedOutput}): `outputs[i]` for `read.calls[i]` (one for an unreadable record).
 */
export function finishMessages(
  input: InputMessage,
  read: ReadRecordResult,
  tools: readonly FoundTool[],
  options: PipelineOptions,
  target: OutputTarget,
): BoundedOutput[] {
  if (!read.ok) return [buildBoundedOutput(input, unreadableRecord(read.error), undefined, undefined, target)];
  const outputs = new Array<BoundedOutput>(read.calls.length);
  for (let i = 0; i < outputs.length; i++) {
    const slot = read.calls[i] as CallSlot;
    const tool = tools[i];
    // A slot is where its call sits (index, shared id): the fan-out of a whole message's output, as it is.
    const fanOut = read.message ? slot : undefined;
    outputs[i] = buildBoundedOutput(input, finishCall(read, i, tool, options), compiledTool(tool)?.identity, slot.raw, target, fanOut);
  }
  return outputs;
}

/**
 * The whole chain for callers that hold their tools in memory (`normalize`, `replay`, the library):
 * {@link readRecord} then {@link finishRecord}: one output per call the record holds, in order (a whole message
 * fans out), or one dead letter when it cannot be read at all. Never throws on data.
 */
export function processRecord(
  input: Uint8Array | string,
  tools: ToolLookup,
  options: PipelineOptions = DEFAULT_PIPELINE_OPTIONS,
): OutputRecord[] {
  const read = readRecord(input, options.limits);
  if (!read.ok) return [unreadableRecord(read.error)];
  // finishRecord with each tool looked up as its call is finished: no list of tools in between.
  const outputs = new Array<OutputRecord>(read.calls.length);
  for (let i = 0; i < outputs.length; i++) {
    const slot = read.calls[i] as CallSlot;
    outputs[i] = finishCall(read, i, slot.read.ok ? tools(slot.read.call.tool, slot.read.call.schemaVersion) : undefined, options);
  }
  return outputs;
}

export type { CallSlot, OutputTarget };
export { mayHoldReferences };

/** What a call's record says when nothing is known of it: any string may hold a character reference. */
const ANY_RECORD: Pick<RecordRead, 'references'> = Object.freeze({ references: true });

/**
 * One call of a read record against its tool: parse, normalize and validate the arguments. The record's facts
 * come with it: `references` false (its text holds no `&`) spares the entity walk.
 */
export function processCall(
  call: DecodedCall,
  found: FoundTool,
  options: PipelineOptions = DEFAULT_PIPELINE_OPTIONS,
  record: Pick<RecordRead, 'references'> = ANY_RECORD,
): OutputRecord {
  const parsed = parseArguments(call.rawArguments, options.limits.maxDepth);
  if (call.flaggedInvalid !== undefined && (!parsed.ok || typeof call.rawArguments !== 'string')) {
    const ours = typeof call.rawArguments === 'string' && !parsed.ok ? parsed.diagnostic : undefined;
    return failed(call, asJson(call.rawArguments), flaggedDiagnostic(call, ours));
  }
  if (!parsed.ok) return failed(call, asJson(call.rawArguments), parsed.diagnostic);
  if (found === undefined) return failed(call, parsed.value, unknownTool(call.tool, undefined));
  if ('unknownReason' in found) return failed(call, parsed.value, unknownTool(call.tool, found.unknownReason));
  const tool = found;
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
  const mayHold = record.references && (typeof call.rawArguments !== 'string' || mayHoldReferences(call.rawArguments));
  const result = normalizeArguments(parsed.value, tool.plan, normalizeOptions, mayHold);
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
    'Use one of the supported envelopes (docs/envelopes.md): one call (canonical, OpenAI, Anthropic, ' +
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
