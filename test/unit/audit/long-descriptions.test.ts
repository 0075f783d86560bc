/**
 * The audit on hostile descriptions: a registry entry of a megabyte of prose must not hang a CI gate. Each shape
 * below made some rule quadratic (a long word, a long sentence of candidates, a long list of names); each now
 * finishes within a generous bound, and the guards read a bounded part of the text whatever its length.
 */
import { describe, expect, it } from 'vitest';
import { auditTool } from '../../../src/audit/index.js';
import { groupRule } from '../../../src/audit/mentions.js';
import { CLAUSE_CHARS, LOOKBACK_CHARS, lastSeparator, textBefore } from '../../../src/audit/prose-text.js';
import { auditNodes } from '../../../src/audit/schema-nav.js';
import { FindingList } from '../../../src/audit/findings.js';
import type { ToolDefinition } from '../../../src/core/schema/tool-definition.js';

const MB = 1_000_000;

function definition(text: string): ToolDefinition {
  return {
    name: 'long',
    description: text,
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: text }, limit: { type: 'integer', description: 'Max results' } },
      required: ['query'],
    },
  };
}

const fill = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

describe('audit on a 1 MB description', () => {
  // Before the fix, 80 KB of these took about a minute; at a megabyte, hours.
  const shapes: [string, string][] = [
    ['one long word', fill('a', MB)],
    ['a long word of letters, dots and dashes', fill('a.b-c_', MB)],
    ['one sentence of many bounds', fill('must be at least 5 and at most 10 characters ', MB)],
    ['a list of quoted names', fill('`query`, ', MB)],
    ['numbers joined by dashes', fill('1-', MB)],
    ['mentions of a parameter', fill('`limit` or ', MB)],
    // Each of these was read once per candidate over the whole sentence, or the whole description once per claim.
    ['one sentence of many value lists', fill('Default: 5, one of a, b or c; ', MB)],
    ['many sentences of exclusive choices', fill('Provide either `a` or `b`, not both. ', MB)],
    ['bounds inside examples', fill('e.g. at least 5 and at most 10; ', MB)],
    // Each of these quoted its whole sentence once per finding, or read it once per match of a value-list rule.
    ['values in parentheses', fill('(a|b) ', MB)],
    ['quoted value lists', fill("one of 'a', 'b' ", MB)],
    ['values marked as the default', fill("'a' (default), ", MB)],
    ['formats', fill('ISO 8601 ', MB)],
    ['choices of two names', fill('either `a` or `b` ', MB)],
    ['templates', fill('format: job-<digits> ', MB)],
    ['prefixes', fill("`query` must start with 'a', ", MB)],
    ['values glossed by their use', fill("use 'a' for b, ", MB)],
    ['values after a dash', fill("mode - 'a', ", MB)],
    ['types as lists', fill('as a list ', MB)],
    ['types in parentheses', fill('(int) ', MB)],
  ];
  it.each(shapes)('%s: finishes', { timeout: 120_000 }, (_name, text) => {
    const findings = auditTool(definition(`Query ${text} end.`));
    expect(Array.isArray(findings)).toBe(true);
  });
});

describe('guards read a bounded part of the text', () => {
  const long = fill('word ', MB);

  it('textBefore: the whole prefix when short, about LOOKBACK_CHARS of it otherwise, led by a NUL', () => {
    expect(textBefore('not at most 5', 4)).toBe('not ');
    const before = textBefore(long, long.length - 1);
    expect(before.length).toBeLessThanOrEqual(LOOKBACK_CHARS + 1);
    expect(before.startsWith('\u0000word ')).toBe(true);
    expect(/\bnot\s+$/.test(textBefore(`${long} not `, long.length + 5))).toBe(true);
  });

  it('lastSeparator: as lastIndexOf within CLAUSE_CHARS, -1 beyond', () => {
    const text = `a, b; c ${'x'.repeat(10)}`;
    expect(lastSeparator(text, text.length)).toBe(Math.max(text.lastIndexOf(','), text.lastIndexOf(';')));
    expect(lastSeparator(text, 2)).toBe(1);
    expect(lastSeparator(text, -1)).toBe(-1);
    expect(lastSeparator(`,${'x'.repeat(CLAUSE_CHARS + 10)}`, CLAUSE_CHARS + 10)).toBe(-1);
  });
});

describe('the group rules find what they found before', () => {
  // The patterns as they were, unanchored: the leftmost match they give is the reference.
  const TOGETHER_BEFORE =
    /((?:[`"']?[A-Za-z_][\w.-]*[`"']?\s*,\s*)*[`"']?[A-Za-z_][\w.-]*[`"']?\s+and\s+[`"']?[A-Za-z_][\w.-]*[`"']?)\s+(?:must|should|have\s+to|need\s+to)\s+(?:be\s+)?(?:provided|used|given|passed|specified|set|sent|supplied)\s+together\b|((?:[`"']?[A-Za-z_][\w.-]*[`"']?\s*,\s*)*[`"']?[A-Za-z_][\w.-]*[`"']?\s+and\s+[`"']?[A-Za-z_][\w.-]*[`"']?)\s+are\s+(?:required|needed)\s+together\b/i;
  const EXCLUSIVE_BEFORE =
    /([`"']?[A-Za-z_][\w.-]*[`"']?)\s+and\s+([`"']?[A-Za-z_][\w.-]*[`"']?)\s+are\s+mutually\s+exclusive\b|([`"']?[A-Za-z_][\w.-]*[`"']?)\s+(?:cannot|can't|must\s+not|may\s+not)\s+be\s+(?:used|combined|set|passed|provided)\s+(?:together\s+)?with\s+([`"']?[A-Za-z_][\w.-]*[`"']?)/i;
  const root = {
    type: 'object',
    properties: { start: { type: 'string' }, end: { type: 'string' }, page: { type: 'integer' }, cursor: { type: 'string' } },
  };
  const { rootView, nodes } = auditNodes(root);
  const topLevel = nodes.filter((node) => node.location === '');
  const sentences = [
    'start and end must be provided together',
    '`start`, `end` and `page` are required together',
    'x.start and end should be given together',
    'For 2, start and end must be set together',
    '9start and end must be passed together',
    '\'start\', "end" and `page` need to be supplied together',
    '`cursor` and `page` are mutually exclusive',
    'cursor cannot be combined with page',
    'the-cursor must not be used together with `page`',
    'a, b, c, start and end must be used together',
  ];
  it.each(sentences)('%s', (sentence) => {
    const findings = new FindingList('t');
    groupRule(sentence, topLevel, root, { parameter: null, label: '', location: '', pointer: '', view: rootView }, findings, true);
    const names = (m: RegExpExecArray | null): string[] =>
      m === null ? [] : (m.slice(1) as (string | undefined)[]).filter((g): g is string => g !== undefined);
    const expected = [...names(TOGETHER_BEFORE.exec(sentence)), ...names(EXCLUSIVE_BEFORE.exec(sentence))]
      .flatMap((group) => group.split(/\s*(?:,|\band\b)\s*/))
      .map((n) => n.replace(/[`"']/g, '').trim())
      .filter((n) => topLevel.some((node) => node.parameter === n));
    // The suggestion ends "... a call that sends both of "cursor", "page" is rejected."
    const reported = findings
      .list()
      .flatMap((f) => [...(/ of ((?:"\w+"(?:, )?)+) is rejected/.exec(f.suggestion)?.[1] ?? '').matchAll(/"(\w+)"/g)].map((m) => m[1]));
    expect(new Set(reported)).toEqual(new Set(expected.length >= 2 ? expected : []));
  });
});
