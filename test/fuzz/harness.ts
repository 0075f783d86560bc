/**
 * The fuzz campaign's harness: the worker's per-record path as a pure function, the invariants every case must
 * satisfy, a prototype-pollution guard, and the figures the campaign prints.
 *
 * {@link evaluateRecord} mirrors `Worker#process` (src/app/worker/worker.ts) step for step: tombstone, wire-format
 * unwrap, byte decoding within the record limits, envelope (one call, or a whole message's calls), schema
 * lookup, arguments, normalization, validation. The only difference is the lookup: a synchronous map instead of
 * the registry cache, because the registry's wait-and-retry is not what is under test here. {@link outputMessage}
 * then builds what the worker would publish, with the same `buildOutputMessage` the worker uses.
 */
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/core/shared/codes.js';
import { isJsonObject, type JsonValue } from '../../src/core/shared/json.js';
import {
  buildOutputMessage,
  HEADER,
  type FanOut,
  type InputMessage,
  type OutputMessage,
  type OutputTopics,
} from '../../src/core/records/output.js';
import { processCall, readCalls, unreadableRecord, type PipelineOptions } from '../../src/core/pipeline.js';
import { decodeRecordBytes } from '../../src/core/records/bytes.js';
import type { CompiledTool } from '../../src/core/schema/tool.js';
import type { OutputRecord } from '../../src/core/shared/types.js';
import { DEFAULT_MAX_DIAGNOSTICS } from '../../src/core/validation/validate.js';
import { cpuMark, passesSince, referencePassMs } from '../budget.js';
import { unwrapWireFormat } from '../../src/core/records/wire.js';

/** Seed and size of a run: fixed by default so CI is reproducible; `FUZZ_SEED` / `FUZZ_RUNS` override. */
export const FUZZ_SEED = integerFromEnv('FUZZ_SEED', 20_240_607);
/** Total generated cases of the campaign, shared among its properties by weight. */
export const FUZZ_RUNS = integerFromEnv('FUZZ_RUNS', 110_000);
/**
 * Generous budget of one case (decode, normalize, validate, serialize the output), in reference passes of CPU
 * (test/budget.ts; about 2 s on the development machine), so a loaded machine does not fail it.
 */
export const CASE_BUDGET = 650;
/**
 * Budget of compiling one generated schema, in reference passes (about 5 s). Compiling happens once per schema
 * version, not per record, and ajv's code generation costs more than any record: a draft-07 enum of 5 000 values
 * takes about 0.1 s alone.
 */
export const COMPILE_BUDGET = 1_600;

function integerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/**
 * `fc.assert` with a short report: a counterexample may hold a megabyte of text. The seed and path come first,
 * so `fc.assert(property, { seed, path })` replays the failing case.
 */
export function assertProperty<Ts>(property: fc.IProperty<Ts>, params: fc.Parameters<Ts>): void {
  const details = fc.check(property, params);
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : 'the property returned false';
  const example = details.counterexample === null ? 'none' : fc.stringify(details.counterexample);
  throw new Error(
    `Property failed after ${details.numRuns} runs: ${cause.slice(0, 2_000)}\n` +
      `replay with { seed: ${details.seed}, path: ${JSON.stringify(details.counterexamplePath)} }\n` +
      `counterexample (${example.length} chars): ${example.slice(0, 2_000)}${example.length > 2_000 ? '...' : ''}`,
  );
}

/** Runs for a property that takes `share` of the campaign (at least one). */
export function runsFor(share: number): number {
  return Math.max(1, Math.round(FUZZ_RUNS * share));
}

export type ToolLookup = (name: string, version: number | undefined) => CompiledTool | undefined;

export interface Evaluation {
  readonly input: InputMessage;
  readonly record: OutputRecord;
  readonly tool: CompiledTool | undefined;
  readonly raw: JsonValue | undefined;
  /** Set for each call of a whole message. */
  readonly fanOut: FanOut | undefined;
}

export const TOPICS: OutputTopics = { output: 'fuzz.normalized', rejected: 'fuzz.rejected', dlq: 'fuzz.dlq' };

