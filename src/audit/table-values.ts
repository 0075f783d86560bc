/**
 * A value list written as a markdown table whose first column holds the values:
 *
 *     | Relationship | Description              |
 *     | ------------ | ------------------------ |
 *     | comments     | Comments on the domain.  |
 *     | graphs       | Graphs with the domain.  |
 *
 * The first header cell says whose values they are: the parameter's name ("Relationship" for `relationship_name`),
 * or, in a parameter's own text, a word for values ("Value", "Option", "Mode"). A column holding anything but
 * single tokens (prose, several words) is no value list.
 *
 * Pure: no I/O. Line by line, so linear in the text.
 */
import { lineOffsets, listCandidate } from './bulleted-values.js';
import type { EnumCandidate } from './candidates.js';
import { nameTokens } from './mentions.js';
import { singular } from './prose.js';

export interface ValueTable {
  readonly candidate: EnumCandidate;
  /** The first header cell, which names whose values the first column holds. */
  readonly header: string;
}

/** A separator cell: "---", ":--", "--:". */
const SEPARATOR_CELL = /^:?-{3,}:?$/;

/** A value in the first column: one token, bare, quoted, in backticks or in bold. */
const VALUE_CELL = /^(?:\*\*|__)?([`'"]?)([A-Za-z0-9_][\w.:/+-]{0,60})\1(?:\*\*|__)?$/;

/** Header words that, in a parameter's own text, say the first column holds that parameter's values. */
const VALUE_HEADERS = new Set(['value', 'option', 'choice', 'mode', 'type', 'kind', 'code', 'name', 'key', 'level', 'format']);

/** Last words of a parameter's name that a table's header may leave out ("Relationship" for `relationship_name`). */
const LEFT_OUT_HEADS = new Set(['name', 'type', 'id', 'key', 'code', 'value', 'mode', 'kind']);

/** Every table of `text` whose first column is a list of values, with its first header cell. */
export function tableLists(text: string): ValueTable[] {
  const out: ValueTable[] = [];
  const lines = text.split('\n');
  const offsets = lineOffsets(lines);
  let i = 0;
  while (i < lines.length - 1) {
    const header = rowCells(lines[i] ?? '');
    const separator = rowCells(lines[i + 1] ?? '');
    if (header === undefined || separator === undefined || !separator.every((cell) => SEPARATOR_CELL.test(cell))) {
      i++;
      continue;
    }
    const values: string[] = [];
    let quoted = true;
    let prose = false;
    let last = i + 1;
    for (let j = i + 2; j < lines.length; j++) {
      const row = rowCells(lines[j] ?? '');
      if (row === undefined) break;
      last = j;
      const value = VALUE_CELL.exec(row[0] ?? '');
      if (value === null) prose = true;
      else {
        values.push(value[2] ?? '');
        if (value[1] === '') quoted = false;
      }
    }
    const first = i;
    i = last + 1;
    if (prose) continue;
    const candidate = listCandidate(text, offsets, lines, first, last, values, quoted, 'table-values');
    if (candidate !== undefined) out.push({ candidate, header: header[0] ?? '' });
  }
  return out;
}

/** True when `header` names `parameter`: its words, or its words without a last "name", "type", "id"... */
export function headerNames(header: string, parameter: string): boolean {
  const words = nameTokens(header.replace(/[`*_'"]/g, ' ')).map(singular);
  const tokens = nameTokens(parameter).map(singular);
  if (words.length === 0 || tokens.length === 0) return false;
  const same = (a: readonly string[]): boolean => a.length === words.length && a.every((t, k) => t === words[k]);
  return same(tokens) || (tokens.length > 1 && LEFT_OUT_HEADS.has(tokens.at(-1) ?? '') && same(tokens.slice(0, -1)));
}

/** True when `header`, in `parameter`'s own text, says the first column holds its values. */
export function headerOfOwnValues(header: string, parameter: string): boolean {
  const words = nameTokens(header.replace(/[`*_'"]/g, ' ')).map(singular);
  return (words.length === 1 && VALUE_HEADERS.has(words[0] ?? '')) || headerNames(header, parameter);
}

/** The cells of a markdown table row ("| a | b |"), trimmed; undefined when the line is no row. */
function rowCells(line: string): string[] | undefined {
  const row = line.trim();
  if (!row.startsWith('|') || row.length < 3) return undefined;
  const inner = row.endsWith('|') ? row.slice(1, -1) : row.slice(1);
  return inner.split('|').map((cell) => cell.trim());
}
