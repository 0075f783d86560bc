/**
 * Baselines: the findings a team has accepted for now, so the audit can gate CI on *new* findings only and the
 * list can be driven towards zero. A baseline remembers ids (stable across runs and unrelated edits) with the
 * tool, parameter, layer and keyword for the reader of a diff; descriptions and suggestions are left out so
 * rewording a description does not churn the file.
 *
 * Pure: no I/O.
 */
import { isJsonObject, tryParseJson, type JsonValue } from '../core/shared/json.js';
import { compareText, type Finding } from './types.js';

export interface BaselineEntry {
  readonly id: string;
  readonly tool: string;
  readonly parameter: string | null;
  readonly layer: string;
  readonly keyword: string;
}

export const BASELINE_VERSION = 1;

/**
 * The baseline file for `findings`: `{"version": 1, "findings": [...]}`, entries sorted by id, one per line,
 * keys in a fixed order, a final newline. The same findings always give the same bytes.
 */
export function serializeBaseline(findings: readonly Finding[]): string {
  const entries = new Map<string, BaselineEntry>();
  for (const f of findings) entries.set(f.id, { id: f.id, tool: f.tool, parameter: f.parameter, layer: f.layer, keyword: f.keyword });
  const sorted = [...entries.values()].sort((a, b) => compareText(a.id, b.id));
  const lines = sorted.map((entry) => `    ${JSON.stringify(entry)}`);
  return `{\n  "version": ${BASELINE_VERSION},\n  "findings": [${lines.length === 0 ? '' : `\n${lines.join(',\n')}\n  `}]\n}\n`;
}

/**
 * Reads a baseline: the file written by {@link serializeBaseline}, the `--json` output of the audit (`{"findings":
 * [...]}`), or a plain list of ids or findings. Returns the set of ids, or why the text is not a baseline.
 */
export function parseBaseline(text: string): { ok: true; ids: Set<string> } | { ok: false; reason: string } {
  const parsed = tryParseJson(text);
  if (!parsed.ok) return { ok: false, reason: `not JSON: ${parsed.reason}` };
  const list: JsonValue | undefined = isJsonObject(parsed.value) ? parsed.value.findings : parsed.value;
  if (!Array.isArray(list)) return { ok: false, reason: 'expected {"findings": [...]} or a list of ids' };
  const ids = new Set<string>();
  for (const [index, entry] of list.entries()) {
    if (typeof entry === 'string') ids.add(entry);
    else if (isJsonObject(entry) && typeof entry.id === 'string') ids.add(entry.id);
    else return { ok: false, reason: `entry ${index} has no string "id"` };
  }
  return { ok: true, ids };
}

/** Splits findings into those the baseline knows and new ones, and lists baseline ids no longer found. */
export function compareWithBaseline(
  findings: readonly Finding[],
  baseline: ReadonlySet<string>,
): { known: Finding[]; added: Finding[]; resolved: string[] } {
  const known: Finding[] = [];
  const added: Finding[] = [];
  const current = new Set<string>();
  for (const finding of findings) {
    current.add(finding.id);
    (baseline.has(finding.id) ? known : added).push(finding);
  }
  const resolved = [...baseline].filter((id) => !current.has(id)).sort(compareText);
  return { known, added, resolved };
}
