/**
 * Step one of the audit: extract candidate constraints from prose with a rules table.
 *
 * Descriptions state hard constraints in a small vocabulary ("must", "always", "required", "never", "at most",
 * "at least", "between", "one of"/"either", "ISO"/"format"/"YYYY", "positive", "non-empty", "read-only",
 * "defaults to", "characters"/"length", "no more than", "minimum"/"maximum"). Each rule below matches one way
 * of saying one kind of constraint, with the grammar around the word, not the word alone: "at most" counts only
 * before a number, "one of" only before a list of values, "required" only when it is said of something
 * ("is required", "Required.", never "the required fields"), "must" only with a verb of providing ("must be
 * provided"), so sentences about the caller's intent ("you must confirm with the user") yield nothing.
 * Negation is read as the constraint it states: "never empty" is non-empty, "must not exceed 10" is at most 10,
 * "not required" and "may be empty" are no constraint at all.
 *
 * Pure: no I/O; deterministic.
 */
import type { JsonValue } from '../core/shared/json.js';

interface CandidateBase {
  /** Offsets of the matched phrase within its sentence. */
  readonly start: number;
  readonly end: number;
  /** The matched phrase. */
  readonly phrase: string;
  /** Which rule matched (for tests and debugging). */
  readonly rule: string;
}

/** A numeric bound: on a number (`minimum`/`maximum`), a length (`minLength`...) or a count (`minItems`...). */
export interface BoundCandidate extends CandidateBase {
  readonly kind: 'bound';
  readonly side: 'lower' | 'upper';
  readonly value: number;
  readonly exclusive: boolean;
  /** The word after the number (`characters`, `rows`, `seconds`...), lower-cased, when there is one. */
  readonly unit: string | undefined;
  /** False when the number is not plain (`5m`) so it cannot be compared with a schema value. */
  readonly plain: boolean;
  /** True when stated by a word ("positive", "non-negative") rather than a number. */
  readonly fromWord: boolean;
}

export interface ExactLengthCandidate extends CandidateBase {
  readonly kind: 'exactLength';
  readonly value: number;
}

export interface NonEmptyCandidate extends CandidateBase {
  readonly kind: 'nonEmpty';
}

export interface EnumCandidate extends CandidateBase {
  readonly kind: 'enum';
  readonly values: readonly string[];
  /** True when every value was quoted or in backticks (a reliable list). */
  readonly quoted: boolean;
}

export interface FormatCandidate extends CandidateBase {
  readonly kind: 'format';
  /** The keyword that should encode it: `format` for a standard format, `enum` for a code list, else `pattern`. */
  readonly keyword: 'format' | 'pattern' | 'enum';
  /** The JSON Schema format, when the phrase names a standard one. */
  readonly format: string | undefined;
  /** Templates the prose shows (`GHSA-xxxx-xxxx-xxxx`, `user:ID`), from which a `pattern` can be built. */
  readonly templates?: readonly string[];
}

export interface ReadOnlyCandidate extends CandidateBase {
  readonly kind: 'readOnly';
}

export interface DefaultCandidate extends CandidateBase {
  readonly kind: 'default';
  /** The default as a JSON value when the prose gives a literal; undefined for "the current user" and the like. */
  readonly literal: JsonValue | undefined;
  /** False when the literal cannot be compared with a schema `default` (a number with a unit, `5 minutes`). */
  readonly comparable: boolean;
}

export interface RequiredCandidate extends CandidateBase {
  readonly kind: 'required';
  /** Where the thing required is named: before the phrase ("X is required") or after it ("always provide X"). */
  readonly subject: 'before' | 'after' | 'self';
}

export interface OptionalCandidate extends CandidateBase {
  readonly kind: 'optional';
}

export type Candidate =
  | BoundCandidate
  | ExactLengthCandidate
  | NonEmptyCandidate
  | EnumCandidate
  | FormatCandidate
  | ReadOnlyCandidate
  | DefaultCandidate
  | RequiredCandidate
  | OptionalCandidate;

// ---------------------------------------------------------------------------------------------------------------
// Sentences

export interface Sentence {
  readonly text: string;
  /** Offset of the sentence in the text it came from. */
  readonly offset: number;
}

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'approx', 'incl', 'min', 'max', 'no', 'cf', 'resp', 'esp']);

function isLetterOrDot(c: string): boolean {
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

/** Splits prose into sentences: at `.`/`!`/`?` followed by whitespace, and at line breaks; never after "e.g.". */
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
    }
    push(at + 1);
    start = at + 1;
  }
  push(text.length);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Numbers

