/**
 * The MCP proxy's spans (docs/tracing.md), with @opentelemetry/api only: one per `tools/call`, a child of the
 * W3C trace context the client passed in the request's `_meta` (`traceparent`, `tracestate`; a new root without
 * one, or with a malformed one), attributed as the worker's call span where that applies (tool name, call id,
 * outcome, each repair and error code as an event, an error status for a refused call). The call goes on with
 * `_meta.traceparent` naming this span, so the upstream server's span is its child. The span ends with the answer.
 * The relay sees only the shape it declares (`CallTracing`); the MCP proxy command wires it in when tracing is on.
 */
import { SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { isJsonObject } from '../../core/shared/json.js';
import type { OutputRecord } from '../../core/shared/types.js';
import { parentContext, parseTraceContext, TRACEPARENT, TRACESTATE, traceContextFields } from './context.js';
import { describeRecord } from './worker-spans.js';

/** A JSON-RPC message as the proxy's relay (src/proxy/relay.ts) passes it. */
type Message = Record<string, unknown>;

export class ProxyTracing {
  readonly #tracer: Tracer;
  readonly #onMalformedContext: () => void;

  constructor(tracer: Tracer, onMalformedContext: () => void) {
    this.#tracer = tracer;
    this.#onMalformedContext = onMalformedContext;
  }

  /** Starts the span of a `tools/call` request. */
  start(message: Message): Call {
    const params = isJsonObject(message.params) ? message.params : {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const traceparent = meta[TRACEPARENT];
    const tracestate = meta[TRACESTATE];
    const parent =
      traceparent === undefined
        ? parseTraceContext(undefined)
        : typeof traceparent === 'string'
          ? parseTraceContext(traceparent, typeof tracestate === 'string' ? tracestate : undefined)
          : ({ kind: 'malformed' } as const);
    if (parent.kind === 'malformed') this.#onMalformedContext();
    const tool = typeof params.name === 'string' ? params.name : undefined;
    const span = this.#tracer.startSpan(
      tool === undefined ? 'tools/call' : `tools/call ${tool}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'jsonrpc.request.id': JSON.stringify(message.id ?? null),
          ...(tool === undefined ? {} : { 'gen_ai.tool.name': tool }),
          ...(parent.kind === 'malformed' ? { 'toolcall.trace_context': 'malformed' } : {}),
        },
      },
      parentContext(parent),
    );
    return new Call(span);
  }
}

/** One traced call, from the client's request to its answer. */
class Call {
  readonly #span: Span;
  #ended = false;

  constructor(span: Span) {
    this.#span = span;
  }

  /** What the proxy made of the call (not called for a tool it does not judge). */
  judged(record: OutputRecord, outcome: 'valid' | 'repaired' | 'refused' | 'forwarded_invalid'): void {
    if (!this.#span.isRecording()) return;
    describeRecord(this.#span, record, undefined);
    this.#span.setAttribute('toolcall.proxy.outcome', outcome);
  }

  /** The request as it goes on: its `_meta` carries this span's trace context. */
  carry(message: Message): Message {
    const params = isJsonObject(message.params) ? message.params : {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    const rest = Object.fromEntries(Object.entries(meta).filter(([k]) => k !== TRACEPARENT && k !== TRACESTATE));
    return { ...message, params: { ...params, _meta: { ...rest, ...traceContextFields(this.#span.spanContext()) } } };
  }

  /** The answer the client gets (from the upstream or the proxy), or why there is none; ends the span. */
  end(answer: Message | string): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    if (span.isRecording()) {
      if (typeof answer === 'string') {
        span.setAttribute('error.type', 'no_answer');
        span.setStatus({ code: SpanStatusCode.ERROR, message: answer });
      } else if (isJsonObject(answer.error)) {
        span.setAttribute('error.type', typeof answer.error.code === 'number' ? String(answer.error.code) : 'error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the call was answered with a JSON-RPC error' });
      } else if (isJsonObject(answer.result) && answer.result.isError === true) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool answered with isError' });
      }
    }
    span.end();
  }
}
