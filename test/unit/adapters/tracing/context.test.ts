/**
 * W3C Trace Context as the worker, the library and the proxy read it (src/adapters/tracing/context.ts): valid
 * parents, absent ones, and every malformed shape the spec names, which start a new root.
 */
import { TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceContext, traceContextFields } from '../../../../src/adapters/tracing/context.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('parseTraceContext', () => {
  it('reads a version 00 traceparent, as text or bytes, with its tracestate', () => {
    for (const value of [`00-${TRACE}-${SPAN}-01`, Buffer.from(`00-${TRACE}-${SPAN}-01`)]) {
      const parsed = parseTraceContext(value, 'vendor=a,other=b');
      expect(parsed.kind).toBe('parent');
      if (parsed.kind !== 'parent') continue;
      expect(parsed.spanContext).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED, isRemote: true });
      expect(parsed.spanContext.traceState?.get('vendor')).toBe('a');
      expect(traceContextFields(parsed.spanContext)).toEqual({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'vendor=a,other=b' });
    }
  });

  it('keeps only the sampled flag, and ignores the extra fields of a later version', () => {
    const parsed = parseTraceContext(`01-${TRACE}-${SPAN}-03-extra`);
    expect(parsed.kind === 'parent' && parsed.spanContext.traceFlags).toBe(TraceFlags.SAMPLED);
    const unsampled = parseTraceContext(`00-${TRACE}-${SPAN}-00`);
    expect(unsampled.kind === 'parent' && formatTraceparent(unsampled.spanContext)).toBe(`00-${TRACE}-${SPAN}-00`);
  });

  it('tells an absent traceparent from a malformed one', () => {
    expect(parseTraceContext(undefined).kind).toBe('none');
    expect(parseTraceContext(null).kind).toBe('none');
    const malformed = [
      '',
      'garbage',
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `ff-${TRACE}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE}-${SPAN}`,
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      'x'.repeat(10_000),
    ];
    for (const value of malformed) expect(parseTraceContext(value).kind, value).toBe('malformed');
    // A repeated header names no single parent.
    expect(parseTraceContext([`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`]).kind).toBe('malformed');
  });
});
