/**
 * The parameter sections of a tool description written as a docstring: FastMCP and its kin publish a Python
 * function's docstring as the tool description, so each parameter's prose sits under "Args:" (Google style),
 * "Parameters" over a dashed line (numpy style) or after ":param name:" (Sphinx style), not in the parameter's
 * own `description`. Each entry is read as that parameter's own text.
 *
 * Pure: no I/O. Line by line, so linear in the text.
 */

export interface DocstringEntry {
  readonly parameter: string;
  /** The entry's lines joined into one text, as its sentences read. */
  readonly text: string;
  /** The entry's lines as written, for what their layout says (a bulleted list of values). */
  readonly lines: string;
  /** The type the entry declares ("str", "int, optional", "List[str]"), as written. */
  readonly annotation?: string;
}

export interface DocstringSections {
  readonly entries: readonly DocstringEntry[];
  /** The description without the lines of the entries read: the sentences left to attribute by mention. */
  readonly rest: string;
}

/** A header may open with a symbol and close with a gloss: "⚙️ PARAMETERS (required)", "## Args:". */
const GOOGLE_HEADER =
  /^(\s*)(?:[^\w\s]+\s*)?(?:args|arguments|parameters|params|keyword\s+args|keyword\s+arguments)(?:\s*\([^()\n]{0,40}\))?\s*:\s*$/i;
const NUMPY_HEADER = /^(\s*)(?:[^\w\s]+\s*)?(?:parameters|arguments|other\s+parameters)(?:\s*\([^()\n]{0,40}\))?\s*$/i;
const NUMPY_RULE = /^\s*-{3,}\s*$/;
/** "name: text", "name (str, optional): text", "`name`: text", "- name: text" */
const GOOGLE_ENTRY = /^(\s*)(?:[-*]\s+)?[`*]*([A-Za-z_]\w*)[`*]*\s*(?:\(([^()\n]{0,80})\))?\s*:(?:\s+(.*))?$/;
/** "name - text", "name    - str: text": a dash after the name, and a declared type before a colon. */
const DASH_ENTRY = /^(\s*)[`*]*([A-Za-z_]\w*)[`*]*\s+[-–—]\s+(?:([A-Za-z_][\w.]*(?:\[[^\]\n]{0,60}\])?):\s+)?(.*)$/;
/** "name : int, optional" */
const NUMPY_ENTRY = /^(\s*)([A-Za-z_]\w*)\s*:\s*([^\n]*)$/;
/** ":param name: text", ":param str name: text" */
const SPHINX_ENTRY = /^\s*:param\s+(?:([\w[\], |]+)\s+)?([A-Za-z_]\w*)\s*:(?:\s+(.*))?$/;

/**
 * A line that opens a statement of its own ("Required parameter — no default.", "Default: 4", "Note: ...", "'summary':
 * counts only"): it does not continue the wrapped sentence above it, which may have been left unfinished.
 */
