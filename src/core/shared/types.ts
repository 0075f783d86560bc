import type { Disposition, ErrorCode } from './codes.js';
import type { JsonObject, JsonValue } from './json.js';

/** The envelope formats the decoder recognises (docs/envelopes.md; detection order in records/envelopes/detect.ts). */
export const ENVELOPE_FORMATS = [
  'canonical',
  'openai_chat',
  'openai_responses',
  'anthropic',
  'mcp',
  'gemini',
  'bedrock',
  'ollama',
  'mistral',
  'ai_sdk',
  'langchain',
  'gemini_python',
  'openai_function_call',
] as const;
export type EnvelopeFormat = (typeof ENVELOPE_FORMATS)[number];

/**
 * One error, written for an agent to act on: a stable `code`, the JSON Pointer `path` of the value concerned
 * (`""` is the arguments object itself), a plain `message` and a `hint` saying what to do.
 */
export interface Diagnostic {
  code: ErrorCode;
  path: string;
  message: string;
  hint: string;
  /** Machine-readable details (allowed values, the bound crossed, the missing property...). */
  details?: Record<string, JsonValue>;
}

export const REPAIR_KINDS = ['json_decoded', 'entities_decoded'] as const;
export type RepairKind = (typeof REPAIR_KINDS)[number];

/** A change the normalizer made, at a JSON Pointer into the arguments. */
export interface Repair {
  pointer: string;
  kind: RepairKind;
}

/**
 * Why a string parameter was not JSON-decoded where a repair was conceivable. Its text is a JSON list or map,
 * but its types include `string` (`string_declared`), or it declares no `array`/`object` or is not in the schema
 * at all (`not_declared`); or it declares a container, and the text is not JSON, parsed to the wrong shape, or
 * nests deeper than the configured bound, or holds a number a double cannot carry (`number_out_of_range`, see
 * `NumberProblem`). A plain string in a parameter that declares no container is none.
 */
export const PASS_THROUGH_REASONS = [
  'string_declared',
  'not_declared',
  'not_json',
  'shape_mismatch',
  'too_deep',
  'number_out_of_range',
] as const;
export type PassThroughReason = (typeof PASS_THROUGH_REASONS)[number];

/** A string parameter the JSON-decoding repair could have changed and left alone, and which of the rule's conditions failed. */
export interface PassThrough {
  pointer: string;
  reason: PassThroughReason;
}

/** A tool call as an envelope carried it, before the arguments are parsed or normalized. */
export interface DecodedCall {
  format: EnvelopeFormat;
  /** The call id from the envelope, or null when it carries none. */
  id: string | null;
  tool: string;
  /** The arguments as sent: an object, JSON text, or anything else the envelope held (undefined when absent). */
  rawArguments: unknown;
  /** Schema pin named by the event, when it names one. */
  schemaVersion?: number;
  /**
   * Present when the producer itself reported the call unreadable (LangChain's `InvalidToolCall`), with its
   * error text (null when it gave none): the call is rejected unless its arguments text parses after all.
   */
  flaggedInvalid?: { readonly error: string | null };
}

/** What became of one tool call (one per call of an input record; one for a record that could not be read). */
export interface OutputRecord {
  id: string | null;
  tool: string | null;
  format: EnvelopeFormat | null;
  /** The normalized arguments; the value as sent when it is not an object; null when nothing could be read. */
  arguments: JsonObject | JsonValue | null;
  valid: boolean;
  disposition: Disposition;
  errors: Diagnostic[];
  repairs: Repair[];
  passThroughs: PassThrough[];
}

export type { JsonObject, JsonValue };
