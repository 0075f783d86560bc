/**
 * What a span says of one call's result, as plain data (the worker's and the library's spans apply it with
 * @opentelemetry/api, docs/tracing.md): tool name and call id (generative-AI conventions), envelope format,
 * outcome, schema identity, counts, each repair, pass-through and error code as an event (JSON pointers, never
 * values), and the error status of a rejected or dead-lettered call. Pure.
 */
import type { SchemaIdentity } from '../schema/tool.js';
import type { OutputRecord } from '../shared/types.js';

/** Events of one kind (repairs, pass-throughs, errors) on one call's span; the rest are only counted. */
export const MAX_EVENTS_PER_KIND = 32;

export type CallOutcome = 'normalized' | 'rejected' | 'dead_lettered';

const OUTCOME: Readonly<Record<OutputRecord['disposition'], CallOutcome>> = {
  normalized: 'normalized',
  rejected: 'rejected',
  dead_letter: 'dead_lettered',
};

export interface CallSpanEvent {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface CallSpanData {
  readonly attributes: Readonly<Record<string, string | number>>;
  readonly events: readonly CallSpanEvent[];
  /** The status message of a call that is not normalized; undefined when it is. */
  readonly error: string | undefined;
}

export function callSpanData(record: OutputRecord, schema: SchemaIdentity | undefined): CallSpanData {
  const outcome = OUTCOME[record.disposition];
  const attributes: Record<string, string | number> = {
    'toolcall.outcome': outcome,
    'toolcall.repairs': record.repairs.length,
    'toolcall.pass_throughs': record.passThroughs.length,
    'toolcall.errors': record.errors.length,
  };
  if (record.tool !== null) attributes['gen_ai.tool.name'] = record.tool;
  if (record.id !== null) attributes['gen_ai.tool.call.id'] = record.id;
  if (record.format !== null) attributes['toolcall.envelope.format'] = record.format;
  if (schema !== undefined) {
    attributes['toolcall.schema.subject'] = schema.subject;
    attributes['toolcall.schema.version'] = schema.version;
    attributes['toolcall.schema.id'] = schema.id;
  }
  const code = record.errors[0]?.code;
  if (outcome !== 'normalized') attributes['error.type'] = code ?? outcome;
  const events: CallSpanEvent[] = [];
  for (const repair of record.repairs.slice(0, MAX_EVENTS_PER_KIND)) {
    events.push({
      name: 'toolcall.repair',
      attributes: { 'toolcall.repair.kind': repair.kind, 'toolcall.repair.pointer': repair.pointer },
    });
  }
  for (const pass of record.passThroughs.slice(0, MAX_EVENTS_PER_KIND)) {
    events.push({
      name: 'toolcall.pass_through',
      attributes: { 'toolcall.pass_through.reason': pass.reason, 'toolcall.pass_through.pointer': pass.pointer },
    });
  }
  for (const error of record.errors.slice(0, MAX_EVENTS_PER_KIND)) {
    events.push({ name: 'toolcall.error', attributes: { 'toolcall.error.code': error.code, 'toolcall.error.path': error.path } });
  }
  return { attributes, events, error: outcome === 'normalized' ? undefined : `${outcome}: ${code ?? 'no error code'}` };
}
