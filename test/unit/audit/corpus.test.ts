/**
 * The audit over the fixture corpus (test/fixtures/audit): clean tools written the way good teams write them get
 * no findings (precision), and every seeded conflict is found on the right tool, parameter, layer and keyword
 * (recall), with nothing else reported on the seeded tools either.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { auditTool, auditTools, type Finding } from '../../../src/audit/index.js';
import type { JsonValue } from '../../../src/core/shared/json.js';
import { parseToolDefinition, type ToolDefinition } from '../../../src/core/schema/tool-definition.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/audit', import.meta.url));

function loadDir(dir: string): ToolDefinition[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const read = parseToolDefinition(JSON.parse(readFileSync(join(dir, file), 'utf8')) as JsonValue, file.replace(/\.json$/, ''));
      if (!read.ok) throw new Error(`${file}: ${read.reason}`);
      return read.definition;
    });
}

interface Expected {
  layer: string;
  parameter: string | null;
  keyword: string;
}

const clean = loadDir(join(FIXTURES, 'clean'));
const seeded = loadDir(join(FIXTURES, 'seeded'));
const expected = JSON.parse(readFileSync(join(FIXTURES, 'seeded-expected.json'), 'utf8')) as Record<string, Expected[]>;

const key = (f: Expected): string => `${f.layer} ${f.parameter ?? '-'} ${f.keyword}`;

describe('audit corpus: precision on clean tools', () => {
  it.each(clean.map((definition) => [definition.name, definition] as const))('%s has no findings', (_name, definition) => {
    expect(auditTool(definition)).toEqual([]);
  });

  it('holds enough clean tools to mean something', () => {
    expect(clean.length).toBeGreaterThanOrEqual(35);
  });
});

describe('audit corpus: recall on seeded conflicts', () => {
  it('has an expectation for every seeded tool', () => {
    expect(Object.keys(expected).sort()).toEqual(seeded.map((d) => d.name).sort());
  });

  it.each(seeded.map((definition) => [definition.name, definition] as const))('%s: exactly the seeded findings', (name, definition) => {
    const findings: Finding[] = auditTool(definition);
    expect(findings.every((f) => f.tool === name)).toBe(true);
    expect(findings.map(key).sort()).toEqual((expected[name] ?? []).map(key).sort());
  });

  it('covers every layer and both directions', () => {
    const layers = new Set(
      Object.values(expected)
        .flat()
        .map((e) => e.layer),
    );
    expect([...layers].sort()).toEqual(['prose-only', 'schema-only', 'validity']);
  });

  it('gives every finding an id, evidence and a suggestion', () => {
    for (const finding of auditTools(seeded)) {
      expect(finding.id).toMatch(new RegExp(`^${finding.layer}:${finding.tool}:`));
      expect(finding.evidence).not.toBe('');
      expect(finding.suggestion.length).toBeGreaterThan(20);
    }
  });
});
