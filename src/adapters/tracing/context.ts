/**
 * W3C Trace Context (`traceparent`, `tracestate`) read from and written to record headers or an MCP request's
 * `_meta`, with @opentelemetry/api only: the worker, the library and the MCP proxy share it. A value that is not a
 * valid `traceparent` is told apart from an absent one, so callers can count it and start a new root.
 */
import { createTraceState, ROOT_CONTEXT, trace, TraceFlags, type Context, type SpanContext } from '@opentelemetry/api';

/** Header (and `_meta` key) names, lower case as W3C Trace Context writes them. */
export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

/** Longest `tracestate` carried on (W3C: 32 members of at most 256 characters, 512 is what vendors must keep). */
const MAX_TRACESTATE = 8192;

const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** What a carrier held: a remote parent, nothing, or a value that is not a `traceparent` (a new root, counted). */
export type ParentContext =
  { readonly kind: 'parent'; readonly spanContext: SpanContext } | { readonly kind: 'none' } | { readonly kind: 'malformed' };

const NONE: ParentContext = Object.freeze({ kind: 'none' });
const MALFORMED: ParentContext = Object.freeze({ kind: 'malformed' });

/** A header value as records carry it: text, bytes, several (a repeated header), or absent. */
export type CarrierValue = string | Buffer | readonly (string | Buffer)[] | null | undefined;

function text(value: CarrierValue): string | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  // A repeated traceparent has no single parent: W3C says to treat it as invalid.
  return false;
}

/**
 * Parses `traceparent` (and `tracestate`) by W3C Trace Context level 1: version `ff`, an all-zero trace or parent
 * id, upper-case hex, or version 00 with trailing data are malformed; a later version's extra fields are ignored.
 */
export function parseTraceContext(traceparent: CarrierValue, tracestate?: CarrierValue): ParentContext {
  const parent = text(traceparent);
  if (parent === undefined) return NONE;
  if (parent === false || parent.length > 512) return MALFORMED;
  const m = TRACEPARENT_RE.exec(parent.trim());
  if (m === null) return MALFORMED;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return MALFORMED;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return MALFORMED;
  const state = text(tracestate);
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  if (typeof state === 'string' && state.trim() !== '' && state.length <= MAX_TRACESTATE) {
    // The api's own parser: the library and the proxy depend on @opentelemetry/api alone (core's TraceState is the SDK's).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    spanContext.traceState = createTraceState(state.trim());
  }
  return { kind: 'parent', spanContext };
}

/** The context to start a span in: the remote parent's, else the root (a new trace). */
export function parentContext(parent: ParentContext, base: Context = ROOT_CONTEXT): Context {
  return parent.kind === 'parent' ? trace.setSpanContext(base, parent.spanContext) : trace.deleteSpan(base);
}

/** The `traceparent` naming a span (version 00). */
export function formatTraceparent(spanContext: SpanContext): string {
  const flags = spanContext.traceFlags & TraceFlags.SAMPLED ? '01' : '00';
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** `traceparent` and, when there is one, `tracestate` of a span, to write into a record's headers or a `_meta`. */
export function traceContextFields(spanContext: SpanContext): { traceparent: string; tracestate?: string } {
  const state = spanContext.traceState?.serialize();
  return state === undefined || state === ''
    ? { traceparent: formatTraceparent(spanContext) }
    : { traceparent: formatTraceparent(spanContext), tracestate: state };
}
