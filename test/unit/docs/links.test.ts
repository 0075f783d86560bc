/**
 * Every relative Markdown link in README.md, docs/ and the root documents resolves: the file exists, and an anchor
 * names a heading of that file (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, repeats
 * numbered).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name));
  const top = ['README.md', 'BENCHMARKS.md', 'RELIABILITY.md', 'CHANGELOG.md'].map((name) => join(ROOT, name)).filter(existsSync);
  return [...top, ...docs];
}

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** GitHub's anchor of a heading. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const from = relative(ROOT, file);
    for (const match of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      if (!existsSync(resolved)) broken.push(`${from}: ${target}: no file ${relative(ROOT, resolved)}`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
        broken.push(`${from}: ${target}: no heading with anchor #${anchor} in ${relative(ROOT, resolved)}`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Configuration (environment variables, validated at start: every bad setting is named, exit 2)')).toBe(
      'configuration-environment-variables-validated-at-start-every-bad-setting-is-named-exit-2',
    );
    expect(slug("`import { normalizeMcpServer } from 'toolcall-normalizer/mcp'`")).toBe(
      'import--normalizemcpserver--from-toolcall-normalizermcp',
    );
    expect(slug('Other clients (`--suite clients`)')).toBe('other-clients---suite-clients');
  });

  it('finds the documents and their links', () => {
    const files = markdownFiles().map((file) => relative(ROOT, file));
    expect(files).toContain('README.md');
    expect(files).toContain(join('docs', 'configuration.md'));
    expect(prose(readFileSync(join(ROOT, 'README.md'), 'utf8'))).toMatch(/\]\(docs\/rule\.md\)/);
  });

  it('every relative link names an existing file, and an existing heading where it has an anchor', () => {
    expect(brokenLinks()).toEqual([]);
  });
});
