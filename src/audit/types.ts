/**
 * The audit's vocabulary: findings, layers, and the stable id that lets a baseline remember them.
 */
import type { JsonValue } from '../core/shared/json.js';

/**
 * - `validity`: the schema itself is broken (meta-schema, `required` naming no property, a `default` or `enum`
 *   value its own subschema rejects, an unsatisfiable pair of bounds, a `$ref` that resolves nowhere).
 * - `prose-only`: the description states a constraint no schema keyword encodes (no validator can enforce it).
 * - `schema-only`: the schema enforces a constraint the description never explains (the model cannot understand
 *   it), or the description contradicts it (says "optional" of a required parameter).
 */
export const AUDIT_LAYERS = ['validity', 'prose-only', 'schema-only'] as const;
export type AuditLayer = (typeof AUDIT_LAYERS)[number];

/**
 * How sure a finding is, so a gate can start with the sure ones (`audit --fail-on high`):
 * - `high`: the text or the schema is unambiguous: the schema is broken (every validity finding), the parameter's own
 *   description states the constraint in exact words ("Allowed values: 60, 300, 600", "(1-100)", "YYYY-MM-DD",
 *   "Required.", "(default: 10)" against another `default`), or it calls a required parameter optional;
 * - `medium`: a rule of the table read with some interpretation: a phrase attributed from the tool description,
 *   a word standing for a bound ("positive"), a standard named rather than shown ("ISO country code"), a default the
 *   prose gives and the schema omits, an undocumented upper bound;
 * - `low`: a heuristic: the schema has a constraint (`pattern`, `format`, an enum of codes) and the prose says nothing
 *   that looks like it.
 */
export const CONFIDENCE_LEVELS = ['low', 'medium', 'high'] as const;
export type Confidence = (typeof CONFIDENCE_LEVELS)[number];

/** True when `confidence` is at or above `threshold` (`high` ≥ `medium` ≥ `low`). */
export function atOrAbove(confidence: Confidence, threshold: Confidence): boolean {
  return CONFIDENCE_LEVELS.indexOf(confidence) >= CONFIDENCE_LEVELS.indexOf(threshold);
}

/**
 * A fix that can be applied verbatim: in the subschema at `pointer` (a JSON Pointer into the input schema), drop the
 * keywords in `remove`, then set every key of `set` (replacing the keyword of that name). Findings whose fix is a
 * rewording of prose carry none.
 */
export interface SchemaFix {
  readonly pointer: string;
  readonly set: { readonly [keyword: string]: JsonValue };
  readonly remove?: readonly string[];
}

export interface Finding {
  /**
   * Stable across runs and unrelated edits: `${layer}:${tool}:${parameter ?? '-'}:${keyword}`, followed by
   * `@${location}` when the constraint sits below the parameter (a nested property, array items) or, for the
   * tool as a whole, below the root (a `$defs` entry). Descriptions and values are not part of it, so rewording
   * a description or changing a bound keeps the id; fixing the finding removes it.
   */
  readonly id: string;
  readonly tool: string;
  /** The top-level parameter concerned, or null for the tool as a whole. */
  readonly parameter: string | null;
  readonly layer: AuditLayer;
  /** The JSON Schema keyword that encodes (or should encode) the constraint. */
  readonly keyword: string;
  /** The phrase from the description, or the schema fragment as JSON. */
  readonly evidence: string;
  /** The concrete fix. */
  readonly suggestion: string;
  /** JSON Pointer of the subschema concerned within the tool's input schema (`""` is the root). */
  readonly path: string;
  readonly confidence: Confidence;
  /** The suggestion as a schema change, when it is one. */
  readonly fix?: SchemaFix;
}

/** The id of a finding, from its stable parts only. */
export function findingId(layer: AuditLayer, tool: string, parameter: string | null, keyword: string, location = ''): string {
  return `${layer}:${tool}:${parameter ?? '-'}:${keyword}${location === '' ? '' : `@${location}`}`;
}

/** Layer order for sorting and summaries. */
const LAYER_RANK: Record<AuditLayer, number> = { validity: 0, 'prose-only': 1, 'schema-only': 2 };

/** Deterministic order: tool, then parameter (tool-wide first), then layer, then keyword, then id. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    compareText(a.tool, b.tool) ||
    compareText(a.parameter ?? '', b.parameter ?? '') ||
    LAYER_RANK[a.layer] - LAYER_RANK[b.layer] ||
    compareText(a.keyword, b.keyword) ||
    compareText(a.id, b.id)
  );
}

/** Code-unit order: the same on every machine and locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
