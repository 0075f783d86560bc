/**
 * The audit's linear-time scans and bounded patterns (src/audit/prose*.ts, schema-only.ts) against the
 * super-linear regexes they stand for: each gives what its regex gives. The regexes are the reference, run on
 * inputs short enough for their cost not to matter. No timing here: the speed is a property of the code,
 * measured outside the tests.
 */
import { describe, expect, it } from 'vitest';
import { leadingWord } from '../../../src/audit/prose-values.js';
import { groupThousands, parseNumber, splitNumber, splitSentences, trailingWord } from '../../../src/audit/prose-text.js';
import { extractCandidates, RULES } from '../../../src/audit/prose.js';
import { stripWordPunctuation } from '../../../src/audit/schema-only.js';

/** The super-linear regexes, verbatim: what each scan must agree with. */
const OLD = {
  groupThousands: (text: string): string => text.replace(/\B(?=(\d{3})+(?!\d))/g, ','),
  stripWordPunctuation: (token: string): string => token.replace(/^[("'`]+|[)"'`.,;:!?]+$/g, ''),
  trailingWord: (text: string, from: number, to: number): string => /([A-Za-z.]+)$/.exec(text.slice(from, to))?.[1] ?? '',
  splitNumber: (text: string): { number: string; suffix: string } | undefined => {
    const m = /^([-−]?[\d, \u00a0\u202f]+?(?:\.\d+)?)\s*([kKmM]|thousand|million|billion)?$/i.exec(text);
    return m === null ? undefined : { number: m[1] ?? '', suffix: m[2] ?? '' };
  },
  leadingWord: (text: string): { token: string; punctuation: string } | undefined => {
    const m = /^([#@/]?[A-Za-z_][\w.+/-]*?)(?=[.,;:)!?]*(?:\s|$))([.,;:)!?]*)/.exec(text);
    return m === null ? undefined : { token: m[1] ?? '', punctuation: m[2] ?? '' };
  },
  separator: (text: string): string | undefined => /\s*(to|through|\.\.|–|—|-)\s*/i.exec(text)?.[1],
  rules: {
    'read-only': new RegExp(
      String.raw`\b(?:is|are)\s+read[- ]?only\b|^\s*read[- ]?only\b(?!\s+(?:mode|access|transaction|flag))|` +
        String.raw`(?<=[;,:—–]\s*)read[- ]?only(?=\s*(?:[.;,)]|$))|` +
        String.raw`\(read[- ]?only\)|\bread[- ]?only\s+(?:field|property|parameter|value|attribute)\b|` +
        String.raw`\b(?:is|are)\s+immutable\b|\bcannot\s+be\s+(?:changed|modified)\b`,
      'gi',
    ),
    email: new RegExp(String.raw`\b(?:valid|well-formed|must\s+be\s+an?|in\s+e-?mail\s+format)\s*(?:e-?mail)?(?:\s+address)?\b`, 'gi'),
    'required-word': new RegExp(
      String.raw`(?:^|(?<=[.;:,(—–]\s*))(?:required|mandatory)\b(?:\s+(?:parameter|argument|field))?(?=\s*(?:[.;,:)!—–]|-\s|$))|` +
        String.raw`\ba\s+(?:required|mandatory)\s+(?:field|parameter|argument|property|input|value|setting)\b`,
      'gi',
    ),
    optional: new RegExp(
      String.raw`(?:^|(?<=[.;(]\s*))optional\b|\b(?:is|are)\s+optional\b|\(\s*optional\s*\)|` +
        String.raw`\b(?:can|may)\s+be\s+omitted\b|\b(?:if|when)\s+omitted\b|\bomit\s+(?:it\s+|this\s+)?(?:to|for)\b`,
      'gi',
    ),
  } as Record<string, RegExp>,
};

/** Every match of a global regex: `index:text`. */
function allMatches(pattern: RegExp, text: string): string[] {
  return [...text.matchAll(new RegExp(pattern.source, pattern.flags))].map((m) => `${m.index}:${m[0]}`);
}

/** Small strings over an alphabet, every one up to a length (deterministic). */
function strings(alphabet: readonly string[], maxLength: number): string[] {
  let layer = [''];
  const out = [''];
  for (let length = 1; length <= maxLength; length++) {
    layer = layer.flatMap((s) => alphabet.map((c) => s + c));
    out.push(...layer);
  }
  return out;
}

describe('groupThousands (diff.ts, was /\\B(?=(\\d{3})+(?!\\d))/g)', () => {
  it('groups the digits of integers as the regex did', () => {
    expect(groupThousands('1000')).toBe('1,000');
    expect(groupThousands('999')).toBe('999');
    expect(groupThousands('1234567')).toBe('1,234,567');
    expect(groupThousands('9007199254740991')).toBe('9,007,199,254,740,991');
    expect(groupThousands('100000000000000000000')).toBe('100,000,000,000,000,000,000');
  });

  it('matches the regex on every value mentionsNumber can give it, exponent forms included', () => {
    for (const value of [1000, 10_000, 123_456, 1_000_000, 2 ** 53, 1e20, 1e21, 1.2345e25, 9.87e300, Number.MAX_VALUE]) {
      const text = Math.abs(value).toString();
      expect(groupThousands(text)).toBe(OLD.groupThousands(text));
    }
    for (let value = 1000; value < 200_000; value += 97) expect(groupThousands(String(value))).toBe(OLD.groupThousands(String(value)));
  });

  it('matches the regex on any text: digit runs after letters, dots, signs', () => {
    for (const text of strings(['1', '2', 'a', '.', '-', 'e', '_'], 5)) expect(groupThousands(text)).toBe(OLD.groupThousands(text));
    expect(groupThousands('1.2345e+25')).toBe('1.2,345e+25');
    expect(groupThousands('x1234')).toBe('x1,234');
  });
});

describe('stripWordPunctuation (diff.ts, was /^[("\'`]+|[)"\'`.,;:!?]+$/g)', () => {
  it('strips what the regex stripped', () => {
    expect(stripWordPunctuation('("ABC-123"),')).toBe('ABC-123');
    expect(stripWordPunctuation('`US`.')).toBe('US');
    expect(stripWordPunctuation('e.g.')).toBe('e.g');
    expect(stripWordPunctuation('"\'')).toBe('');
    expect(stripWordPunctuation(')a')).toBe(')a');
    expect(stripWordPunctuation('(a)b')).toBe('a)b');
  });

  it('matches the regex on every short token of quotes, brackets and punctuation', () => {
    for (const token of strings(['(', ')', '"', "'", '`', '.', ',', 'a', '!'], 4))
      expect(stripWordPunctuation(token)).toBe(OLD.stripWordPunctuation(token));
  });
});

describe('trailingWord (prose.ts splitSentences, was /([A-Za-z.]+)$/)', () => {
  it('matches the regex on every slice of short texts', () => {
    for (const text of strings(['a', 'B', '.', ' ', '1'], 5)) {
      for (let from = 0; from <= text.length; from++) {
        for (let to = from; to <= text.length; to++) expect(trailingWord(text, from, to)).toBe(OLD.trailingWord(text, from, to));
      }
    }
  });

  it('keeps splitting sentences where it did, never after an abbreviation', () => {
    const text = 'Use e.g. a date. Max. 10 items, i.e. ten. Next one! Costs approx. 5 EUR vs. 6 USD. End';
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      'Use e.g. a date.',
      'Max. 10 items, i.e. ten.',
      'Next one!',
      'Costs approx. 5 EUR vs. 6 USD.',
      'End',
    ]);
    expect(splitSentences('No. 5 is fine. A sentence ending in etc. and more.').map((s) => s.text)).toEqual([
      'No. 5 is fine.',
      'A sentence ending in etc. and more.',
    ]);
  });
});

describe('splitNumber / parseNumber (prose.ts, was a lazy body then \\s*)', () => {
  it('parses what it parsed', () => {
    expect(parseNumber('1,000')).toEqual({ value: 1000, plain: true });
    expect(parseNumber('1 000 000')).toEqual({ value: 1_000_000, plain: true });
    expect(parseNumber('-1.5')).toEqual({ value: -1.5, plain: true });
    expect(parseNumber('−2')).toEqual({ value: -2, plain: true });
    expect(parseNumber('5k')).toEqual({ value: 5000, plain: true });
    expect(parseNumber('5 K')).toEqual({ value: 5000, plain: true });
    expect(parseNumber('2m')).toEqual({ value: 2, plain: false });
    expect(parseNumber('3M')).toEqual({ value: 3_000_000, plain: true });
    expect(parseNumber('1.5 thousand')).toEqual({ value: 1500, plain: true });
    expect(parseNumber('7 MILLION')).toEqual({ value: 7_000_000, plain: true });
    expect(parseNumber('2\tbillion')).toEqual({ value: 2_000_000_000, plain: true });
    expect(parseNumber('1 .5')).toEqual({ value: 1.5, plain: true });
    expect(parseNumber(',')).toEqual({ value: 0, plain: true });
    expect(parseNumber('a hundred')).toEqual({ value: 100, plain: true });
    expect(parseNumber('x')).toBeUndefined();
    expect(parseNumber('1 x')).toBeUndefined();
    expect(parseNumber('1\t2')).toBeUndefined();
    expect(parseNumber('1.5.5')).toBeUndefined();
    expect(parseNumber('5 \u212a')).toBeUndefined(); // the Kelvin sign is not `k` to the regex
  });

  it('accepts and rejects what the regex did, with the same number once separators are dropped', () => {
    const alphabet = ['1', ' ', ',', '.', '-', '\u00a0', '\t', 'k', 'M', 'x'];
    const texts = [...strings(alphabet, 4), '1 thousand', '1  million', '2BILLION', '1 000k', '1,5 m', '1 thousands'];
    for (const text of texts) {
      const split = splitNumber(text);
      const old = OLD.splitNumber(text);
      expect(split === undefined, JSON.stringify(text)).toBe(old === undefined);
      if (split === undefined || old === undefined) continue;
      expect(split.suffix).toBe(old.suffix);
      // The regex gave the number's trailing spaces to `\s*`; parseNumber drops separators and spaces alike.
      expect(split.number.trimEnd()).toBe(old.number.trimEnd());
    }
  });
});

describe('leadingWord (prose.ts defaults, was a lazy word with a punctuation lookahead)', () => {
  it('matches the regex on every short text of word characters, punctuation and spaces', () => {
    for (const text of strings(['a', '.', ',', ')', ' ', '#', '/', '1', '-'], 4))
      expect(leadingWord(text), JSON.stringify(text)).toEqual(OLD.leadingWord(text));
  });

  it('reads the same defaults', () => {
    const show = (s: string): string[] => extractCandidates(s).map((c) => `${c.rule} ${c.start}-${c.end} ${c.phrase}`);
    expect(show('Defaults to open.')).toEqual(['default 0-16 Defaults to open']);
    expect(show('Defaults to a..., b')).toEqual(['default 0-13 Defaults to a']);
    expect(show('Default: v1.2.3;')).toEqual(['default 0-15 Default: v1.2.3']);
    expect(show('Defaults to @me!')).toEqual(['default 0-15 Defaults to @me']);
    expect(show('Defaults to /tmp/x, when unset.')).toEqual(['default 0-18 Defaults to /tmp/x']);
  });
});

describe('the n-to-m separator (prose.ts, was unanchored /\\s*(to|...)\\s*/)', () => {
  it('reads the separator as the unanchored regex did on what follows the first number', () => {
    for (const rest of [' to 5', 'to 5', '  through 9', '..10', ' – 20', '—3', '-4', ' TO 5']) {
      expect(/^\s*(to|through|\.\.|–|—|-)/i.exec(rest)?.[1]).toBe(OLD.separator(rest));
    }
    expect(extractCandidates('Page size 1 to 5 characters').map((c) => `${c.rule} ${c.start}-${c.end}`)).toEqual([
      'n-to-m 10-27',
      'n-to-m 10-27',
    ]);
    expect(extractCandidates('Range: 10 – 20 items').map((c) => `${c.rule} ${c.start}-${c.end}`)).toEqual(['n-to-m 7-20', 'n-to-m 7-20']);
  });
});

describe('numbers with groups of thousands (prose.ts NUM, groups now at most 8)', () => {
  const show = (s: string): string[] => extractCandidates(s).map((c) => `${c.rule} ${c.start}-${c.end} ${c.phrase}`);

  it('reads grouped numbers as before', () => {
    expect(show('Amount in cents, between 1,000 and 9,223,372,036,854,775,807.')).toEqual([
      'between 17-60 between 1,000 and 9,223,372,036,854,775,807',
      'between 17-60 between 1,000 and 9,223,372,036,854,775,807',
    ]);
    expect(show('Up to 1 000 000 rows; at least 2 000 bytes.')).toEqual([
      'upper-inclusive 0-20 Up to 1 000 000 rows',
      'lower-inclusive 22-42 at least 2 000 bytes',
    ]);
    const bounds = extractCandidates('At most 1,000,000,000,000,000,000,000,000 items.');
    expect(bounds.map((c) => (c.kind === 'bound' ? c.value : undefined))).toEqual([1e24]);
  });
});

describe('rules with a lookbehind or shared spaces (prose.ts)', () => {
  const rule = (name: string): RegExp => {
    const found = RULES.find((r) => r.name === name);
    if (found === undefined) throw new Error(name);
    return found.matches;
  };
  const texts = [
    'Must be a valid email address.',
    'A valid e-mail',
    'valid   #',
    'valid address',
    'valid   address',
    'must be an email',
    'must be an',
    'in email format, valid  email   address',
    'validemail',
    'Contact, required.',
    'Required.',
    'The account,   required',
    'is required; mandatory ) x, required ! (  mandatory',
    'required field',
    'Notes (optional).',
    'Optional. ;   optional x, optional',
    'not optional',
    'id; read-only.',
    'Status,   read only',
    'Read-only field, read only; — readonly )',
    '   ',
  ];

  for (const name of ['email', 'required-word', 'optional', 'read-only']) {
    it(`${name}: the same matches as the old pattern`, () => {
      const old = OLD.rules[name];
      if (old === undefined) throw new Error(name);
      for (const text of texts) expect(allMatches(rule(name), text), `${name} on ${JSON.stringify(text)}`).toEqual(allMatches(old, text));
    });
  }

  it('email: all the spaces and the word, or the word alone when nothing follows the spaces', () => {
    expect(allMatches(rule('email'), 'valid email address')).toEqual(['0:valid email address']);
    expect(allMatches(rule('email'), 'valid   #')).toEqual(['0:valid']);
    expect(allMatches(rule('email'), 'valid   address')).toEqual(['0:valid   ']);
  });
});
