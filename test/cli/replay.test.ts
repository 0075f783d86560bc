/**
 * `toolcall-normalizer replay` as a user runs it: the built CLI in a child process, over golden files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli as run } from './run-cli.js';

const tools = join(ROOT, 'examples', 'tools');
const golden = join(ROOT, 'examples', 'golden.jsonl');
const scratch = mkdtempSync(join(tmpdir(), 'replay-cli-'));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function goldenFile(name: string, lines: unknown[]): string {
  const file = join(scratch, name);
  writeFileSync(file, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  return file;
}

const noCurrency = {
  type: 'tool_use',
  id: 'r1',
  name: 'transfer_funds',
  input: { from_account: 'GB12345678', to_account: 'GB87654321', amount: 40 },
};

interface Report {
  cases: {
    line: number;
    name: string | null;
    passed: boolean;
    failures: string[];
    call: unknown;
    result: { valid: boolean; errors: { code: string; path: string }[] } | null;
  }[];
  passed: number;
  failed: number;
}

describe('replay (CLI)', () => {
  it('passes the shipped example golden file', () => {
    const result = run(['replay', '--schemas', tools, '--golden', golden]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^PASS {2}search: plain call \(OpenAI chat\) \(line \d+\)$/m);
    expect(result.stdout).toMatch(/\n28 cases: 28 passed, 0 failed\n$/);
  });

  it('fails a case, printing the raw call beside the rule it broke', () => {
    const file = goldenFile('fail.jsonl', [
      { name: 'currency omitted', call: noCurrency, expect: { arguments: ['from_account', 'currency'] } },
    ]);
    const result = run(['replay', '--schemas', tools, '--golden', file]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('FAIL  currency omitted (line 1)');
    expect(result.stdout).toContain(`  call:     ${JSON.stringify(noCurrency)}`);
    expect(result.stdout).toContain('  failed:   expected a valid call, got a rejected one');
    expect(result.stdout).toContain('  failed:   missing argument "currency"');
    expect(result.stdout).toContain('  broke:    missing_required at /currency: Missing required parameter "currency".');
    expect(result.stdout).toMatch(/1 case: 0 passed, 1 failed\n$/);
  });

  it('checks validity, names, exact arguments, repairs and errors; a raw line works as the call', () => {
    const rawLine = JSON.stringify({ id: 'x', tool: 'search_issues', arguments: '{"query": "a &amp; b", "labels": "[\\"x\\"]"}' });
    const file = goldenFile('mixed.jsonl', [
      '# comments and blank lines are skipped',
      '',
      {
        name: 'raw line, exact',
        call: rawLine,
        expect: {
          arguments: { query: 'a & b', labels: ['x'] },
          repairs: ['json_decoded', { pointer: '/query', kind: 'entities_decoded' }],
        },
      },
      { name: 'wrong exact arguments', call: rawLine, expect: { arguments: { query: 'a &amp; b' } } },
      { name: 'missing repair', call: rawLine, expect: { repairs: ['json_decoded'] } },
      { name: 'rejection expected', call: noCurrency, expect: { errors: [{ code: 'missing_required', path: '/currency' }] } },
      { name: 'wrong error expected', call: noCurrency, expect: { errors: ['not_in_enum'] } },
      'not json',
    ]);
    const result = run(['replay', '--schemas', tools, '--golden', file, '--json']);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.cases.map((c) => [c.line, c.passed])).toEqual([
      [3, true],
      [4, false],
      [5, false],
      [6, true],
      [7, false],
      [8, false],
    ]);
    expect(report.cases[1]?.failures[0]).toMatch(/^arguments differ: expected \{"query":"a &amp; b"\}/);
    expect(report.cases[2]?.failures).toEqual(['unexpected repair: entities_decoded at /query']);
    expect(report.cases[4]?.failures).toEqual(['expected error not reported: not_in_enum']);
    expect(report.cases[5]?.failures[0]).toMatch(/^a readable golden case: not JSON/);
    expect(report.passed).toBe(2);
    expect(report.failed).toBe(4);
  });

  it('exits 1 on a golden file without cases, 2 on usage errors', () => {
    expect(run(['replay', '--schemas', tools, '--golden', goldenFile('empty.jsonl', ['# nothing'])]).status).toBe(1);
    for (const args of [
      ['replay'],
      ['replay', '--schemas', tools],
      ['replay', '--golden', golden],
      ['replay', '--schemas', join(scratch, 'no'), '--golden', golden],
      ['replay', '--schemas', tools, '--golden', join(scratch, 'none.jsonl')],
      ['replay', '--schemas', tools, '--golden', golden, 'extra'],
    ]) {
      const result = run(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/Usage: toolcall-normalizer replay/);
    }
  });

  it('is listed in the top-level help', () => {
    expect(run(['help']).stdout).toMatch(/replay --schemas DIR --golden FILE/);
  });
});
