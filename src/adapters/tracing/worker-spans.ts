/**
 * The worker's spans (docs/tracing.md), from the pipeline's results, with @opentelemetry/api only (the SDK is
 * wired in sdk.ts, loaded only when tracing is on):
 * - one span per call, child of the input record's `traceparent` (a new root when it has none, or a malformed
 *   one), named and attributed by the messaging and generative-AI semantic conventions, with its outcome, each
 *   repair, pass-through and error code as events, and an error status when the call is rejected or dead-lettered;
 *   the call's output carries that span's `traceparent` (and `tracestate`);
 * - one span per partition batch, from processing to its transaction (or offset commit), linking the calls'
 *   spans, with an error status when the delivery fails (an aborted transaction).
 * Argument values, error messages and hints never go into a span: only names, codes, JSON pointers and counts.
 */
import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { SchemaIdentity } from '../../core/schema/tool.js';
import { headerMap, type BoundedOutput, type InputMessage, type OutputMessage } from '../../core/records/output.js';
import { callSpanData } from '../../core/records/call-span.js';
import type { OutputRecord } from '../../core/shared/types.js';
import { parentContext, parseTraceContext, TRACEPARENT, TRACESTATE, traceContextFields } from './context.js';

/** Call spans a batch's span links to; the rest are counted in an attribute. */
export const MAX_BATCH_LINKS = 128;

export interface WorkerTracingOptions {
  readonly groupId: string;
  /** A record's `traceparent` could not be read: its calls start a new trace. */
  readonly onMalformedContext: () => void;
}

/** One partition batch's span and the links it gathers from its calls. */
export class BatchSpan {
  readonly #span: Span;
  #linked = 0;
  #calls = 0;

  constructor(span: Span) {
    this.#span = span;
  }

  /** @internal */
  link(call: Span): void {
    this.#calls++;
    if (!this.#span.isRecording() || this.#linked >= MAX_BATCH_LINKS) return;
    const context = call.spanContext();
    this.#span.addLink({ context } satisfies Link);
    this.#linked++;
  }

  /** The batch ended: `committed` (its outputs delivered), `aborted` (delivery failed: fetched again), or `failed`. */
  end(result: 'committed' | 'aborted' | 'failed', details: { outputs: number; lastOffset: string | undefined; held: boolean }): void {
    const span = this.#span;
    if (span.isRecording()) {
      span.setAttributes({
        'messaging.batch.message_count': this.#calls,
        'toolcall.batch.outputs': details.outputs,
        'toolcall.batch.result': result,
        'toolcall.batch.held': details.held,
        ...(details.lastOffset === undefined ? {} : { 'toolcall.batch.last_offset': Number(details.lastOffset) }),
        ...(this.#calls > this.#linked ? { 'toolcall.batch.links_dropped': this.#calls - this.#linked } : {}),
      });
      if (result !== 'committed') {
        span.setAttribute('error.type', result === 'aborted' ? 'transaction_aborted' : 'batch_failed');
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message:
            result === 'aborted'
              ? 'delivery failed: the transaction (or offset commit) was aborted; the batch is read again'
              : 'batch failed',
        });
      }
    }
    span.end();
  }
}

export class WorkerTracing {
  readonly #tracer: Tracer;
  readonly #options: WorkerTracingOptions;

  constructor(tracer: Tracer, options: WorkerTracingOptions) {
    this.#tracer = tracer;
    this.#options = options;
  }

  /** Starts the span of one partition batch (a root: its records belong to many traces, which it links). */
  batch(topic: string, partition: number, records: number, firstOffset: string | undefined, delivery: string): BatchSpan {
    const attributes: Attributes = {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': topic,
      'messaging.destination.partition.id': String(partition),
      'messaging.consumer.group.name': this.#options.groupId,
      'toolcall.batch.records': records,
      'toolcall.delivery': delivery,
    };
    if (firstOffset !== undefined) attributes['toolcall.batch.first_offset'] = Number(firstOffset);
    return new BatchSpan(this.#tracer.startSpan(`process ${topic} batch`, { kind: SpanKind.CONSUMER, attributes, root: true }));
  }

  /**
   * The spans of one input record's calls (one per output, in order), each started at `startMs` and ended at
   * `endMs` (epoch ms), and the output messages carrying them: each output's `traceparent` and `tracestate` name
   * its call's span; its other headers are as built. `sampled` is the first sampled call span (the record's
   * exemplar in the processing-time histogram), if any.
   */
  calls(
    input: InputMessage,
    outputs: readonly BoundedOutput[],
    schemas: readonly (SchemaIdentity | undefined)[],
    where: { readonly topic: string; readonly partition: number },
    startMs: number,
    endMs: number,
    batch: BatchSpan | undefined,
  ): { messages: OutputMessage[]; sampled: SpanContext | undefined } {
    const parent = parseTraceContext(input.headers[TRACEPARENT], input.headers[TRACESTATE]);
    if (parent.kind === 'malformed') this.#options.onMalformedContext();
    const context = parentContext(parent);
    const messages: OutputMessage[] = [];
    let sampled: SpanContext | undefined;
    for (let i = 0; i < outputs.length; i++) {
      const { message, record } = outputs[i] as BoundedOutput;
      const span = this.#tracer.startSpan(`process ${where.topic}`, { kind: SpanKind.CONSUMER, startTime: startMs }, context);
      if (span.isRecording()) {
        describeCall(span, input, record, message, schemas[i], where, this.#options.groupId, outputs.length > 1 ? i : undefined);
        if (parent.kind === 'malformed') span.setAttribute('toolcall.trace_context', 'malformed');
      }
      span.end(endMs);
      batch?.link(span);
      const spanContext = span.spanContext();
      if (sampled === undefined && (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0) sampled = spanContext;
      messages.push(withTraceContext(message, traceContextFields(spanContext)));
    }
    return { messages, sampled };
  }
}

function describeCall(
  span: Span,
  input: InputMessage,
  record: OutputRecord,
  message: OutputMessage,
  schema: SchemaIdentity | undefined,
  where: { readonly topic: string; readonly partition: number },
  groupId: string,
  callIndex: number | undefined,
): void {
  span.setAttributes({
    'messaging.system': 'kafka',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': where.topic,
    'messaging.destination.partition.id': String(where.partition),
    'messaging.consumer.group.name': groupId,
    'messaging.kafka.offset': Number(input.offset),
    'toolcall.output.topic': message.topic,
  });
  if (input.value !== null) span.setAttribute('messaging.message.body.size', input.value.length);
  if (callIndex !== undefined) span.setAttribute('toolcall.call.index', callIndex);
  describeRecord(span, record, schema);
}

/** Applies {@link callSpanData} to a span (the library does the same with its own spans). */
export function describeRecord(span: Span, record: OutputRecord, schema: SchemaIdentity | undefined): void {
  const data = callSpanData(record, schema);
  span.setAttributes(data.attributes);
  for (const event of data.events) span.addEvent(event.name, event.attributes);
  if (data.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: data.error });
}

/** The message with its `traceparent`/`tracestate` replaced (an incoming `tracestate` goes when the span has none). */
function withTraceContext(message: OutputMessage, fields: { traceparent: string; tracestate?: string }): OutputMessage {
  const headers = headerMap();
  for (const name of Object.keys(message.headers)) if (name !== TRACEPARENT && name !== TRACESTATE) headers[name] = message.headers[name];
  headers[TRACEPARENT] = fields.traceparent;
  if (fields.tracestate !== undefined) headers[TRACESTATE] = fields.tracestate;
  return { ...message, headers };
}