const STATEMENT_OPENER =
  /^(?:(?:required|optional|defaults?|note|must|valid|allowed|example|examples)\b|['"\x60][^'"\x60\n]{1,40}['"\x60]\s*[(:–—-])/i;

const indentOf = (line: string): number => line.length - line.trimStart().length;
/** A bulleted line: "- name: text", "* name (optional): text". */
const BULLET_AT = /^\s*[-*]\s+\S/;
/** A heading line of a docstring: "Example:", "Returns:", "Example output:". */
const HEADING = /^\s*[A-Z][\w ]{0,30}:\s*$/;

/**
 * The entries of `text`'s parameter sections whose names are in `parameters` (matched as written, else ignoring
 * case). A type in parentheses, after " : " or after a dash ("name - str: text") adds "(optional)" when it says so, and
 * is kept as the entry's `annotation`, not as prose.
 */
export function docstringSections(text: string, parameters: readonly string[]): DocstringSections {
  const exact = new Set(parameters);
  const byLower = new Map(parameters.map((p) => [p.toLowerCase(), p]));
  const known = (name: string): string | undefined => (exact.has(name) ? name : byLower.get(name.toLowerCase()));
  const lines = text.split('\n');
  const taken = new Set<number>();
  const entries: DocstringEntry[] = [];
  const optionalIn = (type: string | undefined): string => (type !== undefined && /\boptional\b/i.test(type) ? ' (optional)' : '');

  /** Continuation lines: blank, or indented past `indent`, until the next line that is neither. */
  const continuation = (from: number, indent: number): number => {
    let at = from;
    while (at < lines.length) {
      const line = lines[at] ?? '';
      if (line.trim() !== '' && indentOf(line) <= indent) break;
      at++;
    }
    return at;
  };
  const addEntry = (name: string, first: string, start: number, end: number, annotation?: string): void => {
    const parameter = known(name);
    if (parameter === undefined) return;
    const body = [first, ...lines.slice(start + 1, end).map((l) => l.trim())]
      .filter((l) => l !== '')
      .map((l, i) => (i > 0 && STATEMENT_OPENER.test(l) ? `\n${l}` : i > 0 ? ` ${l}` : l))
      .join('');
    const declared = annotation?.trim();
    entries.push({
      parameter,
      text: body,
      lines: [first, ...lines.slice(start + 1, end)].join('\n'),
      ...(declared === undefined || declared === '' ? {} : { annotation: declared }),
    });
    for (let i = start; i < end; i++) taken.add(i);
  };

  /**
   * Bullets at `indent` from `start`, each entry running to the next bullet, a blank line or a heading ("Example:");
   * the section ends at the first line that is none of these. Returns where it ends.
   */
  const bulletedSection = (start: number, indent: number): number => {
    let j = start;
    while (j < lines.length) {
      const line = lines[j] ?? '';
      const entry = BULLET_AT.test(line) && indentOf(line) === indent ? GOOGLE_ENTRY.exec(line) : null;
      if (entry === null) break;
      let stop = j + 1;
      while (stop < lines.length) {
        const next = lines[stop] ?? '';
        if (next.trim() === '' || (BULLET_AT.test(next) && indentOf(next) === indent) || HEADING.test(next)) break;
        stop++;
      }
      addEntry(entry[2] ?? '', `${entry[4] ?? ''}${optionalIn(entry[3])}`, j, stop, entry[3]);
      j = stop;
    }
    return j;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const sphinx = SPHINX_ENTRY.exec(line);
    if (sphinx !== null) {
      const indent = indentOf(line);
      let end = continuation(i + 1, indent);
      // A field's text may go on at the field's own indent ("    :param a: one of "x",\n    "y"."), up to a blank line
      // or the next field.
      while (end < lines.length && (lines[end - 1] ?? '').trim() !== '') {
        const next = lines[end] ?? '';
        if (indentOf(next) !== indent || /^\s*:/.test(next)) break;
        end = continuation(end + 1, indent);
      }
      addEntry(sphinx[2] ?? '', sphinx[3] ?? '', i, end, sphinx[1]);
      i = end - 1;
      continue;
    }
    const google = GOOGLE_HEADER.exec(line);
    const numpy = google === null && NUMPY_RULE.test(lines[i + 1] ?? '') ? NUMPY_HEADER.exec(line) : null;
    const header = google ?? numpy;
    if (header === null) continue;
    const headerIndent = (header[1] ?? '').length;
    const sectionEnd = (from: number): number => {
      let at = from;
      while (at < lines.length) {
        const next = lines[at] ?? '';
        if (next.trim() !== '' && indentOf(next) <= headerIndent && !(numpy !== null && NUMPY_ENTRY.test(next))) break;
        if (numpy !== null && next.trim() !== '' && indentOf(next) <= headerIndent && NUMPY_RULE.test(lines[at + 1] ?? '')) break;
        at++;
      }
      return at;
    };
    const start = numpy !== null ? i + 2 : i + 1;
    // "Parameters:" then "- name (optional): text" bullets at the header's own indent: the bullets are the section.
    if (google !== null && BULLET_AT.test(lines[start] ?? '') && indentOf(lines[start] ?? '') === headerIndent) {
      i = bulletedSection(start, headerIndent) - 1;
      continue;
    }
    const end = sectionEnd(start);
    let entryIndent: number | undefined;
    for (let j = start; j < end; j++) {
      const entryLine = lines[j] ?? '';
      if (entryLine.trim() === '') continue;
      const indent = indentOf(entryLine);
      entryIndent ??= indent;
      if (indent !== entryIndent) continue;
      const entry = numpy !== null ? NUMPY_ENTRY.exec(entryLine) : (GOOGLE_ENTRY.exec(entryLine) ?? DASH_ENTRY.exec(entryLine));
      if (entry === null) continue;
      const stop = Math.min(continuation(j + 1, indent), end);
      const first = numpy !== null ? optionalIn(entry[3]).trim() : `${entry[4] ?? ''}${optionalIn(entry[3])}`;
      addEntry(entry[2] ?? '', first, j, stop, entry[3]);
      j = stop - 1;
    }
    i = end - 1;
  }
  const rest = lines.filter((_, i) => !taken.has(i)).join('\n');
  return { entries, rest };
}
