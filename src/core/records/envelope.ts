/** Envelope decoding lives in ./envelopes/ (one module per family, detection in detect.ts); this is its entry. */
export {
  decodeEnvelope,
  decodeRecord,
  FORMAT_LABELS,
  MAX_CALLS_PER_RECORD,
  parseArguments,
  type ArgumentsResult,
  type CallSlot,
  type EnvelopeResult,
  type RecordCalls,
} from './envelopes/index.js';
