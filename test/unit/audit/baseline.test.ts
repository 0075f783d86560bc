/**
 * Baselines (audit/baseline.ts) and the report (audit/report.ts).
 */
import { describe, expect, it } from 'vitest';
import { compareWithBaseline, parseBaseline, serializeBaseline } from '../../../src/audit/baseline.js';
import type { Finding } from '../../../src/audit/index.js';
import { renderTable, summary } from '../../../src/audit/report.js';

function finding(id: string, extra: Partial<Finding> = {}): Finding {
  const [layer, tool, parameter, keyword] = id.split(':');
  return {
    id,
    tool: tool ?? 't',
    parameter: parameter === '-' ? null : (parameter ?? null),
    layer: (layer ?? 'validity') as Finding['layer'],
    keyword: keyword ?? 'type',
    evidence: '{"maximum":500000}',
    suggestion: 'Say it in the description.',
    path: '',
    confidence: 'high',
    ...extra,
  };
}

describe('baseline', () => {
  const findings = [finding('schema-only:b:amount:maximum'), finding('prose-only:a:currency:required'), finding('validity:a:-:$schema')];

  it('serializes sorted, stable and without the wording that churns', () => {
    const text = serializeBaseline(findings);
    expect(text).toBe(serializeBaseline([...findings].reverse()));
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain('suggestion');
    expect(text).not.toContain('evidence');
    const parsed = JSON.parse(text) as { version: number; findings: { id: string }[] };
    expect(parsed.version).toBe(1);
    expect(parsed.findings.map((f) => f.id)).toEqual([
      'prose-only:a:currency:required',
      'schema-only:b:amount:maximum',
      'validity:a:-:$schema',
    ]);
    expect(serializeBaseline([])).toBe('{\n  "version": 1,\n  "findings": []\n}\n');
  });

  it('reads its own file, the --json output, and plain lists of ids', () => {
    const ids = ['prose-only:a:currency:required', 'schema-only:b:amount:maximum', 'validity:a:-:$schema'];
    for (const text of [serializeBaseline(findings), JSON.stringify({ findings }), JSON.stringify(ids)]) {
      const parsed = parseBaseline(text);
      expect(parsed.ok && [...parsed.ids].sort()).toEqual(ids);
    }
  });

  it('refuses what is not a baseline', () => {
    expect(parseBaseline('nope').ok).toBe(false);
    expect(parseBaseline('{"x": 1}').ok).toBe(false);
    expect(parseBaseline('[{"no": "id"}]').ok).toBe(false);
  });

  it('splits known from new findings and lists fixed ones', () => {
    const result = compareWithBaseline(findings, new Set(['validity:a:-:$schema', 'prose-only:gone:x:enum']));
    expect(result.known.map((f) => f.id)).toEqual(['validity:a:-:$schema']);
    expect(result.added.map((f) => f.id)).toEqual(['schema-only:b:amount:maximum', 'prose-only:a:currency:required']);
    expect(result.resolved).toEqual(['prose-only:gone:x:enum']);
  });
});

describe('report', () => {
  it('prints a table with evidence, suggestion and id under each row, then a summary', () => {
    const text = renderTable([finding('prose-only:a:currency:required', { evidence: 'The currency is required.' })], {
      markNew: new Set(['prose-only:a:currency:required']),
    });
    expect(text.split('\n')[0]).toMatch(/^LAYER\s+TOOL\s+PARAMETER\s+KEYWORD\s+CONFIDENCE$/);
    expect(text).toContain('prose-only (new)  a     currency   required');
    expect(text).toContain('    evidence:   The currency is required.');
    expect(text).toContain('    id:         prose-only:a:currency:required');
    expect(text).toContain('1 finding in 1 tool: 0 validity, 1 prose-only, 0 schema-only');
    expect(renderTable([])).toBe('No findings.\n');
    expect(summary([finding('validity:a:-:$schema'), finding('validity:b:x:type')])).toBe(
      '2 findings in 2 tools: 2 validity, 0 prose-only, 0 schema-only',
    );
  });
});
