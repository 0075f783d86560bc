/**
 * The rules table (audit/prose.ts): which phrases are constraints, read with their grammar and negation.
 */
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../../src/audit/candidates.js';
import { parseNumber, splitSentences } from '../../../src/audit/prose-text.js';
import { parseValueList } from '../../../src/audit/prose-values.js';
import { extractCandidates } from '../../../src/audit/prose.js';

/** A compact view of what a sentence yields: `kind[:detail]`. */
function kinds(sentence: string): string[] {
  return extractCandidates(sentence).map(show);
}

function show(c: Candidate): string {
  switch (c.kind) {
    case 'bound':
      return `${c.side}${c.exclusive ? '>' : '='}${c.value}${c.unit === undefined ? '' : ` ${c.unit}`}`;
    case 'exactLength':
      return `exactLength=${c.value}`;
    case 'enum':
      return `enum:${c.values.join('|')}`;
    case 'format':
      return `${c.keyword}:${c.format ?? '-'}`;
    case 'default':
      return `default:${c.literal === undefined ? '(dynamic)' : JSON.stringify(c.literal)}`;
    case 'required':
      return `required:${c.subject}`;
    default:
      return c.kind;
  }
}

describe('bounds', () => {
  it.each([
    ['Use at most 1000 rows.', ['upper=1000 rows']],
    ['No more than 3 retries.', ['upper=3 retries']],
    ['Never more than 50 items.', ['upper=50 items']],
    ['Must not exceed 20 characters.', ['upper=20 characters']],
    ['Max 10 tags.', ['upper=10 tags']],
    ['Up to 5 MB.', ['upper=5 mb']],
    ['Amount, at most 1,000,000.', ['upper=1000000']],
    ['At most 500k.', ['upper=500000']],
    ['At least 2 of them.', ['lower=2']],
    ['Must be greater than 0.', ['lower>0']],
    ['Amount, less than 100.', ['upper>100']],
    ['Never less than 2.', ['lower=2']],
    ['Must be a positive integer.', ['lower>0']],
    ['Non-negative.', ['lower=0']],
    ['8 characters or more.', ['lower=8 characters']],
    ['Between 1 and 100.', ['lower=1', 'upper=100']],
    ['Priority from 1 (highest) to 5 (lowest).', ['lower=1', 'upper=5']],
    ['Event title, 1 to 200 characters.', ['lower=1 characters', 'upper=200 characters']],
    ['Subject line, 1-200 characters.', ['lower=1 characters', 'upper=200 characters']],
    ['Page size (1-100).', ['lower=1', 'upper=100']],
    ['Ticker symbol, 1 to 5 uppercase letters.', ['lower=1 letters', 'upper=5 letters']],
    ['Max length 64.', ['upper=64 characters']],
    ['Exactly 3 characters.', ['exactLength=3']],
    ['Duration, max 24h.', ['upper=24 h']],
  ])('%s', (sentence, expected) => {
    expect(kinds(sentence)).toEqual(expected);
  });

  it.each([
    'Values above 50 are slow.',
    'Returns more than 10 results when the index is warm.',
    'Maximum number of results.',
    'Move money between two accounts.',
    'Dates look like 2024-01-31.',
    'At least one of `email` or `phone` must be provided.',
    'The rate limit applies per key.',
  ])('no bound in %s', (sentence) => {
    expect(kinds(sentence).filter((k) => /^(?:lower|upper)/.test(k))).toEqual([]);
  });
});

describe('negation and intent', () => {
  it('reads "never empty", "must not be empty", "cannot be empty" as non-empty', () => {
    for (const sentence of ['City name; never empty.', 'Must not be empty.', 'Cannot be empty.', 'A non-empty list.']) {
      expect(kinds(sentence)).toEqual(['nonEmpty']);
    }
  });

  it('reads "may be empty" and "if not empty" as no constraint', () => {
    expect(kinds('May be empty.')).toEqual([]);
    expect(kinds('Applied if not empty.')).toEqual([]);
  });

  it('ignores "must" about the caller intent', () => {
    expect(kinds('You must only call this when the user asks about the weather.')).toEqual([]);
    expect(kinds('The agent must ask the user to confirm before refunding.')).toEqual([]);
    expect(kinds('Always confirm the total with the user before calling this tool.')).toEqual([]);
  });

  it('finds required phrasings, and not conditional or negated ones', () => {
    expect(kinds('The currency is required.')).toEqual(['required:before']);
    expect(kinds('Must be provided.')).toEqual(['required:before']);
    expect(kinds('Always provide the `reason`.')).toEqual(['required:after']);
    expect(kinds('Required.')).toEqual(['required:self']);
    expect(kinds('This is a required field.')).toEqual(['required:self']);
    expect(kinds('Required when mode is advanced.')).toEqual([]);
    expect(kinds('If set, `end` must also be provided.')).toEqual([]);
    expect(kinds('The currency is not required.')).toEqual([]);
    expect(kinds('Names of the required fields.')).toEqual([]);
  });

  it('finds optional phrasings', () => {
    expect(kinds('Optional.')).toEqual(['optional']);
    expect(kinds('May be omitted.')).toEqual(['optional']);
    expect(kinds('Not optional.')).toEqual([]);
  });
});

