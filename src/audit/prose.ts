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
import type { BoundCandidate, Candidate, EnumCandidate, FormatCandidate, RequiredCandidate } from './candidates.js';
import { clauseBefore, GLOSS, lastSeparator, NUM, parseNumber, textBefore, UNIT, unitOf } from './prose-text.js';
import { defaultCandidate, enumCandidate, parseValueList } from './prose-values.js';

// ---------------------------------------------------------------------------------------------------------------
// The rules table

export interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  /** Builds the candidates of one match (none when a guard says the match is not a constraint). */
  build(match: RegExpExecArray, sentence: string): Candidate[];
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
  return COPULA_BEFORE.test(before) && !/\b(?:no|not|never)\s+$/i.test(before);
}

/**
 * Followed by "of" and a list ("at least one of `a` or `b`", "at most one of the following"): a rule about
 * parameters or values, not a bound. "at least 2 of them" is still a bound.
 */
export function followedByOf(sentence: string, end: number): boolean {
  return (
    /^\s+of\s+(?:[`"'“]|the\s+following\b|these\s+(?:fields|parameters|properties|arguments)\b)/i.test(sentence.slice(end)) ||
    /^\s+of\s+[A-Za-z_][\w-]*\s+(?:or|and)\s/i.test(sentence.slice(end))
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

export function simple(kind: 'nonEmpty' | 'readOnly' | 'optional', match: RegExpExecArray, rule: string): Candidate {
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

export const re = (source: string): RegExp => new RegExp(source, 'gi');

export const LOWER_INCLUSIVE =
  String.raw`at\s+least|no\s+less\s+than|not\s+less\s+than|no\s+fewer\s+than|` +
  String.raw`not\s+fewer\s+than|greater\s+than\s+or\s+equal\s+to|more\s+than\s+or\s+equal\s+to|` +
  String.raw`no\s+shorter\s+than|never\s+(?:less|fewer)\s+than|never\s+below|` +
  String.raw`(?:a\s+)?minimum(?:\s+(?:value\s+)?(?:of|is))?:?|min\.?:?|starting\s+(?:at|from)`;
export const UPPER_INCLUSIVE =
  String.raw`at\s+most|no\s+more\s+than|not\s+more\s+than|no\s+greater\s+than|` +
  String.raw`not\s+greater\s+than|no\s+larger\s+than|no\s+longer\s+than|` +
  String.raw`not\s+longer\s+than|less\s+than\s+or\s+equal\s+to|up\s+to|(?:a\s+)?maximum(?:\s+(?:value\s+)?(?:of|is))?:?|` +
  String.raw`max\.?:?|(?:must|may|should|can|shall|does|do|will)\s+not\s+exceed|(?:cannot|can't|mustn't|won't|never)\s+exceeds?|` +
  String.raw`not\s+to\s+exceed|never\s+(?:more|greater)\s+than|never\s+above|capped\s+at|limited\s+to`;

export const LENGTH_UNITS = /^(?:characters?|chars?|letters?|code-?points?|symbols?|glyphs?)$/;
export const ITEM_UNITS = /^(?:items?|elements?|entries|entry|values?)$/;

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
      // first, the regex would be retried at every position of a run of spaces with no separator after it
      // (quadratic).
      const separator = /^\s*(to|through|\.\.|–|—|-)/i.exec(m[0].slice((m[1] ?? '').length))?.[1]?.toLowerCase() ?? '';
      const before = textBefore(s, m.index);
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
    build: (m, s) =>
      /^\s+(?:characters?\s+)?(?:[\w-]+\s+)?codes?\b/i.test(s.slice(m.index + m[0].length)) ? [] : bound(m, 'lower', false, 1, 'or-more'),
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
    pattern: re(
      String.raw`\b(?:non-?negative|not\s+negative|never\s+negative|` +
        String.raw`zero\s+or\s+(?:more|greater|positive|above)|positive\s+or\s+(?:zero|0))\b`,
    ),
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
    pattern: re(
      String.raw`\b(?:strictly\s+)?(?:less|fewer|smaller|shorter)\s+than\s+(?!or\b)(${NUM})${UNIT}|\b(?:below|under)\s+(${NUM})${UNIT}`,
    ),
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
    pattern: re(
      String.raw`\bexactly\s+(${NUM})\s+(?:characters?|chars?|letters?|digits?)\b|(${NUM})-(?:letter|character|char|digit)\b|` +
        String.raw`(${NUM})[ -]?(?:characters?|chars?|letters?)(?=\s+(?:[\w-]+\s+)?codes?\b)`,
    ),
    build: (m) => {
      const parsed = parseNumber(m[1] ?? m[2] ?? m[3] ?? '');
      if (parsed === undefined) return [];
      return [
        { kind: 'exactLength', value: parsed.value, start: m.index, end: m.index + m[0].length, phrase: m[0].trim(), rule: 'exact-length' },
      ];
    },
  },
  // ---- non-empty, negation read as the constraint it states
  {
    name: 'non-empty',
    pattern: re(
      String.raw`\b(?:non-?empty|non-?blank|not\s+(?:be\s+)?(?:empty|blank)|never\s+(?:be\s+)?(?:empty|blank)|` +
        String.raw`cannot\s+be\s+(?:empty|blank)|can't\s+be\s+(?:empty|blank)|mustn't\s+be\s+(?:empty|blank))\b`,
    ),
    build: (m, s) => (/\b(?:if|when|unless|whether)\s+$/i.test(textBefore(s, m.index)) ? [] : [simple('nonEmpty', m, 'non-empty')]),
  },
  // ---- read-only
  {
    name: 'read-only',
    pattern: re(
      String.raw`\b(?:is|are)\s+read[- ]?only\b|^\s*read[- ]?only\b(?!\s+(?:mode|access|transaction|flag))|` +
        String.raw`(?=read)(?<=[;,:—–]\s*)read[- ]?only(?=\s*(?:[.;,)]|$))|` +
        String.raw`\(read[- ]?only\)|\bread[- ]?only\s+(?:field|property|parameter|value|attribute)\b|` +
        String.raw`\b(?:is|are)\s+immutable\b|\bcannot\s+be\s+(?:changed|modified)\b`,
    ),
    build: (m) => [simple('readOnly', m, 'read-only')],
  },
  // ---- defaults
  {
    name: 'default',
    pattern: re(
      String.raw`\bdefaults?\s+(?:to|is|=|:)\s*|\bdefault\s+value\s+(?:is|of|:)\s*|\(\s*default(?:s)?(?:\s*:|\s+is|\s+to|\s*=)?\s*|` +
        // "(Optional, default true)": a default given after another remark in the same parentheses.
        String.raw`\(\s*optional\s*,\s*default(?:s)?(?:\s*:|\s+is|\s+to|\s*=)?\s*|\bdefault:\s*`,
    ),
    build: (m, s) => defaultCandidate(m, s),
  },
  // ---- formats
  {
    name: 'yyyy-mm-dd',
    pattern: re(String.raw`\bYYYY-MM-DD(?:[T ]HH(?::mm)?(?::ss)?)?`),
    build: (m) => [formatCandidate(m, /HH/i.test(m[0]) ? 'date-time' : 'date', 'yyyy-mm-dd')],
  },
  {
    name: 'dd-mm-yyyy',
    pattern: re(String.raw`\b(?:DD|MM)[/.-](?:MM|DD)[/.-](?:YYYY|YY)\b|\bYYYY/MM/DD\b`),
    build: (m) => [formatCandidate(m, undefined, 'dd-mm-yyyy')],
  },
  {
    name: 'hh-mm',
    pattern: re(String.raw`(?<![\w-])HH:MM(?::SS)?\b`),
    build: (m, s) =>
      /YYYY/i.test(s) ? [] : [{ ...formatCandidate(m, /:SS/i.test(m[0]) ? 'time' : undefined, 'hh-mm'), templates: [m[0].toUpperCase()] }],
  },
  {
    name: 'iso-8601',
    pattern: re(String.raw`\bISO[ -]?8601\b`),
    build: (m, s) => [
      formatCandidate(
        m,
        /\bduration\b/i.test(s)
          ? 'duration'
          : /\b(?:date-?time|timestamp|time|instant)\b/i.test(s)
            ? 'date-time'
            : /\bdate\b/i.test(s)
              ? 'date'
              : 'date-time',
        'iso-8601',
      ),
    ],
  },
  {
    name: 'rfc-3339',
    pattern: re(String.raw`\bRFC[ -]?3339\b`),
    build: (m, s) => [formatCandidate(m, /full-date/i.test(s) ? 'date' : 'date-time', 'rfc-3339')],
  },
  {
    name: 'iso-4217',
    pattern: re(String.raw`\bISO[ -]?4217\b`),
    build: (m) => [{ ...formatCandidate(m, undefined, 'iso-4217'), keyword: 'enum' }],
  },
  {
    name: 'iso-code',
    pattern: re(String.raw`\bISO[ -]?(?!8601\b|4217\b)\d{3,5}(?:-\d)?\b`),
    build: (m) => [formatCandidate(m, undefined, 'iso-code')],
  },
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
    // `\s*` then `(?:\s+address)?` share the spaces: on "valid" + spaces + "#" every split would be tried
    // (quadratic). `(?=(\s*))\1` takes all the spaces with no way back (a possessive `\s*`); giving some back only
    // helps when nothing matches after the spaces, and then the word alone matches: the `|\b` branch.
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
  {
    name: 'semver',
    pattern: re(String.raw`\bsemver\b|\bsemantic\s+version(?:ing)?\b`),
    build: (m) => [formatCandidate(m, undefined, 'semver')],
  },
  {
    name: 'in-format',
    pattern: re(
      String.raw`\bin\s+(?:the\s+)?([\w.+-]+(?:\s+[\w.+-]+)?)\s+format\b|` +
        String.raw`\bformatted\s+(?:as|like)\b|\bin\s+the\s+(?:form|format)\s+(?:of\s+)?|` +
        String.raw`\bof\s+the\s+form\b|\bmust\s+match\s+(?:the\s+)?(?:pattern|regex|regular\s+expression)\b`,
    ),
    build: (m, s) => {
      const named = (m[1] ?? '').toLowerCase();
      const following = `${named} ${s.slice(m.index + m[0].length, m.index + m[0].length + 40)}`.toLowerCase();
      if (
        /\b(?:json|markdown|md|html|xml|csv|tsv|yaml|yml|text|plain|base64|pdf|png|jpe?g|rich|binary|table|human[- ]readable|natural|free)\b/.test(
          following,
        )
      )
        return [];
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
    pattern: re(
      String.raw`\b(?:is|are)\s+(?:always\s+|also\s+|still\s+)?(?:required|mandatory)\b|` +
        String.raw`\b(?:must|should|shall)\s+(?:always\s+|also\s+)?be\s+(?:provided|` +
        String.raw`given|specified|supplied|set|included|present|sent|passed)\b|` +
        String.raw`\(\s*(?:required|mandatory)\s*\)`,
    ),
    build: (m, s) => requiredCandidate(m, s, 'before'),
  },
  {
    name: 'always-provide',
    pattern: re(
      String.raw`\b(?:always|must(?:\s+always)?)\s+(?:provide|include|pass|send|specify|supply|set|give)\b|` +
        String.raw`\brequires?\s+(?=(?:a|an|the)\s|[\`'"])`,
    ),
    build: (m, s) => requiredCandidate(m, s, 'after'),
  },
  {
    name: 'required-word',
    pattern: re(
      String.raw`(?=required|mandatory)(?:^|(?<=[.;:,(—–]\s*))(?:required|mandatory)\b(?=\s*(?:[.;,:)!]|$))|` +
        String.raw`\ba\s+(?:required|mandatory)\s+(?:field|parameter|argument|property|input|value|setting)\b`,
    ),
    build: (m, s) => requiredCandidate(m, s, 'self'),
  },
  {
    name: 'optional',
    pattern: re(
      String.raw`(?=optional)(?:^|(?<=[.;(]\s*)|(?<=\(\w+,\s*))optional\b|\b(?:is|are)\s+optional\b|\(\s*optional\s*\)|` +
        String.raw`\b(?:can|may)\s+be\s+omitted\b|\b(?:if|when)\s+omitted\b|\bomit\s+(?:it\s+|this\s+)?(?:to|for)\b`,
    ),
    build: (m, s) => (/\bnot\s+$/i.test(textBefore(s, m.index)) ? [] : [simple('optional', m, 'optional')]),
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
    build: (m) => [
      {
        kind: 'enum',
        values: [m[1] ?? m[2] ?? m[3] ?? ''],
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
    pattern: re(String.raw`^(?:[^()]*\(\s*['\x60"][\w.-]+['\x60"]\s*\)){2}`),
    build: (_m, s) => glossedValues(s),
  },
  // ---- value lists under a label, without "one of": "State: 'active', 'pending', 'expired'", "(true/false)", "(draft|open|merged)"
  {
    name: 'labelled-values',
    pattern: re(String.raw`:[ \t]*(?=['"\x60“])|\((?=[ \t]*[\w-]+[ \t]*[|/][ \t]*[\w-]+)`),
    build: (m, s) => labelledValues(m, s),
  },
  // ---- value lists: "one of `a`, `b`", "either asc or desc", "allowed values: x, y"
  {
    name: 'one-of',
    pattern: re(
      String.raw`\b(?:one\s+of|either|must\s+be|only|accepts?|` +
        String.raw`(?:allowed|valid|possible|accepted|supported|permitted)\s+values?(?:\s+(?:are|is|include))?)\s*:?\s*`,
    ),
    build: (m, s) => enumCandidate(m, s),
  },
];

/** A shown template: quoted, or a token with placeholders (`xxxx`, `ID`, `NNN`); undefined for prose ("in format below"). */
export const TEMPLATE = /^(?:\x60([^\x60]+)\x60|'([^']+)'|"([^"]+)"|([A-Za-z0-9][\w.:/-]*(?:[xX#]{2,}|\b[A-Z]{2,}\b)[\w.:/-]*))/;

export function templateCandidate(m: RegExpExecArray, sentence: string): FormatCandidate[] {
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

/** Words before a colon that introduce examples or a syntax, not the allowed values. */
const EXAMPLE_LABEL = /\b(?:examples?|e\.\s?g\.?|eg|such\s+as|like|syntax|i\.\s?e\.?|usage|note|see|returns?)\s*$/i;

/**
 * A list right after a label's colon ("task type: 'shell_command', 'AI', or 'http'") or in parentheses with `|` or
 * `/` ("(true/false)"), that ends its clause. Not a list of examples ("Examples: 'a', 'b'", "Duration: '30m', '2h'":
 * values that are all a number and a unit show a format, not the values).
 */
export function labelledValues(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  const paren = m[0].startsWith('(');
  if (paren) {
    const inner = /^[ \t]*([\w-]+(?:[ \t]*[|/][ \t]*[\w-]+)+)[ \t]*\)/.exec(sentence.slice(m.index + 1));
    if (inner === null) return [];
    const values = (inner[1] ?? '').split(/[|/]/).map((v) => v.trim());
    if (values.every((v) => /^\d/.test(v))) return [];
    const end = m.index + 1 + inner[0].length - 1;
    return [
      { kind: 'enum', values, quoted: false, start: m.index + 1, end, phrase: sentence.slice(m.index, end + 1), rule: 'labelled-values' },
    ];
  }
  const list = parseValueList(sentence, m.index + m[0].length);
  if (list === undefined || list.values.length < 2) return [];
  const after = sentence.slice(list.end);
  {
    if (!list.quoted || EXAMPLE_LABEL.test(textBefore(sentence, m.index))) return [];
    if (!/^\s*(?:$|[.;)(]|-\s|—)/.test(after)) return [];
  }
  if (list.values.every((v) => /^[-+]?\d+(?:\.\d+)?[A-Za-z%]{0,3}$/.test(v))) return [];
  const start = m.index + m[0].length;
  return [
    {
      kind: 'enum',
      values: list.values,
      quoted: list.quoted,
      start,
      end: list.end,
      phrase: sentence.slice(start, list.end).trim(),
      rule: 'labelled-values',
    },
  ];
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
  return [{ kind: 'enum', values, quoted: true, start, end, phrase: sentence.slice(start, end).trim(), rule: 'glossed-values' }];
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
  if (/^\s*(?:if|when|unless|whenever|only)\b/i.test(sentence)) return true;
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
  // "must provide the full absolute path to ...": a requirement on the value's form, not on its presence.
  if (subject === 'after' && /^\s*(?:the\s+|an?\s+)?(?:full|complete|absolute|exact|valid|correct)\b/i.test(sentence.slice(end))) return [];
  return [{ kind: 'required', subject, start, end, phrase: m[0].trim(), rule: subject === 'after' ? 'always-provide' : 'is-required' }];
}

// ---------------------------------------------------------------------------------------------------------------
// Extraction

/**
 * Advice about good values, not a limit: "Use lower values (10-50) for faster queries", "Start with a small time range
 * (15-30 minutes)", "values are recommended to be less than 1", "Use 2 or more replicas for production workloads".
 */
export const ADVICE =
  /^[\s*-]*(?:start\s+with|try)\b|\b(?:lower|higher|smaller|larger|bigger)\s+values?\b|\brecommended\b|\bfor\s+(?:production|faster|better|best|most)\b|\bideally\b|\bpreferably\b/i;

/** Every candidate constraint in one sentence, in order of position, without duplicates. */
export function extractCandidates(sentence: string): Candidate[] {
  const candidates = extractAll(sentence);
  return ADVICE.test(sentence) ? candidates.filter((c) => c.kind !== 'bound') : candidates;
}

function extractAll(sentence: string): Candidate[] {
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
