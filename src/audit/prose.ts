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
import type {
  BoundCandidate,
  Candidate,
  DefaultCandidate,
  EnumCandidate,
  FormatCandidate,
  RequiredCandidate,
  RequiredKeysCandidate,
} from './candidates.js';
import {
  CLAUSE_CHARS,
  clauseBefore,
  escapePattern,
  GLOSS,
  lastSeparator,
  NUM,
  parseNumber,
  textBefore,
  UNIT,
  unitOf,
} from './prose-text.js';
import { defaultCandidate, enumCandidate, MEASURE_UNITS, parseValueList } from './prose-values.js';
import { TYPE_RULES } from './stated-types.js';

// ---------------------------------------------------------------------------------------------------------------
// The rules table

/** A word joined by hyphens or underscores (`create-job`, `get_table`): a value, not a word of prose. */
const IDENTIFIER = String.raw`[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+`;
const IS_IDENTIFIER = new RegExp(`^${IDENTIFIER}$`);

/** A value glossed inside a bare list: "asc (default) or desc", "BACK (android only), HOME". */
const MARKED = String.raw`(?:\s+\([^()\n]{1,40}\))?`;
/** A code's label: a few words ("0=from due date", "2=Process full mail as .eml"). */
const CODE_LABEL = String.raw`[A-Za-z][\w-]{0,20}(?:[ \t]+[A-Za-z.][\w.-]{0,20}){0,5}`;
/** Words that name a point of a scale ("1=highest, 9=lowest"), which a few codes gloss without listing every value. */
const SCALE_POINT = /\b(?:highest|lowest|high|low|normal|medium|max(?:imum)?|min(?:imum)?|best|worst|most|least|fastest|slowest)\b/i;
/** "or" between the last two values, in English or Chinese ("range或instant"). */
const OR = String.raw`(?:\s+or\s+|\s*或者?\s*)`;

/** Words for a class of characters, each with what it stands for in a `pattern` character class. */
const CHARACTER_CLASS =
  String.raw`(?:(?:lower|upper)[- ]?case\s+)?(?:ascii\s+)?` +
  String.raw`(?:alphanumerics?|letters|digits|numbers|underscores|hyphens|dashes|periods|dots|spaces)`;

function classChars(words: string): string {
  const w = words.toLowerCase();
  if (w.endsWith('letters')) return /lower/.test(w) ? 'a-z' : /upper/.test(w) ? 'A-Z' : 'A-Za-z';
  if (/alphanumerics?$/.test(w)) return /lower/.test(w) ? 'a-z0-9' : /upper/.test(w) ? 'A-Z0-9' : 'A-Za-z0-9';
  if (w.endsWith('digits') || w.endsWith('numbers')) return '0-9';
  if (w.endsWith('underscores')) return '_';
  if (w.endsWith('periods') || w.endsWith('dots')) return '.';
  if (w.endsWith('spaces')) return ' ';
  return '\\-';
}

/**
 * One prose rule, as data: what it matches, what must hold around the match (named guards from {@link GUARDS}),
 * the candidate constraint it yields (whose keyword is the suggested home), and its own test table: sentences it
 * must read as a constraint (`yes`) and sentences it must not (`no`), run by test/unit/audit/rules.test.ts.
 */
export interface Rule {
  readonly name: string;
  readonly examples: { readonly yes: readonly string[]; readonly no: readonly string[] };
  /** Linear-time pattern, global and case-insensitive (see {@link re}). */
  readonly matches: RegExp;
  /** Guards that must all hold for a match to count. */
  readonly requires?: readonly GuardName[];
  /** The candidates of one match: none when the text after it is not the shape the rule reads. */
  yields(match: RegExpExecArray, sentence: string): Candidate[];
}

/** A sentence saying values past a cap are dropped or unused rather than refused: the cap is the server's, not the call's. */
const IGNORED_BEYOND =
  /\b(?:beyond|past)\s+the\s+first\b|\bonly\s+the\s+first\s+[\w,]+\s+(?:\w+\s+)?(?:are|is|will\s+be)\s+(?:used|kept|processed|read)\b|\b(?:ignored|truncated|dropped|discarded)\s+rather\s+than\s+(?:rejected|refused)\b/i;

/** After a word, a colon that makes it the label of one case ("Positive number: returns that many"). */
const CASE_LABEL = /^\s*(?:numbers?|integers?|values?)?\s*:/i;

/** What a rule can require around its match, by name: the grammar that makes a phrase a constraint. */
export const GUARDS = {
  /** "at least 2", not "at least one of `a` or `b`" (a rule about parameters). */
  'not-before-of': (m: RegExpExecArray, s: string) => !followedByOf(s, m.index + m[0].length),
  /** "is greater than 0", "Amount, above 10": said of the value, and not "greater than or equal" (another rule). */
  'said-of-value': (m: RegExpExecArray, s: string) =>
    copulaGuard(s, m.index) && !/\bor\s+equal/i.test(s.slice(m.index + m[0].length, m.index + m[0].length + 12)),
  /** Not inside "if ..."/"when ..." ("returned if not empty"). */
  'not-conditional': (m: RegExpExecArray, s: string) => !/\b(?:if|when|unless|whether)\s+$/i.test(textBefore(s, m.index)),
  /** Not negated ("not optional"). */
  'not-negated': (m: RegExpExecArray, s: string) => !/\bnot\s+$/i.test(textBefore(s, m.index)),
  /** "2 or more" not said of what a code looks like ("the 2 or more character language code"). */
  'not-a-code': (m: RegExpExecArray, s: string) => !/^\s+(?:characters?\s+)?(?:[\w-]+\s+)?codes?\b/i.test(s.slice(m.index + m[0].length)),
  /** "max 10,000 labels returned per request": a cap on what the server returns, not on the value sent. */
  'not-of-results': (m: RegExpExecArray, s: string) =>
    !/^\s*(?:(?:are|is|will\s+be|gets?)\s+)?returned\b/i.test(s.slice(m.index + m[0].length)) &&
    !/\b(?:results?|responses?|output|matches)\s+(?:are|is|will\s+be)\s+$/i.test(textBefore(s, m.index)),
  /** "At most 1000 are processed; any beyond the first 1000 are ignored": the extra values are accepted, not refused. */
  'not-ignored-beyond': (_m: RegExpExecArray, s: string) => !IGNORED_BEYOND.test(s),
  /** "joined by '&' (the default)", "separated by ',' (default)": said of a separator inside the value. */
  'not-a-joiner': (m: RegExpExecArray, s: string) =>
    !/\b(?:joined|separated|combined|delimited|connected|split)\s+(?:by|with|on)\s+$/i.test(textBefore(s, m.index)),
  /** "min 2 mins after current time": a distance from a moment, not a bound on the value sent. */
  'not-relative': (m: RegExpExecArray, s: string) =>
    !/^\s*(?:after|before|from\s+now|ago|later|earlier|in\s+the\s+(?:future|past))\b/i.test(s.slice(m.index + m[0].length)),
  /** "when depth >= 2", "if count < 5": a comparison in a condition on some (other) value, no bound. */
  'not-a-condition': (m: RegExpExecArray, s: string) =>
    !/\b(?:when|if|unless|while|whenever)\s+[\w.\x60'"-]+\s*$/i.test(textBefore(s, m.index)),
  /** A time of day alone, not the time part of a date template (the date rule reads that). */
  'no-date-template': (_m: RegExpExecArray, s: string) => !/YYYY/i.test(s),
} as const;
export type GuardName = keyof typeof GUARDS;

/** The candidates one rule reads in a sentence: every match whose guards hold. */
export function applyRule(rule: Rule, sentence: string): Candidate[] {
  const out: Candidate[] = [];
  const pattern = rule.matches;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(sentence); match !== null; match = pattern.exec(sentence)) {
    if (match[0] === '') {
      pattern.lastIndex++;
      continue;
    }
    if ((rule.requires ?? []).every((guard) => GUARDS[guard](match, sentence))) out.push(...rule.yields(match, sentence));
  }
  return out;
}

