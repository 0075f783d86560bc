/**
 * Reading prose for the rules: sentences, numbers as prose writes them, words.
 *
 * Pure: no I/O; deterministic.
 */

// ---------------------------------------------------------------------------------------------------------------
// Sentences

export interface Sentence {
  readonly text: string;
  /** Offset of the sentence in the text it came from. */
  readonly offset: number;
}

export const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'approx', 'incl', 'min', 'max', 'no', 'cf', 'resp', 'esp']);

export function isLetterOrDot(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '.';
}

/**
 * The run of letters and dots that ends at `to` (not before `from`), '' when there is none: what
 * `/([A-Za-z.]+)$/.exec(text.slice(from, to))?.[1] ?? ''` gives, by a scan backwards from `to`. That regex, unanchored
 * at the start, is retried at every position of a run and runs to its end before failing on `$` (`aaaa…a1`):
 * quadratic in the run's length.
 */
export function trailingWord(text: string, from: number, to: number): string {
  let at = to;
  while (at > from && isLetterOrDot(text.charAt(at - 1))) at--;
  return text.slice(at, to);
}

/** How far back a guard reads before a candidate: the words it looks for sit just before it. */
export const LOOKBACK_CHARS = 256;

/**
 * The text before `at`, for a guard anchored at its end (`/\bnot\s+$/`): all of it when short, else about its last
 * {@link LOOKBACK_CHARS}, cut after a whitespace character (so `\b` reads as before) and led by a NUL, which no
 * guard matches (so `^` still means the sentence's start only). Such a regex is tried from every position of what
 * it is given: given every candidate's whole prefix, a long sentence costs its length squared.
 */
export function textBefore(text: string, at: number): string {
  if (at <= LOOKBACK_CHARS) return text.slice(0, at);
  let cut = at - LOOKBACK_CHARS;
  while (cut < at && !/\s/.test(text.charAt(cut - 1))) cut++;
  return `\u0000${text.slice(cut, at)}`;
}

/** The clause from `clauseStart` to `at`, or, when long, its {@link textBefore} part. */
export function clauseBefore(text: string, clauseStart: number, at: number): string {
  return at - clauseStart <= LOOKBACK_CHARS ? text.slice(clauseStart, at) : textBefore(text, at);
}

/** How far back {@link lastSeparator} looks for the start of a clause. */
export const CLAUSE_CHARS = 4 * LOOKBACK_CHARS;

/**
 * The last `,` or `;` of `text` at or before `upTo` (a negative `upTo` reads as 0, as `lastIndexOf` has it) and no
 * more than {@link CLAUSE_CHARS} before it; -1 when there is none. Unbounded, each candidate of a long sentence
 * would search it back to its start.
 */
export function lastSeparator(text: string, upTo: number): number {
  const from = Math.min(Math.max(upTo, 0), text.length - 1);
  for (let i = from; i >= 0 && i >= from - CLAUSE_CHARS; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x2c || c === 0x3b) return i;
  }
  return -1;
}

/**
 * A line break inside a sentence, as a docstring wraps it ("You must specify either collection_id or\n
 * parent_document_id (or both)."): the line before ends with no punctuation and the next goes on in lower case, and is
 * no bullet and no "name:" entry.
 */
