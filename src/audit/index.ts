/**
 * The tool-definition audit: where a tool's prose and its schema disagree, and whether the schema is sound.
 *
 * Three layers, each a list of {@link Finding}s with a stable id:
 * - `validity` (audit/validity.ts): meta-schema, `required` names, `default`/`enum`/`const` values;
 * - `prose-only` and `schema-only` (audit/diff.ts, with audit/prose-only.ts and audit/schema-only.ts): a rules
 *   table over the descriptions (audit/prose.ts, reading with audit/prose-text.ts and audit/prose-values.ts),
 *   attributed to parameters (audit/mentions.ts) and diffed against the schema in both directions.
 *
 * Findings carry a confidence and, where the fix is a schema change, the change itself (audit/fix.ts applies it).
 *
 * Pure: no I/O, no environment; the same definitions give the same findings in the same order.
 */
import { createSchemaChecker, type SchemaChecker } from '../core/schema/meta-schema.js';
import type { ToolDefinition } from '../core/schema/tool-definition.js';
import { calibrate } from './calibration.js';
import { diffProseAndSchema } from './diff.js';
import { holdSuggestions } from './suggestions.js';
import { compareFindings, type Finding } from './types.js';
import { validityFindings } from './validity.js';

export {
  atOrAbove,
  AUDIT_LAYERS,
  compareFindings,
  CONFIDENCE_LEVELS,
  findingId,
  type AuditLayer,
  type Confidence,
  type Finding,
  type SchemaFix,
} from './types.js';
export { applyFix } from './fix.js';
export { validityFindings } from './validity.js';
export { diffProseAndSchema } from './diff.js';
export { calibrate, findingKind, HIGH_KINDS } from './calibration.js';

/** Every finding of one tool, sorted, its confidence calibrated (audit/calibration.ts). */
export function auditTool(definition: ToolDefinition, checker: SchemaChecker = createSchemaChecker()): Finding[] {
  return proposedFindings(definition, checker).map(calibrate);
}

/**
 * Every finding of one tool, sorted, with each fix checked against the tool's draft and examples
 * (audit/suggestions.ts) and the confidence its rule proposes (what calibration is computed from).
 */
export function proposedFindings(definition: ToolDefinition, checker: SchemaChecker = createSchemaChecker()): Finding[] {
  const validity = validityFindings(definition, checker);
  // A keyword the validity layer already reports as broken (`"maxLength": -1`) is not also a prose conflict; a broken
  // `default` (`null` on a string) still is when the prose names the value it should be ("Defaults to 'text/plain'").
  const broken = new Set(
    validity.filter((f) => f.keyword !== 'default').map((f) => `${f.parameter ?? ''}\u0000${f.keyword}\u0000${f.path}`),
  );
  const diff = diffProseAndSchema(definition).filter((f) => !broken.has(`${f.parameter ?? ''}\u0000${f.keyword}\u0000${f.path}`));
  return holdSuggestions(definition, [...validity, ...diff], checker).sort(compareFindings);
}

/** Every finding of several tools, sorted (tool, parameter, layer, keyword). One checker is shared. */
export function auditTools(definitions: readonly ToolDefinition[]): Finding[] {
  const checker = createSchemaChecker();
  return definitions.flatMap((definition) => auditTool(definition, checker)).sort(compareFindings);
}