describe('values, formats, defaults, read-only', () => {
  it.each([
    ['Either `asc` or `desc`.', ['enum:asc|desc']],
    ['One of: low, medium, high.', ['enum:low|medium|high']],
    ['Sort order: one of `relevance`, `newest` or `oldest`.', ['enum:relevance|newest|oldest']],
    ['Either `asc` (ascending) or `desc`.', ['enum:asc|desc']],
    ['Only `asc` or `desc`.', ['enum:asc|desc']],
  ])('lists %s', (sentence, expected) => {
    expect(kinds(sentence)).toEqual(expected);
  });

  it.each([
    "One of the user's accounts.",
    'Either way, the user must accept.',
    'One of low, medium or high priority tasks.',
    'Must be unique in the workspace.',
  ])('no list in %s', (sentence) => {
    expect(kinds(sentence).filter((k) => k.startsWith('enum'))).toEqual([]);
  });

  it.each([
    ['Due date, YYYY-MM-DD.', ['format:date']],
    ['Start, an ISO 8601 timestamp.', ['format:date-time']],
    ['Due date as an ISO 8601 date.', ['format:date']],
    ['RFC 3339 date-time.', ['format:date-time']],
    ['ISO 4217 currency code.', ['enum:-']],
    ['ISO 3166-1 alpha-2 country code.', ['pattern:-']],
    ['The client ID must be a UUID.', ['format:uuid']],
    ['Must be a valid email address.', ['format:email']],
    ['Phone number in E.164 format.', ['pattern:-']],
    ['Body in Markdown format.', []],
  ])('format in %s', (sentence, expected) => {
    expect(kinds(sentence)).toEqual(expected);
  });

  it.each([
    ['Defaults to `open`.', 'default:"open"'],
    ['Defaults to 20.', 'default:20'],
    ['Defaults to false.', 'default:false'],
    ['Results per page (default 20).', 'default:20'],
    ['Repetition (default `none`).', 'default:"none"'],
    ['Channel name; defaults to #general.', 'default:"#general"'],
    ['Defaults to the current user.', 'default:(dynamic)'],
    ['Defaults to open issues only.', 'default:(dynamic)'],
    ['Region; defaults to AWS_REGION or us-east-1.', 'default:(dynamic)'],
  ])('default in %s', (sentence, expected) => {
    expect(kinds(sentence)).toEqual([expected]);
  });

  it('finds read-only, not "read-only" as an adjective of something else', () => {
    expect(kinds('Identifier assigned by the bank; read-only.')).toEqual(['readOnly']);
    expect(kinds('Creation time (read-only).')).toEqual(['readOnly']);
    expect(kinds('Run a read-only SQL query.')).toEqual([]);
  });
});

describe('helpers', () => {
  it('splits sentences, not after e.g. or decimals', () => {
    expect(splitSentences('First, e.g. this. Second one! 0.5 stays. Last').map((s) => s.text)).toEqual([
      'First, e.g. this.',
      'Second one!',
      '0.5 stays.',
      'Last',
    ]);
  });

  it('parses numbers as prose writes them', () => {
    expect(parseNumber('1,000')).toEqual({ value: 1000, plain: true });
    expect(parseNumber('500k')).toEqual({ value: 500_000, plain: true });
    expect(parseNumber('ten')).toEqual({ value: 10, plain: true });
    expect(parseNumber('5m')).toEqual({ value: 5, plain: false });
  });

  it('parses value lists and refuses phrases', () => {
    expect(parseValueList('`a`, `b` or `c`.', 0)?.values).toEqual(['a', 'b', 'c']);
    expect(parseValueList('the following: x, y.', 0)?.values).toEqual(['x', 'y']);
    expect(parseValueList('the user accounts', 0)).toBeUndefined();
  });
});
