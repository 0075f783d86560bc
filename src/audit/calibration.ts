/**
 * What `high` confidence means: a finding keeps the `high` its rule proposes only when its kind earned it on the
 * training servers of test/fixtures/audit/unseen (at least {@link MIN_SUPPORT} findings, at least
 * {@link MIN_PRECISION} of them right); every other proposed `high` is `medium`. A kind is the layer and the
 * keyword's family in the JSON Schema vocabulary (numeric bounds, string lengths, array counts...), so the table
 * says what a gate can trust without naming any tool. test/unit/audit/calibration.test.ts recomputes it.
 *
 * Pure: no I/O.
 */
import type { Finding } from './types.js';

/** Enough findings to have met more than one server's idioms: a rule right on a few can be wrong on every tool of the next. */
export const MIN_SUPPORT = 20;
export const MIN_PRECISION = 0.9;

/** JSON Schema keywords grouped as the specification groups them; a keyword alone is its own family. */
const FAMILIES: Readonly<Record<string, string>> = {
  minimum: 'numeric-bound',
  maximum: 'numeric-bound',
  exclusiveMinimum: 'numeric-bound',
  exclusiveMaximum: 'numeric-bound',
  multipleOf: 'numeric-bound',
  minLength: 'length-bound',
  maxLength: 'length-bound',
  minItems: 'count-bound',
  maxItems: 'count-bound',
  minProperties: 'count-bound',
  maxProperties: 'count-bound',
  oneOf: 'group',
  anyOf: 'group',
  allOf: 'group',
  not: 'group',
};

/** The kind a finding is calibrated by: `layer:family`, every validity finding one kind (the schema is broken). */
export function findingKind(finding: Pick<Finding, 'layer' | 'keyword'>): string {
  if (finding.layer === 'validity') return 'validity';
  return `${finding.layer}:${FAMILIES[finding.keyword] ?? finding.keyword}`;
}

/**
 * The kinds whose proposed `high` findings were at least 0.9 precise over at least 20 findings on the training
 * servers (`npm run audit:unseen -- --split training --calibration` prints the table this is read from).
 */
export const HIGH_KINDS: ReadonlySet<string> = new Set([
  'validity',
  'prose-only:numeric-bound',
  'prose-only:format',
  'prose-only:group',
  'prose-only:pattern',
  'prose-only:count-bound',
  'prose-only:default',
]);

/** `finding` with its confidence as calibrated: a proposed `high` of a kind that did not earn it is `medium`. */
export function calibrate(finding: Finding): Finding {
  if (finding.confidence !== 'high' || HIGH_KINDS.has(findingKind(finding))) return finding;
  return { ...finding, confidence: 'medium' };
}
