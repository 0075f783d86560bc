import fc from 'fast-check';
import type { FormatDefinition } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { isDateTime } from '../../../../src/core/validation/date-time-format.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

const ajvDateTime = (fullFormats['date-time'] as FormatDefinition<string>).validate as (value: string) => boolean;

/** Date-times and near misses: every part, separator, fraction and zone, varied one piece at a time. */
const piece = (xs: string[]) => fc.constantFrom(...xs);
const nearDateTime = fc
  .tuple(
    piece(['2026', '2024', '1900', '2000', '0000', '999', '20a6', '２０２６']),
    piece(['-', '/', '']),
    piece(['01', '02', '12', '13', '00', '1', '0x']),
    piece(['-']),
    piece(['01', '28', '29', '30', '31', '32', '00', '3']),
    piece(['T', 't', ' ', '\u00a0', '\u2028', '\ufeff', '\n', 'x', 'TT', '']),
    piece(['00', '23', '24', '12', '2']),
    piece([':', '']),
    piece(['00', '59', '60', '5']),
    piece([':']),
    piece(['00', '59', '60', '61', '6']),
    piece(['', '.5', '.', '.123456789', '.9999', 'T']),
    piece(['Z', 'z', '', '+00:00', '-05:30', '+0530', '+05', '+05:', '+24:00', '-23:59', '+05:60', '+5', 'Zt', ' ', '+01:00 ']),
  )
  .map((parts) => parts.join(''));

describe('date-time format', () => {
  it("accepts exactly what ajv-formats' date-time accepts", () => {
    fc.assert(
      fc.property(fc.oneof(nearDateTime, fc.string(), fc.string({ unit: 'binary' })), (value) => {
        expect(isDateTime(value)).toBe(ajvDateTime(value));
      }),
      { numRuns: 20_000 },
    );
    for (const value of ['2026-12-01T10:00:00Z', '2016-12-31T23:59:60Z', '2016-12-31T18:59:60-05:00', '2024-02-29t00:00:00.5+01:00']) {
      expect(isDateTime(value)).toBe(true);
      expect(ajvDateTime(value)).toBe(true);
    }
  });

  it('is the format the compiler checks, formatMinimum included', () => {
    const compiled = createSchemaCompiler().compile({
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time', formatMinimum: '2026-01-01T00:00:00Z' } },
    });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.validate({ at: '2026-12-01T10:00:00Z' })).toEqual([]);
    expect(compiled.validate({ at: '2025-12-01T10:00:00Z' }).map((d) => d.details?.keyword)).toEqual(['formatMinimum']);
    expect(compiled.validate({ at: '2026-02-30T10:00:00Z' }).map((d) => d.code)).toEqual(['invalid_format']);
  });
});
