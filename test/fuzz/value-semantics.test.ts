/**
 * Silent wrong answers, as the campaign's arbitraries draw them (member-named keys at every level, edge numbers
 * written raw: `1e400`, `1e-400`, 30-digit integers): a usable tool's schema always evaluates (no
 * `tool_schema_unusable` from a value), and a call that comes out valid carries the numbers that were sent, never
 * another (an overflow written `null`, an underflow as 0, an integer changed). Seeded for CI:
 *   FUZZ_SEED=<n> FUZZ_VALUE_RUNS=<n> npx vitest run --project fuzz test/fuzz/value-semantics.test.ts
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { processRecord } from '../../src/core/pipeline.js';
import { isJsonObject, type JsonValue } from '../../src/core/shared/json.js';
import type { OutputRecord } from '../../src/core/shared/types.js';
import { EDGE_NUMBER_TEXTS, envelopeRecord, layout, rawNumber, toJsonText } from './arbitraries.js';
import { loadCampaignTools, type CampaignTools } from './tools.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20240607);
const RUNS = Number(process.env.FUZZ_VALUE_RUNS ?? 3000);
const MINUTE = 60_000;

let campaign: CampaignTools;
beforeAll(async () => {
  campaign = await loadCampaignTools();
});

/** Every number under `value`, with its pointer. */
function numbersOf(value: JsonValue, pointer = '', out: [string, number][] = []): [string, number][] {
  if (typeof value === 'number') out.push([pointer, value]);
  else if (Array.isArray(value)) value.forEach((item, i) => numbersOf(item, `${pointer}/${String(i)}`, out));
  else if (isJsonObject(value)) for (const key of Object.keys(value)) numbersOf(value[key] as JsonValue, `${pointer}/${key}`, out);
  return out;
}

/** The integer a number's JSON text names, digit by digit (`1.5e+21` too). */
function integerOfText(text: string): bigint {
  const [mantissa = '', exponent = '0'] = text.toLowerCase().replace('+', '').split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  const shift = Number(exponent) - fraction.length;
  return shift >= 0 ? BigInt(whole + fraction + '0'.repeat(shift)) : BigInt(whole + fraction) / 10n ** BigInt(-shift);
}

/** Whether a literal comes out of a double as another number: the oracle, apart from the product's own check. */
function changedByDouble(literal: string): boolean {
  const value = Number(literal);
  if (Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) return true;
  if (value === 0) return /[1-9]/.test(literal.split(/[eE]/)[0] ?? '');
  return /^-?\d+$/.test(literal) && integerOfText(JSON.stringify(value)) !== BigInt(literal);
}

function checkRecord(record: OutputRecord, text: string): void {
  const tool = record.tool === null ? undefined : campaign.lookup(record.tool);
  if (tool?.usable === true) {
    // A usable schema that cannot evaluate a value is a bug of ours (ajv's deep equality threw on `valueOf` keys).
    for (const error of record.errors) expect(error.details?.reason, error.message).not.toBe('validation_failed');
  }
  if (record.disposition !== 'normalized') return;
  for (const [pointer, number] of numbersOf(record.arguments ?? null)) {
    expect(Number.isFinite(number), `${pointer} is ${String(number)} in a valid call`).toBe(true);
  }
  // No literal with a problem survives into a valid call (an independent look at the text: its number tokens).
  for (const match of text.matchAll(/[:,[]\s*(-?\d[\d.eE+-]*)/g)) {
    const literal = match[1] ?? '';
    // An underflow reads as 0, which a valid call may hold for other reasons: overflows are checked above.
    if (!changedByDouble(literal) || Number(literal) === 0) continue;
    const survived = numbersOf(record.arguments ?? null).some(([, n]) => n === Number(literal));
    expect(survived, `${literal} came out valid as ${String(Number(literal))}`).toBe(false);
  }
}

describe(`value semantics under the campaign's arbitraries (seed ${SEED})`, () => {
  it(
    'envelopes with hostile arguments: schemas always evaluate, valid calls carry the numbers sent',
    () => {
      fc.assert(
        fc.property(envelopeRecord, layout, (envelope, write) => {
          const text = write(envelope.value);
          for (const record of processRecord(text, campaign.lookup)) checkRecord(record, text);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    },
    5 * MINUTE,
  );

  it(
    'edge numbers and member-named keys where enum, const, uniqueItems and multipleOf look',
    () => {
      const member = fc.constantFrom('valueOf', 'toString', 'constructor', '__proto__', 'hasOwnProperty');
      const item = fc.oneof(
        fc.constantFrom(...EDGE_NUMBER_TEXTS).map(rawNumber),
        fc
          .tuple(member, fc.oneof(fc.integer(), fc.string({ maxLength: 3 })))
          .map(([k, v]) => JSON.parse(toJsonText({ [k]: v })) as JsonValue),
      );
      const args = fc.record({
        labels: fc.array(item, { maxLength: 4 }),
        ratio: item,
        choice: item,
        meta: fc.tuple(fc.constantFrom('a', 'b'), item).map(([kind, extra]) => ({ kind, extra })),
      });
      fc.assert(
        fc.property(args, fc.constantFrom('combinators', 'numbers', 'huge_enum'), (sent, tool) => {
          const text = toJsonText({ id: 'c', tool, arguments: sent });
          for (const record of processRecord(text, campaign.lookup)) checkRecord(record, text);
        }),
        { seed: SEED + 1, numRuns: RUNS },
      );
    },
    5 * MINUTE,
  );
});
