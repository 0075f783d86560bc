/**
 * Each prose rule's own test table (src/audit/prose.ts RULES): every `yes` sentence yields a candidate by that rule
 * alone, guards included; every `no` sentence yields none.
 */
import { describe, expect, it } from 'vitest';
import { auditTool } from '../../../src/audit/index.js';
import { applyRule, RULES } from '../../../src/audit/prose.js';

describe('prose rules, each against its own sentences', () => {
  it('names every rule once, with at least one sentence of each kind', () => {
    expect(new Set(RULES.map((r) => r.name)).size).toBe(RULES.length);
    for (const rule of RULES) {
      expect(rule.examples.yes.length, rule.name).toBeGreaterThan(0);
      expect(rule.examples.no.length, rule.name).toBeGreaterThan(0);
    }
  });

  for (const rule of RULES) {
    it(`${rule.name}: reads its positive sentences and none of its negative ones`, () => {
      for (const sentence of rule.examples.yes) expect(applyRule(rule, sentence), `${rule.name} on ${sentence}`).not.toEqual([]);
      for (const sentence of rule.examples.no) expect(applyRule(rule, sentence), `${rule.name} on ${sentence}`).toEqual([]);
    });
  }
});

/** The findings of a tool of `repo_id`, `repo_name`, `user_handle`, `member_number`, `cursor` and `page`. */
function toolFindings(toolDescription: string, own: Readonly<Record<string, string>> = {}): string[] {
  const names = ['repo_id', 'repo_name', 'user_handle', 'member_number', 'cursor', 'page'];
  return auditTool({
    name: 't',
    description: toolDescription,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(names.map((n) => [n, { type: 'string', ...(own[n] === undefined ? {} : { description: own[n] }) }])),
    },
  }).map((f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword}`);
}

describe('cross-parameter rules, instead of a per-parameter "required"', () => {
  it.each([
    ['Exactly one of ``repo_id`` or ``repo_name`` must be given.', 'oneOf'],
    ['Pass either a user handle (e.g. @ana) or a member number (e.g. 1042), not both.', 'oneOf'],
    ['Exactly one of the repo id or the repo name must be provided.', 'oneOf'],
    ['At least one of `repo_id` or `repo_name` must be provided.', 'anyOf'],
  ])('%s', (sentence, keyword) => {
    const got = toolFindings(sentence);
    expect(got).toContain(`prose-only - ${keyword}`);
    expect(got.filter((f) => f.endsWith(' required'))).toEqual([]);
  });

  it('reads "Cannot be combined with cursor" in a parameter description as said of that parameter', () => {
    expect(toolFindings('Lists items.', { page: 'Page number. Cannot be combined with cursor.' })).toContain('prose-only - not');
  });

  it.each([
    'Use one of the repo id or the repo name to find it.',
    'Returns the repo id and the repo name of each match.',
    'The page cannot be empty.',
  ])('not: %s', (sentence) => {
    expect(toolFindings(sentence).filter((f) => /(?:oneOf|anyOf|not)$/.test(f))).toEqual([]);
  });
});
