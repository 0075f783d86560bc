/**
 * Confidence that means something (issue 23, deliverable 4): the kinds that keep `high` (audit/calibration.ts) are
 * the ones whose proposed `high` findings were at least 0.9 precise on the training servers, recomputed here; the
 * held-out servers then show what the gate is worth.
 */
import { describe, expect, it } from 'vitest';
import { describeFigures, earnedHigh, highByKind, loadCorpus, ratio, score } from '../../../scripts/audit-corpus/score.js';
import { calibrate, findingKind, HIGH_KINDS } from '../../../src/audit/calibration.js';
import type { Finding } from '../../../src/audit/types.js';

const corpus = loadCorpus();

describe('calibration of high', () => {
  it('keeps high for exactly the kinds that earned it on the training servers', () => {
    const kinds = highByKind(corpus.filter((s) => s.split === 'training'));
    for (const [kind, k] of kinds) console.log(`${kind.padEnd(28)} ${ratio(k.correct, k.found).toFixed(2)} (${k.correct}/${k.found})`);
    expect(earnedHigh(kinds).sort()).toEqual([...HIGH_KINDS].sort());
  }, 300_000);

  // 1.00 (4/4) on the first held-out draw; 0.60 (3/5) on the third, 0.67 (10/15) on the fourth, 1.00 (45/45) on
  // the fifth, 1.00 (8/8) on the sixth, 1.00 (3/3) on the seventh, 0.91 (29/32) on the eighth, 0.98 (188/191) on the
  // ninth, 0.81 (13/16) on the tenth, 0.87 (34/39) on the eleventh, 1.00 (11/11) on the twelfth, 1.00 (2/2) on the
  // thirteenth, 0.83 (10/12) on the fourteenth, 0.76 (35/46) on the fifteenth, 0.84 (37/44) on the sixteenth, 0.94
  // (30/32) on the seventeenth, 0.87 (27/31) on the eighteenth, 0.90 (26/29) on the nineteenth and 1.00 (75/75) on the
  // twentieth, labelled blind (the goal is 0.9: docs/audit.md). The held-out servers are the thirteenth, nineteenth
  // and twentieth draws; while none is held out, the last three draws' servers (all read) keep it.
  const heldOut = corpus.filter((s) => s.split === 'held-out');
  const read = [
    ...['azure-devops', 'paperless', 'odoo', 'jenkins', 'mcp-devtools', 'aks-mcp'],
    ...['coolify', 'xero', 'proxmox', 'vish288-gitlab', 'portainer', 'razorpay'],
    ...['karakeep', 'iterable', 'biomcp', 'outline', 'tiger', 'aio-mcp'],
  ];
  it('makes high at least 0.9 precise on the held-out servers (or, while none is held out, on the last three draws)', () => {
    const figures = score(heldOut.length > 0 ? heldOut : corpus.filter((s) => read.includes(s.name)));
    console.log(describeFigures('held-out', figures));
    const high = figures.byConfidence.high ?? { found: 0, correct: 0 };
    expect(high.found).toBeGreaterThan(0);
    expect(ratio(high.correct, high.found)).toBeGreaterThanOrEqual(0.9);
  }, 300_000);

  const base: Finding = {
    id: 'x',
    tool: 't',
    parameter: 'p',
    layer: 'prose-only',
    keyword: 'maximum',
    evidence: '',
    suggestion: '',
    path: '/properties/p',
    confidence: 'high',
  };
  const table: [Partial<Finding>, string, string][] = [
    [{ layer: 'validity', keyword: 'enum' }, 'validity', 'high'],
    [{ keyword: 'exclusiveMaximum' }, 'prose-only:numeric-bound', 'high'],
    [{ keyword: 'maxLength' }, 'prose-only:length-bound', 'medium'],
    [{ keyword: 'required' }, 'prose-only:required', 'medium'],
    [{ layer: 'schema-only', keyword: 'required' }, 'schema-only:required', 'medium'],
    [{ keyword: 'pattern', confidence: 'low' }, 'prose-only:pattern', 'low'],
  ];
  it.each(table)('%j is kind %s and ends %s', (change, kind, confidence) => {
    const finding = { ...base, ...change };
    expect(findingKind(finding)).toBe(kind);
    expect(calibrate(finding).confidence).toBe(confidence);
  });
});