function wrappedLine(text: string, start: number, at: number): boolean {
  const before = text.slice(Math.max(start, at - 200), at).trimEnd();
  const next = text.slice(at + 1, at + 201);
  // "One of:\n"resource" (...),\n"span" (...)": a list of quoted values, one per line, is one sentence.
  if (/[:,]$/.test(before) && /^[ \t]*(["'\x60])[^"'\x60\n]{1,60}\1(?=[ \t]*[(,.;:]|[ \t]*$)/.test(next.split('\n')[0] ?? '')) return true;
  if (before === '' || /[.!?:;,)\]}"'\x60]$/.test(before)) return false;
  return /^[ \t]*[a-z(]/.test(next) && !/^[ \t]*[A-Za-z_][\w.-]*\s*(?:\([^()\n]*\))?\s*:/.test(next);
}

/**
 * Splits prose into sentences: at `.`/`!`/`?` followed by whitespace, and at line breaks that end a sentence; never
 * after "e.g.".
 */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  let start = 0;
  const push = (end: number): void => {
    const raw = text.slice(start, end);
    const trimmedStart = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (body !== '') out.push({ text: body, offset: start + trimmedStart });
  };
  const boundary = /[.!?](?=\s)|\n/g;
  for (let match = boundary.exec(text); match !== null; match = boundary.exec(text)) {
    const at = match.index;
    if (match[0] === '.') {
      const word = trailingWord(text, Math.max(start, at - 12), at).toLowerCase();
      if (ABBREVIATIONS.has(word.replace(/^\./, ''))) continue;
      // A decimal or version number ("1. 5" is not one, "v1.2" has no space): only split before whitespace.
    } else if (wrappedLine(text, start, at)) continue;
    push(at + 1);
    start = at + 1;
  }
  push(text.length);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Numbers

/** Number words both readings know; each table below adds its own. */
const SMALL_NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
};

export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  ...SMALL_NUMBER_WORDS,
  forty: 40,
  fifty: 50,
  sixty: 60,
  hundred: 100,
  'a hundred': 100,
  'one hundred': 100,
  'a thousand': 1000,
  'one thousand': 1000,
};

/**
 * A number as prose writes it: `500000`, `500,000`, `1.5`, `500k`, `-3`, `ten`, `a hundred`.
 *
 * At most 8 groups of thousands (below 10^27; int64's 9,223,372,036,854,775,807 has 6). Unbounded, `(?:,\d{3})+`
 * would make the patterns quadratic: every group of `1,000,000,…` is after a comma, so a number may start at each
 * of them, and each start would read all the groups up to the end before the rest of the pattern failed. With a
 * bound each start reads at most 8; a longer run reads as its first 8 groups.
 */
export const NUM =
  String.raw`(?:(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3}){1,8}(?![\d])|\d{1,3}(?:[ \u00a0\u202f]\d{3}){1,8}(?![\d])|` +
  String.raw`\d+)(?:\.\d+)?(?:[kKmM](?![A-Za-z])|\s+(?:thousand|million|billion)\b)?|` +
  String.raw`\b(?:(?:a|one)\s+(?:hundred|thousand)|zero|one|two|three|four|five|six|seven|` +
  String.raw`eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred)\b)`;
/** A parenthetical gloss after a number: "from 1 (highest) to 5 (lowest)". */
export const GLOSS = String.raw`(?:\s*\([^()]{0,40}\))?`;
/** The word after a number (its unit or noun), optionally, past an adjective ("5 uppercase letters"). */
export const UNIT =
  String.raw`(?:\s*(%)|` +
  String.raw`\s+(?:(?:upper-?case|lower-?case|capital|alphanumeric|ascii|unicode|` +
  String.raw`latin|hex(?:adecimal)?|decimal|numeric|printable|non-whitespace|distinct|` +
  String.raw`unique|separate)\s+)?(?!(?:of|and|or|to|in|per|for|the|than|is|are|` +
  String.raw`a|an|if|when|with|by|at|on|but|each|as|from|depending|based|requires?|needs?)\b)([A-Za-z][A-Za-z-]*))?`;

/** `[\d, \u00a0\u202f]`: a digit or a thousands separator. */
export function isNumberBody(c: string): boolean {
  return (c >= '0' && c <= '9') || c === ',' || c === ' ' || c === '\u00a0' || c === '\u202f';
}

export const NUMBER_SUFFIXES = new Set(['k', 'm', 'thousand', 'million', 'billion']);

/**
 * Splits `-1 000.5 k` into the number (`-1 000.5`, separators kept) and the suffix (`k`; '' when none), undefined
 * when the text is not a number. Same as
 * `/^([-−]?[\d, \u00a0\u202f]+?(?:\.\d+)?)\s*([kKmM]|thousand|million|billion)?$/i`, once the number's trailing
 * spaces (which that regex gives to `\s*` and the caller strips anyway) are set aside, by a scan: the regex's lazy
 * body shares the spaces with `\s*`, so on `1` + spaces + `x` it tries every split of the spaces before failing,
 * quadratic in their length. The body here is the longest run of digits and separators (a match exists with the
 * longest one whenever it exists with the shortest: the only characters they disagree on are spaces).
 */
export function splitNumber(text: string): { number: string; suffix: string } | undefined {
  let at = 0;
  if (text.startsWith('-') || text.startsWith('−')) at = 1;
  const bodyStart = at;
  while (at < text.length && isNumberBody(text.charAt(at))) at++;
  if (at === bodyStart) return undefined;
  if (text.charAt(at) === '.' && isDigit(text.charAt(at + 1))) {
    at++;
    while (at < text.length && isDigit(text.charAt(at))) at++;
  }
  const numberEnd = at;
  while (at < text.length && /\s/.test(text.charAt(at))) at++;
  const suffix = text.slice(at);
  // ASCII only, as the regex's `i` flag without `u` (the Kelvin sign `K` lower-cases to `k`, but is not `[kK]`).
  if (suffix !== '' && !(/^[A-Za-z]+$/.test(suffix) && NUMBER_SUFFIXES.has(suffix.toLowerCase()))) return undefined;
  return { number: text.slice(0, numberEnd), suffix };
}

export function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** Parses a number matched by {@link NUM}; `plain` is false for suffixes that are not multipliers (`5m`). */
export function parseNumber(raw: string): { value: number; plain: boolean } | undefined {
  const text = raw.trim().replace(/\s+/g, ' ').toLowerCase();
  if (Object.hasOwn(NUMBER_WORDS, text)) return { value: NUMBER_WORDS[text] ?? 0, plain: true };
  const match = splitNumber(raw.trim());
  if (match === undefined) return undefined;
  const value = Number(match.number.replace(/[, \u00a0\u202f]/g, '').replace('−', '-'));
  if (!Number.isFinite(value)) return undefined;
  const word = match.suffix.toLowerCase();
  if (word === 'thousand') return { value: value * 1000, plain: true };
  if (word === 'million') return { value: value * 1_000_000, plain: true };
  if (word === 'billion') return { value: value * 1_000_000_000, plain: true };
  const suffix = match.suffix;
  if (suffix === 'k' || suffix === 'K') return { value: value * 1000, plain: true };
  if (suffix === 'M') return { value: value * 1_000_000, plain: true };
  if (suffix === 'm') return { value, plain: false };
  return { value, plain: true };
}

/** Words after a number that are not its unit. */
export const NOT_UNITS = new Set([
  'and',
  'or',
  'per',
  'in',
  'for',
  'the',
  'of',
  'to',
  'is',
  'are',
  'a',
  'an',
  'inclusive',
  'exclusive',
  'if',
  'when',
  'with',
  'by',
  'at',
  'on',
  'but',
  'than',
  'each',
  'total',
  'max',
  'maximum',
  'min',
  'minimum',
  'as',
  'from',
  'otherwise',
  'unless',
  'only',
  'will',
  'be',
  'so',
  'which',
  'that',
  'this',
  'it',
  'inclusively',
  'included',
  'allowed',
  'or-more',
  'more',
  'less',
  'fewer',
  'greater',
  'higher',
  'lower',
  'above',
  'below',
  'including',
]);

export function unitOf(percent: string | undefined, word: string | undefined): string | undefined {
  if (percent !== undefined) return '%';
  if (word === undefined) return undefined;
  const lower = word.toLowerCase();
  return NOT_UNITS.has(lower) ? undefined : lower;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `escapeRegExp`, and `/` too: a `pattern` written as it would stand between slashes (`^\/subscriptions\/`). */
export function escapePattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** `\w`: `[A-Za-z0-9_]`. */
export function isWordChar(c: string): boolean {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

/**
 * `1234567` → `1,234,567`: what `text.replace(/\B(?=(\d{3})+(?!\d))/g, ',')` gives, for any text (`1.2345e+25` →
 * `1.2,345e+25` too), by a scan. That regex runs its `(\d{3})+` lookahead to the end of the digit run at every
 * position: quadratic in the run's length. Here each run is walked once: a comma goes before position `i` of a
 * run ending at `end` when `end - i` is a positive multiple of 3 and `i` is not a word boundary (`i > 0` and the
 * character before `i` is a word character).
 */
export function groupThousands(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text.charAt(i))) {
      out += text.charAt(i);
      i++;
      continue;
    }
    let end = i;
    while (end < text.length && isDigit(text.charAt(end))) end++;
    for (let at = i; at < end; at++) {
      if ((end - at) % 3 === 0 && at > 0 && isWordChar(text.charAt(at - 1))) out += ',';
      out += text.charAt(at);
    }
    i = end;
  }
  return out;
}