/** `Worker#process` without the registry wait: bytes (or a tombstone) to its output records, one per call. */
export function evaluateRecord(value: Buffer | null, lookup: ToolLookup, options: PipelineOptions): Evaluation[] {
  const input: InputMessage = {
    key: Buffer.from('fuzz-key'),
    value,
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    source: { topic: 'fuzz.raw', partition: 0, offset: '0' },
  };
  const unreadable = (error: Parameters<typeof unreadableRecord>[0], raw?: JsonValue): Evaluation[] => [
    { input, record: unreadableRecord(error), tool: undefined, raw, fanOut: undefined },
  ];
  if (value === null) return unreadable({ code: 'record_not_json', message: 'The record has no value (a tombstone).' });
  const wire = unwrapWireFormat(value);
  if (!wire.ok) return unreadable(wire.error);
  const parsed = decodeRecordBytes(wire.payload, options.limits);
  if (!parsed.ok) return unreadable(parsed.error);
  const read = readCalls(parsed.value);
  if (!read.ok) return unreadable(read.error, parsed.value);
  return read.calls.map((slot) => {
    const fanOut = read.message ? { index: slot.index, sharedId: slot.sharedId } : undefined;
    if (!slot.read.ok) return { input, record: unreadableRecord(slot.read.error), tool: undefined, raw: slot.raw, fanOut };
    const tool = lookup(slot.read.call.tool, slot.read.call.schemaVersion);
    return { input, record: processCall(slot.read.call, tool, options), tool, raw: slot.raw, fanOut };
  });
}

/** What the worker publishes for an evaluation. */
export function outputMessage(evaluation: Evaluation): OutputMessage {
  return buildOutputMessage(evaluation.input, evaluation.record, evaluation.tool?.identity, evaluation.raw, TOPICS, evaluation.fanOut);
}

const DISPOSITIONS = new Set(['normalized', 'rejected', 'dead_letter']);

/**
 * The campaign's invariant for one record: exactly one disposition, and a well-formed output record and
 * message for it. Throws an Error naming the first broken rule.
 */
export function checkOutcome(evaluation: Evaluation, message: OutputMessage): void {
  const { record, input } = evaluation;
  const fail = (rule: string): never => {
    throw new Error(`${rule} (disposition ${record.disposition}, codes ${record.errors.map((e) => e.code).join(',')})`);
  };
  // The record is typed, but these are runtime checks of what the core really produced.
  const disposition: unknown = record.disposition;
  if (typeof disposition !== 'string' || !DISPOSITIONS.has(disposition)) fail(`unknown disposition ${JSON.stringify(disposition)}`);
  if (record.valid !== (record.disposition === 'normalized')) fail('valid must be true exactly when normalized');
  if ((record.errors.length === 0) !== record.valid) fail('errors must be empty exactly when valid');
  if (record.errors.length > DEFAULT_MAX_DIAGNOSTICS) fail(`more than ${DEFAULT_MAX_DIAGNOSTICS} diagnostics`);
  for (const error of record.errors) {
    if (!Object.hasOwn(ERROR_CODES, error.code)) fail(`unknown error code ${error.code}`);
    const expected = ERROR_CODES[error.code].disposition;
    if (record.disposition !== expected) fail(`code ${error.code} belongs to ${expected}`);
    const { path, message, hint } = error as { path: unknown; message: unknown; hint: unknown };
    if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) fail('path must be a JSON Pointer');
    if (typeof message !== 'string' || message === '') fail('message must be a non-empty string');
    if (typeof hint !== 'string' || hint === '') fail('hint must be a non-empty string');
  }
  for (const repair of record.repairs) {
    if (!repair.pointer.startsWith('/')) fail('repair pointer must be a JSON Pointer');
    const kind: string = repair.kind;
    if (kind !== 'json_decoded' && kind !== 'entities_decoded') fail(`unknown repair kind ${kind}`);
  }
  if (record.disposition === 'normalized' && !isJsonObject(record.arguments)) fail('normalized arguments must be an object');
  if (record.disposition === 'dead_letter') {
    if (record.tool !== null && record.errors[0]?.code !== 'record_too_deep') fail('dead letter without a tool, except arguments too deep');
  }

  // The message: the topic matches the disposition (no header repeats it: the topic is the disposition).
  const topic = record.disposition === 'normalized' ? TOPICS.output : record.disposition === 'rejected' ? TOPICS.rejected : TOPICS.dlq;
  if (message.topic !== topic) fail(`published to ${message.topic}, expected ${topic}`);
  if ('toolcall-disposition' in message.headers) fail('a disposition header is set: the topic says it');
  if (typeof message.headers[HEADER.idempotencyKey] !== 'string') fail('no idempotency key');
  if (record.disposition === 'dead_letter') {
    // Byte for byte: the DLQ carries the input as it came (one call of a message: that call, as JSON text).
    const expected = evaluation.fanOut === undefined ? input.value : JSON.stringify(evaluation.raw ?? null);
    if (message.value !== expected) fail('the dead letter is not the input value (or the call of the message)');
    return;
  }
  if (typeof message.value !== 'string') fail('the output value must be JSON text');
  const text = message.value as string;
  // Bounded output: the arguments, the raw call and at most 20 short diagnostics. Escapes can grow a string
  // (a control character sent raw comes back as \u00XX), hence the factor.
  const inputBytes = input.value?.length ?? 0;
  if (text.length > 6 * inputBytes + 256 * 1024) fail(`output of ${text.length} chars for ${inputBytes} input bytes`);
  const parsed = JSON.parse(text) as unknown;
  if (!isJsonObject(parsed) || parsed.id !== record.id || parsed.tool !== record.tool) fail('the output value does not round-trip');
  // The topic is the disposition: only a rejected value carries errors and the raw call.
  if (Object.hasOwn(parsed as object, 'errors') !== (record.disposition === 'rejected')) fail('errors belong on rejected values only');
  if (Object.hasOwn(parsed as object, 'raw') !== (record.disposition === 'rejected')) fail('the raw call belongs on rejected values only');
}

