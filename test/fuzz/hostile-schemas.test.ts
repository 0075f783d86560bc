/**
 * Hostile schemas beside hostile records (issue 27, deliverable 4): each case, hand-made or generated, goes
 * through schema limits, compile, the RT-TOOL-8 plan and validation under a CPU and a memory bound, and must end
 * in an answer (a usable tool with diagnostics, or `tool_schema_unusable` naming why), never a throw or a stall.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSchemaCompiler } from '../../src/core/validation/validate.js';
import { CASE_BOUNDS, hostileArguments, hostileCases, hostileSchema, runBounded, type CaseOutcome } from './hostile-schemas.js';

const compiler = createSchemaCompiler();

function expectBounded(name: string, outcome: CaseOutcome): void {
  expect(outcome.compilePasses, `${name}: compile, in reference passes`).toBeLessThan(CASE_BOUNDS.compilePasses);
  for (const passes of outcome.callPasses) expect(passes, `${name}: a call, in reference passes`).toBeLessThan(CASE_BOUNDS.callPasses);
  expect(outcome.heapGrowth, `${name}: heap kept`).toBeLessThan(CASE_BOUNDS.heapBytes);
  for (const diagnostics of outcome.diagnostics) {
    for (const diagnostic of diagnostics) {
      expect(typeof diagnostic.code).toBe('string');
      expect(diagnostic.message.length).toBeGreaterThan(0);
    }
  }
}

describe('hostile schemas: the shapes of issue 27, each under a time and memory bound', () => {
  const expected: Record<string, (outcome: CaseOutcome) => void> = {
    shared_defs_17kb: (o) => {
      expect(o.diagnostics.map((d) => d.length > 0)).toEqual([false, true]);
    },
    shared_defs_wide: (o) => {
      expect(o.diagnostics).toEqual([[]]);
    },
    unique_untyped: (o) => {
      expect(o.diagnostics.map((d) => d.map((x) => x.code))).toEqual([[], [], ['duplicate_items']]);
    },
    pattern_properties_x_keys: (o) => {
      expect(o.diagnostics[0]?.map((d) => d.details?.reason)).toEqual(['pattern_budget_exceeded']);
      expect(o.diagnostics[1]).toEqual([]);
    },
    pattern_properties_2000: (o) => {
      expect(o.unusable?.details?.reason).toBe('schema_too_complex');
    },
    property_names_x_keys: (o) => {
      expect(o.diagnostics).toEqual([[]]);
    },
    nested_quantifiers: (o) => {
      expect(o.diagnostics.every((d) => d.length === 5 && d.every((x) => x.code === 'pattern_mismatch'))).toBe(true);
    },
    ref_chain: (o) => {
      expect(o.unusable?.details?.reason).toBe('too_many_subschemas');
    },
    values_over_limit: (o) => {
      expect(o.unusable?.details?.reason).toBe('schema_too_complex');
    },
    values_at_limit: (o) => {
      expect(o.diagnostics.map((d) => d.length)).toEqual([0, 20]);
    },
    big_enum: (o) => {
      expect(o.diagnostics.map((d) => d.map((x) => x.code))).toEqual([[], ['not_in_enum']]);
    },
    lookaround: (o) => {
      expect(o.unusable?.details?.reason).toBe('pattern_unsupported');
    },
    backreference_keys: (o) => {
      expect(o.unusable?.details?.reason).toBe('pattern_unsupported');
    },
  };

  for (const hostile of hostileCases()) {
    it(hostile.name, () => {
      const outcome = runBounded(compiler, hostile);
      expectBounded(hostile.name, outcome);
      const check = expected[hostile.name];
      if (check === undefined) throw new Error(`no expectation for ${hostile.name}`);
      check(outcome);
    });
  }
});

describe('hostile schemas: generated ones, with hostile records', () => {
  it('every generated schema compiles or is refused, and every call answers, within the bounds', () => {
    fc.assert(
      fc.property(hostileSchema, fc.array(hostileArguments, { minLength: 1, maxLength: 2 }), (schema, calls) => {
        const outcome = runBounded(compiler, { name: 'generated', schema, calls });
        expectBounded('generated', outcome);
        if (!outcome.usable) expect(outcome.unusable?.code).toBe('tool_schema_unusable');
        else expect(outcome.diagnostics).toHaveLength(calls.length);
      }),
      { numRuns: 25, seed: Number(process.env.FUZZ_SEED ?? 27) },
    );
  }, 600_000);
});