const NUMBER_WORDS: Readonly<Record<string, number>> = {
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
 * made the patterns quadratic: every group of `1,000,000,…` is after a comma, so a number may start at each of
 * them, and each start read all the groups up to the end before the rest of the pattern failed. With a bound each
 * start reads at most 8; a longer run reads as its first 8 groups.
 */
const NUM = String.raw`(?:(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3}){1,8}(?![\d])|\d{1,3}(?:[ \u00a0\u202f]\d{3}){1,8}(?![\d])|\d+)(?:\.\d+)?(?:[kKmM](?![A-Za-z])|\s+(?:thousand|million|billion)\b)?|\b(?:(?:a|one)\s+(?:hundred|thousand)|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred)\b)`;
/** A parenthetical gloss after a number: "from 1 (highest) to 5 (lowest)". */
const GLOSS = String.raw`(?:\s*\([^()]{0,40}\))?`;
/** The word after a number (its unit or noun), optionally, past an adjective ("5 uppercase letters"). */
const UNIT = String.raw`(?:\s*(%)|\s+(?:(?:upper-?case|lower-?case|capital|alphanumeric|ascii|unicode|latin|hex(?:adecimal)?|decimal|numeric|printable|non-whitespace|distinct|unique|separate)\s+)?(?!(?:of|and|or|to|in|per|for|the|than|is|are|a|an|if|when|with|by|at|on|but|each|as|from)\b)([A-Za-z][A-Za-z-]*))?`;

/** `[\d, \u00a0\u202f]`: a digit or a thousands separator. */
function isNumberBody(c: string): boolean {
  return (c >= '0' && c <= '9') || c === ',' || c === ' ' || c === '\u00a0' || c === '\u202f';
}

const NUMBER_SUFFIXES = new Set(['k', 'm', 'thousand', 'million', 'billion']);

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

function isDigit(c: string): boolean {
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
const NOT_UNITS = new Set([
  'and', 'or', 'per', 'in', 'for', 'the', 'of', 'to', 'is', 'are', 'a', 'an', 'inclusive', 'exclusive', 'if', 'when',
  'with', 'by', 'at', 'on', 'but', 'than', 'each', 'total', 'max', 'maximum', 'min', 'minimum', 'as', 'from',
  'otherwise', 'unless', 'only', 'will', 'be', 'so', 'which', 'that', 'this', 'it', 'inclusively', 'included',
  'allowed', 'or-more', 'more', 'less', 'fewer', 'greater', 'higher', 'lower', 'above', 'below', 'including',
]);

function unitOf(percent: string | undefined, word: string | undefined): string | undefined {
  if (percent !== undefined) return '%';
  if (word === undefined) return undefined;
  const lower = word.toLowerCase();
  return NOT_UNITS.has(lower) ? undefined : lower;
}

// ---------------------------------------------------------------------------------------------------------------
// The rules table

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  /** Builds the candidates of one match (none when a guard says the match is not a constraint). */
  build(match: RegExpExecArray, sentence: string): Candidate[];
}

/** Words after which a comparative ("greater than 0", "below 100") states a constraint. */
const COPULA_BEFORE = /(?:\b(?:must|should|shall|always|is|are|be|strictly|only)(?:\s+(?!(?:when|if|unless|because|and|or|but|while|once)\b)[\w-]+){0,3}\s+|[,;:(—–]\s*|\s-\s*)$/i;

/**
 * "is greater than 0", "must be a whole number greater than zero", "Amount, greater than 0"; not "no more than 3"
 * or "never less than 1" (other rules), not "values above 50 are slow".
 */
function copulaGuard(sentence: string, at: number): boolean {
  const before = sentence.slice(0, at);
  return COPULA_BEFORE.test(before) && !/\b(?:no|not|never)\s+$/i.test(before);
}

/**
 * Followed by "of" and a list ("at least one of `a` or `b`", "at most one of the following"): a rule about
 * parameters or values, not a bound. "at least 2 of them" is still a bound.
 */
function followedByOf(sentence: string, end: number): boolean {
  return /^\s+of\s+(?:[`"'“]|the\s+following\b|these\s+(?:fields|parameters|properties|arguments)\b)/i.test(sentence.slice(end)) || /^\s+of\s+[A-Za-z_][\w-]*\s+(?:or|and)\s/i.test(sentence.slice(end));
}

function bound(
  match: RegExpExecArray,
  side: 'lower' | 'upper',
  exclusive: boolean,
  numberGroup: number,
  rule: string,
  options: { unitGroups?: [number, number]; forcedUnit?: string } = {},
): BoundCandidate[] {
  const parsed = parseNumber(match[numberGroup] ?? '');
  if (parsed === undefined) return [];
  const [percentGroup, wordGroup] = options.unitGroups ?? [numberGroup + 1, numberGroup + 2];
  const unit = options.forcedUnit ?? unitOf(match[percentGroup], match[wordGroup]);
  return [
    {
      kind: 'bound',
      side,
      value: parsed.value,
      exclusive,
      unit,
      plain: parsed.plain,
      fromWord: false,
      start: match.index,
      end: match.index + match[0].length,
      phrase: match[0].trim(),
      rule,
    },
  ];
}

function wordBound(match: RegExpExecArray, side: 'lower' | 'upper', value: number, exclusive: boolean, rule: string): BoundCandidate {
  return {
    kind: 'bound',
    side,
    value,
    exclusive,
    unit: undefined,
    plain: true,
    fromWord: true,
    start: match.index,
    end: match.index + match[0].length,
    phrase: match[0].trim(),
    rule,
  };
}

function simple(kind: 'nonEmpty' | 'readOnly' | 'optional', match: RegExpExecArray, rule: string): Candidate {
  const base = { start: match.index, end: match.index + match[0].length, phrase: match[0].trim(), rule };
  switch (kind) {
    case 'nonEmpty':
      return { kind, ...base };
    case 'readOnly':
      return { kind, ...base };
    case 'optional':
      return { kind, ...base };
  }
}

const re = (source: string): RegExp => new RegExp(source, 'gi');

const LOWER_INCLUSIVE = String.raw`at\s+least|no\s+less\s+than|not\s+less\s+than|no\s+fewer\s+than|not\s+fewer\s+than|greater\s+than\s+or\s+equal\s+to|more\s+than\s+or\s+equal\s+to|no\s+shorter\s+than|never\s+(?:less|fewer)\s+than|never\s+below|(?:a\s+)?minimum(?:\s+(?:value\s+)?(?:of|is))?:?|min\.?:?|starting\s+(?:at|from)`;
const UPPER_INCLUSIVE = String.raw`at\s+most|no\s+more\s+than|not\s+more\s+than|no\s+greater\s+than|not\s+greater\s+than|no\s+larger\s+than|no\s+longer\s+than|not\s+longer\s+than|less\s+than\s+or\s+equal\s+to|up\s+to|(?:a\s+)?maximum(?:\s+(?:value\s+)?(?:of|is))?:?|max\.?:?|(?:must|may|should|can|shall|does|do|will)\s+not\s+exceed|(?:cannot|can't|mustn't|won't|never)\s+exceeds?|not\s+to\s+exceed|never\s+(?:more|greater)\s+than|never\s+above|capped\s+at|limited\s+to`;

const LENGTH_UNITS = /^(?:characters?|chars?|letters?|code-?points?|symbols?|glyphs?)$/;
const ITEM_UNITS = /^(?:items?|elements?|entries|entry|values?)$/;

export const RULES: readonly Rule[] = [
  // ---- ranges: "between 1 and 100", "from 5 to 1440", "1 to 200 characters", "(1-100)"
  {
    name: 'between',
    pattern: re(String.raw`\bbetween\s+(${NUM})${GLOSS}\s+and\s+(${NUM})${UNIT}(\s*\(?\s*exclusive)?`),
    build: (m) => rangeCandidates(m, 'between', m[5] !== undefined),
  },
  {
    name: 'from-to',
    pattern: re(String.raw`\bfrom\s+(${NUM})${GLOSS}\s+(?:to|through|up\s+to)\s+(${NUM})${UNIT}`),
    build: (m) => rangeCandidates(m, 'from-to', false),
  },
  {
    name: 'n-to-m',
    pattern: re(String.raw`(${NUM})\s*(?:to|through|\.\.|–|—|-)\s*(${NUM})${UNIT}`),
    build: (m, s) => {
      const unit = unitOf(m[3], m[4]);
      // Anchored: the match goes on from its first number with `\s*` and the separator. Unanchored, with `\s*`
      // first, the regex was retried at every position of a run of spaces with no separator after it (quadratic).
      const separator = /^\s*(to|through|\.\.|–|—|-)/i.exec(m[0].slice((m[1] ?? '').length))?.[1]?.toLowerCase() ?? '';
      const before = s.slice(0, m.index);
      const after = s.slice(m.index + m[0].length);
      const lengthOrItems = unit !== undefined && (LENGTH_UNITS.test(unit) || ITEM_UNITS.test(unit));
      const parenthesized = /\(\s*$/.test(before) && /^\s*[),;]/.test(after);
      const introduced = /\b(?:range(?:\s+of)?|values?|between|from|of)\s*:?\s*$/i.test(before);
      // Words: "5 to 1440" after a comma or "is"; dashes only where nothing else reads that way (not dates).
      const wordy = separator === 'to' || separator === 'through' || separator === '..';
      if (/\bbetween\s+$|\bfrom\s+$/i.test(before)) return [];
      if (!(lengthOrItems || parenthesized || introduced || (wordy && (copulaGuard(s, m.index) || /^\s*$/.test(before))))) return [];
      return rangeCandidates(m, 'n-to-m', false);
    },
  },
  // ---- lower bounds
  {
    name: 'lower-inclusive',
    pattern: re(String.raw`\b(?:${LOWER_INCLUSIVE})\s*(${NUM})${UNIT}`),
    build: (m, s) => (followedByOf(s, m.index + m[0].length) ? [] : bound(m, 'lower', false, 1, 'lower-inclusive')),
  },
  {
    name: 'lower-symbol',
    pattern: re(String.raw`(?<![\w:'"\`])(?:>=|≥)\s*(${NUM})${UNIT}`),
    build: (m) => bound(m, 'lower', false, 1, 'lower-symbol'),
  },
  {
    name: 'lower-symbol-exclusive',
    pattern: re(String.raw`(?<![<>=\w:'"\`])>\s*(${NUM})${UNIT}`),
    build: (m) => bound(m, 'lower', true, 1, 'lower-symbol-exclusive'),
  },
  {
    name: 'or-more',
    pattern: re(String.raw`(${NUM})${UNIT}\s+or\s+(?:more|greater|higher|above|larger|longer)\b`),
    // "The 2 or more character language code": what a code looks like is a pattern's business.
    build: (m, s) => (/^\s+(?:characters?\s+)?(?:[\w-]+\s+)?codes?\b/i.test(s.slice(m.index + m[0].length)) ? [] : bound(m, 'lower', false, 1, 'or-more')),
  },
  {
    name: 'lower-exclusive',
    pattern: re(String.raw`\b(?:strictly\s+)?(?:greater|more|larger|higher)\s+than\s+(?!or\b)(${NUM})${UNIT}|\babove\s+(${NUM})${UNIT}`),
    build: (m, s) => {
      if (!copulaGuard(s, m.index) || /\bor\s+equal/i.test(s.slice(m.index + m[0].length, m.index + m[0].length + 12))) return [];
      return m[1] !== undefined ? bound(m, 'lower', true, 1, 'lower-exclusive') : bound(m, 'lower', true, 4, 'lower-exclusive');
    },
  },
  {
    name: 'positive',
    pattern: re(String.raw`(?<!non[- ]?)(?<![\w\`"'-])(?:strictly\s+)?positive\b(?!\s+or\s+(?:zero|0)\b)(?![\`"'])`),
    build: (m) => [wordBound(m, 'lower', 0, true, 'positive')],
  },
  {
    name: 'non-negative',
    pattern: re(String.raw`\b(?:non-?negative|not\s+negative|never\s+negative|zero\s+or\s+(?:more|greater|positive|above)|positive\s+or\s+(?:zero|0))\b`),
    build: (m) => [wordBound(m, 'lower', 0, false, 'non-negative')],
  },
  // ---- upper bounds
  {
    name: 'upper-inclusive',
    pattern: re(String.raw`(?:\b|(?<=\s))(?:${UPPER_INCLUSIVE})\s*(${NUM})${UNIT}`),
    build: (m, s) => (followedByOf(s, m.index + m[0].length) ? [] : bound(m, 'upper', false, 1, 'upper-inclusive')),
  },
  {
    name: 'upper-symbol',
    pattern: re(String.raw`(?<![\w:'"\`])(?:<=|≤)\s*(${NUM})${UNIT}`),
    build: (m) => bound(m, 'upper', false, 1, 'upper-symbol'),
  },
  {
    name: 'upper-symbol-exclusive',
    pattern: re(String.raw`(?<![<>=\w:'"\`])<(?![=>])\s*(${NUM})${UNIT}`),
    build: (m) => bound(m, 'upper', true, 1, 'upper-symbol-exclusive'),
  },
  {
    name: 'or-less',
    pattern: re(String.raw`(${NUM})${UNIT}\s+or\s+(?:less|fewer|lower|below|smaller|shorter)\b`),
    build: (m) => bound(m, 'upper', false, 1, 'or-less'),
  },
  {
    name: 'n-max',
    pattern: re(String.raw`(${NUM})${UNIT}\s+(?:max|maximum)\b(?!\s+(?:of|number|length|size|value))`),
    build: (m) => bound(m, 'upper', false, 1, 'n-max'),
  },
  {
    name: 'upper-exclusive',
    pattern: re(String.raw`\b(?:strictly\s+)?(?:less|fewer|smaller|shorter)\s+than\s+(?!or\b)(${NUM})${UNIT}|\b(?:below|under)\s+(${NUM})${UNIT}`),
    build: (m, s) => {
      if (!copulaGuard(s, m.index) || /\bor\s+equal/i.test(s.slice(m.index + m[0].length, m.index + m[0].length + 12))) return [];
      return m[1] !== undefined ? bound(m, 'upper', true, 1, 'upper-exclusive') : bound(m, 'upper', true, 4, 'upper-exclusive');
    },
  },
  // ---- lengths named as such: "max length 64", "minimum length of 3"
  {
    name: 'length-named',
    pattern: re(String.raw`\b(max(?:imum)?|min(?:imum)?)\.?\s+length(?:\s+(?:of|is))?:?\s*(${NUM})`),
    build: (m) => bound(m, /^max/i.test(m[1] ?? '') ? 'upper' : 'lower', false, 2, 'length-named', { forcedUnit: 'characters' }),
  },
  // ---- exact lengths: "exactly 3 characters", "3-letter", "two-letter"
  {
    name: 'exact-length',
    pattern: re(String.raw`\bexactly\s+(${NUM})\s+(?:characters?|chars?|letters?|digits?)\b|(${NUM})-(?:letter|character|char|digit)\b|(${NUM})[ -]?(?:characters?|chars?|letters?)(?=\s+(?:[\w-]+\s+)?codes?\b)`),
    build: (m) => {
      const parsed = parseNumber(m[1] ?? m[2] ?? m[3] ?? '');
      if (parsed === undefined) return [];
      return [{ kind: 'exactLength', value: parsed.value, start: m.index, end: m.index + m[0].length, phrase: m[0].trim(), rule: 'exact-length' }];
    },
  },
  // ---- non-empty, negation read as the constraint it states
  {
    name: 'non-empty',
    pattern: re(String.raw`\b(?:non-?empty|non-?blank|not\s+(?:be\s+)?(?:empty|blank)|never\s+(?:be\s+)?(?:empty|blank)|cannot\s+be\s+(?:empty|blank)|can't\s+be\s+(?:empty|blank)|mustn't\s+be\s+(?:empty|blank))\b`),
    build: (m, s) => (/\b(?:if|when|unless|whether)\s+$/i.test(s.slice(0, m.index)) ? [] : [simple('nonEmpty', m, 'non-empty')]),
  },
  // ---- read-only
  {
    name: 'read-only',
    pattern: re(String.raw`\b(?:is|are)\s+read[- ]?only\b|^\s*read[- ]?only\b(?!\s+(?:mode|access|transaction|flag))|(?=read)(?<=[;,:—–]\s*)read[- ]?only(?=\s*(?:[.;,)]|$))|\(read[- ]?only\)|\bread[- ]?only\s+(?:field|property|parameter|value|attribute)\b|\b(?:is|are)\s+immutable\b|\bcannot\s+be\s+(?:changed|modified)\b`),
    build: (m) => [simple('readOnly', m, 'read-only')],
  },
  // ---- defaults
  {
    name: 'default',
    pattern: re(String.raw`\bdefaults?\s+(?:to|is|=|:)\s*|\bdefault\s+value\s+(?:is|of|:)\s*|\(\s*default(?:s)?(?:\s*:|\s+is|\s*=)?\s*|\bdefault:\s*`),
    build: (m, s) => defaultCandidate(m, s),
  },
  // ---- formats
  { name: 'yyyy-mm-dd', pattern: re(String.raw`\bYYYY-MM-DD(?:[T ]HH(?::mm)?(?::ss)?)?`), build: (m) => [formatCandidate(m, /HH/i.test(m[0]) ? 'date-time' : 'date', 'yyyy-mm-dd')] },
  { name: 'dd-mm-yyyy', pattern: re(String.raw`\b(?:DD|MM)[/.-](?:MM|DD)[/.-](?:YYYY|YY)\b|\bYYYY/MM/DD\b`), build: (m) => [formatCandidate(m, undefined, 'dd-mm-yyyy')] },
  {
    name: 'hh-mm',
    pattern: re(String.raw`(?<![\w-])HH:MM(?::SS)?\b`),
    build: (m, s) => (/YYYY/i.test(s) ? [] : [{ ...formatCandidate(m, /:SS/i.test(m[0]) ? 'time' : undefined, 'hh-mm'), templates: [m[0].toUpperCase()] }]),
  },
  {
    name: 'iso-8601',
    pattern: re(String.raw`\bISO[ -]?8601\b`),
    build: (m, s) => [formatCandidate(m, /\bduration\b/i.test(s) ? 'duration' : /\b(?:date-?time|timestamp|time|instant)\b/i.test(s) ? 'date-time' : /\bdate\b/i.test(s) ? 'date' : 'date-time', 'iso-8601')],
  },
  { name: 'rfc-3339', pattern: re(String.raw`\bRFC[ -]?3339\b`), build: (m, s) => [formatCandidate(m, /full-date/i.test(s) ? 'date' : 'date-time', 'rfc-3339')] },
  { name: 'iso-4217', pattern: re(String.raw`\bISO[ -]?4217\b`), build: (m) => [{ ...formatCandidate(m, undefined, 'iso-4217'), keyword: 'enum' }] },
  { name: 'iso-code', pattern: re(String.raw`\bISO[ -]?(?!8601\b|4217\b)\d{3,5}(?:-\d)?\b`), build: (m) => [formatCandidate(m, undefined, 'iso-code')] },
  {
    name: 'iso-word',
    pattern: re(String.raw`\bISO\b(?![ -]?\d)(?:[ -]+(?:formatted|standard|compliant|style))?[ -]+(\w+)(?:[ -]+(\w+))?`),
    build: (m) => {
      const words = `${m[1] ?? ''} ${m[2] ?? ''}`.toLowerCase();
      if (/\bcurrenc/.test(words)) return [{ ...formatCandidate(m, undefined, 'iso-word'), keyword: 'enum' }];
      if (/\b(?:country|language|region|locale|code)/.test(words)) return [formatCandidate(m, undefined, 'iso-word')];
      if (/\b(?:date-?time|timestamp|time|instant)/.test(words)) return [formatCandidate(m, 'date-time', 'iso-word')];
      if (/\bdates?\b/.test(words)) return [formatCandidate(m, 'date', 'iso-word')];
      if (/\b(?:format|string)\b/.test(words)) return [formatCandidate(m, 'date-time', 'iso-word')];
      return [];
    },
  },
  { name: 'uuid', pattern: re(String.raw`\b(?:UUID|GUID)s?\b`), build: (m) => [formatCandidate(m, 'uuid', 'uuid')] },
  {
    name: 'email',
    // `\s*` then `(?:\s+address)?` share the spaces: on "valid" + spaces + "#" every split was tried (quadratic).
    // `(?=(\s*))\1` takes all the spaces with no way back (a possessive `\s*`); giving some back only ever helped
    // when nothing matched after the spaces, and then the regex fell back to the word alone: the `|\b` branch.
    pattern: re(String.raw`\b(?:valid|well-formed|must\s+be\s+an?|in\s+e-?mail\s+format)(?:(?=(\s*))\1(?:e-?mail)?(?:\s+address)?\b|\b)`),
    build: (m) => (/e-?mail/i.test(m[0]) ? [formatCandidate(m, 'email', 'email')] : []),
  },
  {
    name: 'url',
    pattern: re(String.raw`\b(?:valid|well-formed|absolute|fully[- ]qualified|must\s+be\s+an?)\s+(?:https?\s+)?(?:URL|URI)\b`),
    build: (m) => [formatCandidate(m, 'uri', 'url')],
  },
  { name: 'ip', pattern: re(String.raw`\bIPv([46])\b`), build: (m) => [formatCandidate(m, `ipv${m[1] ?? '4'}`, 'ip')] },
  { name: 'e164', pattern: re(String.raw`\bE\.164\b`), build: (m) => [formatCandidate(m, undefined, 'e164')] },
  { name: 'semver', pattern: re(String.raw`\bsemver\b|\bsemantic\s+version(?:ing)?\b`), build: (m) => [formatCandidate(m, undefined, 'semver')] },
  {
    name: 'in-format',
    pattern: re(String.raw`\bin\s+(?:the\s+)?([\w.+-]+(?:\s+[\w.+-]+)?)\s+format\b|\bformatted\s+(?:as|like)\b|\bin\s+the\s+(?:form|format)\s+(?:of\s+)?|\bof\s+the\s+form\b|\bmust\s+match\s+(?:the\s+)?(?:pattern|regex|regular\s+expression)\b`),
    build: (m, s) => {
      const named = (m[1] ?? '').toLowerCase();
      const following = `${named} ${s.slice(m.index + m[0].length, m.index + m[0].length + 40)}`.toLowerCase();
      if (/\b(?:json|markdown|md|html|xml|csv|tsv|yaml|yml|text|plain|base64|pdf|png|jpe?g|rich|binary|table|human[- ]readable|natural|free)\b/.test(following)) return [];
      if (/\b(?:iso|rfc)\b/.test(named)) return [];
      if (/\bdate-?time|timestamp\b/.test(named)) return [formatCandidate(m, 'date-time', 'in-format')];
      if (/\bdate\b/.test(named)) return [formatCandidate(m, 'date', 'in-format')];
      if (/\be-?mail\b/.test(named)) return [formatCandidate(m, 'email', 'in-format')];
      if (/\buuid\b/.test(named)) return [formatCandidate(m, 'uuid', 'in-format')];
      return [formatCandidate(m, undefined, 'in-format')];
    },
  },
  // ---- required / optional
  {
    name: 'is-required',
    pattern: re(String.raw`\b(?:is|are)\s+(?:always\s+|also\s+|still\s+)?(?:required|mandatory)\b|\b(?:must|should|shall)\s+(?:always\s+|also\s+)?be\s+(?:provided|given|specified|supplied|set|included|present|sent|passed)\b|\(\s*(?:required|mandatory)\s*\)`),
    build: (m, s) => requiredCandidate(m, s, 'before'),
  },
  {
    name: 'always-provide',
    pattern: re(String.raw`\b(?:always|must(?:\s+always)?)\s+(?:provide|include|pass|send|specify|supply|set|give)\b|\brequires?\s+(?=(?:a|an|the)\s|\`)`),
    build: (m, s) => requiredCandidate(m, s, 'after'),
  },
  {
    name: 'required-word',
    pattern: re(String.raw`(?=required|mandatory)(?:^|(?<=[.;:,(—–]\s*))(?:required|mandatory)\b(?=\s*(?:[.;,:)!]|$))|\ba\s+(?:required|mandatory)\s+(?:field|parameter|argument|property|input|value|setting)\b`),
    build: (m, s) => requiredCandidate(m, s, 'self'),
  },
  {
    name: 'optional',
    pattern: re(String.raw`(?=optional)(?:^|(?<=[.;(]\s*)|(?<=\(\w+,\s*))optional\b|\b(?:is|are)\s+optional\b|\(\s*optional\s*\)|\b(?:can|may)\s+be\s+omitted\b|\b(?:if|when)\s+omitted\b|\bomit\s+(?:it\s+|this\s+)?(?:to|for)\b`),
    build: (m, s) => (/\bnot\s+$/i.test(s.slice(0, m.index)) ? [] : [simple('optional', m, 'optional')]),
  },
  // ---- templates: "(format: GHSA-xxxx-xxxx-xxxx)", "in format 'user:ID' or 'team:ID'"
  {
    name: 'format-template',
    pattern: re(String.raw`\bformat(?:ted)?\s*(?::|is|as|like)?\s*|\bin\s+(?:the\s+)?(?:form|format)\s+(?:of\s+)?`),
    build: (m, s) => templateCandidate(m, s),
  },
  // ---- one value only: "('indexed' only)"
  {
    name: 'only-value',
    pattern: re(String.raw`\(\s*(?:\x60([^\x60]+)\x60|'([^']+)'|"([^"]+)")\s+only\s*\)`),
    build: (m) => [{ kind: 'enum', values: [m[1] ?? m[2] ?? m[3] ?? ''], quoted: true, start: m.index, end: m.index + m[0].length, phrase: m[0].trim(), rule: 'only-value' }],
  },
  // ---- values glossed in parentheses: "local branches ('local'), remote branches ('remote') or all branches ('all')"
  {
    name: 'glossed-values',
    pattern: re(String.raw`^(?:[^()]*\(\s*['\x60"][\w.-]+['\x60"]\s*\)){2}`),
    build: (_m, s) => glossedValues(s),
  },
  // ---- value lists: "one of `a`, `b`", "either asc or desc", "allowed values: x, y"
  {
    name: 'one-of',
    pattern: re(String.raw`\b(?:one\s+of|either|must\s+be|only|accepts?|(?:allowed|valid|possible|accepted|supported|permitted)\s+values?(?:\s+(?:are|is|include))?)\s*:?\s*`),
    build: (m, s) => enumCandidate(m, s),
  },
];

/** A shown template: quoted, or a token with placeholders (`xxxx`, `ID`, `NNN`); undefined for prose ("in format below"). */
const TEMPLATE = /^(?:\x60([^\x60]+)\x60|'([^']+)'|"([^"]+)"|([A-Za-z0-9][\w.:/-]*(?:[xX#]{2,}|\b[A-Z]{2,}\b)[\w.:/-]*))/;

function templateCandidate(m: RegExpExecArray, sentence: string): FormatCandidate[] {
  const templates: string[] = [];
  let at = m.index + m[0].length;
  for (let i = 0; i < 8; i++) {
    const t = TEMPLATE.exec(sentence.slice(at));
    if (t === null) break;
    const text = t[1] ?? t[2] ?? t[3] ?? t[4] ?? '';
    // A template has a placeholder or a fixed prefix with a separator ("user:ID", "GHSA-xxxx"), not a plain word.
    if (!/[xX#]{2,}|[A-Z]{2,}|[:/-]/.test(text) || /\s/.test(text)) return [];
    templates.push(text);
    at += t[0].length;
    const or = /^\s*(?:,\s*)?(?:or|,)\s*/.exec(sentence.slice(at));
    if (or === null) break;
    at += or[0].length;
  }
  if (templates.length === 0) return [];
  return [{ kind: 'format', keyword: 'pattern', format: undefined, templates, start: m.index, end: at, phrase: sentence.slice(m.index, at).trim(), rule: 'format-template' }];
}

/** Two or more values glossed as `('local')` in one sentence: the allowed values, each next to its meaning. */
function glossedValues(sentence: string): EnumCandidate[] {
  const values: string[] = [];
  let start = -1;
  let end = 0;
  for (const g of sentence.matchAll(/\(\s*['\x60"]([\w.-]+)['\x60"]\s*\)/g)) {
    values.push(g[1] ?? '');
    if (start < 0) start = g.index;
    end = g.index + g[0].length;
  }
  if (values.length < 2 || start < 0) return [];
  return [{ kind: 'enum', values, quoted: true, start, end, phrase: sentence.slice(start, end).trim(), rule: 'glossed-values' }];
}

function rangeCandidates(m: RegExpExecArray, rule: string, exclusive: boolean): BoundCandidate[] {
  const low = parseNumber(m[1] ?? '');
  const high = parseNumber(m[2] ?? '');
  if (low === undefined || high === undefined || low.value > high.value) return [];
  const unit = unitOf(m[3], m[4]);
  const base = { unit, fromWord: false, start: m.index, end: m.index + m[0].length, phrase: m[0].trim(), rule, exclusive } as const;
  return [
    { kind: 'bound', side: 'lower', value: low.value, plain: low.plain, ...base },
    { kind: 'bound', side: 'upper', value: high.value, plain: high.plain, ...base },
  ];
}

function formatCandidate(m: RegExpExecArray, format: string | undefined, rule: string): FormatCandidate {
  return {
    kind: 'format',
    keyword: format === undefined ? 'pattern' : 'format',
    format,
    start: m.index,
    end: m.index + m[0].length,
    phrase: m[0].trim(),
    rule,
  };
}

/** Conditional requirement ("required when...", "if set, X must also be provided"): not a `required` home. */
function isConditional(sentence: string, start: number, end: number): boolean {
  if (/^\s*(?:if|when|unless|whenever|only)\b/i.test(sentence)) return true;
  if (/\balso\b/i.test(sentence.slice(start, end))) return true;
  const clauseStart = Math.max(sentence.lastIndexOf(',', start), sentence.lastIndexOf(';', start), 0);
  if (/\b(?:if|when|unless|whenever|only\s+(?:if|when))\b/i.test(sentence.slice(clauseStart, start))) return true;
  return /^\s*(?:only\s+)?(?:when|if|unless|for|by|in|to|with|on|after|before|during|as|whenever|except|once|while)\b/i.test(sentence.slice(end));
}

function requiredCandidate(m: RegExpExecArray, sentence: string, subject: RequiredCandidate['subject']): RequiredCandidate[] {
  const start = m.index;
  const end = m.index + m[0].length;
  if (isConditional(sentence, start, end)) return [];
  if (/\b(?:not|never|no\s+longer|n't)\s+$/i.test(sentence.slice(0, start))) return [];
  return [{ kind: 'required', subject, start, end, phrase: m[0].trim(), rule: subject === 'after' ? 'always-provide' : 'is-required' }];
}

// ---------------------------------------------------------------------------------------------------------------
// Defaults

const DYNAMIC_DEFAULT_WORDS = new Set([
  'the', 'a', 'an', 'now', 'today', 'tomorrow', 'current', 'currently', 'empty', 'none', 'nothing', 'unset', 'all',
  'any', 'no', 'same', 'caller', 'user', 'your', 'their', 'its', 'this', 'that', 'whatever', 'whichever', 'system',
  'server', 'unlimited', 'infinity', 'infinite', 'auto', 'automatic', 'automatically', 'omitted', 'blank', 'whole',
  'every', 'each', 'one', 'first', 'last', 'previous', 'next', 'most', 'least', 'our', 'my', 'his', 'her',
]);

const MEASURE_UNITS = /^(?:%|percent|ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|bytes?|kb|kib|mb|mib|gb|gib|kilobytes?|megabytes?|cents?|dollars?|euros?|pounds?|usd|eur|gbp|meters?|metres?|km|miles?|pixels?|px|pt|degrees?)$/i;

const WORD_END_PUNCTUATION = new Set(['.', ',', ';', ':', ')', '!', '?']);

function isTokenChar(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c === '_' || c === '.' || c === '+' || c === '/' || c === '-';
}

/**
 * The word a text starts with (`open` of `open.`), and the punctuation after it (`.`): same as
 * `/^([#@/]?[A-Za-z_][\w.+/-]*?)(?=[.,;:)!?]*(?:\s|$))([.,;:)!?]*)/`, by a scan that follows the regex. Its lazy
 * word grows one character at a time and the lookahead reads the punctuation after it each time, so a run of dots
 * (`a.....…#`) was read once per dot: quadratic. Here a run of punctuation is read once: every position inside it
 * has the same end.
 */
export function leadingWord(text: string): { token: string; punctuation: string } | undefined {
  let first = 0;
  if (text.startsWith('#') || text.startsWith('@') || text.startsWith('/')) first = 1;
  const c = text.charAt(first);
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_')) return undefined;
  let runEnd = first + 1;
  while (runEnd < text.length && WORD_END_PUNCTUATION.has(text.charAt(runEnd))) runEnd++;
  for (let end = first + 1; ; end++) {
    // The lookahead at `end`: punctuation from `end` to `runEnd`, then whitespace or the end of the text.
    if (end > runEnd) {
      runEnd = end;
      while (runEnd < text.length && WORD_END_PUNCTUATION.has(text.charAt(runEnd))) runEnd++;
    }
    if (runEnd === text.length || /\s/.test(text.charAt(runEnd))) return { token: text.slice(0, end), punctuation: text.slice(end, runEnd) };
    // The lazy `[\w.+/-]*?` takes one more character.
    if (end >= text.length || !isTokenChar(text.charAt(end))) return undefined;
  }
}

function defaultCandidate(m: RegExpExecArray, sentence: string): DefaultCandidate[] {
  const at = m.index + m[0].length;
  const rest = sentence.slice(at);
  const base = { kind: 'default', start: m.index, rule: 'default' } as const;
  const quoted = /^(?:`([^`]*)`|"([^"]*)"|'([^']*)'|“([^”]*)”)/.exec(rest);
  if (quoted !== null) {
    const quotedText = quoted[1] ?? quoted[2] ?? quoted[3] ?? quoted[4] ?? '';
    // `ignoreMode='untilEscalating'`: the default is the value, not the assignment around it.
    const assignment = /^[A-Za-z_][\w.]*\s*[=:]\s*(['"]?)([^'"]+)\1$/.exec(quotedText);
    const text = assignment?.[2] ?? quotedText;
    let literal: JsonValue = text;
    if (quoted[1] !== undefined && assignment === null) {
      try {
        literal = JSON.parse(text) as JsonValue;
      } catch {
        literal = text;
      }
    }
    const end = at + quoted[0].length;
    return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal, comparable: true }];
  }
  const number = new RegExp(String.raw`^(${NUM})${UNIT}`, 'i').exec(rest);
  if (number !== null && /^[-−\d]/.test(number[1] ?? '')) {
    const parsed = parseNumber(number[1] ?? '');
    if (parsed !== undefined) {
      const unit = unitOf(number[2], number[3]);
      const measured = unit !== undefined && MEASURE_UNITS.test(unit);
      const end = at + number[0].length;
      return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal: parsed.value, comparable: parsed.plain && !measured }];
    }
  }
  const assigned = /^[A-Za-z_][\w.]*=(['"])([^'"]+)\1/.exec(rest);
  if (assigned !== null) {
    const end = at + assigned[0].length;
    return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal: assigned[2] ?? '', comparable: true }];
  }
  const word = leadingWord(rest);
  if (word === undefined) return [];
  const token = word.token;
  const end = at + token.length;
  const phrase = sentence.slice(m.index, end).trim();
  const lower = token.toLowerCase();
  if (lower === 'true' || lower === 'false') return [{ ...base, end, phrase, literal: lower === 'true', comparable: true }];
  if (lower === 'null') return [{ ...base, end, phrase, literal: null, comparable: true }];
  const after = rest.slice(token.length);
  // One word followed by punctuation or the end: a literal ("defaults to open."). Several words ("defaults to
  // the current user", "defaults to open issues only") or a word that names no value: the prose describes a
  // default the schema cannot state.
  const single = /^(?:[.,;:)!?]|\s*\(|\s*$|\s+(?:and|or|but|if|when|unless|which|so)\b)/.test(after) || word.punctuation !== '';
  if (!single || DYNAMIC_DEFAULT_WORDS.has(lower) || /'s$/.test(lower)) return [{ ...base, end, phrase, literal: undefined, comparable: false }];
  return [{ ...base, end, phrase, literal: token, comparable: true }];
}

// ---------------------------------------------------------------------------------------------------------------
// Value lists

/** Words that start a phrase rather than a list of values ("one of the user's accounts"). */
const LIST_STOP_WORDS = new Set([
  'the', 'a', 'an', 'these', 'those', 'following', 'its', 'their', 'your', 'our', 'this', 'that', 'any', 'all',
  'each', 'every', 'several', 'many', 'some', 'two', 'three', 'four', 'five', 'them', 'us', 'you', 'it', 'his',
  'her', 'my', 'way', 'case', 'not', 'no', 'be', 'set', 'provided', 'given', 'specified', 'used', 'at', 'in', 'on',
  'greater', 'less', 'more', 'fewer', 'between', 'positive', 'negative', 'non-negative', 'non-empty', 'empty',
  'unique', 'valid', 'present', 'called', 'sent', 'included', 'omitted', 'supplied', 'passed', 'exactly', 'either',
  'both', 'neither', 'true', 'false', 'null', 'none', 'earlier', 'later', 'before', 'after', 'within', 'from',
]);

export interface ParsedList {
  readonly values: string[];
  readonly quoted: boolean;
  readonly end: number;
  /** The separators seen (`,`, `or`, `and`, `/`, `|`). */
  readonly separators: string[];
}

/**
 * Parses a list of values starting at `from`: quoted/backticked values, or bare single words, separated by
 * commas, "or", "and", "/" or "|". A value may carry a parenthetical gloss ("`asc` (ascending)"). A bare list must
 * end where the clause ends, so "one of low, medium or high priority tasks" is not a list of values.
 */
export function parseValueList(text: string, from: number): ParsedList | undefined {
  let at = from;
  const filler = /^\s*:?\s*(?:the\s+following(?:\s+(?:values|options|strings|codes|names|keywords))?\s*:?\s*)?/i.exec(text.slice(at));
  at += filler?.[0].length ?? 0;
  const values: string[] = [];
  const separators: string[] = [];
  let quoted = true;
  for (let i = 0; i < 64; i++) {
    const rest = text.slice(at);
    const q = /^(?:`([^`]+)`|"([^"]+)"|'([^']+)'|“([^”]+)”)/.exec(rest);
    if (q !== null) {
      values.push(q[1] ?? q[2] ?? q[3] ?? q[4] ?? '');
      at += q[0].length;
    } else {
      const bare = /^[A-Za-z0-9_][\w+-]*(?:\.\d+)?/.exec(rest);
      if (bare === null) break;
      if (values.length === 0 && LIST_STOP_WORDS.has(bare[0].toLowerCase())) return undefined;
      if (LIST_STOP_WORDS.has(bare[0].toLowerCase()) && bare[0].toLowerCase() !== 'true' && bare[0].toLowerCase() !== 'false' && bare[0].toLowerCase() !== 'null') break;
      values.push(bare[0]);
      quoted = false;
      at += bare[0].length;
    }
    const gloss = /^\s*\([^()]*\)/.exec(text.slice(at));
    if (gloss !== null) at += gloss[0].length;
    const separator = /^(?:\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+|\s*\/\s*|\s*\|\s*)/i.exec(text.slice(at));
    if (separator === null) break;
    const next = text.slice(at + separator[0].length);
    if (!/^(?:[`"'“]|[A-Za-z0-9_])/.test(next)) break;
    // "a, b or c, depending on ...": a comma followed by a non-value word ends the list.
    if (!/^[`"'“]/.test(next)) {
      const word = /^[A-Za-z0-9_][\w+-]*/.exec(next)?.[0]?.toLowerCase() ?? '';
      if (LIST_STOP_WORDS.has(word) && word !== 'true' && word !== 'false' && word !== 'null') break;
    }
    separators.push(separator[0].trim().toLowerCase() || ' ');
    at += separator[0].length;
  }
  if (values.length < 2) return undefined;
  if (!quoted) {
    // A bare list ends with the clause: end of text, punctuation, a parenthesis or a dash.
    if (!/^(?:\s*$|\s*[.;:,!?)(—–]|\s+-\s)/.test(text.slice(at))) return undefined;
  }
  return { values, quoted, end: at, separators };
}

function enumCandidate(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  const trigger = m[0].toLowerCase();
  const list = parseValueList(sentence, m.index + m[0].length);
  if (list === undefined) return [];
  if (/^either/.test(trigger) && !list.separators.includes('or')) return [];
  if (/^(?:must|only|accept)/.test(trigger) && !list.quoted) return [];
  return [
    {
      kind: 'enum',
      values: list.values,
      quoted: list.quoted,
      start: m.index,
      end: list.end,
      phrase: sentence.slice(m.index, list.end).trim(),
      rule: 'one-of',
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Extraction

/** Every candidate constraint in one sentence, in order of position, without duplicates. */
export function extractCandidates(sentence: string): Candidate[] {
  const out: Candidate[] = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (let match = rule.pattern.exec(sentence); match !== null; match = rule.pattern.exec(sentence)) {
      if (match[0] === '') {
        rule.pattern.lastIndex++;
        continue;
      }
      out.push(...rule.build(match, sentence));
    }
  }
  return dedupe(out).sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * Drops candidates that another one already covers: a bound found by two rules (a range and "at most" on the same
 * number), a generic "format" phrase when a specific format rule matched the same sentence, an enum list that
 * is really the tail of a format phrase.
 */
function dedupe(candidates: Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  const specificFormat = candidates.some((c) => c.kind === 'format' && c.rule !== 'in-format');
  for (const candidate of candidates) {
    if (candidate.kind === 'format' && candidate.rule === 'in-format' && specificFormat) continue;
    // "limited to 2 character country codes": the exact length of a code, not an upper bound beside it.
    if (candidate.kind === 'bound' && candidates.some((o) => o.kind === 'exactLength' && overlaps(o, candidate))) continue;
    const duplicate = out.some((other) => sameConstraint(other, candidate) && overlaps(other, candidate));
    if (duplicate) continue;
    // A bound inside a range already found (the "n-to-m" rule also sees "1 and 100" style numbers).
    if (candidate.kind === 'bound' && out.some((o) => o.kind === 'bound' && o.side === candidate.side && o.value === candidate.value && overlaps(o, candidate))) continue;
    out.push(candidate);
  }
  return out;
}

function sameConstraint(a: Candidate, b: Candidate): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'bound' && b.kind === 'bound') return a.side === b.side && a.value === b.value;
  return true;
}

function overlaps(a: Candidate, b: Candidate): boolean {
  return a.start < b.end && b.start < a.end;
}

/** The words of a text, lower-cased, for "does the prose mention X" checks. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9][a-z0-9_-]*/g) ?? [];
}

/** `rows` → `row`, `entries` → `entry`, `boxes` → `box`; other words unchanged. */
export function singular(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ses|xes|zes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && !/ss$/.test(word) && word.length > 3) return word.slice(0, -1);
  return word;
}

export { LENGTH_UNITS, ITEM_UNITS, MEASURE_UNITS };
