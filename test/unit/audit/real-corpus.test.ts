/**
 * The audit over real tool definitions nobody here wrote (test/fixtures/audit/real: MCP reference servers, Exa,
 * Supabase, Firecrawl, Brave Search and Stripe's agent toolkit, each as its server publishes it; sources and commits
 * in real-sources.json). real-expected.json says, by reading each tool, which findings a careful maintainer would
 * fix (`report`) and which would be noise (`ignore`), with valid example calls. Every finding not in `report` counts
 * against precision, whether `ignore` names it or not; every `report` entry not found counts against recall.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { auditTool, type Finding } from '../../../src/audit/index.js';
import { applyFix } from '../../../src/audit/fix.js';
import { AUDIT_LAYERS } from '../../../src/audit/types.js';
import type { JsonObject, JsonValue } from '../../../src/core/shared/json.js';
import { parseToolDefinition, type ToolDefinition } from '../../../src/core/schema/tool-definition.js';
import { createSchemaCompiler } from '../../../src/core/validation/validate.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/audit', import.meta.url));

interface Entry {
  layer: string;
  parameter: string | null;
  keyword: string;
  why: string;
}
interface Expectation {
  report: Entry[];
  ignore: Entry[];
  calls: JsonValue[];
}

const expected = JSON.parse(readFileSync(join(FIXTURES, 'real-expected.json'), 'utf8')) as Record<string, Expectation>;
const sources = JSON.parse(readFileSync(join(FIXTURES, 'real-sources.json'), 'utf8')) as Record<
  string,
  { repository: string; path: string; commit: string }
>;
const definitions: ToolDefinition[] = readdirSync(join(FIXTURES, 'real'))
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => {
    const read = parseToolDefinition(
      JSON.parse(readFileSync(join(FIXTURES, 'real', file), 'utf8')) as JsonValue,
      file.replace(/\.json$/, ''),
    );
    if (!read.ok) throw new Error(`${file}: ${read.reason}`);
    return read.definition;
  });

const key = (e: { layer: string; parameter: string | null; keyword: string }): string => `${e.layer} ${e.parameter ?? '-'} ${e.keyword}`;
const findingsByTool = new Map(definitions.map((d) => [d.name, auditTool(d)]));

interface Score {
  found: number;
  worth: number;
  expected: number;
  recalled: number;
}

function score(filter: (e: { layer: string; confidence?: string }) => boolean): Score & { falsePositives: string[]; misses: string[] } {
  const s = { found: 0, worth: 0, expected: 0, recalled: 0, falsePositives: [] as string[], misses: [] as string[] };
  for (const definition of definitions) {
    const findings = (findingsByTool.get(definition.name) ?? []).filter(filter);
    const report = (expected[definition.name]?.report ?? []).filter((e) => filter({ layer: e.layer }));
    const wanted = new Set(report.map(key));
    const got = new Set(findings.map(key));
    s.found += findings.length;
    for (const f of findings) {
      if (wanted.has(key(f))) s.worth++;
      else s.falsePositives.push(`${f.tool} ${key(f)}: ${f.evidence}`);
    }
    s.expected += report.length;
    for (const e of report) {
      if (got.has(key(e))) s.recalled++;
      else s.misses.push(`${definition.name} ${key(e)}: ${e.why}`);
    }
  }
  return s;
}

const ratio = (a: number, b: number): number => (b === 0 ? 1 : a / b);

describe('audit on real tool definitions', () => {
  it('holds at least 60 real tools, each with a source, a classification and example calls', () => {
    expect(definitions.length).toBeGreaterThanOrEqual(60);
    for (const definition of definitions) {
      expect(sources[definition.name]?.commit, definition.name).toMatch(/^[0-9a-f]{40}$/);
      expect(expected[definition.name]?.calls.length, definition.name).toBeGreaterThan(0);
    }
    expect(Object.keys(expected).sort()).toEqual(definitions.map((d) => d.name).sort());
  });

  it('reaches precision and recall of at least 0.8, overall and printed per layer', () => {
    const all = score(() => true);
    const lines = [`real corpus: ${definitions.length} tools, ${all.found} findings, ${all.expected} conflicts worth fixing`];
    const line = (label: string, s: Score): string =>
      `  ${label.padEnd(12)} precision ${ratio(s.worth, s.found).toFixed(2)} (${s.worth}/${s.found})  ` +
      `recall ${ratio(s.recalled, s.expected).toFixed(2)} (${s.recalled}/${s.expected})`;
    lines.push(line('all', all));
    for (const layer of AUDIT_LAYERS)
      lines.push(
        line(
          layer,
          score((e) => e.layer === layer),
        ),
      );
    for (const level of ['high', 'medium', 'low']) {
      const s = score((e) => e.confidence === undefined || e.confidence === level);
      lines.push(`  ${level.padEnd(12)} precision ${ratio(s.worth, s.found).toFixed(2)} (${s.worth}/${s.found})`);
    }
    lines.push('  not worth fixing:', ...all.falsePositives.map((f) => `    ${f}`), '  missed:', ...all.misses.map((m) => `    ${m}`));
    console.log(lines.join('\n'));
    expect(ratio(all.worth, all.found)).toBeGreaterThanOrEqual(0.8);
    expect(ratio(all.recalled, all.expected)).toBeGreaterThanOrEqual(0.8);
  });

  it('reports nothing the classification calls noise on the tools it was read for', () => {
    const noise: string[] = [];
    for (const definition of definitions) {
      const ignored = new Set((expected[definition.name]?.ignore ?? []).map(key));
      for (const f of findingsByTool.get(definition.name) ?? []) if (ignored.has(key(f))) noise.push(`${f.tool} ${key(f)}`);
    }
    // Named noise is the part of the false positives the corpus's `ignore` lists by kind; a few may remain.
    expect(noise.length).toBeLessThanOrEqual(3);
  });

  it('gives every finding a confidence', () => {
    for (const findings of findingsByTool.values()) for (const f of findings) expect(['high', 'medium', 'low']).toContain(f.confidence);
  });
});

describe('suggestions applied verbatim', () => {
  const compiler = createSchemaCompiler();
  const withFixes = (schema: JsonObject, fixes: readonly Finding[]): JsonObject =>
    fixes.reduce((s, f) => (f.fix === undefined ? s : applyFix(s, f.fix)), schema);

  it.each(definitions.map((d) => [d.name, d] as const))('%s: every fix compiles and still accepts the valid calls', (name, definition) => {
    const findings = findingsByTool.get(name) ?? [];
    // The schema as it should be once its validity findings are fixed: the calls are valid against it.
    const base = withFixes(
      definition.inputSchema,
      findings.filter((f) => f.layer === 'validity'),
    );
    const compiled = compiler.compile(base);
    if (!compiled.ok) throw new Error(`${name}: ${compiled.diagnostic.message}`);
    const calls = expected[name]?.calls ?? [];
    for (const call of calls) expect(compiled.validate(call), `${name} ${JSON.stringify(call)}`).toEqual([]);
    for (const finding of findings.filter((f) => f.layer !== 'validity' && f.fix !== undefined)) {
      const fixed = withFixes(base, [finding]);
      const result = compiler.compile(fixed);
      expect(result.ok, `${finding.id} ${JSON.stringify(finding.fix)}`).toBe(true);
      if (!result.ok) continue;
      for (const call of calls) expect(result.validate(call), `${finding.id} rejects ${JSON.stringify(call)}`).toEqual([]);
    }
  });
});