/** Words after which a comparative ("greater than 0", "below 100") states a constraint. */
export const COPULA_BEFORE =
  /(?:\b(?:must|should|shall|always|is|are|be|strictly|only)(?:\s+(?!(?:when|if|unless|because|and|or|but|while|once)\b)[\w-]+){0,3}\s+|[,;:(—–]\s*|\s-\s*)$/i;

/**
 * "is greater than 0", "must be a whole number greater than zero", "Amount, greater than 0"; not "no more than 3"
 * or "never less than 1" (other rules), not "values above 50 are slow".
 */
export function copulaGuard(sentence: string, at: number): boolean {
  const before = textBefore(sentence, at);
  return COPULA_BEFORE.test(before) && !/\b(?:no|not|never|cannot|can't)\s+(?:be\s+)?$/i.test(before);
}

/**
 * Followed by "of" and a list ("at least one of `a` or `b`", "at most one of the following"): a rule about
 * parameters or values, not a bound. "at least 2 of them" is still a bound.
 */
export function followedByOf(sentence: string, end: number): boolean {
  return (
    /^\s+of\s+(?:[`"'“]|the\s+following\b|these\s+(?:fields|parameters|properties|arguments)\b)/i.test(sentence.slice(end)) ||
    /^\s+of\s+[A-Za-z_][\w-]*(?:\s+(?:or|and)\s|\s*,\s*[A-Za-z_][\w-]*\s*,?\s*(?:or|and)?\s)/i.test(sentence.slice(end))
  );
}

export function bound(
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

export function wordBound(
  match: RegExpExecArray,
  side: 'lower' | 'upper',
  value: number,
  exclusive: boolean,
  rule: string,
): BoundCandidate {
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

export function simple(kind: 'nonEmpty' | 'unique' | 'readOnly' | 'optional', match: RegExpExecArray, rule: string): Candidate {
  const base = { start: match.index, end: match.index + match[0].length, phrase: match[0].trim(), rule };
  switch (kind) {
    case 'nonEmpty':
      return { kind, ...base };
    case 'unique':
      return { kind, ...base };
    case 'readOnly':
      return { kind, ...base };
    case 'optional':
      return { kind, ...base };
  }
}

export const re = (source: string): RegExp => new RegExp(source, 'gi');

/** What may follow "minimum"/"maximum" before the number: "of", "is", "allowed value is also", ":". */
const EXTREME_TAIL = String.raw`(?:\s+allowed)?(?:\s+value)?(?:\s+allowed)?(?:\s+(?:of|is(?:\s+also)?))?:?`;

export const LOWER_INCLUSIVE =
  String.raw`at\s+least|no\s+less\s+than|not\s+less\s+than|no\s+fewer\s+than|` +
  String.raw`not\s+fewer\s+than|greater\s+than\s+or\s+equal\s+to|more\s+than\s+or\s+equal\s+to|` +
  String.raw`no\s+shorter\s+than|never\s+(?:less|fewer)\s+than|never\s+below|` +
  String.raw`(?:a\s+)?minimum${EXTREME_TAIL}|min\.?:?|starting\s+(?:at|from)|starts?\s+(?:at|from)|` +
  String.raw`(?:cannot|can't|must\s+not|may\s+not|should\s+not|shall\s+not)\s+be\s+(?:less|fewer|smaller|lower)\s+than`;
export const UPPER_INCLUSIVE =
  String.raw`at\s+most|no\s+more\s+than|not\s+more\s+than|no\s+greater\s+than|` +
  String.raw`not\s+greater\s+than|no\s+larger\s+than|no\s+longer\s+than|` +
  String.raw`not\s+longer\s+than|less\s+than\s+or\s+equal\s+to|up\s+to|(?:a\s+)?maximum${EXTREME_TAIL}|` +
  String.raw`max\s+(?:limit|value)\s*:|max\.?:?|(?:must|may|should|can|shall|does|do|will)\s+not\s+exceed|` +
  String.raw`(?:cannot|can't|mustn't|won't|never)\s+exceeds?|` +
  String.raw`not\s+to\s+exceed|never\s+(?:more|greater)\s+than|never\s+above|capped\s+at|limited\s+to|` +
  String.raw`(?:cannot|can't|must\s+not|may\s+not|should\s+not|shall\s+not)\s+be\s+(?:greater|more|larger|higher|bigger)\s+than`;

export const LENGTH_UNITS = /^(?:characters?|chars?|letters?|code-?points?|symbols?|glyphs?)$/;
export const ITEM_UNITS = /^(?:items?|elements?|entries|entry|values?)$/;

/** "for all operations", "for every action": every call, so no condition (it ends its clause). */
const FOR_EVERY_CALL =
  String.raw`\s+for\s+(?:all|every|each)\s+` +
  String.raw`(?:operations?|actions?|modes?|commands?|methods?|requests?|calls?)(?=\s*(?:[.;)]|$))`;

/** "will show", "returns", "displays": what the tool gives back, said just before a word bound. */
const SHOWS_BEFORE = /\b(?:shows?|showing|displays?|returns?|returned|reports?|outputs?)\s+(?:only\s+)?$/i;

export const RULES: readonly Rule[] = [
  // ---- ranges: "between 1 and 100", "from 5 to 1440", "1 to 200 characters", "(1-100)"
  {
    name: 'between',
    examples: {
      yes: ['Must be between 1 and 100.', 'A value between 0.5 and 2 (exclusive).', 'Must be between 10000ms and 300000ms.'],
      no: ['Choose between fast and slow.'],
    },
    // "between 10000ms and 300000ms": a unit glued to the first number is the second's too.
    matches: re(String.raw`\bbetween\s+(${NUM})(?:[A-Za-z%]{1,3}(?![A-Za-z]))?${GLOSS}\s+and\s+(${NUM})${UNIT}(\s*\(?\s*exclusive)?`),
    yields: (m) => rangeCandidates(m, 'between', m[5] !== undefined),
  },
  {
    name: 'interval',
    examples: {
      yes: ['Temperature in the range [0, 2].', 'A weight in [0, 1].', 'Score, range: [-1.0, 1.0]'],
      no: ['Coordinates as [x, y].', 'rect: [0, 0, 10, 10]', 'Pass [1, 2] to pick both.'],
    },
    // A closed interval written as such after "range" or "in": both ends inclusive.
    matches: re(String.raw`\b(?:range(?:\s+of)?\s*:?|in|within)\s*\[\s*(${NUM})\s*,\s*(${NUM})\s*\](?!\s*(?:to|or|and)\b)`),
    yields: (m) => rangeCandidates(m, 'interval', false),
  },
  {
    name: 'from-to',
    examples: { yes: ['Minutes, from 5 to 1440.', 'From 1 through 10 items.'], no: ['Copy from a to b.'] },
    matches: re(String.raw`\bfrom\s+(${NUM})${GLOSS}\s+(?:to|through|up\s+to)\s+(${NUM})${UNIT}`),
    yields: (m) => rangeCandidates(m, 'from-to', false),
  },
  {
    name: 'n-to-m',
    examples: {
      yes: [
        'Page size (1-100).',
        'Name, 3 to 64 characters.',
        'Number of results 1-50 (default: 10)',
        'Weight (100-900 in steps of 100)',
        '2-10 residues defining the motif',
      ],
      no: ['Released 2020-2024 under the MIT license, see the notes for details.', 'Between 1 and 5.', '2020-2024 releases are covered.'],
    },
    matches: re(String.raw`(${NUM})\s*(?:to|through|\.\.|–|—|-)\s*(${NUM})${UNIT}`),
    yields: (m, s) => {
      const unit = unitOf(m[3], m[4]);
      // Anchored: the match goes on from its first number with `\s*` and the separator. Unanchored, with `\s*`
      // first, the regex would be retried at every position of a run of spaces with no separator after it
      // (quadratic).
      const separator = /^\s*(to|through|\.\.|–|—|-)/i.exec(m[0].slice((m[1] ?? '').length))?.[1]?.toLowerCase() ?? '';
      const before = textBefore(s, m.index);
      const after = s.slice(m.index + m[0].length);
      const lengthOrItems = unit !== undefined && (LENGTH_UNITS.test(unit) || ITEM_UNITS.test(unit));
      const parenthesized = /\(\s*$/.test(before) && /^\s*(?:[),;]|in\s+(?:steps|increments)\s+of\b)/i.test(after);
      const introduced = /\b(?:range(?:\s+of)?|values?|between|from|of)\s*:?\s*$/i.test(before);
      // "Number of results 1-50 (default: 10)": a short label, then the range, then the clause ends.
      const labelled = /^(?:[A-Za-z]+\s+){1,5}$/.test(before) && /^\s*(?:$|[(.;,])/.test(after);
      // "2-10 residues defining the motif": a sentence that opens with the range counts what it names.
      const opening =
        /^\s*(?:optional(?:ly)?,?\s+)?$/i.test(before) &&
        unit !== undefined &&
        /^[a-z]{3,}s$/i.test(unit) &&
        !/^(?:19|20)\d\d$/.test(m[1] ?? '');
      // Words: "5 to 1440" after a comma or "is"; dashes only where nothing else reads that way (not dates).
      const wordy = separator === 'to' || separator === 'through' || separator === '..';
      if (/\bbetween\s+$|\bfrom\s+$/i.test(before)) return [];
      if (!(
        lengthOrItems ||
        parenthesized ||
        introduced ||
        labelled ||
        opening ||
        (wordy && (copulaGuard(s, m.index) || /^\s*$/.test(before)))
      ))
        return [];
      return rangeCandidates(m, 'n-to-m', false);
    },
  },
  // ---- lower bounds
  {
    name: 'lower-inclusive',
    examples: {
      yes: ['At least 3 characters.', 'Minimum: 10', 'Must not be less than 5.', 'Page number (starts at 1)', 'The minimum allowed is 2.'],
      no: ['At least one of `a` or `b` must be set.', 'Unix timestamp (min 2 mins after current time)'],
    },
    matches: re(String.raw`\b(?:${LOWER_INCLUSIVE})\s*(${NUM})${UNIT}`),
    requires: ['not-before-of', 'not-relative'],
    yields: (m) => bound(m, 'lower', false, 1, 'lower-inclusive'),
  },
  {
    name: 'one-based',
    examples: {
      yes: ['Start line for sequential reading (1-based)', 'The try number, 1-indexed.', 'One-based page index.'],
      no: ['0-based index.', 'Zero-based offset.', 'A list of 1-based indices.'],
    },
    // "(1-based)" counts from 1: a lower bound of the number (never of a length), unless it numbers a list's items.
    matches: re(String.raw`(?<![\w-])(1|one)[- ](?:based|indexed)\b(?!\s+(?:indices|indexes|positions|line\s+numbers))`),
    yields: (m) => bound(m, 'lower', false, 1, 'one-based').map((c) => ({ ...c, fromWord: true })),
  },
  {
    name: 'lower-symbol',
    examples: { yes: ['Limit (>= 1).'], no: ['Use `>=5` in the query.', 'Includes dependencies when depth >= 2.'] },
    matches: re(String.raw`(?<![\w:'"\`])(?:>=|≥)\s*(${NUM})${UNIT}`),
    requires: ['not-a-condition'],
    yields: (m) => bound(m, 'lower', false, 1, 'lower-symbol'),
  },
  {
    name: 'lower-symbol-exclusive',
    examples: { yes: ['Amount (> 0).'], no: ['Search syntax: stars:>1000', 'Attachments (when FileCount > 0).'] },
    requires: ['not-a-condition'],
    matches: re(String.raw`(?<![<>=\w:'"\`])>\s*(${NUM})${UNIT}`),
    yields: (m) => bound(m, 'lower', true, 1, 'lower-symbol-exclusive'),
  },
  {
    name: 'or-more',
    examples: { yes: ['Use 2 or more words.', '10 or greater.'], no: ['The 2 or more character language code.'] },
    matches: re(String.raw`(${NUM})${UNIT}\s+or\s+(?:more|greater|higher|above|larger|longer)\b`),
    // "The 2 or more character language code": what a code looks like is a pattern's business.
    requires: ['not-a-code'],
    yields: (m) => bound(m, 'lower', false, 1, 'or-more'),
  },
  {
    name: 'lower-exclusive',
    examples: {
      yes: ['Must be greater than 0.', 'Amount, above 10'],
      no: ['Values above 50 are slow.', 'Must be greater than or equal to 1.', 'Cannot be greater than 100.'],
    },
    matches: re(String.raw`\b(?:strictly\s+)?(?:greater|more|larger|higher)\s+than\s+(?!or\b)(${NUM})${UNIT}|\babove\s+(${NUM})${UNIT}`),
    requires: ['said-of-value'],
    yields: (m) => (m[1] !== undefined ? bound(m, 'lower', true, 1, 'lower-exclusive') : bound(m, 'lower', true, 4, 'lower-exclusive')),
  },
  {
    name: 'positive',
    examples: {
      yes: ['A positive integer.', 'Must be strictly positive.'],
      no: [
        'Non-positive values are ignored.',
        'Positive or zero.',
        'Debits are positive, credits are negative value',
        'For roots, the level will show positive values for all consumers.',
        'Special values:\n- Positive number: Returns that many points per page\n- -1: Returns all points',
      ],
    },
    matches: re(String.raw`(?<!non[- ]?)(?<![\w\`"'-])(?:strictly\s+)?positive\b(?!\s+or\s+(?:zero|0)\b)(?![\`"'])`),
    // "Debits are positive, credits are negative": the sign carries a meaning, both signs are sent.
    // "downstream_level will show positive values": what the output shows, not a bound on what is sent.
    // "Positive number: returns that many": one case of a list of what the values do, beside others (-1 for all).
    yields: (m, s) =>
      /(?<!non[- ]?)\bnegative\b/i.test(s) || SHOWS_BEFORE.test(textBefore(s, m.index)) || CASE_LABEL.test(s.slice(m.index + m[0].length))
        ? []
        : [wordBound(m, 'lower', 0, true, 'positive')],
  },
  {
    name: 'non-negative',
    examples: { yes: ['A non-negative number.', 'Zero or more.'], no: ['A negative offset counts from the end.'] },
    matches: re(
      String.raw`\b(?:non-?negative|not\s+negative|never\s+negative|` +
        String.raw`zero\s+or\s+(?:more|greater|positive|above)|positive\s+or\s+(?:zero|0))\b`,
    ),
    yields: (m) => [wordBound(m, 'lower', 0, false, 'non-negative')],
  },
  // ---- upper bounds
  {
    name: 'upper-inclusive',
    examples: {
      yes: [
        'At most 50 items.',
        'The maximum value allowed is also 1,000.',
        'Maximum allowed value: 500.',
        'Must not exceed 10.',
        'Up to 100 rows.',
        'Cannot be greater than 100.',
        'Records to return (max limit: 100)',
        'At most 100 per page; pass the cursor after the first page.',
      ],
      no: [
        'At most one of `a` or `b` may be set.',
        'Results are limited to 100 symbols.',
        'At most 1000 are processed per request; any beyond the first 1000 are ignored rather than rejected.',
        'Up to 20 tags; only the first 20 tags are used.',
      ],
    },
    matches: re(String.raw`(?:\b|(?<=\s))(?:${UPPER_INCLUSIVE})\s*(${NUM})${UNIT}`),
    requires: ['not-before-of', 'not-of-results', 'not-ignored-beyond'],
    yields: (m) => bound(m, 'upper', false, 1, 'upper-inclusive'),
  },
  {
    name: 'upper-symbol',
    examples: { yes: ['Limit (<= 100).'], no: ['Filter `<=5` in a query.', 'Only when size <= 10.', '(default 200; <=0 means none)'] },
    requires: ['not-a-condition'],
    matches: re(String.raw`(?<![\w:'"\`])(?:<=|≤)\s*(${NUM})${UNIT}`),
    // "<=0 means no entries": what those values do, not a bound.
    yields: (m, s) => (SAYS_MEANING.test(s.slice(m.index, m.index + m[0].length + 12)) ? [] : bound(m, 'upper', false, 1, 'upper-symbol')),
  },
  {
    name: 'upper-symbol-exclusive',
    examples: { yes: ['Ratio (< 1).'], no: ['Tags like <b> are stripped.', 'If count < 5, all are shown.', '< 0 means no limit.'] },
    requires: ['not-a-condition'],
    matches: re(String.raw`(?<![<>=\w:'"\`])<(?![=>])\s*(${NUM})${UNIT}`),
    yields: (m, s) =>
      SAYS_MEANING.test(s.slice(m.index, m.index + m[0].length + 12)) ? [] : bound(m, 'upper', true, 1, 'upper-symbol-exclusive'),
  },
  {
    name: 'or-less',
    examples: {
      yes: ['10 or fewer items.', '255 characters or less.'],
      no: ['Fewer items load faster.', '50 or fewer ids; extra ids are truncated rather than rejected.'],
    },
    matches: re(String.raw`(${NUM})${UNIT}\s+or\s+(?:less|fewer|lower|below|smaller|shorter)\b`),
    requires: ['not-ignored-beyond'],
    yields: (m) => bound(m, 'upper', false, 1, 'or-less'),
  },
  {
    name: 'n-max',
    examples: { yes: ['50 max.'], no: ['50 max length of the name.', '100 max; any beyond the first 100 are ignored.'] },
    matches: re(String.raw`(${NUM})${UNIT}\s+(?:max|maximum)\b(?!\s+(?:of|number|length|size|value))`),
    requires: ['not-ignored-beyond'],
    yields: (m) => bound(m, 'upper', false, 1, 'n-max'),
  },
  {
    name: 'upper-exclusive',
    examples: {
      yes: ['Must be less than 100.', 'Timeout, under 30'],
      no: ['Values below 10 are cached.', 'Must be less than or equal to 5.'],
    },
    matches: re(
      String.raw`\b(?:strictly\s+)?(?:less|fewer|smaller|shorter)\s+than\s+(?!or\b)(${NUM})${UNIT}|\b(?:below|under)\s+(${NUM})${UNIT}`,
    ),
    requires: ['said-of-value'],
    yields: (m) => (m[1] !== undefined ? bound(m, 'upper', true, 1, 'upper-exclusive') : bound(m, 'upper', true, 4, 'upper-exclusive')),
  },
  // ---- lengths named as such: "max length 64", "minimum length of 3"
  {
    name: 'length-named',
    examples: { yes: ['Max length 64.', 'Minimum length of 3.'], no: ['The length of the name.'] },
    matches: re(String.raw`\b(max(?:imum)?|min(?:imum)?)\.?\s+length(?:\s+(?:of|is))?:?\s*(${NUM})`),
    yields: (m) => bound(m, /^max/i.test(m[1] ?? '') ? 'upper' : 'lower', false, 2, 'length-named', { forcedUnit: 'characters' }),
  },
  // ---- exact lengths: "exactly 3 characters", "3-letter", "two-letter"
  {
    name: 'exact-length',
    examples: {
      yes: ['Exactly 6 digits.', 'A 3-letter code.', '2 character country codes.'],
      no: ['Several characters.', 'One-letter sequence; whitespace is ignored.'],
    },
    matches: re(
      String.raw`\bexactly\s+(${NUM})\s+(?:characters?|chars?|letters?|digits?)\b|(${NUM})-(?:letter|character|char|digit)\b|` +
        String.raw`(${NUM})[ -]?(?:characters?|chars?|letters?)(?=\s+(?:[\w-]+\s+)?codes?\b)`,
    ),
    yields: (m, s) => {
      const parsed = parseNumber(m[1] ?? m[2] ?? m[3] ?? '');
      if (parsed === undefined) return [];
      // "One-letter sequence": the width of each symbol of a longer text, not of the value.
      if (/^\s+(?:sequences?|strings?|texts?)\b/i.test(s.slice(m.index + m[0].length))) return [];
      return [
        { kind: 'exactLength', value: parsed.value, start: m.index, end: m.index + m[0].length, phrase: m[0].trim(), rule: 'exact-length' },
      ];
    },
  },
  // ---- non-empty, negation read as the constraint it states
  {
    name: 'non-empty',
    examples: {
      yes: ['A non-empty list.', 'Must not be empty.', 'Database name. Required — do not pass empty string.', 'Never pass an empty name.'],
      no: ['Returned if not empty.', 'May be empty.', 'Pass an empty string to clear it.'],
    },
    matches: re(
      String.raw`\b(?:non-?empty|non-?blank|not\s+(?:be\s+)?(?:empty|blank)|never\s+(?:be\s+)?(?:empty|blank)|` +
        String.raw`(?:do\s+not|don't|never)\s+(?:pass|send|use|provide|give)\s+(?:an\s+)?(?:empty|blank)\s+(?:string|value|name|list)|` +
        String.raw`cannot\s+be\s+(?:empty|blank)|can't\s+be\s+(?:empty|blank)|mustn't\s+be\s+(?:empty|blank))\b`,
    ),
    requires: ['not-conditional'],
    yields: (m) => [simple('nonEmpty', m, 'non-empty')],
  },
  // ---- distinct items: "no duplicates", "each tag at most once", "must be unique"
  {
    name: 'no-duplicates',
    examples: {
      yes: [
        'Calendar IDs (max 50, no duplicates).',
        'Each tag may appear at most once.',
        'Values must be unique.',
        'A list of unique labels.',
      ],
      no: ['Duplicates are removed.', 'The unique identifier of the issue.', 'Returns unique values.', 'Duplicates are ignored.'],
    },
    // Said of what is sent: "duplicates are removed/ignored" is the server's doing, not a constraint on the call.
    matches: re(
      String.raw`\b(?:no|without)\s+duplicates?\b|\bduplicates?\s+(?:are|is)\s+(?:not\s+(?:allowed|permitted|accepted)|rejected)\b|` +
        String.raw`\b(?:must|should|cannot|can't|may\s+not)\s+(?:not\s+)?(?:contain|include|have)\s+(?:any\s+)?duplicates?\b|` +
        String.raw`\b(?:must|should)\s+(?:all\s+)?be\s+(?:unique|distinct)\b|` +
        String.raw`\b(?:each|every)\s+[\w-]+\s+(?:(?:may|can|must|should)\s+)?(?:(?:appear|occur|be\s+(?:listed|given|included))\s+)?` +
        String.raw`(?:at\s+most|only)\s+once\b|` +
        String.raw`(?<!\breturns?\s+)(?<!\bthe\s+)\b(?:unique|distinct)\s+(?:values|items|elements|entries|labels|tags|ids|names)\b`,
    ),
    yields: (m) => [simple('unique', m, 'no-duplicates')],
  },
  // ---- an error said of a value: "Raises: ValueError: If 'ids' is empty", "Throws an error if limit is less than 1"
  {
    name: 'error-if',
    examples: {
      yes: ["ValueError: If 'ids' is empty", 'Throws an error if `limit` is less than 1.', 'Fails if the name is blank.'],
      no: ['Returns an empty list if nothing matches.', 'ValueError: If the collection does not exist', 'If empty, all are returned.'],
    },
    // The value the error refuses, read as the constraint that keeps it out (an empty value: non-empty; "less than
    // 1": at least 1).
    matches: re(
      String.raw`(?:\b[A-Z]\w*(?:Error|Exception)\s*:\s*|\b(?:raises|throws|fails|errors|rejects|returns\s+an\s+error)\b[^.;:]{0,30}?\s)` +
        String.raw`if\s+(?:the\s+)?[\x60'"]?[A-Za-z_][\w.-]*[\x60'"]?\s+(?:is|are)\s+` +
        String.raw`(?:(empty|blank)\b|(less|fewer|smaller|greater|more|larger)\s+than\s+(${NUM})|(negative)\b)`,
    ),
    yields: (m) => {
      if (m[1] !== undefined) return [simple('nonEmpty', m, 'error-if')];
      if (m[4] !== undefined) return [wordBound(m, 'lower', 0, false, 'error-if')];
      const refused = parseNumber(m[3] ?? '');
      if (refused === undefined) return [];
      const below = /^(?:less|fewer|smaller)$/i.test(m[2] ?? '');
      return [{ ...wordBound(m, below ? 'lower' : 'upper', refused.value, false, 'error-if'), fromWord: false, plain: refused.plain }];
    },
  },
  // ---- read-only
  {
    name: 'read-only',
    examples: {
      yes: ['This field is read-only.', 'Immutable (read-only).', 'Read only.'],
      no: [
        'Open the file in read-only mode.',
        'Read only first N lines',
        '(type, string, required, readonly, relation)',
        'Read-only actions: ping, read.',
        "The 'get' action is read-only; 'clear' modifies state.",
        'QUERY (read-only): - list_packages',
      ],
    },
    // "Read only first N lines" is the verb: two words open a sentence as the flag only when nothing follows.
    matches: re(
      String.raw`\b(?:is|are)\s+read[- ]?only\b(?!\s+(?:operations?|actions?|tools?|calls?|requests?|mode|access))|` +
        String.raw`^\s*read(?:-|)only\b(?!\s+(?:mode|access|transaction|flag|` +
        String.raw`operations?|actions?|tools?|calls?|requests?|queries|commands?))|` +
        String.raw`^\s*read\s+only(?=\s*(?:[.;,)]|$))|` +
        String.raw`(?=read)(?<=[;:—–]\s*|(?<![,]\s*[\w-]+\s*),\s*)read[- ]?only(?=\s*(?:[.;)]|$)|\s*,(?!\s*[\w-]+\s*[,)]))|` +
        String.raw`\(read[- ]?only\)(?!\s*:)|\bread[- ]?only\s+(?:field|property|parameter|value|attribute)\b|` +
        String.raw`\b(?:is|are)\s+immutable\b|\bcannot\s+be\s+(?:changed|modified)\b`,
    ),
    // "The 'get' action is read-only": said of an action of the tool, not of the value.
    yields: (m, s) =>
      OF_AN_ACTION.test(clauseBefore(s, lastSeparator(s, m.index) + 1, m.index)) ? [] : [simple('readOnly', m, 'read-only')],
  },
  // ---- defaults
  {
    name: 'default',
    examples: {
      yes: [
        'Defaults to 10.',
        '(default: `open`)',
        '(Optional, default true)',
        'Default value will be `mine`.',
        'Local host (default: 127.0.0.1)',
      ],
      no: ['No fallback is given.'],
    },
    matches: re(
      String.raw`\bdefaults?\s+(?:to\s*:?|is|=|:)\s*|\bdefault\s+value\s+(?:is|will\s+be|of|:)\s*|` +
        String.raw`\(\s*default(?:s)?(?:\s*:|\s+is|\s+to\s*:?|\s*=)?\s*|` +
        // "(Optional, default true)": a default given after another remark in the same parentheses.
        String.raw`\(\s*optional\s*,\s*default(?:s)?(?:\s*:|\s+is|\s+to|\s*=)?\s*|\bdefault:\s*`,
    ),
    yields: (m, s) => defaultCandidate(m, s),
  },
  {
    name: 'default-sentence',
    examples: { yes: ['Default false.', 'Default 20.', "Default 'desc'."], no: ['Default branch of the repository.'] },
    // A sentence of its own, "Default false.": only a literal follows (a word may start a phrase, "Default branch").
    matches: re(String.raw`^\s*default\s+(?=(?:true|false|null|[-−]?\d|['"\x60]))`),
    yields: (m, s) => defaultCandidate(m, s),
  },
  {
    name: 'default-number',
    examples: {
      yes: ['Max results, default 100', 'Max results default 100'],
      no: ['The default 10 retries are used.', 'Sets default 5 minutes.'],
    },
    // "Max results, default 100": "default" then a bare number that ends the clause (not "the default 10 ...").
    matches: re(String.raw`(?<!\b(?:the|a|an|its|their|this|that)\s+)\bdefault\s+(?=[-−]?\d+(?:\.\d+)?\s*(?:[.,;)]|$))`),
    yields: (m, s) => defaultCandidate(m, s),
  },
  {
    name: 'on-off-by-default',
    examples: {
      yes: ['Off by default because it costs a request.', 'Enabled by default.'],
      no: ['Caching is enabled by default.', 'Uses the default sort.'],
    },
    // A sentence that opens with "Off by default": the parameter's own switch (a boolean), not something else's.
    matches: re(String.raw`^\s*(?:it\s+is\s+|is\s+)?(off|on|disabled|enabled|false|true)\s+by\s+default\b`),
    yields: (m) => [
      {
        kind: 'default',
        start: m.index,
        end: m.index + m[0].length,
        phrase: m[0].trim(),
        literal: /^(?:on|enabled|true)$/i.test(m[1] ?? ''),
        comparable: true,
        rule: 'default',
      },
    ],
  },
  {
    name: 'default-marked',
    examples: {
      yes: [
        "Sort by 'relevance' (default) or 'date'.",
        'Either `asc` (the default) or `desc`.',
        '"p4" (lowest/default).',
        "Output format: 'slim' (default; compact), 'wide'.",
      ],
      no: ['Uses the default sort.', "Conditions joined by '&' (the default), '|' or '!'."],
    },
    // A value of a list marked as the default after it: "'relevance' (default)", '"us" (United States, default)',
    // '"unrestricted" (default, the route may arrive from either side)'.
    matches: re(String.raw`(['"\x60])([^'"\x60\n]{1,60})\1\s*\((?:[^()\n]{0,60}[,/]\s*)?(?:the\s+)?default(?:\)|,|;)`),
    // "conditions joined by '&' (the default)": the default of the joining, not of the value.
    requires: ['not-a-joiner'],
    yields: (m) => [
      {
        kind: 'default',
        start: m.index,
        end: m.index + m[0].length,
        phrase: m[0],
        literal: m[2] ?? '',
        comparable: true,
        rule: 'default',
      },
    ],
  },
  {
    name: 'default-is-the',
    examples: { yes: ['"pin" is the default marker.', 'Use `json`, which is the default.'], no: ['The default is chosen by the server.'] },
    // A quoted value said to be the default: '"pin" is the default Mapbox marker'.
    matches: re(String.raw`(['"\x60])([^'"\x60\n]{1,60})\1,?\s+(?:which\s+)?is\s+the\s+default\b`),
    yields: (m) => [matchedDefault(m, m[2] ?? '')],
  },
  {
    name: 'default-marked-boolean',
    examples: {
      yes: ['Whether to merge: true merges, false (default) replaces.', 'true (default) keeps it.'],
      no: ['Returns true (if found).', 'Set to false to use the default.'],
    },
    // "false (default) replaces the list": a flag's value marked as the default where it is said.
    matches: re(String.raw`(?<![\w'"\x60./=-])(true|false)\s*\((?:the\s+)?default\)`),
    yields: (m) => [matchedDefault(m, (m[1] ?? '').toLowerCase() === 'true')],
  },
  {
    name: 'default-marked-bare',
    examples: {
      yes: [
        'Possible values are: duration (default), distance, or both.',
        '- mapbox/driving-traffic (default): with traffic',
        'UUID version: v4 (random, default) or v7 (time-ordered)',
      ],
      no: ['Uses the default sort.', "Sort by 'relevance' (default)."],
    },
    // A bare value marked as the default after it, inside a list: a value only when the schema lists it.
    // Not a code's label ("1=Y (default)": the code-values rule reads the code as the default).
    // The mark may close a gloss: "v4 (random, default)".
    matches: re(String.raw`(?<![\w'"\x60./=-])([A-Za-z][\w./-]{0,60}?)\s*\((?:[^(),\n]{1,30},\s*)?(?:the\s+)?default\)`),
    // "'both' searches names and content (default)": the mark ends the item of the quoted value that opens it.
    yields: (m, s) => [bareDefault(m, GLOSSED_HEAD.exec(s.slice(lastSeparator(s, m.index) + 1, m.index))?.[2] ?? m[1] ?? '')],
  },
  {
    name: 'default-by-quoted',
    examples: { yes: ["Sort order; 'desc' by default.", 'Uses `json` by default.'], no: ["'desc' sorts by default order."] },
    // A quoted value said to be used by default: "'desc' by default".
    matches: re(String.raw`(['"\x60])([^'"\x60\n]{1,60})\1\s+by\s+default\b(?!\s+\w)`),
    yields: (m) => [matchedDefault(m, m[2] ?? '')],
  },
  {
    name: 'default-by',
    examples: { yes: ['Compact by default.', 'Returns markdown by default, or HTML.'], no: ['Uses the default sort.'] },
    // "summary by default": the word before is the value, when the schema lists it ("sorted by default" is not).
    matches: re(String.raw`(?<![\w'"\x60./-])([A-Za-z][\w./-]{0,60}?)\s+by\s+default\b`),
    yields: (m) => [bareDefault(m, m[1] ?? '')],
  },
  {
    name: 'default-if-unspecified',
    examples: {
      yes: ['Timeout for command - 60000 milliseconds if not specified', "Output format, 'json' if omitted.", 'true when not provided.'],
      no: ['Returns an error if not specified.', 'Uses the current directory if not specified.', 'Version 2 if not specified elsewhere.'],
    },
    // A literal then "if not specified": what omitting the parameter means ("60000 milliseconds if not specified").
    matches: re(
      String.raw`(?<![\w.'"\x60-])(?:([-−]?\d[\d,]*(?:\.\d+)?)(?:\s+([A-Za-z]+))?|(['"\x60])([^'"\x60\n]{1,60})\3|(true|false))` +
        String.raw`\s+(?:is\s+used\s+)?(?:if|when)\s+(?:not\s+(?:specified|provided|set|given|supplied|passed)|omitted|unspecified|unset)` +
        String.raw`(?=\s*(?:[.;,)]|$))`,
    ),
    yields: (m) => [unspecifiedDefault(m)],
  },
  {
    name: 'unspecified-then-default',
    examples: {
      yes: ['If not specified, "default" is used.', 'If not specified, 500 is used.', "When omitted, 'json' will be used."],
      no: ['If not specified, the current directory is used.', 'If not specified, 500 is used for each page when paging.'],
    },
    // "If not specified, 500 is used": what omitting the parameter means, said before the literal.
    matches: re(
      String.raw`\b(?:if|when)\s+(?:not\s+(?:specified|provided|set|given|supplied|passed)|omitted|unspecified|unset),\s*` +
        String.raw`(?:([-−]?\d[\d,]*(?:\.\d+)?)(?:\s+([A-Za-z]+))?|(['"\x60])([^'"\x60\n]{1,60})\3|(true|false))` +
        String.raw`\s+(?:is|will\s+be)\s+used(?=\s*(?:[.;,)]|$))`,
    ),
    yields: (m) => [unspecifiedDefault(m)],
  },
  // ---- formats
  {
    name: 'yyyy-mm-dd',
    examples: {
      yes: [
        'Date as YYYY-MM-DD.',
        'Start, YYYY-MM-DD HH:mm.',
        'At YYYY-MM-DDTHH:mm:ssZ.',
        'After (YYYY-MM-DD or delta like -1d)',
        'Due date (YYYY-MM-DD or full ISO)',
      ],
      no: ['Date in any format.', "Birthday as 'YYYY-MM-DD', 'MM-DD' (no year), or 'clear' to remove."],
    },
    matches: re(String.raw`\bYYYY-MM-DD(?:[T ]HH(?::mm)?(?::ss)?(?:\.s+)?(?:Z|[+-]hh:?mm)?)?`),
    yields: (m, s) => {
      // "'YYYY-MM-DD', 'MM-DD' (no year), or 'clear'": one quoted layout among others, no one format.
      if (/^['"\x60]\s*,\s*['"\x60]/.test(s.slice(m.index + m[0].length))) return [];
      // "YYYY-MM-DD or full ISO", "... or YYYY-MM-DDTHH:MM:SS": a date or a date-time, which one pattern holds and no
      // one format does (a date-time without an offset is no RFC 3339 `date-time` either).
      const orTime = OR_DATE_TIME.exec(s.slice(m.index + m[0].length));
      if (!/HH/i.test(m[0]) && orTime !== null) {
        const end = m.index + m[0].length + orTime[0].length;
        return [
          { ...formatCandidate(m, undefined, 'date-or-date-time'), end, phrase: s.slice(m.index, end).trim(), pattern: DATE_OR_DATE_TIME },
        ];
      }
      // "YYYY-MM-DD or delta like -1d": a date or another form, which a pattern can hold and a format cannot.
      if (/^['"\x60]?\s+or\s+(?!(?:an?\s+)?(?:YYYY|ISO|RFC|full\s+date|date))/i.test(s.slice(m.index + m[0].length)))
        return [formatCandidate(m, undefined, 'date-or-other')];
      if (!/HH/i.test(m[0])) return [formatCandidate(m, 'date', 'yyyy-mm-dd')];
      // RFC 3339's date-time has seconds and an offset: a layout without them is a pattern of its own.
      if (/:ss/i.test(m[0]) && /(?:Z|[+-]hh:?mm)$/i.test(m[0])) return [formatCandidate(m, 'date-time', 'yyyy-mm-dd')];
      return [{ ...formatCandidate(m, undefined, 'yyyy-mm-dd'), templates: [m[0].toUpperCase()] }];
    },
  },
  {
    name: 'compact-date',
    examples: {
      yes: ['Year of approval (YYYY format)', 'Recalls after this date (YYYYMMDD format)'],
      no: ['Date as YYYY-MM-DD.', 'The YYYY-MM layout.'],
    },
    // A year or a date without separators: a pattern of its digits (no standard `format` holds it).
    matches: re(String.raw`(?<![\w-])YYYY(?:MM(?:DD)?)?(?![\w-])`),
    yields: (m) => [{ ...formatCandidate(m, undefined, 'compact-date'), templates: [m[0].toUpperCase()] }],
  },
  {
    name: 'dd-mm-yyyy',
    examples: { yes: ['Date as DD/MM/YYYY.'], no: ['Date as YYYY-MM-DD.'] },
    matches: re(String.raw`\b(?:DD|MM)[/.-](?:MM|DD)[/.-](?:YYYY|YY)\b|\bYYYY/MM/DD\b`),
    yields: (m) => [formatCandidate(m, undefined, 'dd-mm-yyyy')],
  },
  {
    name: 'hh-mm',
    examples: { yes: ['Time of day (HH:MM).', 'HH:MM:SS, 24-hour.'], no: ['Date and time, YYYY-MM-DD HH:MM.'] },
    matches: re(String.raw`(?<![\w-])HH:MM(?::SS)?\b`),
    requires: ['no-date-template'],
    yields: (m) => [{ ...formatCandidate(m, /:SS/i.test(m[0]) ? 'time' : undefined, 'hh-mm'), templates: [m[0].toUpperCase()] }],
  },
  {
    name: 'iso-8601',
    examples: { yes: ['An ISO 8601 timestamp.', 'Duration in ISO-8601.', 'Dates are ISO 8601 (YYYY-MM-DD).'], no: ['An RFC 3339 date.'] },
    matches: re(String.raw`\bISO[ -]?8601\b`),
    yields: (m, sentence) => {
      const s = around(sentence, m);
      // "ISO 8601 date or date-time": either, which one pattern holds and neither format does.
      if (DATE_OR_TIME_WORDS.test(s)) return [{ ...formatCandidate(m, undefined, 'date-or-date-time'), pattern: DATE_OR_DATE_TIME }];
      return [
        formatCandidate(
          m,
          /\bduration\b/i.test(s)
            ? 'duration'
            : // "Dates are ISO 8601 (YYYY-MM-DD)": the layout shown is a date without a time.
              /\bYYYY-MM-DD\b(?![T ]?HH)/i.test(s)
              ? 'date'
              : /\b(?:date-?time|timestamp|time|instant)\b/i.test(s)
                ? 'date-time'
                : /\bdates?\b/i.test(s)
                  ? 'date'
                  : 'date-time',
          'iso-8601',
        ),
      ];
    },
  },
  {
    name: 'rfc-3339',
    examples: { yes: ['An RFC 3339 date-time.', 'RFC3339 full-date.'], no: ['An ISO 8601 date.'] },
    matches: re(String.raw`\bRFC[ -]?3339\b`),
    yields: (m, s) => [formatCandidate(m, /full-date/i.test(around(s, m)) ? 'date' : 'date-time', 'rfc-3339')],
  },
  {
    name: 'iso-4217',
    examples: { yes: ['An ISO 4217 currency code.'], no: ['A currency name.'] },
    matches: re(String.raw`\bISO[ -]?4217\b`),
    yields: (m) => [{ ...formatCandidate(m, undefined, 'iso-4217'), keyword: 'enum' }],
  },
  {
    name: 'iso-code',
    examples: { yes: ['An ISO 3166-1 country code.', 'ISO 639 language.'], no: ['ISO 8601 date.', 'ISO 4217 code.'] },
    matches: re(String.raw`\bISO[ -]?(?!8601\b|4217\b)\d{3,5}(?:-\d)?\b`),
    yields: (m) => [formatCandidate(m, undefined, 'iso-code')],
  },
  {
    name: 'iso-word',
    examples: { yes: ['ISO country code.', 'An ISO date.', 'ISO currency code.'], no: ['ISO 8601 date.', 'ISO compliant tools.'] },
    matches: re(String.raw`\bISO\b(?![ -]?\d)(?:[ -]+(?:formatted|standard|compliant|style))?[ -]+(\w+)(?:[ -]+(\w+))?`),
    yields: (m) => {
      const words = `${m[1] ?? ''} ${m[2] ?? ''}`.toLowerCase();
      if (/\bcurrenc/.test(words)) return [{ ...formatCandidate(m, undefined, 'iso-word'), keyword: 'enum' }];
      if (/\b(?:country|language|region|locale|code)/.test(words)) return [formatCandidate(m, undefined, 'iso-word')];
      if (/\b(?:date-?time|timestamp|time|instant)/.test(words)) return [formatCandidate(m, 'date-time', 'iso-word')];
      if (/\bdates?\b/.test(words)) return [formatCandidate(m, 'date', 'iso-word')];
      if (/\b(?:format|string)\b/.test(words)) return [formatCandidate(m, 'date-time', 'iso-word')];
      return [];
    },
  },
  {
    name: 'uuid',
    examples: {
      yes: ['The project UUID.', 'GUIDs of the users.'],
      no: [
        'The project name.',
        'The name or UUID of the field.',
        'Entity id (STIX id or internal UUID)',
        'The clientId (not the internal UUID).',
      ],
    },
    // "The name or UUID of the field", "its label, value or UUID": one alternative of several, no format.
    matches: re(String.raw`\b(?:UUID|GUID)s?\b`),
    yields: (m, s) =>
      UUID_ALTERNATIVE.test(s.slice(Math.max(0, m.index - 40), m.index), s.slice(m.index + m[0].length)) ||
      /\b(?:no|not(?:\s+(?:a|an|the))?)\s+(?:[\w-]+\s+){0,2}$/i.test(textBefore(s, m.index))
        ? []
        : [formatCandidate(m, 'uuid', 'uuid')],
  },
  {
    name: 'email',
    examples: { yes: ['A valid email address.', 'Must be an e-mail.'], no: ['A valid name.', 'Sent by email.'] },
    // `\s*` then `(?:\s+address)?` share the spaces: on "valid" + spaces + "#" every split would be tried
    // (quadratic). `(?=(\s*))\1` takes all the spaces with no way back (a possessive `\s*`); giving some back only
    // helps when nothing matches after the spaces, and then the word alone matches: the `|\b` branch.
    matches: re(String.raw`\b(?:valid|well-formed|must\s+be\s+an?|in\s+e-?mail\s+format)(?:(?=(\s*))\1(?:e-?mail)?(?:\s+address)?\b|\b)`),
    yields: (m) => (/e-?mail/i.test(m[0]) ? [formatCandidate(m, 'email', 'email')] : []),
  },
  {
    name: 'url',
    examples: { yes: ['A valid URL.', 'Must be an absolute URI.'], no: ['The URL of the page.'] },
    matches: re(String.raw`\b(?:valid|well-formed|absolute|fully[- ]qualified|must\s+be\s+an?)\s+(?:https?\s+)?(?:URL|URI)\b`),
    yields: (m) => [formatCandidate(m, 'uri', 'url')],
  },
  {
    name: 'ip',
    examples: { yes: ['An IPv4 address.', 'IPv6 only.'], no: ['An IP address.'] },
    matches: re(String.raw`\bIPv([46])\b`),
    yields: (m) => [formatCandidate(m, `ipv${m[1] ?? '4'}`, 'ip')],
  },
  {
    name: 'e164',
    examples: { yes: ['Phone number in E.164.'], no: ['A phone number.'] },
    matches: re(String.raw`\bE\.164\b`),
    yields: (m) => [formatCandidate(m, undefined, 'e164')],
  },
  {
    name: 'semver',
    examples: { yes: ['A semver range.', 'Semantic versioning string.'], no: ['The version.'] },
    matches: re(String.raw`\bsemver\b|\bsemantic\s+version(?:ing)?\b`),
    yields: (m) => [formatCandidate(m, undefined, 'semver')],
  },
  {
    name: 'in-format',
    examples: {
      yes: [
        'In YYYY format.',
        'In the form of a slug.',
        'Must match the pattern.',
        'A path of the form owner/repo.',
        'Secret reference in op://vault/item/field format',
        "Repository in format 'repo_name=repo_url'",
      ],
      no: ['In JSON format.', 'In Markdown format.', 'Time in any format.', 'The description of the form.', 'The ID of the form to get.'],
    },
    matches: re(
      // The layout named before "format" may be a template ("in op://vault/item/field format", "in owner/repo format").
      String.raw`\bin\s+(?:the\s+)?([\w.+:/=<>{}-]+(?:\s+[\w.+-]+)?)\s+format\b|\bin\s+format\s+(?=['"\x60])|` +
        String.raw`\bformatted\s+(?:as|like)\b|\bin\s+the\s+(?:form|format)\s+(?:of\s+)?|` +
        String.raw`\bof\s+the\s+form\b|\bmust\s+match\s+(?:the\s+)?(?:pattern|regex|regular\s+expression)\b`,
    ),
    yields: (m, s) => {
      // "The description of the form.": a form the tool edits, not a layout; a layout follows "of the form".
      if (
        /^of\s+the\s+form$/i.test(m[0].trim()) &&
        !/^\s*(?:[:\x60'"<{([/#]|[A-Z0-9]|[^\s.,;]*[/:_{<#-])/.test(s.slice(m.index + m[0].length))
      )
        return [];
      const named = (m[1] ?? '').toLowerCase();
      const following = `${named} ${s.slice(m.index + m[0].length, m.index + m[0].length + 40)}`.toLowerCase();
      if (
        /\b(?:json|markdown|md|html|xml|csv|tsv|yaml|yml|text|plain|base64|pdf|png|jpe?g|rich|binary|table|human[- ]readable|natural|free)\b/.test(
          following,
        )
      )
        return [];
      if (/\b(?:iso|rfc)\b/.test(named)) return [];
      // "In any format", "in whatever date format": no format at all.
      if (/^(?:any|whatever|arbitrary|every|either)\b/.test(named)) return [];
      if (/\bdate-?time|timestamp\b/.test(named)) return [formatCandidate(m, 'date-time', 'in-format')];
      if (/\bdate\b/.test(named)) return [formatCandidate(m, 'date', 'in-format')];
      if (/\be-?mail\b/.test(named)) return [formatCandidate(m, 'email', 'in-format')];
      if (/\buuid\b/.test(named)) return [formatCandidate(m, 'uuid', 'in-format')];
      return [formatCandidate(m, undefined, 'in-format')];
    },
  },
  {
    name: 'hex-color',
    examples: {
      yes: [
        'Foreground text color (#RRGGBB)',
        'Color as #RGB.',
        'Hex color code for the calendar (e.g., "#1976D2" for blue)',
        'Set text color using hex format (e.g., "#FF0000").',
      ],
      no: ['Color name, e.g. red.', 'Issue #123.', 'Hex color, e.g. "#1976D2", "#FFF" or "red".'],
    },
    // Or named, with an example that shows the layout: 'Hex color code (e.g., "#1976D2")', 'hex format (e.g., "#FF0000")'.
    matches: re(
      String.raw`#(?:RRGGBB(?:AA)?|AARRGGBB|RGB)\b|\bhex(?:adecimal)?\s+(?:colou?r(?:\s+(?:code|value))?|format)\b` +
        String.raw`[^.;#]{0,30}?\be\.g\.,?\s*['"\x60]?(#[0-9A-Fa-f]{6})['"\x60]?(?=\s*(?:$|[.;)]|for\b))`,
    ),
    yields: (m) => {
      const digits = (m[1] ?? m[0]).length - 1;
      return [{ ...formatCandidate(m, undefined, 'hex-color'), pattern: `^#[0-9A-Fa-f]{${digits}}$` }];
    },
  },
  {
    name: 'hex-width',
    examples: {
      yes: ['Must be a 32-character hexadecimal string.', 'A 40-digit hex string.', 'The key, 64 hex characters.'],
      no: ['A hexadecimal string.', 'Up to 32 characters; hex digits are upper case.', 'The 32-character id, or its hex form.'],
    },
    // A width and the hex alphabet together give the whole layout: `^[0-9A-Fa-f]{32}$`.
    matches: re(
      String.raw`\b(${NUM})[- ]?(?:characters?|chars?|digits?)\s+(?:long\s+)?hex(?:adecimal)?` +
        String.raw`(?:\s+(?:strings?|ids?|values?|digits?|characters?))?\b|` +
        String.raw`\b(${NUM})\s+hex(?:adecimal)?\s+(?:characters?|chars?|digits?)\b`,
    ),
    yields: (m) => {
      const width = parseNumber(m[1] ?? m[2] ?? '')?.value;
      if (width === undefined || !Number.isInteger(width) || width < 1) return [];
      return [{ ...formatCandidate(m, undefined, 'hex-width'), pattern: `^[0-9A-Fa-f]{${width}}$` }];
    },
  },
  {
    name: 'hex-text',
    examples: {
      yes: ['The text color of the label as hex string', 'Digest, as a hexadecimal string.', 'Background in hex colour.', 'Hex color'],
      no: ['Convert the value to a hex string.', 'Hex strings are accepted too.', 'Hex color, e.g. #1976D2'],
    },
    // Said to be hex with no example of its layout: a `pattern` to write, none to suggest (a '#' or a width unsaid).
    matches: re(
      String.raw`\b(?:as|in)\s+(?:an?\s+)?hex(?:adecimal)?\s+(?:strings?|text|colou?rs?|codes?|values?|digits)\b|` +
        String.raw`\bhex(?:adecimal)?\s+colou?r\b`,
    ),
    // With an example ("#1976D2") the hex-color rule writes the pattern.
    yields: (m, s) => (/#[0-9A-Fa-f]{3}/.test(s) ? [] : [formatCandidate(m, undefined, 'hex-text')]),
  },
  // ---- required / optional
  {
    name: 'is-required',
    examples: {
      yes: ['The currency is required.', 'Must be provided.', 'Name (required).', 'The name is required for all operations.'],
      no: ['Required when method is `update`.', 'Is not required.'],
    },
    matches: re(
      String.raw`\b(?:is|are)\s+(?:always\s+|also\s+|still\s+)?(?:required|mandatory)\b(?:${FOR_EVERY_CALL})?|` +
        String.raw`\b(?:must|should|shall)\s+(?:always\s+|also\s+)?be\s+(?:provided|` +
        String.raw`given|specified|supplied|set|included|present|sent|passed)\b|` +
        String.raw`\(\s*(?:required|mandatory)\s*\)`,
    ),
    yields: (m, s) => requiredCandidate(m, s, 'before'),
  },
  {
    name: 'always-provide',
    examples: {
      yes: ['Always provide the namespace.', "Requires 'name' and 'url'.", 'Requires the project_id.', 'Requires a workspace ID.'],
      no: [
        'Requires network access to the host.',
        'ALWAYS pass item_key when you know which item you want.',
        'Using this setting requires a slightly higher computational load.',
        'You must provide the full absolute path.',
        'Image mode, which requires `markerPopup`.',
        'Always include a limit in the query (| limit 50).',
        'You must include the token in your request headers.',
      ],
    },
    matches: re(
      String.raw`\b(?:always|must(?:\s+always)?)\s+(?:provide|include|pass|send|specify|supply|set|give)\b|` +
        String.raw`\brequires?\s+(?=(?:a|an|the)\s|[\`'"])`,
    ),
    yields: (m, s) => requiredCandidate(m, s, 'after'),
  },
  {
    name: 'required-word',
    examples: {
      yes: [
        'Required.',
        'A required field.',
        'Name (string, required).',
        'ID of the application (required for all operations).',
        'Database name. Required — do not pass empty string.',
        'Call the DDL tool to generate one. Required parameter — no default.',
      ],
      no: [
        'The required fields of the form are listed.',
        'Required parameters are listed below.',
        'Attributes (type, string, required, readonly, relation).',
        'Required for all operations except list.',
      ],
    },
    // Not a word inside a list of words ("type, string, required, readonly"): one of the things listed. "Required for
    // all operations" is required of every call; "for all operations except list" is a condition.
    matches: re(
      String.raw`(?=required|mandatory)(?:^|(?<=[.;:(—–]\s*)|(?<=,\s*)(?<![,]\s*[\w-]+\s*,\s*))(?:required|mandatory)\b` +
        String.raw`(?:${FOR_EVERY_CALL}|(?:\s+(?:parameter|argument|field))?(?=\s*(?:[.;:)!—–]|-\s|$))|\s*,(?!\s*[\w-]+\s*[,)]))|` +
        String.raw`\ba\s+(?:required|mandatory)\s+(?:field|parameter|argument|property|input|value|setting)\b`,
    ),
    yields: (m, s) => requiredCandidate(m, s, 'self'),
  },
  {
    name: 'optional',
    examples: { yes: ['Optional.', 'Can be omitted.', 'If omitted, all are returned.'], no: ['Not optional.'] },
    matches: re(
      String.raw`(?=optional)(?:^|(?<=[.;(]\s*)|(?<=\(\w+,\s*)|(?<=^\s*an?\s+))optional\b|\b(?:is|are)\s+optional\b|\(\s*optional\s*\)|` +
        String.raw`\b(?:can|may)\s+be\s+omitted\b|\b(?:if|when)\s+omitted\b|\bomit\s+(?:it\s+|this\s+)?(?:to|for)\b|` +
        String.raw`\bif\s+(?:it|this|the\s+[\w-]+)\s+is\s+not\s+(?:specified|provided|given|set)\b`,
    ),
    requires: ['not-negated'],
    yields: (m) => [simple('optional', m, 'optional')],
  },
  // ---- a value the server's environment supplies: the parameter may be left out
  {
    name: 'environment-fallback',
    examples: {
      yes: [
        'Prefer setting PRIVATE_KEY in the MCP server environment; do not pass the key when avoidable.',
        'API token. Falls back to the GITHUB_TOKEN environment variable.',
        'Defaults to the `REGION` env var.',
      ],
      no: ['Set the log level in the environment.', 'The environment to deploy to.', 'Uses the production environment.'],
    },
    // The variable is named in capitals ("PRIVATE_KEY", "$TOKEN"): a word alone ("the environment") names no fallback.
    matches: re(
      String.raw`\b(?:prefer\s+)?setting\s+[\x60'"$]?(\w{3,40})[\x60'"]?\s+in\s+the\s+(?:[\w-]+\s+){0,3}environment\b|` +
        String.raw`\b(?:falls?\s+back\s+to|defaults?\s+to|otherwise\s+uses?|read\s+from)\s+(?:the\s+)?[\x60'"$]?(\w{3,40})[\x60'"]?\s+` +
        String.raw`env(?:ironment)?(?:\s+|-)?var(?:iable)?s?\b`,
    ),
    yields: (m) => (/^[A-Z][A-Z0-9_]+$/.test(m[1] ?? m[2] ?? '') ? [simple('optional', m, 'environment-fallback')] : []),
  },
  // ---- templates: "(format: GHSA-xxxx-xxxx-xxxx)", "in format 'user:ID' or 'team:ID'"
  {
    name: 'format-template',
    examples: {
      yes: [
        '(format: GHSA-xxxx-xxxx-xxxx)',
        "In format 'user:ID' or 'team:ID'.",
        'Format: mem_xyz123.',
        '(Slack ts format, e.g. "1609459200.000001")',
        'Job id, format: job-<digits>',
      ],
      no: ['Format the output nicely.', 'In format below.'],
    },
    // "(Slack ts format, e.g. "1609459200.000001")": the example right after the word is the format shown.
    matches: re(
      String.raw`\bformat(?:ted)?\s*(?::|is|as|like|,\s*e\.g\.,?|,\s*for\s+example,?)?\s*|\bin\s+(?:the\s+)?(?:form|format)\s+(?:of\s+)?`,
    ),
    yields: (m, s) => templateCandidate(m, s),
  },
  // ---- a quoted layout of placeholders: "Array of '{key}={value}' pairs", "as `<host>:<port>`"
  {
    name: 'placeholder-template',
    examples: {
      yes: ["Array of '{key}={value}' environment variable pairs.", 'Given as `<host>:<port>`.'],
      no: ["Use '{name}' in the message.", 'Pairs of key and value.', "'{key}={value} and more'"],
    },
    matches: re(String.raw`(?<![\w\x60'"])[\x60'"](?=[<{])`),
    yields: (m, s) => placeholderTemplate(m, s),
  },
  // ---- a fixed prefix said of the value: "(starts with 'S', e.g., 'S0123456789')", "must begin with `sk-`"
  {
    name: 'starts-with',
    examples: {
      yes: [
        "ID of the user group (starts with 'S', e.g., 'S0123456789').",
        'The key must begin with `sk-`.',
        'Identifier of the project (starts with PR- followed by a number).',
        'Requires a project identifier (PR-*).',
        "IDs start with 'org-'.",
        "Excel formula (must start with '=').",
        'The command must begin with `.show`.',
      ],
      no: ["Only channels whose name starts with 'dev'.", "Search for names that start with 'a'."],
    },
    // Also an upper-case prefix with its dash, unquoted ("starts with PR- followed by a number"), and a glob "(PR-*)".
    matches: re(
      String.raw`(?:\(\s*|\b(?:must|always|should|ids?|identifiers?|keys?|values?|it)\s+)(?:starts?|begins?)\s+with\s+(?:an?\s+|the\s+)?` +
        String.raw`(?:'([\w./:=+#@$~-]{1,20})'|"([\w./:=+#@$~-]{1,20})"|\x60([\w./:=+#@$~-]{1,20})\x60|([A-Z]{1,8}-)(?![\w-]))|` +
        String.raw`\(\s*([A-Z]{1,8}-)\*\s*\)`,
    ),
    yields: (m) => {
      const bare = m[4] ?? m[5];
      // The rules are case-insensitive; an unquoted prefix counts only in capitals ("PR-", not "re-").
      if (bare !== undefined && bare !== bare.toUpperCase()) return [];
      return [{ ...formatCandidate(m, undefined, 'starts-with'), pattern: `^${escapePattern(m[1] ?? m[2] ?? m[3] ?? bare ?? '')}` }];
    },
  },
  // ---- a fixed suffix: "Filename must end with .png, .jpg, or .jpeg", "must end in `.mp4`"
  {
    name: 'ends-with',
    examples: {
      yes: ['Filename must end with .png, .jpg, or .jpeg', 'The path must end in `.mp4`.', "Key (ends with '.json')."],
      no: ['Lines that end with a semicolon.', 'The loop must end with a break.', 'Names that end with .tmp are skipped.'],
    },
    matches: re(String.raw`(?:\(\s*|\b(?:must|should|has\s+to|needs\s+to)\s+)(?:ends?)\s+(?:with|in)\s+`),
    yields: (m, s) => suffixCandidate(m, s),
  },
  // ---- numeric codes glossed: "(0: all, 1: well-formed, 2: creating)", "0=None, 1=Any"
  {
    name: 'code-values',
    examples: {
      yes: [
        'Filter on state (0: all, 1: well-formed, 2: creating, 3: deleting, 4: new)',
        'Capsule direction: 0=X, 1=Y (default), 2=Z.',
        'Minimum severity, where 1=Error, 2=Warning, 3=Information, 4=Hint.',
        '0=enabled, 1=disabled.',
        'Coarse access level (0=No access, 30=Developer, 40=Maintainer)',
        '0=from due date, 1=monthly, 2=from completion date',
        'Consumption scope: 1=Only process attachments, 2=Process full mail as .eml, 3=Process all',
        'Filter by exact status (1 - active, 2 - inactive)',
      ],
      no: [
        'Ratio (1: 2).',
        'Pages (1 - 10, 20 - 30)',
        'Set 0=off to disable.',
        'At 10:30, 11:45.',
        'Priority level 1-9 (1=highest, 9=lowest, 5=normal)',
        'Priority level 1-9 (1=highest, 5=normal, 9=lowest)',
        'Bitmask: 1=close problem, 2=acknowledge, 4=add message, 8=change severity.',
      ],
    },
    // Also opening the sentence, or after a label's colon or "where", to the clause's end: "0=enabled, 1=disabled.",
    // "Capsule direction: 0=X, 1=Y (default), 2=Z".
    matches: re(
      String.raw`\(\s*\d{1,3}(?:\s*[:=]|[ \t]+-)\s*[A-Za-z][^,;()\n]{0,30}` +
        String.raw`(?:[,;]\s*\d{1,3}(?:\s*[:=]|[ \t]+-)\s*[A-Za-z][^,;()\n]{0,30}){1,15}\)|` +
        String.raw`(?:^[ \t]*|(?::|\bwhere)[ \t]+)\d{1,3}=${CODE_LABEL}(?:[ \t]+\(default\))?` +
        String.raw`(?:,[ \t]*\d{1,3}=${CODE_LABEL}(?:[ \t]+\(default\))?){1,15}(?=[ \t]*(?:[.;](?:\s|$)|$))`,
    ),
    yields: (m) => {
      const values = [...m[0].matchAll(/(?:^\(|^:|^where|^|[,;])\s*(\d{1,3})(?:\s*[:=]|[ \t]+-)/gi)].map((x) => x[1] ?? '');
      if (new Set(values).size !== values.length) return [];
      // "(1=highest, 9=lowest, 5=normal)": codes with gaps between them gloss points of a scale, not every value;
      // "(0=No access, 30=Developer, 40=Maintainer)", written in order and naming no point of a scale, are every value.
      const codes = values.map(Number).sort((a, b) => a - b);
      const inOrder = values.every((v, i) => i === 0 || Number(v) > Number(values[i - 1]));
      const gaps = (codes.at(-1) ?? 0) - (codes[0] ?? 0) + 1 !== codes.length;
      // "1=close problem, 2=acknowledge, 4=add message, 8=...": bits that add up, not values to pick one of.
      const bits = codes.length >= 3 && codes.every((n) => n > 0 && (n & (n - 1)) === 0);
      if (gaps && (!inOrder || bits || SCALE_POINT.test(m[0]))) return [];
      const start = m.index + (/^[(:]/.test(m[0]) ? 0 : m[0].search(/\d/));
      const list: Candidate = { kind: 'enum', values, quoted: false, start, end: m.index + m[0].length, phrase: m[0], rule: 'code-values' };
      // "1=Y (default)": the code marked is the default.
      const marked = /(\d{1,3})\s*[:=]\s*[A-Za-z][\w-]{0,20}[ \t]+\(default\)/i.exec(m[0]);
      if (marked === null) return [list];
      const literal = Number(marked[1]);
      return [
        list,
        {
          kind: 'default',
          start: m.index + marked.index,
          end: m.index + marked.index + marked[0].length,
          phrase: marked[0],
          literal,
          comparable: true,
          rule: 'default',
        },
      ];
    },
  },
  {
    name: 'capital-values',
    examples: {
      yes: ['access is INTERNAL or EXTERNAL.', 'The mode must be READ, WRITE, or ADMIN.'],
      no: ['The output is JSON or YAML text.', 'access is internal or external.', 'Uses HTTP or HTTPS for transport.'],
    },
    // Words in capitals after "is"/"must be", closed by "or" and by the clause: values, written as the API spells them.
    matches: new RegExp(
      String.raw`\b(?:is|are|must\s+be|can\s+be)\s+` +
        String.raw`((?:[A-Z][A-Z0-9_]{1,30}\s*,\s*){0,10}[A-Z][A-Z0-9_]{1,30},?\s+or\s+[A-Z][A-Z0-9_]{1,30})` +
        String.raw`(?=\s*(?:[.;)]|$))`,
      'g',
    ),
    yields: (m) => {
      const values = (m[1] ?? '').split(/\s*,\s*(?:or\s+)?|\s+or\s+/).filter((v) => v !== '');
      const start = m.index + m[0].length - (m[1] ?? '').length;
      return [{ kind: 'enum', values, quoted: false, start, end: m.index + m[0].length, phrase: m[1] ?? '', rule: 'capital-values' }];
    },
  },
  {
    name: 'code-for-values',
    examples: {
      yes: [
        'network is 0 for secret or 2 for public',
        'Value should be 1 if you want only upi links, 0 for only standard links',
        'Set to 0 to opt out of Multi-Advertiser Ads, 1 to opt in.',
      ],
      no: [
        'Use 2 for most cases.',
        'Retry 3 times for timeouts or 5 times for throttling errors.',
        'Pick 1 to 5 for small or 6 to 9 for large.',
      ],
    },
    // Numeric codes each glossed by "for", "if" or "to" and a word: "0 for secret or 2 for public", "0 to opt out, 1 to opt in".
    matches: re(
      String.raw`(?<![\w.-])-?\d{1,3}\s+(?:for|if|to(?=\s+[a-z]))\s+[^,;()\n.]{1,40}?` +
        String.raw`(?:(?:,\s*(?:or\s+)?|\s+or\s+)-?\d{1,3}\s+(?:for|if|to(?=\s+[a-z]))\s+[^,;()\n.]{1,40}?){1,8}(?=\s*(?:[.;)]|$))`,
    ),
    yields: (m) => {
      const values = [...m[0].matchAll(/(?:^|,\s*(?:or\s+)?|\s+or\s+)(-?\d{1,3})\s+(?:for|if|to)\s/g)].map((x) => x[1] ?? '');
      if (values.length < 2 || new Set(values).size !== values.length) return [];
      return [{ kind: 'enum', values, quoted: false, start: m.index, end: m.index + m[0].length, phrase: m[0], rule: 'code-values' }];
    },
  },
  // ---- a naming convention said of the value: "The name of the migration in snake_case"
  {
    name: 'naming-case',
    examples: {
      yes: ['The name of the migration in snake_case.', 'Slug (kebab-case).', 'Must be camelCase.'],
      no: ['Converts keys to snake_case in the response.', 'snake_case and camelCase keys are both accepted.'],
    },
    // Said of the value ("in", "as", "must be", a gloss), ending its clause: "Converts keys to snake_case in the
    // response" is what the tool does to something else.
    matches: re(String.raw`(?:\b(?:in|as|use|must\s+be|should\s+be)\s+|\(\s*)(snake_case|kebab-case|camelCase)\b(?=\s*(?:[.;)]|$))`),
    requires: ['not-negated'],
    yields: (m) => {
      const style = (m[1] ?? '').toLowerCase();
      const pattern =
        style === 'snake_case'
          ? '^[a-z0-9]+(?:_[a-z0-9]+)*$'
          : style === 'kebab-case'
            ? '^[a-z0-9]+(?:-[a-z0-9]+)*$'
            : '^[a-z][A-Za-z0-9]*$';
      return [{ ...formatCandidate(m, undefined, 'naming-case'), pattern }];
    },
  },
  // ---- a scheme said of a URL: "(must be http or https)", "http(s) only"
  {
    name: 'url-scheme',
    examples: {
      yes: [
        'The URL to fetch (must be http or https)',
        'Remote URL to fetch the file from (http/https).',
        'An HTTPS URL only.',
        'url must be http:// or https://',
        "Must start with 'https://'.",
        '(must begin with http:// or https://)',
      ],
      no: ['Supports http and https proxies.', 'The http status code.', '(must start with http:// or https://), or a ref://<id> token'],
    },
    matches: re(
      String.raw`\b(?:must\s+(?:be|use)\s+(?:an?\s+)?)https?(?::\/\/)?\s+or\s+https?(?::\/\/|\b)|\(\s*https?\s*/\s*https?\s*\)|` +
        String.raw`\bhttps\s+(?:url|uri)s?\s+only\b|\bonly\s+https\s+(?:url|uri)s?\b|` +
        // "Must start with https://": only when that ends the clause ("..., or a ref://<id> token" adds another form).
        String.raw`\b(?:must|should)\s+(?:start|begin)\s+with\s+['"\x60]?https?://['"\x60]?` +
        String.raw`(?:\s+or\s+['"\x60]?https?://['"\x60]?)?(?=\s*(?:[.;]|$|\)(?!\s*,?\s*or\b)))`,
    ),
    yields: (m) => [
      {
        ...formatCandidate(m, undefined, 'url-scheme'),
        pattern: /https?(?::\/\/)?\s*(?:or|\/)\s*https?/i.test(m[0]) ? '^https?://' : '^https://',
      },
    ],
  },
  // ---- prefixes listed under a label: "Action to perform (prefix: animator_, controller_, clip_)"
  {
    name: 'prefix-list',
    examples: {
      yes: ['Action to perform (prefix: animator_, controller_, clip_).', 'Action (prefixes: get_, set_)'],
      no: ['Remove the prefix: v1, v2.', 'Prefix: optional text before the name.'],
    },
    matches: re(String.raw`\(\s*prefix(?:es)?\s*:\s*([A-Za-z][\w-]{0,20}(?:\s*,\s*[A-Za-z][\w-]{0,20}){0,15})\s*\)`),
    yields: (m) => {
      const prefixes = (m[1] ?? '').split(/\s*,\s*/);
      return [{ ...formatCandidate(m, undefined, 'prefix-list'), pattern: `^(?:${prefixes.map(escapePattern).join('|')})` }];
    },
  },
  // ---- a prefix named as such: "including 'kubectl' prefix", "with the `gs://` prefix"
  {
    name: 'named-prefix',
    examples: {
      yes: [
        "Pass full kubectl command including 'kubectl' prefix.",
        'A bucket path with the `gs://` prefix.',
        'ID should have a pay_ prefix.',
      ],
      no: ["Remove the 'v' prefix.", 'Names with a common prefix are grouped.'],
    },
    // Unquoted too when it is an id's prefix with its underscore ("ID should have a pay_ prefix").
    matches: re(
      String.raw`\b(?:including|includes|include|with|has|have)\s+(?:the\s+|an?\s+)?` +
        String.raw`(?:'([^'\s]{1,20})'|"([^"\s]{1,20})"|\x60([^\x60\s]{1,20})\x60|([a-z]{2,10}_))\s+prefix\b`,
    ),
    yields: (m) => [
      {
        ...formatCandidate(m, undefined, 'named-prefix'),
        pattern: `^${escapePattern(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '')}`,
      },
    ],
  },
  // ---- a leading or trailing slash said of the value: "Must include the leading slash"
  {
    name: 'leading-slash',
    examples: {
      yes: ['Must include the leading slash. Example: /containers/json', 'The path must start with a slash.'],
      no: ['Strip the leading slash.'],
    },
    matches: re(
      String.raw`\b(?:must|should)\s+(?:include|have|start\s+with|begin\s+with)\s+(?:a|the)\s+(leading\s+|trailing\s+)?(?:slash|'/'|"/")`,
    ),
    yields: (m) => [{ ...formatCandidate(m, undefined, 'leading-slash'), pattern: /trailing/i.test(m[1] ?? '') ? '/$' : '^/' }],
  },
  // ---- a numeric string: "must be a numeric ID", "a numeric string"
  {
    name: 'numeric-string',
    examples: {
      yes: ["must be a numeric ID from the provider's index", 'The account, a numeric string.', 'Numeric ID of the base run.'],
      no: [
        'A numeric value.',
        'Numeric IDs are faster.',
        'Numeric ID or name of the project.',
        'As a numeric string with up to 4 decimal places.',
      ],
    },
    matches: re(
      String.raw`\b(?:must\s+be|is|as)\s+an?\s+numeric\s+(?:id|identifier|string|code)\b|` +
        String.raw`,\s*an?\s+numeric\s+(?:id|identifier|string|code)\b|^\s*(?:the\s+)?numeric\s+(?:id|identifier)\b(?!\s+or\b)`,
    ),
    // A string with decimal places holds more than digits; the precision rule reads it.
    yields: (m, s) => (/\bdecimals?\b/i.test(s) ? [] : [{ ...formatCandidate(m, undefined, 'numeric-string'), pattern: '^[0-9]+$' }]),
  },
  // ---- two names joined by a slash, called a format: "Repository in owner/repo format", "(namespace/name format)"
  {
    name: 'slash-format',
    examples: {
      yes: ['Repository in owner/repo format (defaults to current repository)', 'The project, in `group/project` format.'],
      no: ['Output in JSON/YAML format.', 'Body in text/plain format.', 'Read and/or write format.', 'REQUIRED for search/replace format'],
    },
    matches: re(String.raw`(?<![\w/])['"\x60]?([a-z][a-z_-]{1,20})/([a-z][a-z_-]{1,20})['"\x60]?\s+(?:format|form|notation)\b`),
    yields: (m) => {
      // Both the placeholders of a name's path ("search/replace format", "JSON/YAML format" name choices).
      if (![m[1] ?? '', m[2] ?? ''].every((w) => NAME_PATH_WORDS.has(w))) return [];
      return [{ ...formatCandidate(m, undefined, 'slash-format'), pattern: '^[^/\\s]+/[^/\\s]+$' }];
    },
  },
  // ---- a path template with placeholders: "(/subscriptions/{sub}/resourceGroups/{rg}/...)", "projects/{project}/topics/{topic}"
  {
    name: 'path-template',
    examples: {
      yes: [
        'AKS cluster resource ID (/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.ContainerService/managedClusters/{name})',
      ],
      no: ['Use {name} in the message.', 'See /docs/{page} for help.'],
    },
    matches: re(String.raw`\(\s*(\/?[\w.-]+(?:\/[\w.{}-]+){2,})\s*\)`),
    yields: (m) => {
      const template = m[1] ?? '';
      if (!/\{[A-Za-z]\w*\}/.test(template) || !/\/[A-Za-z][\w.-]*\//.test(template)) return [];
      const pattern = template
        .split(/(\{[A-Za-z]\w*\})/)
        .map((piece) => (/^\{/.test(piece) ? '[^/]+' : escapePattern(piece)))
        .join('');
      return [{ ...formatCandidate(m, undefined, 'path-template'), pattern: `^${pattern}$` }];
    },
  },
  // ---- characters in words: "Letters, digits, underscores and periods", "none of [ ] : * ? / \"
  {
    name: 'character-classes',
    examples: {
      yes: ['Letters, digits, underscores and periods.', 'May contain only lowercase letters, numbers and hyphens.'],
      no: ['Letters and numbers are sent as typed.', 'The number of digits.'],
    },
    matches: re(
      String.raw`(?:^\s*|\(\s*|\b(?:only|contains?\s+only|may\s+contain(?:\s+only)?|consisting\s+of|made\s+of)\s+)` +
        String.raw`((?:${CHARACTER_CLASS})(?:\s*(?:,|\band\b|\bor\b|,\s*and\b|,\s*or\b)\s*(?:${CHARACTER_CLASS}))+)(?=\s*(?:[.,;:)]|$))`,
    ),
    yields: (m) => {
      const classes = [...(m[1] ?? '').matchAll(new RegExp(CHARACTER_CLASS, 'gi'))].map((c) => classChars(c[0]));
      if (classes.length < 2) return [];
      return [{ ...formatCandidate(m, undefined, 'character-classes'), pattern: `^[${[...new Set(classes)].join('')}]+$` }];
    },
  },
  {
    name: 'none-of-characters',
    examples: {
      yes: ['1-31 characters, none of [ ] : * ? / \\.', 'Cannot contain <, >, $, |, or ` (backtick).'],
      no: ['None of the above.', 'Cannot contain spaces, tabs, or newlines.'],
    },
    // Single characters after "none of" / "must not contain", separated by spaces: a class the value avoids.
    // Or by commas, with "or"/"and" before the last: "Cannot contain <, >, $, |, or `".
    matches: re(
      String.raw`\b(?:none\s+of|must\s+not\s+contain|cannot\s+contain|without)\s+` +
        String.raw`((?:[^\w\s],?\s+(?:(?:or|and)\s+)?){2,}[^\w\s])(?=\.?\s*$|\.?\s)`,
    ),
    yields: (m) => {
      const chars = (m[1] ?? '')
        .split(/\s+/)
        .map((c) => (c.length === 2 && c.endsWith(',') ? c.slice(0, 1) : c))
        .filter((c) => c.length === 1);
      if (chars.length < 3) return [];
      const escaped = chars.map((c) => (/[\\\][^-]/.test(c) ? `\\${c}` : c)).join('');
      return [{ ...formatCandidate(m, undefined, 'none-of-characters'), pattern: `^[^${escaped}]*$` }];
    },
  },
  // ---- one value only: "('indexed' only)"
  {
    name: 'only-value',
    examples: {
      yes: ["Status ('indexed' only).", "Species (currently only 'human' supported)", "(only 'animations' is currently supported)"],
      no: ['Only indexed documents.'],
    },
    matches: re(
      String.raw`\(\s*(?:\x60([^\x60]+)\x60|'([^']+)'|"([^"]+)")\s+only\s*\)|` +
        String.raw`\bonly\s+(?:\x60([^\x60]+)\x60|'([^']+)'|"([^"]+)")\s+(?:is\s+)?(?:currently\s+)?(?:supported|allowed|accepted)\b`,
    ),
    yields: (m) => [
      {
        kind: 'enum',
        values: [m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6] ?? ''],
        quoted: true,
        start: m.index,
        end: m.index + m[0].length,
        phrase: m[0].trim(),
        rule: 'only-value',
      },
    ],
  },
  // ---- values glossed in parentheses: "local branches ('local'), remote branches ('remote') or all branches ('all')"
  {
    name: 'glossed-values',
    examples: { yes: ["Local branches ('local'), remote branches ('remote') or all ('all')."], no: ["Local branches ('local') only."] },
    matches: re(String.raw`^(?:[^()]*\(\s*['\x60"][\w.-]+['\x60"]\s*\)){2}`),
    yields: (_m, s) => glossedValues(s),
  },
  // ---- values offered as uses: "Use 'collection' to search the collection, or 'corpus' to search everything"
  {
    name: 'use-values',
    examples: {
      yes: [
        "Use 'collection' to search only within it, or 'corpus' to search across all.",
        "Use 'a' for fast results or 'b' for deep ones.",
        'Database to query - "nbdb" for Northbound or "sbdb" for Southbound.',
        "Pagination method: 'keyset' for keyset-based pagination, or 'offset' (the default).",
      ],
      no: [
        "Use 'a' for fast results.",
        "Mode: 'a' (the default).",
        "Use 'a' for fast results; 'b' is deprecated.",
        "Use 'a' to search, or any other name.",
        "For example, use '12.0' for Android or '16.0' for iOS.",
        "Examples: 'a' for fast results or 'b' for deep ones.",
      ],
    },
    // After "use", or after a label: "Database - "nbdb" for Northbound or "sbdb" for Southbound".
    matches: re(String.raw`\buse\s+(?=['\x60"])|(?::|(?<=\w)[ \t]+[-—–])[ \t]*(?=['\x60"])`),
    yields: (m, s) => useValues(m, s),
  },
  // ---- keys an object must have: "Must include: version (8), sources, layers", "with required fields: 'alias', 'trigger'"
  {
    name: 'required-keys',
    examples: {
      yes: [
        'Complete style object. Must include: version (8), sources, layers. Optional: sprite, glyphs.',
        "Configuration with required fields: 'alias', 'trigger', 'action'. Optional: 'mode'.",
        "Each variable must have a 'name' and 'value' field.",
        "Must contain: max_amount (positive number), frequency (monthly/yearly), type='single' (only type), and optionally expire_at.",
        'Each transfer should contain: account (linked account ID), amount (in subunits), and optional fields like notes.',
        'Required fields: event_name (str), start_time (int), end_time (int)',
      ],
      no: [
        'Must include the name of the user.',
        'The query must contain a WHERE clause.',
        'Must include: the full path.',
        'Must have: a name and a value.',
        'The required fields are listed in the docs.',
        "Results must have 'status' set.",
        'Data rows, when stacking is needed, the data should contain a `group` field.',
      ],
    },
    matches: re(
      String.raw`\b(?:must|should|needs?\s+to)\s+(?:include|contain|have)\s*:\s*|` +
        String.raw`\brequired\s+(?:fields|keys|properties|attributes)\s*:\s*|` +
        String.raw`\b(?:must|should)\s+(?:include|contain|have)\s+(?:an?\s+|the\s+|both\s+)?(?=[\x60'"])`,
    ),
    yields: (m, s) => requiredKeys(m, s),
  },
  // ---- an object written out with its optional keys marked: "List of {task_id: int, position?: float}"
  {
    name: 'object-spec-keys',
    examples: {
      yes: [
        'List of {task_id: int, bucket_id: int, position?: float}',
        'Each task: {title: str (required), description: str, priority: int (0-5), ...}',
      ],
      no: ['List of {task_id: int, position: float}', 'Format: {name}-{id}', 'A map like {"a": 1, "b": 2}'],
    },
    matches: re(String.raw`\{(?=\s*['"]?\w+['"]?\??\s*:)`),
    yields: (m, s) => objectSpecKeys(m, s),
  },
  // ---- each value then what it does: "Scope: 'user' returns user databases, 'all' returns every database"
  {
    name: 'glossed-list',
    examples: {
      yes: [
        "Filter scope: 'user' returns only user-created databases (excludes system ones), 'all' returns every database.",
        "Action: 'list' returns CSV of id, name, handle, 'join' adds you to a group, 'leave' removes you from it.",
        "Library: 'user' — the personal library; 'group' (default) — a group library; 'feeds' — RSS feeds.",
        "Attach mode: 'auto' (default) attaches a PDF, 'none' skips.",
        '"true" for errored runs, "false" for successful runs.',
        '(optional) "true" for only top-level traces, "false" to exclude roots.',
        'Filter by visibility - "true" for public prompts, "false" for private prompts (default: "false")',
        "Set to 'Y' to exclude, 'N' to include all (default: 'N').",
      ],
      no: [
        "Examples: 'react' finds React pages, 'vue' finds Vue pages.",
        "Search query: 'react' finds React pages, 'vue' finds Vue pages.",
        "State: 'open', 'closed'.",
        "Mode: 'fast' returns quickly.",
        "Scope: 'user' returns user databases, 'all' returns every database, e.g. 'sys'.",
        "Note: 'a' is deprecated, 'b' is removed.",
        "First unfrozen cell: 'A2' freezes row 1; 'A1' unfreezes.",
        "'foo' is deprecated, 'bar' replaces it.",
        '"true" for errored runs.',
      ],
    },
    // After a label, or opening the sentence when each gloss says what the value is for: '"true" for errored runs, ...'
    // (there the opening quote is part of the match: an empty match at the sentence's start would be skipped), after
    // a docstring entry's "(optional)".
    matches: re(
      String.raw`(?::|(?<=\w)[ \t]+[-—–])[ \t]*(?=['\x60"])|` +
        String.raw`^[ \t]*(?:\((?:optional|required)\)[ \t]*|(?:set(?:[ \t]+it)?[ \t]+to|use|pass)[ \t]+)?['\x60"]`,
    ),
    yields: (m, s) => glossedList(m, s),
  },
  // ---- value lists under a label, without "one of": "State: 'active', 'pending', 'expired'", "(true/false)", "(draft|open|merged)"
  {
    name: 'labelled-values',
    examples: {
      yes: [
        "State: 'active', 'pending', 'expired'.",
        'Include archived (true/false).',
        'State (draft|open|merged).',
        'Output format ("markdown" or "csv").',
        'Action to perform - "create", "update", or "delete".',
        "Output format - 'yaml', 'json', 'wide', or 'jsonpath' (default: table format).",
        "关系方向: 'in', 'out', 或 'both'",
        "关系方向: 'in'或'out'",
      ],
      no: [
        "Examples: 'a', 'b'.",
        "Good: 'How to set up authentication with JWT' or 'React useEffect cleanup function examples'.",
        "Section title (e.g. 'Introduction' or 'Methods').",
        "Duration: '30m', '2h'.",
        'Starting point (commit/branch) for new branch creation.',
        'Example without arguments: `a` or `b`.',
        'Query like: SELECT * FROM SCHEMA("AWS/EC2", "InstanceType").',
        'Calls render(a|b) first.',
        'Repository (owner/repo).',
        'Target GameObject (name/path/id).',
        'Intensity value (ambient/reflection).',
        'Range, use FROM:TO format - "A1:C10" or "C1:C1".',
      ],
    },
    // A parenthesis right after a word ("SCHEMA("AWS/EC2", "InstanceType")") holds a call's arguments, not a gloss.
    // "Action to perform - "create", "update"", "RSVP response — "accepted", ...": a dash labels the list as a colon does.
    matches: re(
      String.raw`(?::|(?<=\w)[ \t]+[-—–])[ \t]*(?=['"\x60“])|(?<!\w)\((?=[ \t]*[\w-]+[ \t]*[|/][ \t]*[\w-]+)|(?<!\w)\((?=[ \t]*['"\x60“])`,
    ),
    yields: (m, s) => labelledValues(m, s),
  },
  // ---- words by slashes after a label naming a category: "priority: low/normal/high/urgent."
  {
    name: 'labelled-slash-values',
    examples: {
      yes: ['priority: low/normal/high/urgent.', 'Type: problem/incident/question/task'],
      no: ['Path: src/lib/index', 'Repository: owner/name/branch.', 'Priority: low/high.'],
    },
    matches: re(String.raw`:[ \t]*(?=[A-Za-z][\w-]*(?:/[A-Za-z][\w-]*){2,}[ \t]*(?:[.;,)]|$|[—–]))`),
    yields: (m, s) => {
      if (!CATEGORY_LABEL.test(textBefore(s, m.index))) return [];
      const start = m.index + m[0].length;
      const text = /^[A-Za-z][\w-]*(?:\/[A-Za-z][\w-]*)+/.exec(s.slice(start))?.[0] ?? '';
      const values = text.split('/');
      if (values.some((v) => THING_WORDS.test(v) || NAME_PATH_WORDS.has(v))) return [];
      return [enumSpan(s, values, false, start, start + text.length, 'labelled-slash-values')];
    },
  },
  // ---- a sentence that is nothing but quoted values: "Quality of the ASR. `high` or `low`."
  {
    name: 'values-sentence',
    examples: {
      yes: ['`high` or `low`.', "'asc', 'desc' or 'none'"],
      no: ["'a' is the default.", '`high` is faster than `low`.', "'a' and 'b'."],
    },
    // The opening quote is part of the match (an empty match at the sentence's start would be skipped).
    matches: re(String.raw`^\s*[\x60'"]`),
    yields: (m, s) => {
      const list = parseValueList(s, m.index + m[0].length - 1);
      if (list === undefined || !list.quoted || !list.separators.includes('or') || !/^\s*[.;]?\s*$/.test(s.slice(list.end))) return [];
      const start = m.index + m[0].length - 1;
      return [enumSpan(s, list.values, true, start, list.end, 'values-sentence')];
    },
  },
  // ---- a bare list under a label whose default is one of them: "Resource type: cpu, memory, network (default: cpu)"
  {
    name: 'labelled-default-values',
    examples: {
      yes: ['Resource type: cpu, memory, network (default: cpu)'],
      no: ['Time range: 1h, 6h, 24h (default: 1h)', 'Resource type: cpu, memory, network (default: disk)'],
    },
    matches: re(String.raw`:[ \t]*(?=[A-Za-z][\w-]*[ \t]*,)`),
    yields: (m, s) => labelledDefaultValues(m, s),
  },
  // ---- codes in capitals after "a comma-separated list of": "Comma-separated list of CREATE, UPDATE, DELETE, ACTION."
  {
    name: 'separated-codes',
    examples: {
      yes: ['Comma-separated list of CREATE, UPDATE, DELETE, ACTION.', 'A comma separated list of GET, POST or PUT'],
      no: ['Comma-separated list of ids.', 'Comma-separated list of CREATE events, e.g. CREATE, UPDATE.', 'List of A, B.'],
    },
    matches: re(String.raw`\b(?:comma|space)[- ]separated\s+list\s+of\s+(?=[A-Z][A-Z0-9_]+\s*,)`),
    yields: (m, s) => {
      const start = m.index + m[0].length;
      const list = parseValueList(s, start);
      if (list === undefined || list.values.length < 3 || !list.values.every((v) => /^[A-Z][A-Z0-9_]+$/.test(v))) return [];
      if (!/^\s*(?:[.;)]|$)/.test(s.slice(list.end))) return [];
      return [enumSpan(s, list.values, false, start, list.end, 'separated-codes')];
    },
  },
  // ---- the values a comma-separated list takes, after a colon: "Categories (comma-separated: P, C, M, J)"
  {
    name: 'separated-values',
    examples: {
      yes: ['Categories of flights (comma-separated: P, C, M, J, T).', 'Source of information (comma-separated: ADSB, MLAT, ESTIMATED).'],
      no: ['Comma-separated: e.g. a, b.', 'Fields (comma-separated: name, email, and more).', 'Ids (comma-separated: 12, 15).'],
    },
    matches: re(String.raw`\b(?:comma|space)[- ]?(?:separated|delimited)(?:\s+list)?\s*:\s*(?=[\w'"\x60])`),
    yields: (m, s) => {
      const start = m.index + m[0].length;
      const list = parseValueList(s, start);
      if (list === undefined || list.values.length < 2 || list.values.some((v) => /^(?:e\.?g|i\.?e|\d+)$/i.test(v))) return [];
      if (!/^\s*(?:[.;)]|$)/.test(s.slice(list.end))) return [];
      return [enumSpan(s, list.values, list.quoted, start, list.end, 'separated-values')];
    },
  },
  // ---- a bare list that fills its place: "(proxy or direct)", "Theme: light or dark.", "annotation or alert"
  {
    name: 'bare-values',
    examples: {
      yes: [
        'How to access the datasource (proxy or direct)',
        'Theme for the image: light or dark. Defaults to dark',
        'annotation or alert',
        'Alert state: firing, pending, normal',
        'Sort order: asc (default) or desc.',
        '查询类型: range或instant',
        'Output: table (default), wide, name, yaml or json.',
        'Type of patch (strategic, merge, json)',
        'View type: list, kanban, gantt, or table',
      ],
      no: [
        'The file to read (path or URL)',
        'Name or ID of the project',
        'Examples: foo, bar, baz',
        'Includes: name, email, phone',
        'A timeout (seconds or minutes)',
      ],
    },
    matches: re(
      // The list's first letter is part of the match (a match at the sentence's start would otherwise be empty).
      String.raw`(?:^\s*|\(\s*|:[ \t]+)(?=[A-Za-z][\w-]*${MARKED}(?:\s*,\s*[A-Za-z][\w-]*${MARKED})*(?:\s*,)?` +
        String.raw`${OR}[A-Za-z][\w-]*${MARKED}\s*(?:[.;)]|\s+\(|[—–]\s|$)|` +
        String.raw`[A-Za-z][\w-]*${MARKED}(?:\s*,\s*[A-Za-z][\w-]*${MARKED}){2,}\s*(?:[.;)]|\s+\(|[—–]\s|$)|` +
        // Two identifiers by a comma ("describe-connection-type, list-connection-types."): bareValues asks for a label.
        String.raw`${IDENTIFIER}\s*,\s*${IDENTIFIER}\s*(?:[.;)]|\s+\(|[—–]\s|$))[A-Za-z]`,
    ),
    yields: (m, s) => bareValues(m, s),
  },
  // ---- value lists: "one of `a`, `b`", "either asc or desc", "allowed values: x, y"
  {
    name: 'one-of',
    examples: {
      yes: [
        'One of `a`, `b` or `c`.',
        'Either asc or desc.',
        'Allowed values: x, y.',
        'One of: (table, wide, yaml, json).',
        "Supported values are: ['k8s_audit_logs', 'k8s_event_logs'].",
        "Can be 'pod', 'ssh' or 'any'.",
        "Accepted values are 'low', 'medium' and 'high'.",
        'Supported: markdown, html, text.',
        'Allowed: open | closed | all',
        'Supported values: payments, payments.card, transfers.',
        'One of A, AAAA, CNAME, MX, TXT.',
      ],
      no: [
        "One of the user's accounts.",
        'One of low, medium or high priority tasks.',
        'Must include one of GrokClassifier, XMLClassifier, JsonClassifier, or CsvClassifier.',
        'Each entry contains one of `id` or `name`.',
        'Valid values include: appointments, companies, contacts.',
        'One of `csv`, `json`, etc.',
        'Can be a user or a team.',
        'Accepts ["tagA", "tagB"] (preferred), a bare string',
        'One of (a, b',
      ],
    },
    matches: re(
      String.raw`\b(?:one\s+of|either|must\s+be|can\s+be|only|accepts?\b|` +
        String.raw`(?:allowed|valid|possible|accepted|supported|permitted)(?:\s+values?(?:\s+(?:are|is|include))?|(?=\s*:)))\s*:?\s*`,
    ),
    yields: (m, s) => enumCandidate(m, s),
  },
  ...TYPE_RULES,
];

/**
 * An id shown by its prefix and an example with a digit or a bracketed placeholder: `mem_xyz123`,
 * `ext_my_[MyMemory ID]` (not a word such as `json_lines`).
 */
export const PREFIXED_ID = /^([a-z]{2,8}_(?:[a-z]{1,8}_)*)(?:[A-Za-z]*[0-9][A-Za-z0-9]*|\[[^\]]{1,40}\])$/;

/** A layout made only of bracketed placeholders and the literal separators between them: `<key>=<value>`, `{a}:{b}`. */
export const PLACEHOLDER_LAYOUT =
  /^(?:<[A-Za-z][\w/.-]*>|\{[A-Za-z][\w-]*\})(?:[=:/@.,;|+-]{1,3}(?:<[A-Za-z][\w/.-]*>|\{[A-Za-z][\w-]*\}))+$/;

/** The template is all the sentence says of the layout: what follows it ends the clause. */
const ENDS_CLAUSE = /^(?:[\x60'"]?\s*(?:[.;,)]|$)|[\x60'"]\s+[a-z])/;

/** A quoted placeholder layout (`'{key}={value}'`), as a template. */
function placeholderTemplate(m: RegExpExecArray, sentence: string): FormatCandidate[] {
  const quoted = /^([\x60'"])([^\x60'"\s]{3,120})\1/.exec(sentence.slice(m.index));
  const text = quoted?.[2];
  if (quoted === null || text === undefined || !PLACEHOLDER_LAYOUT.test(text)) return [];
  if (!examplesFit(sentence, [text])) return [];
  const end = m.index + quoted[0].length;
  return [
    {
      kind: 'format',
      keyword: 'pattern',
      format: undefined,
      templates: [text],
      start: m.index,
      end,
      phrase: quoted[0],
      rule: 'placeholder-template',
    },
  ];
}

/** The values the sentence shows after "e.g." or "example:" all fit the layout of the templates. */
function examplesFit(sentence: string, templates: readonly string[]): boolean {
  if (!templates.some((t) => PLACEHOLDER_LAYOUT.test(t))) return true;
  const shown = /\b(?:e\.g\.|for\s+example|examples?)\s*[:,]?\s*[\x60'"]?([^\s\x60'",;]+)/i.exec(sentence);
  const example = shown?.[1]?.replace(/[.)]+$/, '');
  if (example === undefined) return true;
  return templates.some((t) => PLACEHOLDER_LAYOUT.test(t) && new RegExp(templateShape(t)).test(example));
}

/** The regular expression a placeholder layout stands for: each placeholder a run of characters up to the next separator. */
export function templateShape(template: string): string {
  const pieces = template.split(/(<[A-Za-z][\w/.-]*>|\{[A-Za-z][\w-]*\})/).filter((p) => p !== '');
  let out = '';
  pieces.forEach((piece, i) => {
    if (/^[<{]/.test(piece)) {
      const next = pieces[i + 1];
      const stop = next === undefined ? '' : (next[0] ?? '');
      out += stop === '' ? '.+' : `[^${stop.replace(/[\]\\^-]/g, '\\$&')}]+`;
    } else out += escapePattern(piece);
  });
  return `^${out}$`;
}

/** A literal prefix and one placeholder in brackets: `job-<digits>`, `PROJ-{number}`, `org_<id>`. */
export const PREFIXED_PLACEHOLDER = /^[A-Za-z][\w.]{0,20}[-_:/](?:<[A-Za-z][\w ]{0,20}>|\{[A-Za-z][\w ]{0,20}\})$/;

/** A shown template: quoted, or a token with placeholders (`xxxx`, `ID`, `NNN`); undefined for prose ("in format below"). */
export const TEMPLATE =
  /^(?:[A-Za-z][\w.]{0,20}[-_:/](?:<[A-Za-z][\w ]{0,20}>|\{[A-Za-z][\w ]{0,20}\})(?=[\s.;,)]|$)|[a-z]{2,8}_(?:[a-z]{1,8}_)*(?:\[[^\]\n]{1,40}\]|[A-Za-z]*[0-9][A-Za-z0-9]*)(?=[\s.;,)]|$)|(?:<[A-Za-z][\w/.-]*>|\{[A-Za-z][\w-]*\})(?:[=:/@.,;|+-]{1,3}(?:<[A-Za-z][\w/.-]*>|\{[A-Za-z][\w-]*\}))+(?=[\s.;,)]|$)|\x60([^\x60]+)\x60|'([^']+)'|"([^"]+)"|([A-Za-z0-9][\w.:/-]*(?:[xX#]{2,}|\b[A-Z]{2,}\b|\bx(?:\.x)+\b)[\w.:/-]*|\d{2,}(?:\.\d+)+(?![\w-]|\.\d)))/;

export function templateCandidate(m: RegExpExecArray, sentence: string): FormatCandidate[] {
  const templates: string[] = [];
  let at = m.index + m[0].length;
  for (let i = 0; i < 8; i++) {
    const t = TEMPLATE.exec(sentence.slice(at));
    if (t === null) break;
    const text = t[1] ?? t[2] ?? t[3] ?? t[4] ?? t[0];
    // A layout of placeholders only counts when it is the whole format: nothing more said of it in the clause.
    if (PLACEHOLDER_LAYOUT.test(text) && !ENDS_CLAUSE.test(sentence.slice(at + t[0].length))) return [];
    // A concrete date ("'2025-01-01T10:00:00' or '2025-01-01'") is an example of a date layout, not a template.
    if (/^\d{4}-\d{2}-\d{2}/.test(text)) return [];
    // A template has a placeholder or a fixed prefix with a separator ("user:ID", "GHSA-xxxx"), not a plain word.
    if (
      !PLACEHOLDER_LAYOUT.test(text) &&
      !PREFIXED_ID.test(text) &&
      !PREFIXED_PLACEHOLDER.test(text) &&
      (!/[xX#]{2,}|[A-Z]{2,}|[:/-]|^\d+(?:\.\d+)+$/.test(text) || /\s/.test(text))
    )
      return [];
    templates.push(text);
    at += t[0].length;
    const or = /^\s*(?:,\s*)?(?:or|,)\s*/.exec(sentence.slice(at));
    if (or === null) break;
    at += or[0].length;
  }
  if (templates.length === 0 || !examplesFit(sentence, templates)) return [];
  return [
    {
      kind: 'format',
      keyword: 'pattern',
      format: undefined,
      templates,
      start: m.index,
      end: at,
      phrase: sentence.slice(m.index, at).trim(),
      rule: 'format-template',
    },
  ];
}

/** A number and its unit ("30m", "1.5h"), or several ("2h30m"): a measure shows a format, it is no value to list. */
const MEASURE = /^[-+]?\d+(?:\.\d+)?(?:[A-Za-z%]{1,3}(?:\d+(?:\.\d+)?[A-Za-z%]{1,3})*)?$/;

/** Words anywhere in a label that make its list examples ("Example without arguments:", "looks like a filename:"). */
const EXAMPLE_IN_LABEL = /\b(?:examples?|e\.\s?g|such\s+as|looks?\s+like|for\s+instance)\b/i;

/** Words before a colon that introduce examples or a syntax, not the allowed values. */
const EXAMPLE_LABEL =
  /\b(?:examples?|e\.\s?g\.?|eg|such\s+as|like|syntax|i\.\s?e\.?|usage|note|see|(?<!\bto\s+)returns?|include|includes|including)\s*$|\b(?:bad|good|wrong|avoid)\b(?:\s*\([^()]{0,40}\))?\s*$/i;

/** A value of four words and more is an example sentence ("'How to set up authentication in Express'"), not a value to list. */
const SENTENCE_VALUE = /\S\s+\S+\s+\S+\s+\S/;

/** Placeholders of a name's path ("(owner/repo)", "(namespace/name)"): a layout, not a choice between two words. */
const NAME_PATH_WORDS = new Set(
  'owner repo repository org organization namespace name project group user username workspace team bucket key account'.split(' '),
);

/**
 * A list right after a label's colon ("task type: 'shell_command', 'AI', or 'http'") or in parentheses with `|` or
 * `/` ("(true/false)"), that ends its clause. Not a list of examples ("Examples: 'a', 'b'", "Duration: '30m', '2h'":
 * values that are all a number and a unit show a format, not the values).
 */
export function labelledValues(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  const paren = m[0].startsWith('(');
  if (paren && /^\([ \t]*['"\x60“]/.test(sentence.slice(m.index))) {
    // A quoted list that fills the parentheses: "Output format ("markdown" or "csv")".
    const list = parseValueList(sentence, m.index + 1);
    if (list === undefined || list.values.length < 2 || !list.quoted || !/^[ \t]*\)/.test(sentence.slice(list.end))) return [];
    if (
      list.values.some((v) => SENTENCE_VALUE.test(v)) ||
      EXAMPLE_IN_LABEL.test(clauseBefore(sentence, lastSeparator(sentence, m.index) + 1, m.index))
    )
      return [];
    const start = m.index + 1;
    return [enumSpan(sentence, list.values, true, start, list.end, 'labelled-values')];
  }
  if (paren) {
    const inner = /^[ \t]*([\w-]+(?:[ \t]*[|/][ \t]*[\w-]+)+)[ \t]*\)/.exec(sentence.slice(m.index + 1));
    if (inner === null) return [];
    const values = (inner[1] ?? '').split(/[|/]/).map((v) => v.trim());
    // "(kube-apiserver/kube-audit/guard/etc)": an open list.
    if (values.every((v) => /^\d/.test(v)) || values.some((v) => /^etc$/i.test(v))) return [];
    if (!(inner[1] ?? '').includes('|') && values.every((v) => NAME_PATH_WORDS.has(v))) return [];
    // "Target GameObject (name/path/id)", "Intensity value (ambient/reflection)": kinds of the thing, not its values.
    const kinds = values.some((v) => THING_WORDS.test(v) && !/^(?:true|false|yes|no|none|all|any|default)$/i.test(v));
    if (kinds || THING_WORDS.test(/([\w-]+)\s*$/.exec(textBefore(sentence, m.index))?.[1] ?? '')) return [];
    const end = m.index + 1 + inner[0].length - 1;
    // "Starting point (commit/branch) for new branch creation": kinds glossed mid-phrase, not the values; a list
    // of values ends its clause.
    if (!(inner[1] ?? '').includes('|') && !/^\s*(?:$|[.;,:)]|-\s|—)/.test(sentence.slice(end + 1))) return [];
    return [
      { kind: 'enum', values, quoted: false, start: m.index + 1, end, phrase: sentence.slice(m.index, end + 1), rule: 'labelled-values' },
    ];
  }
  const list = parseValueList(sentence, m.index + m[0].length);
  if (list === undefined || list.values.length < 2) return [];
  // "use FROM:TO format - "A1:C10" or "C1:C1"": after a dash, values that show a format are examples of it; names
  // ("Output format - 'yaml', 'json' or 'wide'") are the formats to pick from.
  const formatExamples = list.values.some((v) => !/^[A-Za-z][\w-]*$/.test(v));
  if (!m[0].includes(':') && formatExamples && /\bformat\s*$/i.test(textBefore(sentence, m.index))) return [];
  const after = sentence.slice(list.end);
  {
    if (!list.quoted || EXAMPLE_LABEL.test(textBefore(sentence, m.index))) return [];
    if (list.values.some((v) => SENTENCE_VALUE.test(v))) return [];
    if (EXAMPLE_IN_LABEL.test(clauseBefore(sentence, lastSeparator(sentence, m.index) + 1, m.index))) return [];
    // "..., 'dead', or '' for all": the last value glossed with what it stands for.
    if (!/^\s*(?:$|[.;)(]|-\s|—|for\s+(?:all|default|none|any|both)\s*(?:$|[.;,)]))/i.test(after)) return [];
  }
  const start = m.index + m[0].length;
  // "'3d' (default) or '2d'": a value marked as the default makes the list a choice, not examples of a measure.
  if (list.values.every((v) => MEASURE.test(v)) && !/\((?:the\s+)?default\)/i.test(sentence.slice(start, list.end))) return [];
  return [enumSpan(sentence, list.values, list.quoted, start, list.end, 'labelled-values')];
}

/** A bare list after a label's colon, followed by "(default: X)" with X one of its values. */
export function labelledDefaultValues(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  if (EXAMPLE_LABEL.test(textBefore(sentence, m.index))) return [];
  const start = m.index + m[0].length;
  const list = parseValueList(sentence, start);
  if (list === undefined || list.quoted) return [];
  // The default may sit as the last value's gloss ("network (default: cpu)"), which the list reads past.
  const named = /\(\s*defaults?\s*(?::|is|to|=)?\s*([\w-]+)\s*\)/i.exec(sentence.slice(start, list.end + 40))?.[1];
  if (named === undefined || !list.values.includes(named)) return [];
  if (list.values.every((v) => MEASURE.test(v))) return [];
  return [enumSpan(sentence, list.values, false, start, list.end, 'labelled-default-values')];
}

/**
 * Words that name a kind of thing rather than a value ("path or URL", "name or ID", "seconds or minutes"): a list of
 * them says what the parameter may hold, not the values it takes.
 */
const THING_WORDS =
  /^(?:paths?|urls?|uris?|names?|ids?|uids?|uuids?|guids?|slugs?|keys?|emails?|e-mails?|addresses|address|handles?|titles?|numbers?|strings?|texts?|files?|filenames?|folders?|directories|directory|labels?|values?|tags?|codes?|tokens?|hashes|hash|sha|shas|json|objects?|lists?|arrays?|integers?|(?:milli)?seconds|minutes|hours|days|ms|bytes|kb|mb|gb|percent|pixels|px|none|null|empty|all|any|both|more|less|other|others|custom|etc|optional|required|true|false|yes|no|default|rfc\d+|iso(?:-?8601)?|unix|epoch)$/i;

/** A short label naming a category of values ("State on execution error:", "Alert state:", "Log level:"). */
const CATEGORY_LABEL =
  /^\W*(?:\S+\s+){0,5}?(?:states?|status|types?|modes?|kinds?|levels?|themes?|formats?|styles?|order|sort(?:\s+(?:field|key|by))?|scope|strategy|method|severity|priority|access|resource|operations?|actions?|commands?|values|categor(?:y|ies)|options|choices|targets?|platforms?|backends?|providers?|engines?|directions?|dimensions?|shapes?|interactions?|protocols?|algorithms?|alignments?|layouts?|variants?|operators?|comparators?|aggregations?)\b(?:\s+\S+){0,4}\s*$|^\W*(?:\S+\s+){0,3}?(?:supported|available|allowed|valid|accepted|possible)\s+(?!units?\b)[\w-]+(?:\s*\([\w\s-]{1,20}\))?\s*$/i;

const GLOSSES = /\s+\([^()\n]{1,40}\)/g;
/** Words that leave a list open ("application, host, or custom"). */
const OPEN_WORDS = /^(?:custom|other|others|etc|any|more)$/i;
const BARE_LIST = new RegExp(
  String.raw`^([A-Za-z][\w-]*${MARKED}(?:\s*,\s*(?!or\b)[A-Za-z][\w-]*${MARKED})*(?:\s*,)?(?:${OR}[A-Za-z][\w-]*${MARKED})?)`,
  'i',
);

/**
 * A bare list of words that fills its place: the whole description, a parenthesis, or what follows a label's colon
 * ("(proxy or direct)", "Theme for the image: light or dark."). With "or" before the last value, or after a label
 * naming a category ("Alert state: firing, pending, normal") for three or more values by commas. Words that name
 * things ("path or URL") are no values; nor is a list after an example's label.
 */
export function bareValues(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  const start = m.index + m[0].length - 1;
  const opener = m[0].slice(0, -1).trim();
  const before = sentence.slice(0, m.index);
  if (opener === ':' && EXAMPLE_LABEL.test(before)) return [];
  const list = BARE_LIST.exec(sentence.slice(start));
  if (list === null) return [];
  const text = list[1] ?? '';
  const values = text
    .replace(GLOSSES, '')
    .split(/\s*,\s*(?:or\s+)?|\s+or\s+|\s*或者?\s*/)
    .filter((v) => v !== '');
  const hasOr = /\sor\s|或/.test(text);
  // Identifiers (`create-job`, `get-job-run`) are values, not words: a label's list of them may be long, or two.
  const identifiers = values.every((v) => IS_IDENTIFIER.test(v) || /^[A-Z][A-Z0-9_]+$/.test(v));
  // After a label's colon, or in parentheses right after the category they are values of ("Logging level (DEBUG,
  // INFO, WARNING, ERROR)"), a list needs no "or"; under such a label it may be long.
  const labelled = opener === ':' && (values.length >= 3 || identifiers) && CATEGORY_LABEL.test(before);
  if (
    values.length < 2 ||
    values.length > (identifiers || labelled ? 16 : 8) ||
    new Set(values.map((v) => v.toLowerCase())).size !== values.length
  )
    return [];
  const categoryGloss =
    opener === '(' && values.length >= 3 && CATEGORY_LABEL.test(clauseBefore(sentence, lastSeparator(sentence, m.index) + 1, m.index));
  if (!hasOr && !labelled && !categoryGloss) return [];
  // Under a label naming operations ("Operation to perform: list or report"), "list" is an operation, not a thing.
  const operations = opener === ':' && /\b(?:operations?|actions?|commands?)\b[^:]*$/i.test(before);
  // "opened, closed, or all", "l26, win10, other": a catch-all last word beside two or more values is a value too.
  const things = values.filter((v) => THING_WORDS.test(v));
  const catchAll = things.length === 1 && /^(?:all|any|none|both|other|default)$/i.test(things[0] ?? '') && values.length >= 3;
  // "table (default), wide, name, yaml or json", "Type of patch (strategic, merge, json)": a list with its default
  // marked, or glossing its category, is a choice, where a word that may name a thing among more words that don't is
  // a value too.
  const choice =
    (/\(\s*default\s*\)/i.test(text) || categoryGloss || labelled) &&
    values.length >= 3 &&
    things.length * 2 < values.length &&
    !things.some((v) => OPEN_WORDS.test(v));
  if (!operations && !catchAll && !choice && things.length > 0) return [];
  // "Airports (IATA/ICAO) or countries." opening a sentence: plural nouns name kinds of what is passed, not values.
  if (opener === '' && values.every((v) => /^[A-Za-z][a-z]{2,}[^s\W]s$/.test(v))) return [];
  // "object ID (task, project, or comment)": kinds of the thing named before the parenthesis, not its values.
  if (opener === '(' && THING_WORDS.test(/([\w-]+)\s*$/.exec(before)?.[1] ?? '')) return [];
  const end = start + text.length;
  const after = sentence.slice(end);
  // A parenthesis that ends the clause ("... the datasource (proxy or direct)"), not one glossing a word mid-sentence
  // ("each field's target (root or jsonData) to place values").
  if (opener === '(' && !/^\s*\)\s*(?:[.;,]|$)/.test(after)) return [];
  // "status: new, open, closed — leave empty for all": a dash closes the list as a full stop does.
  if (opener !== '(' && !/^\s*(?:[.;]|\(|$|[—–]\s)/.test(after)) return [];
  return [enumSpan(sentence, values, false, start, end, 'bare-values')];
}

/** A quoted value then what it is for, or that it is the default: "'corpus' to search across all", "'b' (the default)". */
const USE_VALUE = /(['\x60"])([\w.-]{1,40})\1(?:\s+(?:to|for)\s+|\s*\((?:the\s+)?default\))/g;

/**
 * "Use 'a' to X, or 'b' to Y", "Method: 'a' for X, or 'b' (the default)": every quoted value of the sentence from "use"
 * (or the label) on is glossed, and the last is offered as the alternative ("or"): the values to choose from.
 */
function useValues(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  // "For example, use '12.0' for Android or '16.0' for iOS": values shown, not all of them.
  const before = textBefore(sentence, m.index);
  if (/\b(?:e\.g\.|for\s+example|for\s+instance|such\s+as)/i.test(before)) return [];
  if (!/^use\b/i.test(m[0]) && EXAMPLE_LABEL.test(before)) return [];
  // A bounded stretch after the match: each match reads at most a clause, so a long sentence stays linear.
  const rest = sentence.slice(m.index, m.index + CLAUSE_CHARS);
  const glossed = [...rest.matchAll(USE_VALUE)];
  const quotes = rest.match(/(['\x60"])[^'\x60"\n]{1,60}\1/g) ?? [];
  const last = glossed.at(-1);
  if (glossed.length < 2 || quotes.length !== glossed.length || last === undefined) return [];
  if (!/(?:^|[\s,])or\s+(?:use\s+)?$/i.test(rest.slice(0, last.index))) return [];
  const values = glossed.map((g) => g[2] ?? '');
  const end = m.index + last.index + last[0].length;
  return [enumSpan(sentence, values, true, m.index, end, 'use-values')];
}

/** A quoted value at the head of a glossed item, with its "(default)" mark. */
const ITEM_HEAD = /^(['\x60"])([\w.-]{1,40})\1(\s*\((?:the\s+)?default\))?[ \t]*(?:[-—–:=][ \t]*)?/;
/** The separator before the next item's quoted value: ", 'b' ...", "; or 'c' ...". */
const NEXT_ITEM = /[,;][ \t]*(?:(?:or|and)[ \t]+)?(?=(['\x60"])[\w.-]{1,40}\1[ \t(—–-])/g;
/** "(default: "false")" in a gloss names the default, not another value. */
const DEFAULT_GLOSS = /\s*\(\s*default\s*[:=]?\s*(['\x60"])[\w.-]{1,40}\1\s*\)/gi;
/** A gloss that says what its value is for: "for errored runs", "to exclude roots", "means ...". */
const PURPOSE_GLOSS = /^(?:for|to|means|selects|returns|shows|keeps|includes|excludes)\b/i;
/** Labels of free text, whose quoted values are examples of it: "Search query: 'react' finds React pages". */
const FREE_TEXT_LABEL = /\b(?:query|queries|search|terms?|keywords?|text|prompt|pattern|expression|regex)\s*$/i;

/**
 * "Scope: 'user' returns user databases, 'all' returns every database": after a label, two or more items that each
 * open with a quoted value and go on with what it does. Every quote of the clause heads an item, so no example hides
 * among them.
 */
function glossedList(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  const before = textBefore(sentence, m.index);
  if (EXAMPLE_LABEL.test(before) || FREE_TEXT_LABEL.test(before) || EXAMPLE_IN_LABEL.test(before)) return [];
  const labelled = !/['\x60"]$/.test(m[0]);
  const start = m.index + m[0].length - (labelled ? 0 : 1);
  const rest = sentence.slice(start, start + CLAUSE_CHARS);
  const separators = [...rest.matchAll(NEXT_ITEM)];
  const heads = [0, ...separators.map((n) => n.index + n[0].length)];
  const ends = [...separators.map((n) => n.index), rest.length];
  const values: string[] = [];
  let firstHead = 0;
  for (const [i, at] of heads.entries()) {
    const head = ITEM_HEAD.exec(rest.slice(at));
    if (i === 0) firstHead = head?.[0].length ?? 0;
    const gloss = head === null ? '' : rest.slice(at + head[0].length, ends[i]).replace(DEFAULT_GLOSS, '');
    // A gloss says something in words of its own, and quotes no other value ("e.g. 'sys'"); with no label, it says
    // what the value is for.
    if (head === null || !/^[(\p{L}]/u.test(gloss) || /(['\x60"])[\w.-]{1,40}\1/.test(gloss)) return [];
    if (!labelled && !PURPOSE_GLOSS.test(gloss)) return [];
    values.push(head[2] ?? '');
  }
  // "First cell: 'A2' freezes row 1; 'A1' unfreezes": values that all hold a digit show a format, not the choices.
  if (values.length < 2 || new Set(values).size !== values.length || values.every((v) => /\d/.test(v))) return [];
  // The span is the first item: a parameter named in a gloss ("adds missing collections") is not the one listed.
  return [enumSpan(sentence, values, true, start, start + firstHead, 'glossed-list')];
}

/** One key of an object written out: "task_id: int", "position?: float", "title: str (required)". */
const SPEC_ENTRY = /\s*(?:(\.\.\.)|['"]?(\w{1,40})['"]?(\?)?\s*:\s*([^,{}()]{0,60}(?:\([^()]{0,60}\)[^,{}()]{0,20})?))\s*(,|\})/y;

/**
 * "{task_id: int, bucket_id: int, position?: float}", "{title: str (required), description: str}": the keys an object
 * must have, where the text marks which: the keys said "(required)", else those not marked optional with "?".
 */
function objectSpecKeys(m: RegExpExecArray, sentence: string): RequiredKeysCandidate[] {
  const entries: { key: string; optional: boolean; required: boolean }[] = [];
  let at = m.index + 1;
  for (let i = 0; i < 32; i++) {
    SPEC_ENTRY.lastIndex = at;
    const entry = SPEC_ENTRY.exec(sentence);
    if (entry === null) return [];
    at = SPEC_ENTRY.lastIndex;
    if (entry[2] !== undefined) {
      const type = entry[4] ?? '';
      // A value, not a type: '{"a": 1}' is an example of the object, not its layout.
      if (/^\s*(?:['"\d[{-]|true\b|false\b|null\b)/.test(type)) return [];
      entries.push({ key: entry[2], optional: entry[3] === '?' || /\boptional\b/i.test(type), required: /\brequired\b/i.test(type) });
    }
    if (entry[5] === '}') break;
  }
  const marked = entries.some((e) => e.required);
  const keys = entries.filter((e) => (marked ? e.required : !e.optional)).map((e) => e.key);
  if (keys.length === 0 || (!marked && !entries.some((e) => e.optional))) return [];
  return [{ kind: 'requiredKeys', keys, start: m.index, end: at, phrase: sentence.slice(m.index, at), rule: 'object-spec-keys' }];
}

/** A key in a list of required keys: `'name'`, `version (8)`, `type='single'`, `max_amount (positive number)`. */
const REQUIRED_KEY =
  /(?:([\x60'"])([A-Za-z_][\w.-]{0,40})\1|([A-Za-z_]\w{0,40}(?:\.\w{1,40}){0,4}))(?:[ \t]*=[ \t]*(?:'[^'\n]{0,40}'|"[^"\n]{0,40}"|[\w.-]{1,40}))?(?:[ \t]*\([^()\n]{0,80}\))?/y;
const KEY_SEPARATOR = /[ \t]*(?:,[ \t]*(?:and[ \t]+)?|and[ \t]+)(?:an?[ \t]+|the[ \t]+)?/y;
/** Where the required keys end: "and optionally expire_at", ", and optional fields like notes". */
const OPTIONAL_REST = /[ \t]*,?[ \t]*(?:and[ \t]+)?optional/iy;
/** What may follow the last key: the clause's end, or the word for keys ("a 'name' and 'value' field"). */
const KEYS_END = /[ \t]*(?:[.;)]|$|(?:fields?|keys?|propert(?:y|ies)|attributes?)\b)/iy;
const NOT_KEYS = /^(?:a|an|the|and|or|any|all|some|one|both|at|least|either|optional|optionally|it|this|that|these|each|every)$/i;

/**
 * "Must include: version (8), sources, layers", "Each variable must have a 'name' and 'value' field": the keys an
 * object must have. After a colon the keys may be bare words; without one they are quoted, so "must contain a WHERE
 * clause" names none. The list ends the clause or gives way to the optional keys.
 */
function requiredKeys(m: RegExpExecArray, sentence: string): RequiredKeysCandidate[] {
  const quotedOnly = !m[0].includes(':');
  // "when stacking is needed, the data should contain a `group` field": keys some calls need.
  if (/\b(?:if|when|whenever|unless)\b[^.;:]*$/i.test(textBefore(sentence, m.index))) return [];
  const start = m.index + m[0].length;
  const rest = sentence.slice(start, start + CLAUSE_CHARS);
  const keys: string[] = [];
  let at = 0;
  for (;;) {
    REQUIRED_KEY.lastIndex = at;
    const key = REQUIRED_KEY.exec(rest);
    const name = key?.[2] ?? key?.[3];
    if (key === null || name === undefined || NOT_KEYS.test(name) || (quotedOnly && key[2] === undefined)) return [];
    keys.push(name);
    at += key[0].length;
    OPTIONAL_REST.lastIndex = at;
    if (OPTIONAL_REST.test(rest)) break;
    KEY_SEPARATOR.lastIndex = at;
    const separator = KEY_SEPARATOR.exec(rest);
    if (separator === null) {
      KEYS_END.lastIndex = at;
      if (!KEYS_END.test(rest)) return [];
      break;
    }
    at += separator[0].length;
  }
  if (new Set(keys).size !== keys.length) return [];
  return [
    {
      kind: 'requiredKeys',
      keys,
      start: m.index,
      end: start + at,
      phrase: sentence.slice(m.index, start + at).trim(),
      rule: 'required-keys',
    },
  ];
}

/** The clause around a match: what a rule reads of a long sentence for each match, so the sentence costs linear time. */
function around(sentence: string, m: RegExpExecArray): string {
  return sentence.slice(Math.max(0, m.index - CLAUSE_CHARS), m.index + m[0].length + CLAUSE_CHARS);
}

/** A value list read from `sentence[start, end)`, as an enum candidate quoting that span. */
function enumSpan(sentence: string, values: string[], quoted: boolean, start: number, end: number, rule: string): EnumCandidate {
  return { kind: 'enum', values, quoted, start, end, phrase: sentence.slice(start, end).trim(), rule };
}

/** Two or more values glossed as `('local')` in one sentence: the allowed values, each next to its meaning. */
export function glossedValues(sentence: string): EnumCandidate[] {
  const values: string[] = [];
  let start = -1;
  let end = 0;
  for (const g of sentence.matchAll(/\(\s*['\x60"]([\w.-]+)['\x60"]\s*\)/g)) {
    values.push(g[1] ?? '');
    if (start < 0) start = g.index;
    end = g.index + g[0].length;
  }
  if (values.length < 2 || start < 0) return [];
  return [enumSpan(sentence, values, true, start, end, 'glossed-values')];
}

export function rangeCandidates(m: RegExpExecArray, rule: string, exclusive: boolean): BoundCandidate[] {
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

/** A date or a date-time after "YYYY-MM-DD": "or full ISO", "or ISO 8601 datetime", "or YYYY-MM-DDTHH:MM:SS". */
const OR_DATE_TIME =
  /^['"\x60]?\s+or\s+(?:an?\s+)?(?:full\s+ISO(?:[\s-]?8601)?|ISO[\s-]?8601\s+(?:date[\s-]?time|datetime|timestamp)|RFC[\s-]?3339|date[\s-]?time|datetime|['"\x60]?YYYY-MM-DD[T ]HH(?::mm)?(?::ss)?(?:\.s+)?(?:Z|[+-]hh:?mm)?['"\x60]?)/i;

/** "date or date-time", "timestamp or date": a date and a date-time offered as one another's alternative. */
const DATE_OR_TIME_WORDS =
  /\bdates?\s+or\s+(?:an?\s+)?(?:date[\s-]?times?|datetimes?|timestamps?)\b|\b(?:date[\s-]?times?|datetimes?|timestamps?)\s+or\s+(?:an?\s+)?dates?\b/i;

/** A date, or a date-time with or without seconds and offset. */
const DATE_OR_DATE_TIME = String.raw`^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$`;

export function formatCandidate(m: RegExpExecArray, format: string | undefined, rule: string): FormatCandidate {
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
export function isConditional(sentence: string, start: number, end: number): boolean {
  if (/^[\s*-]*(?:if|when|unless|whenever|only)\b/i.test(sentence)) return true;
  // "For namespaced resources, always provide the namespace": said of some values only.
  if (/^[\s*-]*for\s+[^,.;]{1,60},/i.test(sentence) && start > sentence.indexOf(',')) return true;
  if (/\balso\b/i.test(sentence.slice(start, end))) return true;
  const clauseStart = Math.max(lastSeparator(sentence, start), 0);
  if (/\b(?:if|when|unless|whenever|only\s+(?:if|when))\b/i.test(clauseBefore(sentence, clauseStart, start))) return true;
  return /^\s*(?:only\s+)?(?:when|if|unless|for|by|in|to|with|on|after|before|during|as|whenever|except|once|while)\b/i.test(
    sentence.slice(end),
  );
}

export function requiredCandidate(m: RegExpExecArray, sentence: string, subject: RequiredCandidate['subject']): RequiredCandidate[] {
  const start = m.index;
  const end = m.index + m[0].length;
  if (isConditional(sentence, start, end)) return [];
  if (/\b(?:not|never|no\s+longer|n't)\s+$/i.test(textBefore(sentence, start))) return [];
  // "image mode, which requires `markerPopup`": a requirement of one value of another parameter, not of the call.
  if (subject === 'after' && /\b(?:which|that)\s+(?:also\s+|then\s+)?$/i.test(textBefore(sentence, start))) return [];
  // "must provide the full absolute path to ...": a requirement on the value's form, not on its presence.
  if (
    subject === 'after' &&
    /^\s*(?:the\s+|an?\s+)?(?:full|complete|absolute|exact|valid|correct|leading|trailing)\b/i.test(sentence.slice(end))
  )
    return [];
  // "Always include a limit in the query": what another value must contain, not a parameter to send.
  if (subject === 'after' && /include$/i.test(m[0]) && INCLUDED_IN.test(sentence.slice(end))) return [];
  // "All line items must be provided", "Must include all the environment IDs": the list complete, not the parameter sent.
  if (subject === 'before' && /^[\s*-]*all\s/i.test(sentence.slice(Math.max(lastSeparator(sentence, start), 0), start))) return [];
  if (subject === 'after' && /^\s+all\b/i.test(sentence.slice(end))) return [];
  // "resource='service' requires `container`": a requirement of one value of another parameter.
  if (subject === 'after' && /\b[\w-]+\s*=\s*['"\x60][^'"\x60]*['"\x60]\s+$/.test(textBefore(sentence, start))) return [];
  // "Always pass item_key when you know the item": the requirement holds under a condition.
  if (subject === 'after' && /^\s*[\w\x60'"-]+\s+(?:only\s+)?(?:when|if|unless|whenever)\b/i.test(sentence.slice(end))) return [];
  // "Requires network access", "requires a higher computational load": something besides an argument.
  if (subject === 'after' && /^requires?$/i.test(m[0].trim()) && !REQUIRES_ARGUMENT.test(sentence.slice(end))) return [];
  return [{ kind: 'required', subject, start, end, phrase: m[0].trim(), rule: subject === 'after' ? 'always-provide' : 'is-required' }];
}

/**
 * What "requires" names when it asks for an argument: a quoted name, an identifier (`project_id`, `repoName`), or a
 * noun phrase ending in a word for a value ("a workspace ID", "the repository name").
 */
const REQUIRES_ARGUMENT = {
  test(after: string): boolean {
    return (
      /^\s*(?:[\x60'"]|(?:(?:[Aa]n?|[Tt]he)\s+)?(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+[A-Z]\w*)\b)/.test(after) ||
      /^\s*(?:(?:a|an|the)\s+)?(?:[\w-]+\s+){0,2}(?:id|ids|name|key|token|parameter|field|argument|option|value|path|url)\b/i.test(after)
    );
  },
};

/** "a limit in the query", "the token in your request headers": a thing put inside another value; "in the request" is the call. */
const INCLUDED_IN =
  /^\s+(?:(?:an?|the|your|its)\s+)?[\w-]+(?:\s+[\w-]+)?\s+in\s+(?:the|your|its|each|every|a|an)\s+(?!(?:request|call|arguments?|input|parameters?)\s*(?:[.,;)]|$))/i;

// ---------------------------------------------------------------------------------------------------------------
// Extraction

/** What opens an example ("(e.g. 1 minute up to 40 runs, 2 for 41-80)"): a bound after it is the example's. */
const EXAMPLE_OPENER = /\b(?:e\.g\.|for\s+example|such\s+as)/gi;

/**
 * For each position of `sentence`, whether it is inside an example: after an opener with no ";", "(" or ")" since.
 * One pass, so a sentence of many bounds costs linear time, not a scan of its prefix per bound.
 */
function exampleSpans(sentence: string): (at: number) => boolean {
  const openers = [...sentence.matchAll(EXAMPLE_OPENER)].map((m) => m.index + m[0].length);
  if (openers.length === 0) return () => false;
  // The end of the latest opener before each position, unless a ";", "(" or ")" came after it.
  const open = new Int32Array(sentence.length + 1).fill(-1);
  let next = 0;
  let current = -1;
  for (let i = 0; i <= sentence.length; i++) {
    while (next < openers.length && (openers[next] ?? Infinity) <= i) current = openers[next++] ?? -1;
    const c = sentence.charAt(i - 1);
    if (i > 0 && current >= 0 && current < i && (c === ';' || c === '(' || c === ')')) current = -1;
    open[i] = current;
  }
  return (at) => (open[Math.min(Math.max(at, 0), sentence.length)] ?? -1) >= 0;
}

/**
 * What a value past the number does or needs ("Requests >10 require allowLargeResultSet", "Specify `depth > 0` to
 * also retrieve children"): a condition on some calls, not a bound on every value.
 */
const CONDITION_AFTER = /^[\x60'"]?\s+(?:requires?|needs?|to\s+also)\b/i;

/** A clause about one of the tool's actions ("The 'get' action is read-only"), not about the value. */
const OF_AN_ACTION = /\b(?:actions?|operations?|commands?|methods?|tools?|queries|query|requests?|calls?)\b/i;

/**
 * Advice about good values, not a limit: "Use lower values (10-50) for faster queries", "Start with a small time range
 * (15-30 minutes)", "values are recommended to be less than 1", "Use 2 or more replicas for production workloads".
 */
export const ADVICE =
  /^[\s*-]*(?:start\s+with|try|prefer)\b|\b(?:lower|higher|smaller|larger|bigger)\s+values?\b|\brecommended\b|\bfor\s+(?:production|faster|better|best|most)\b|\bideally\b|\bpreferably\b|\b(?:we|you)\s+(?:suggest|prefer)\b|\bsuggested\b|\bas\s+(?:they|it|these|those)\s+grows?\b/i;

/**
 * A range that belongs to one alternative of a list: "top, bottom: items, or percent (1-100)" bounds the value only
 * when it is a percentage, "a count, or a ratio (0-1)" only when it is a ratio. Not a bound of the parameter.
 */
export const ALTERNATIVE_RANGE = {
  test(before: string): boolean {
    if (/,\s*or\s+(?:an?\s+)?[A-Za-z][\w-]*\s*\(\s*$/i.test(before)) return true;
    // Alternatives glossed one by one: "Single letter (a-z), number (0-99), or an icon name".
    if (/\)\s*,\s*(?:or\s+)?(?:an?\s+)?[A-Za-z][\w-]*\s*\(\s*$/i.test(before)) return true;
    return /\beither\b/i.test(before) && /\sor\s+(?:an?\s+)?[A-Za-z][\w-]*\s*\(\s*$/i.test(before);
  },
};

/** The suffixes listed after "must end with": each a quoted text or a dotted extension (`.png`), the list ending its clause. */
function suffixCandidate(m: RegExpExecArray, sentence: string): FormatCandidate[] {
  const from = m.index + m[0].length;
  const list =
    /^(?:[\x60'"](\.?[\w.-]{1,20})[\x60'"]|(\.[\w-]{1,20}))(?:\s*(?:,\s*(?:or\s+)?|or\s+)(?:[\x60'"]\.?[\w.-]{1,20}[\x60'"]|\.[\w-]{1,20})){0,11}/.exec(
      sentence.slice(from),
    );
  if (list === null || !/^\s*(?:[.;,)]|$)/.test(sentence.slice(from + list[0].length))) return [];
  const suffixes = [...list[0].matchAll(/[\x60'"](\.?[\w.-]{1,20})[\x60'"]|(\.[\w-]{1,20})/g)].map((x) => x[1] ?? x[2] ?? '');
  const pattern = `(?:${suffixes.map(escapePattern).join('|')})$`;
  return [{ ...formatCandidate(m, undefined, 'ends-with'), end: from + list[0].length, pattern }];
}

/** The literal of "60000 milliseconds if not specified", "'json' if omitted", "true when not provided". */
function unspecifiedDefault(m: RegExpExecArray): Candidate {
  const base = { kind: 'default', start: m.index, end: m.index + m[0].length, phrase: m[0].trim(), rule: 'default' } as const;
  if (m[5] !== undefined) return { ...base, literal: m[5].toLowerCase() === 'true', comparable: true };
  if (m[4] !== undefined) return { ...base, literal: m[4], comparable: true };
  const parsed = parseNumber(m[1] ?? '');
  const measured = m[2] !== undefined && MEASURE_UNITS.test(m[2]);
  return { ...base, literal: parsed?.value, comparable: parsed !== undefined && parsed.plain && !measured };
}

/** A quoted value that opens an item of a glossed list ("'both' searches names and content"). */
const GLOSSED_HEAD = /^\s*(['"\x60])([\w.-]{1,40})\1\s+[a-z]/;

/** The default a whole match states: its literal compared with the schema's. */
function matchedDefault(m: RegExpExecArray, literal: JsonValue): DefaultCandidate {
  return { kind: 'default', start: m.index, end: m.index + m[0].length, phrase: m[0], literal, comparable: true, rule: 'default' };
}

/** A bare word marked as the default: a value only when the schema lists it. */
function bareDefault(m: RegExpExecArray, word: string): Candidate {
  return { ...matchedDefault(m, word), listedOnly: true };
}

/** Every candidate constraint in one sentence, in order of position, without duplicates. */
export function extractCandidates(sentence: string): Candidate[] {
  const all = extractAll(sentence);
  // "Throws an error if limit is less than 1": the refused value's comparison is no bound of its own.
  const errors = all.filter((c) => c.rule === 'error-if');
  const candidates = errors.length === 0 ? all : all.filter((c) => c.rule === 'error-if' || !errors.some((e) => overlaps(e, c)));
  const advice = ADVICE.test(sentence);
  // "`limit` is clamped to 1-100 and `offset` to 0 or more": a value out of range is moved into it, not refused.
  const clamped = /\bclamp(?:ed|s)?\b/i.test(sentence);
  const refused = REFUSED.test(sentence);
  const onValue = CONDITIONAL_ON_VALUE.test(sentence);
  const otherTimeForms = OTHER_TIME_FORMS.test(sentence);
  const inExample = exampleSpans(sentence);
  // "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS": the alternative is part of the one candidate, no format of its own.
  const eitherForm = candidates.filter((c) => c.kind === 'format' && c.rule === 'date-or-date-time');
  return candidates
    .filter(
      (c) =>
        !((advice || clamped) && c.kind === 'bound') &&
        !(refused && c.kind === 'format') &&
        !(c.kind === 'format' && c.format === 'date-time' && otherTimeForms) &&
        !(onValue && (c.kind === 'required' || c.kind === 'default' || c.kind === 'nonEmpty' || c.kind === 'bound')) &&
        !(c.kind === 'default' && conditionalDefault(sentence, c.start)) &&
        !(c.kind === 'bound' && ALTERNATIVE_RANGE.test(sentence.slice(Math.max(0, c.start - 60), c.start))) &&
        !(c.kind === 'bound' && inExample(c.start)) &&
        !(c.kind === 'bound' && glossesAValue(sentence.slice(Math.max(0, c.start - 40), c.start))) &&
        !(c.kind === 'bound' && CONDITION_AFTER.test(sentence.slice(c.end))) &&
        !(c.kind === 'format' && c.rule !== 'date-or-date-time' && eitherForm.some((e) => c.start >= e.start && c.start < e.end)),
    )
    .map((c) => {
      // "asc (default) or desc": a bare word marked as the default is a value when the list it sits in is one.
      if (c.kind === 'default' && c.listedOnly === true && inValueList(c, candidates)) return { ...c, listedOnly: false };
      // "max 1024px": a unit glued to the number is still its unit (a size in pixels, not a length).
      if (c.kind !== 'bound' || c.unit !== undefined) return c;
      const glued = GLUED_UNIT.exec(sentence.slice(c.end))?.[1];
      return glued === undefined ? c : { ...c, unit: glued.toLowerCase() };
    });
}

/**
 * "\"5xx\" (500-599)": a range in parentheses right after a quoted value glosses that value. A value starts with a
 * digit or holds a sign (a quoted name, "'limit' (1-100)", may be the parameter itself).
 */
function glossesAValue(before: string): boolean {
  const quoted = /(["'])([^"'\s]{1,30})\1\s*\(\s*$/.exec(before)?.[2];
  return quoted !== undefined && (/^\d/.test(quoted) || /[^\w-]/.test(quoted));
}

/** A default whose word is a value of a list the same sentence states around it. */
function inValueList(c: DefaultCandidate, candidates: readonly Candidate[]): boolean {
  return candidates.some(
    (e) => e.kind === 'enum' && e.start <= c.start && c.start < e.end && typeof c.literal === 'string' && e.values.includes(c.literal),
  );
}

/**
 * A rule said of some values of another parameter only: "For 'create'/'update': ... (required)", "For get: <=0
 * defaults to 200", "Required (at least one) for 'create' and 'update'". Its `required`, default and counts hold
 * under that condition (an `if`/`then`), not always.
 */
export const CONDITIONAL_ON_VALUE = new RegExp(
  String.raw`^\s*for\s+['"\x60]?\w+['"\x60]?(?:\s*(?:\/|,|\band\b|\bor\b)\s*['"\x60]?\w+['"\x60]?)*` +
    String.raw`\s*(?:operations?|actions?|modes?)?\s*:|` +
    String.raw`\brequired\b[^.;]{0,30}\bfor\s+['"\x60]\w+['"\x60]`,
  'i',
);

/**
 * "If 'drive_id' is specified and 'corpora' is None, it defaults to 'drive'": a default under a condition the
 * clause before it states. "If omitted, defaults to 10" and "if None, ..." say what omitting means: the default itself.
 */
function conditionalDefault(sentence: string, at: number): boolean {
  // "Otherwise it defaults to ...": the other branch of a condition said before.
  if (/^[\s*-]*otherwise\b/i.test(sentence)) return true;
  // "targeting_automation.advantage_audience defaults to 0": the default of a field inside the value, not of it.
  if (/[A-Za-z_]\w*\.[A-Za-z_][\w.]*[\x60'"]?\s+$/.test(sentence.slice(Math.max(0, at - 80), at))) return true;
  const clause = /^[\s*-]*(?:if|when|whenever)\s+([^,;]{1,120}),/i.exec(sentence);
  if (clause === null || clause[0].length > at) return false;
  const condition = clause[1] ?? '';
  return !OMISSION.test(condition) || /\s(?:and|or)\s/i.test(condition);
}

/** A condition that is the parameter's absence: "omitted", "not specified", "None", "empty", "not set". */
const OMISSION =
  /^(?:(?:it|this|the\s+\w+|[\x60'"]?\w+[\x60'"]?)\s+(?:is|are)\s+)?(?:omitted|unset|unspecified|empty|blank|none|null|missing|absent|not\s+(?:specified|provided|given|set|passed|supplied))\b|^no\s+[\w\x60'"-]+\s+(?:is|are)\s+(?:specified|provided|given|set|passed|supplied)\b/i;

// "Max 24h", "up to 30s": a time glued to its number is a measure too (`m` is read as a million by NUM).
const GLUED_UNIT = /^(px|pt|dpi|ms|kb|mb|gb|%|h|hrs?|s|secs?|mins?)(?![A-Za-z])/i;

/**
 * A time the sentence also allows in other forms ("Supports RFC3339, relative (now-1h), or Unix ms"): no one
 * `format` holds them all.
 */
export const OTHER_TIME_FORMS = /\brelative\b|\bunix\b|\bepoch\b|\bnow-\d/i;

/**
 * A UUID named as one alternative of several ("the name or UUID", "label, value or UUID", "UUID or slug"): the value
 * is not always a UUID. Reads the 40 characters before and the text after the word.
 */
export const UUID_ALTERNATIVE = {
  test(before: string, after: string): boolean {
    // "STIX id or internal UUID": a word may qualify the UUID after "or".
    return /\b(?:or|and\/or)\s+(?:an?\s+|the\s+|its\s+)?(?:[A-Za-z-]+\s+)?$/i.test(before) || /^\s*(?:\/|or\b|and\/or\b)/i.test(after);
  },
};

/** A format the sentence refuses ("ISO country codes (e.g. 'us') are not supported"): no format to encode. */
export const REFUSED = /\b(?:is|are)\s+not\s+(?:supported|accepted|allowed|valid)\b/i;

function extractAll(sentence: string): Candidate[] {
  return dedupe(RULES.flatMap((rule) => applyRule(rule, sentence))).sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * Drops candidates that another one already covers: a bound found by two rules (a range and "at most" on the same
 * number), a generic "format" phrase when a specific format rule matched the same sentence, an enum list that
 * is really the tail of a format phrase.
 */
export function dedupe(candidates: Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  const specificFormat = candidates.some((c) => c.kind === 'format' && c.rule !== 'in-format');
  const exactLengths = new Spans();
  for (const candidate of candidates) if (candidate.kind === 'exactLength') exactLengths.add(candidate);
  // Kept candidates by constraint: a duplicate is the same constraint overlapping one already kept (for a bound,
  // also one inside a range already found: the "n-to-m" rule also sees "1 and 100" style numbers).
  const kept = new Map<string, Spans>();
  for (const candidate of candidates) {
    if (candidate.kind === 'format' && candidate.rule === 'in-format' && specificFormat) continue;
    // "limited to 2 character country codes": the exact length of a code, not an upper bound beside it.
    if (candidate.kind === 'bound' && exactLengths.overlapsAny(candidate)) continue;
    // sameConstraint() as a key; a NaN bound equals nothing, so it is never a duplicate.
    const key =
      candidate.kind === 'bound'
        ? Number.isNaN(candidate.value)
          ? undefined
          : `bound ${candidate.side} ${candidate.value}`
        : candidate.kind;
    if (key !== undefined) {
      let spans = kept.get(key);
      if (spans?.overlapsAny(candidate) === true) continue;
      if (spans === undefined) kept.set(key, (spans = new Spans()));
      spans.add(candidate);
    }
    out.push(candidate);
  }
  return out;
}

/**
 * Spans of text, asked whether any overlaps a given one: sorted by start, so only those starting less than the
 * longest span's length before it are compared (a long sentence holds thousands of candidates).
 */
class Spans {
  private readonly spans: { start: number; end: number }[] = [];
  private longest = 0;

  add(span: { start: number; end: number }): void {
    const at = this.firstStartingAfter(span.start);
    if (at === this.spans.length) this.spans.push(span);
    else this.spans.splice(at, 0, span);
    this.longest = Math.max(this.longest, span.end - span.start);
  }

  overlapsAny(span: { start: number; end: number }): boolean {
    for (let i = this.firstStartingAfter(span.start - this.longest); i < this.spans.length; i++) {
      const other = this.spans[i] as { start: number; end: number };
      if (other.start >= span.end) return false;
      if (overlaps(other, span)) return true;
    }
    return false;
  }

  /** The index of the first span whose start is greater than `at`. */
  private firstStartingAfter(at: number): number {
    let low = 0;
    let high = this.spans.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.spans[mid] as { start: number }).start > at) high = mid;
      else low = mid + 1;
    }
    return low;
  }
}

export function sameConstraint(a: Candidate, b: Candidate): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'bound' && b.kind === 'bound') return a.side === b.side && a.value === b.value;
  return true;
}

export function overlaps(a: Pick<Candidate, 'start' | 'end'>, b: Pick<Candidate, 'start' | 'end'>): boolean {
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

/** "<=0 means no entries", "< 0 disables it": a symbol and a number whose values the sentence gives a meaning. */
const SAYS_MEANING = /^[<≤=]+\s*[-−]?[\d.]+\s*(?:means|disables|turns|returns|is\s+treated|are\s+treated)\b/i;
