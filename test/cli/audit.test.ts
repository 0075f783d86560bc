/**
 * `toolcall-normalizer audit` as CI runs it: the built CLI (dist/cli.js, built by `npm test`) in a child process.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/audit/index.js';
import { ROOT, runCli as run } from './run-cli.js';

const clean = join(ROOT, 'test', 'fixtures', 'audit', 'clean');
const seeded = join(ROOT, 'test', 'fixtures', 'audit', 'seeded');
const scratch = mkdtempSync(join(tmpdir(), 'audit-cli-'));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** What `audit --json` prints. */
type Body = { findings: Finding[] };

describe('audit (CLI)', () => {
  it('gates on confidence with --fail-on, carrying it in --json', () => {
    const real = join(ROOT, 'test', 'fixtures', 'audit', 'real');
    const all = run(['audit', real, '--json']);
    expect(all.status).toBe(1);
    const body = JSON.parse(all.stdout) as Body;
    expect(body.findings.every((f) => ['high', 'medium', 'low'].includes(f.confidence))).toBe(true);
    const high = run(['audit', real, '--json', '--fail-on', 'high']);
    expect(high.status).toBe(body.findings.some((f) => f.confidence === 'high') ? 1 : 0);
    expect(run(['audit', real, '--fail-on', 'sure']).status).toBe(2);
    // Three audits of 125 real definitions, each a process: past vitest's 20 s default on a loaded machine.
  }, 120_000);

  it('exits 0 on clean definitions, with "No findings."', () => {
    const result = run(['audit', clean]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('No findings.\n');
  });

  it('prints a readable table and exits 1 when there are findings', () => {
    const result = run(['audit', seeded]);
    expect(result.status).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^LAYER\s+TOOL\s+PARAMETER\s+KEYWORD\s+CONFIDENCE$/);
    expect(result.stdout).toMatch(/prose-only\s+transfer_funds\s+currency\s+required/);
    expect(result.stdout).toContain('    evidence:   The currency is required.');
    expect(result.stdout).toMatch(/\d+ findings in 19 tools: \d+ validity, \d+ prose-only, \d+ schema-only\n$/);
  });

  it('prints exactly {"findings": [...]} with --json, each finding complete', () => {
    const result = run(['audit', seeded, '--json']);
    expect(result.status).toBe(1);
    const body = JSON.parse(result.stdout) as Body;
    expect(Object.keys(body)).toEqual(['findings']);
    for (const finding of body.findings) {
      // `fix` only when the suggestion is a schema change.
      expect(Object.keys(finding).filter((k) => k !== 'fix')).toEqual([
        'id',
        'tool',
        'parameter',
        'layer',
        'keyword',
        'evidence',
        'suggestion',
        'path',
        'confidence',
      ]);
      expect(['validity', 'prose-only', 'schema-only']).toContain(finding.layer);
    }
    expect(body.findings.find((f) => f.id === 'schema-only:transfer_funds:amount:maximum')).toMatchObject({
      parameter: 'amount',
      keyword: 'maximum',
      evidence: '{"maximum":500000}',
    });
    expect(body.findings.find((f) => f.id === 'validity:broken_required:currency:required')).toMatchObject({
      layer: 'validity',
      parameter: 'currency',
    });
    expect(run(['audit', clean, '--json']).stdout).toBe('{\n  "findings": []\n}\n');
  });

  it('is deterministic: two runs print the same bytes', () => {
    expect(run(['audit', seeded, '--json']).stdout).toBe(run(['audit', seeded, '--json']).stdout);
  });

  it('baseline workflow: write it, pass against it, fail only on a new finding and name it', () => {
    const baseline = join(scratch, 'audit-baseline.json');
    const written = run(['audit', seeded, '--baseline', baseline, '--update-baseline']);
    expect(written.status).toBe(0);
    expect(written.stderr).toMatch(/wrote \d+ findings to the baseline/);
    const text = readFileSync(baseline, 'utf8');
    const ids = (JSON.parse(text) as Body).findings.map((f) => f.id);
    expect(ids).toEqual([...ids].sort());

    const same = run(['audit', seeded, '--baseline', baseline]);
    expect(same.status).toBe(0);
    expect(same.stderr).toMatch(/no new findings/);

    // A new conflict in a copy of one clean tool: the run fails and names the new finding only.
    const dir = join(scratch, 'with-new');
    rmSync(dir, { recursive: true, force: true });
    const copy = JSON.parse(readFileSync(join(clean, 'geocode.json'), 'utf8')) as {
      inputSchema: { properties: { limit: { maximum: number } } };
    };
    copy.inputSchema.properties.limit.maximum = 50;
    mkdirSync(dir);
    writeFileSync(join(dir, 'geocode.json'), JSON.stringify(copy));
    const emptyBaseline = join(scratch, 'geocode-baseline.json');
    expect(run(['audit', clean, '--baseline', emptyBaseline, '--update-baseline']).status).toBe(0);
    const gated = run(['audit', dir, '--baseline', emptyBaseline]);
    expect(gated.status).toBe(1);
    expect(gated.stderr).toMatch(/1 new finding not in the baseline/);
    expect(gated.stderr).toContain('prose-only:geocode:limit:maximum');
    expect(gated.stdout).toContain('prose-only (new)');
  });

  it('exits 2 on usage errors', () => {
    for (const args of [
      ['audit'],
      ['audit', join(scratch, 'missing')],
      ['audit', clean, '--update-baseline'],
      ['audit', clean, '--baseline', join(scratch, 'nope.json')],
      ['audit', clean, '--frobnicate'],
    ]) {
      const result = run(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/^toolcall-normalizer: .+\nUsage: toolcall-normalizer audit/);
    }
  });

  it('is listed in the top-level help', () => {
    expect(run(['help']).stdout).toMatch(/audit DIR \| audit --registry URL/);
  });
});
