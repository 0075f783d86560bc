/**
 * The envelope detectors under arbitrary input (records/envelopes/): any JSON value, and any mutation of a
 * well-formed call, is read without a throw into a well-formed result; a well-formed call of the original six
 * formats is never taken for another format (the one documented exception: OpenAI-shaped calls whose
 * arguments are an object, which OpenAI never sends, are Mistral's or Ollama's).
 *
 *   FUZZ_SEED=<n> FUZZ_RUNS=<total> STACK_AUTO=0 npx vitest run test/fuzz/envelopes.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, MAX_CALLS_PER_RECORD, type RecordCalls } from '../../src/core/records/envelope.js';
import { ERROR_CODES } from '../../src/core/shared/codes.js';
import { isJsonObject, type JsonValue } from '../../src/core/shared/json.js';
import { ENVELOPE_FORMATS } from '../../src/core/shared/types.js';
import {
  argumentsAsSent,
  envelope,
  envelopeRecord,
  jsonValue,
  messageRecord,
  ORIGINAL_FORMATS,
  toJsonText,
  toolName,
} from './arbitraries.js';
import { assertProperty, FUZZ_SEED, runsFor } from './harness.js';

const FORMATS = new Set<string>(ENVELOPE_FORMATS);

/** Every result is well formed: a known code and a message, or slots numbered from 0 with a known format. */
function checkResult(result: RecordCalls): void {
  if (!result.ok) {
    expect(Object.hasOwn(ERROR_CODES, result.error.code)).toBe(true);
    expect(ERROR_CODES[result.error.code].disposition).toBe('dead_letter');
    expect(result.error.message.length).toBeGreaterThan(0);
    return;
  }
  expect(result.calls.length).toBeGreaterThan(0);
  expect(result.calls.length).toBeLessThanOrEqual(MAX_CALLS_PER_RECORD);
  if (!result.message) expect(result.calls).toHaveLength(1);
  result.calls.forEach((slot, i) => {
    expect(slot.index).toBe(i);
    expect(slot.path === undefined).toBe(!result.message);
    if (slot.read.ok) {
      expect(FORMATS.has(slot.read.call.format)).toBe(true);
      expect(slot.read.call.tool.trim().length).toBeGreaterThan(0);
    } else {
      expect(ERROR_CODES[slot.read.error.code].disposition).toBe('dead_letter');
    }
  });
}

/** Parsed as the worker parses records (prototype keys stay plain data). */
function fromText(value: JsonValue): JsonValue {
  return JSON.parse(toJsonText(value)) as JsonValue;
}

describe(`envelope detection under arbitrary input (seed ${FUZZ_SEED})`, () => {
  it('arbitrary JSON values never throw and always give a well-formed result', () => {
    const anything = fc.oneof(
      jsonValue,
      fc.dictionary(
        fc.constantFrom(
          'tool',
          'type',
          'function',
          'toolUse',
          'function_call',
          'functionCall',
          'role',
          'tool_calls',
          'content',
          'parts',
          'message',
          'output',
          'choices',
          'candidates',
          'name',
          'args',
          'jsonrpc',
        ),
        jsonValue,
        { maxKeys: 5 },
      ),
    );
    assertProperty(
      fc.property(anything, (value) => {
        checkResult(decodeRecord(fromText(value)));
      }),
      { seed: FUZZ_SEED, numRuns: runsFor(0.05), endOnFailure: true },
    );
  });

  it('mutated calls and whole messages never throw and always give a well-formed result', () => {
    assertProperty(
      fc.property(
        fc.oneof(
          envelopeRecord.map((e) => e.value),
          messageRecord.map((m) => m.value),
        ),
        (value) => {
          checkResult(decodeRecord(fromText(value)));
        },
      ),
      { seed: FUZZ_SEED + 1, numRuns: runsFor(0.05), endOnFailure: true },
    );
  });

  it('a well-formed call of the original six keeps its format', () => {
    const id = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(undefined));
    const wellFormed = fc.record({
      format: fc.constantFrom(...ORIGINAL_FORMATS),
      name: toolName.filter((n) => n.trim() !== ''),
      id,
      args: argumentsAsSent,
    });
    assertProperty(
      fc.property(wellFormed, ({ format, name, id: callId, args }) => {
        const value = fromText(envelope(format, name, callId, args, undefined));
        const result = decodeRecord(value);
        if (!result.ok) {
          // Only what the format itself refuses: arguments its format requires, absent.
          expect(result.error.code).toBe('record_missing_arguments');
          expect(args).toBeUndefined();
          return;
        }
        expect(result.message).toBe(false);
        const slot = result.calls[0];
        if (slot?.read.ok !== true) throw new Error('a well-formed call failed');
        const objectArguments = format === 'openai_chat' && isJsonObject(args);
        expect(slot.read.call.format).toBe(objectArguments ? 'mistral' : format);
        expect(slot.read.call.tool).toBe(name);
      }),
      { seed: FUZZ_SEED + 2, numRuns: runsFor(0.03), endOnFailure: true },
    );
  });
});