/** Own property names and values of the built-in prototypes, to detect pollution. */
export interface PrototypeSnapshot {
  readonly entries: ReadonlyMap<string, unknown>;
}

const GUARDED: readonly [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['String.prototype', String.prototype],
  ['Function.prototype', Function.prototype],
];

export function snapshotPrototypes(): PrototypeSnapshot {
  const entries = new Map<string, unknown>();
  for (const [name, proto] of GUARDED) {
    for (const key of Reflect.ownKeys(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      // Identity of the value, or of the getter for an accessor (`__proto__` itself is one).
      // eslint-disable-next-line @typescript-eslint/unbound-method -- compared by identity, never called
      entries.set(`${name}.${String(key)}`, descriptor?.value ?? descriptor?.get);
    }
  }
  return { entries };
}

/** Throws when a built-in prototype gained, lost or changed a property, or a fresh object inherits a marker. */
export function assertNoPollution(before: PrototypeSnapshot): void {
  const probe: Record<string, unknown> = {};
  for (const marker of ['polluted', 'isAdmin', 'fuzzMarker']) {
    if (probe[marker] !== undefined) throw new Error(`prototype pollution: ({}).${marker} is set (${typeof probe[marker]})`);
  }
  if (Object.getPrototypeOf(probe) !== Object.prototype) throw new Error('prototype pollution: {} has another prototype');
  const now = snapshotPrototypes().entries;
  if (now.size !== before.entries.size)
    throw new Error(`prototype pollution: ${now.size - before.entries.size} properties added or removed`);
  for (const [key, value] of now) {
    if (before.entries.get(key) !== value) throw new Error(`prototype pollution: ${key} changed`);
  }
}

/** Counts and timings of the campaign, printed at the end. */
export class CampaignStats {
  cases = 0;
  /** Outputs beyond the first of a record: the calls of whole messages. */
  outputs = 0;
  readonly byDisposition = { normalized: 0, rejected: 0, dead_letter: 0 };
  readonly byCode = new Map<string, number>();
  readonly byGroup = new Map<string, number>();
  readonly durations: number[] = [];
  slowest = { ms: 0, label: '' };
  /** The largest CPU cost of one case, in reference passes. */
  costliest = { passes: 0, label: '' };
  /** The five slowest cases, slowest first. */
  readonly top: { ms: number; label: string }[] = [];
  thrown = 0;

  record(group: string, label: string, ms: number, passes: number, record: OutputRecord): void {
    this.cases += 1;
    if (passes > this.costliest.passes) this.costliest = { passes, label: `${group}: ${label}` };
    this.byDisposition[record.disposition] += 1;
    const code = record.errors[0]?.code ?? 'none';
    this.byCode.set(code, (this.byCode.get(code) ?? 0) + 1);
    this.byGroup.set(group, (this.byGroup.get(group) ?? 0) + 1);
    this.durations.push(ms);
    if (ms > this.slowest.ms) this.slowest = { ms, label: `${group}: ${label}` };
    if (this.top.length < 5 || ms > (this.top.at(-1)?.ms ?? 0)) {
      this.top.push({ ms, label: `${group}: ${label}` });
      this.top.sort((a, b) => b.ms - a.ms);
      this.top.length = Math.min(this.top.length, 5);
    }
  }

  percentile(p: number): number {
    if (this.durations.length === 0) return 0;
    const sorted = Float64Array.from(this.durations).sort();
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  }

  summary(): string {
    const codes = [...this.byCode.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => `${code}=${n}`)
      .join(' ');
    const groups = [...this.byGroup.entries()].map(([group, n]) => `${group}=${n}`).join(' ');
    return [
      `fuzz campaign: seed ${FUZZ_SEED}, ${this.cases} cases (${this.outputs} more outputs from whole messages), ${this.thrown} threw`,
      `  outcomes: normalized=${this.byDisposition.normalized} ` +
        `rejected=${this.byDisposition.rejected} dead_letter=${this.byDisposition.dead_letter}`,
      `  by group: ${groups}`,
      `  first error code: ${codes}`,
      `  time per case (ms): p50=${this.percentile(50).toFixed(3)} p99=${this.percentile(99).toFixed(3)} ` +
        `p99.9=${this.percentile(99.9).toFixed(3)} max=${this.slowest.ms.toFixed(1)}`,
      `  costliest case: ${this.costliest.passes.toFixed(1)} reference passes of CPU (budget ${CASE_BUDGET}, ` +
        `one pass ${referencePassMs().toFixed(2)} ms here): ${this.costliest.label.slice(0, 100)}`,
      ...this.top.map((t) => `    ${t.ms.toFixed(1)} ms  ${t.label.slice(0, 140)}`),
    ].join('\n');
  }
}

/**
 * Runs one record through the whole path, timed (evaluation, message building and serialization), checks the
 * invariant for each of its outputs and the time bound, and records the figures. A throw anywhere is a failed
 * case. Returns the first output's evaluation (the only one, but for a whole message); {@link runRecordAll} all.
 */
export function runRecord(
  stats: CampaignStats,
  group: string,
  label: string,
  value: Buffer | null,
  lookup: ToolLookup,
  options: PipelineOptions,
): Evaluation {
  const [first] = runRecordAll(stats, group, label, value, lookup, options);
  if (first === undefined) throw new Error(`no output for a record: ${group}: ${label}`);
  return first;
}

export function runRecordAll(
  stats: CampaignStats,
  group: string,
  label: string,
  value: Buffer | null,
  lookup: ToolLookup,
  options: PipelineOptions,
): Evaluation[] {
  const started = performance.now();
  const mark = cpuMark();
  let evaluations: Evaluation[];
  let messages: OutputMessage[];
  try {
    evaluations = evaluateRecord(value, lookup, options);
    messages = evaluations.map(outputMessage);
  } catch (error) {
    stats.thrown += 1;
    throw error;
  }
  const ms = performance.now() - started;
  const passes = passesSince(mark);
  if (evaluations.length === 0) throw new Error(`no output for a record: ${group}: ${label}`);
  const keys = new Set<unknown>();
  evaluations.forEach((evaluation, i) => {
    checkOutcome(evaluation, messages[i] as OutputMessage);
    keys.add(messages[i]?.headers[HEADER.idempotencyKey]);
  });
  // Consumers drop outputs that repeat a key: the calls of one record never share one.
  if (keys.size !== evaluations.length)
    throw new Error(`${evaluations.length} outputs share ${keys.size} idempotency keys: ${group}: ${label}`);
  if (passes >= CASE_BUDGET)
    throw new Error(
      `case cost ${passes.toFixed(0)} reference passes of CPU (budget ${CASE_BUDGET}), ${ms.toFixed(0)} ms: ${group}: ${label}`,
    );
  stats.record(group, label, ms, passes, evaluations[0]?.record as OutputRecord);
  stats.outputs += evaluations.length - 1;
  return evaluations;
}

/** A short description of a record for the slowest-case report. */
export function describeBytes(value: Buffer | null): string {
  if (value === null) return 'tombstone';
  const head = value
    .subarray(0, 60)
    .toString('utf8')
    .replace(/[^\x20-\x7e]/g, '?');
  return `${value.length} bytes: ${head}${value.length > 60 ? '...' : ''}`;
}