export function mentionsNumber(text: string, value: number): boolean {
  const variants = new Set<string>([String(value)]);
  if (Number.isInteger(value) && Math.abs(value) >= 1000) {
    const grouped = groupThousands(Math.abs(value).toString());
    const sign = value < 0 ? '-' : '';
    variants.add(`${sign}${grouped}`);
    variants.add(`${sign}${grouped.replace(/,/g, ' ')}`);
    variants.add(`${sign}${grouped.replace(/,/g, '_')}`);
    variants.add(`${sign}${grouped.replace(/,/g, '.')}`);
    variants.add(`${sign}${grouped.replace(/,/g, '\u202f')}`);
    if (value % 1000 === 0) {
      variants.add(`${value / 1000}k`);
      variants.add(`${value / 1000} thousand`);
    }
    if (value % 1_000_000 === 0) {
      variants.add(`${value / 1_000_000}M`);
      variants.add(`${value / 1_000_000} million`);
    }
  }
  for (const [word, n] of Object.entries(NUMBER_NAMES)) if (n === value) variants.add(word);
  return [...variants].some((variant) => new RegExp(`(?<![\\d.,\\w])${escapeRegExp(variant)}(?![\\d\\w]|[.,]\\d)`, 'i').test(text));
}

export const NUMBER_NAMES: Readonly<Record<string, number>> = {
  ...SMALL_NUMBER_WORDS,
  fifty: 50,
  hundred: 100,
  thousand: 1000,
  million: 1_000_000,
};
