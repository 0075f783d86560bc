/**
 * The audit's human-readable report: one block per finding under a header row, grouped by tool, then a summary.
 *
 * Pure: returns text.
 */
import { forTerminal } from '../core/shared/text.js';
import { AUDIT_LAYERS, type Finding } from './types.js';

/** Renders findings as a table: LAYER, TOOL, PARAMETER, KEYWORD, CONFIDENCE, then the evidence and the fix, indented. */
export function renderTable(findings: readonly Finding[], options: { markNew?: ReadonlySet<string> } = {}): string {
  if (findings.length === 0) return 'No findings.\n';
  // Tool and parameter names, evidence and ids quote the definitions: escaped, so that no control character
  // reaches the terminal and no newline forges a row. Widths are those of the escaped cells.
  const rows = findings.map((f) =>
    [options.markNew?.has(f.id) === true ? `${f.layer} (new)` : f.layer, f.tool, f.parameter ?? '(tool)', f.keyword, f.confidence].map(
      forTerminal,
    ),
  );
  const header = ['LAYER', 'TOOL', 'PARAMETER', 'KEYWORD', 'CONFIDENCE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out: string[] = [line(header)];
  findings.forEach((finding, index) => {
    out.push(line(rows[index] ?? []));
    out.push(`    evidence:   ${forTerminal(finding.evidence)}`);
    out.push(`    suggestion: ${forTerminal(finding.suggestion)}`);
    if (finding.fix !== undefined) out.push(`    fix:        ${forTerminal(JSON.stringify(finding.fix))}`);
    out.push(`    id:         ${forTerminal(finding.id)}`);
  });
  out.push('', summary(findings));
  return `${out.join('\n')}\n`;
}

/** "5 findings in 2 tools: 1 validity, 3 prose-only, 1 schema-only". */
export function summary(findings: readonly Finding[]): string {
  const tools = new Set(findings.map((f) => f.tool)).size;
  const counts = AUDIT_LAYERS.map((layer) => `${findings.filter((f) => f.layer === layer).length} ${layer}`);
  return `${findings.length} finding${findings.length === 1 ? '' : 's'} in ${tools} tool${tools === 1 ? '' : 's'}: ${counts.join(', ')}`;
}
