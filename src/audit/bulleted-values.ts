/**
 * A value list written as bullets under a label, which sentence splitting cuts into pieces:
 *
 *     bid_strategy: Bid strategy. Valid values:
 *         - 'LOWEST_COST_WITHOUT_CAP' (recommended) - no bid_amount required
 *         - 'COST_CAP' - REQUIRES bid_amount
 *
 * Each bullet opens with the value, quoted or as an identifier, and then its gloss. Read from a parameter's own text
 * (its description or its docstring entry), so the list is that parameter's.
 *
 * Pure: no I/O. Line by line, so linear in the text.
 */
import type { EnumCandidate } from './candidates.js';
import { CLAUSE_CHARS } from './prose-text.js';

/** A line ending in the label of a list: "Valid values:", "Supported resource types:", "One of:", "Options:". */
const LABEL =
  /(?:^|[\s.(])(?:(?:valid|allowed|possible|supported|accepted|available)\s+(?:[\w<>\x60-]+\s+){0,2}(?:values|options|types|modes|kinds)(?:\s+are)?|options|one\s+of|values)\s*:\s*$/i;

/** "- 'COST_CAP' - gloss", "* `wide`: gloss", "- vnet", "- all (default)": the value, then nothing, a gloss or a dash. */
const BULLET = /^([ \t]*)[-*•][ \t]+(?:(['"`])([^'"`\n]{1,60})\2|([A-Za-z0-9_][\w.:/-]{0,60}?))(?=[ \t]*(?:$|[:(]|[-–—][ \t]))/;

/** What says the list is open, after it: "Other values are passed through", "and more", "etc.". */
const OPEN_AFTER =
  /\bother\s+values\s+(?:are|will\s+be|may\s+be)\s+(?:also\s+)?(?:passed|accepted|allowed|forwarded|kept|sent)\b|^\W*(?:etc\b|and\s+more\b)/i;

export function bulletedValues(text: string): EnumCandidate | undefined {
  return bulletedLists(text)[0]?.candidate;
}

/** Every bulleted value list in `text`, each with the line that labels it (where a tool's text names the parameter). */
export function bulletedLists(text: string): { candidate: EnumCandidate; label: string }[] {
  const out: { candidate: EnumCandidate; label: string }[] = [];
  const lines = text.split('\n');
  const offsets = lineOffsets(lines);
  for (const [i, line] of lines.entries()) {
    if (!LABEL.test(line)) continue;
    const values: string[] = [];
    let quoted = true;
    let indent: number | undefined;
    let last = i;
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] ?? '';
      if (next.trim() === '') break;
      const bullet = BULLET.exec(next);
      const depth = next.length - next.trimStart().length;
      if (bullet !== null && (indent === undefined || depth === indent)) {
        indent = depth;
        values.push(bullet[3] ?? bullet[4] ?? '');
        if (bullet[3] === undefined) quoted = false;
        last = j;
        continue;
      }
      // A line deeper than the bullets carries on the one before it; anything else ends the list.
      if (indent !== undefined && depth > indent) continue;
      break;
    }
    const candidate = listCandidate(text, offsets, lines, i, last, values, quoted, 'bulleted-values');
    if (candidate !== undefined) out.push({ candidate, label: line });
  }
  return out;
}

/** Where each line of `text` starts, for {@link listCandidate}. */
export function lineOffsets(lines: readonly string[]): number[] {
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    offsets.push(at);
    at += line.length + 1;
  }
  return offsets;
}

/**
 * The enum candidate of a list written on lines `first` to `last` (its label, bullets or table rows); undefined when it
 * has fewer than two values, repeats one, or the text just after calls it open ("Other values are passed through").
 * Reads a bounded stretch after the list, so a text of many lists stays linear.
 */
export function listCandidate(
  text: string,
  offsets: readonly number[],
  lines: readonly string[],
  first: number,
  last: number,
  values: string[],
  quoted: boolean,
  rule: string,
): EnumCandidate | undefined {
  if (values.length < 2 || new Set(values).size !== values.length) return undefined;
  const start = offsets[first] ?? 0;
  const end = (offsets[last] ?? 0) + (lines[last] ?? '').length;
  if (OPEN_AFTER.test(text.slice(end + 1, end + 1 + CLAUSE_CHARS).replace(/\n/g, ' '))) return undefined;
  const block = text.slice(start, end);
  return { kind: 'enum', values, quoted, start, end, phrase: block.trim(), rule };
}
