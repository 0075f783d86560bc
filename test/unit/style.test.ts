/**
 * Lines of src/ stay within the formatter's width (`printWidth` of .prettierrc.json). Prettier breaks code but
 * not strings or comments, so a long message or comment fails here, with the file and the line named. A regular
 * expression literal does not count against its line: splitting one would make it a `RegExp` built from strings,
 * which the linter and the ReDoS sweep (test/unit/core/redos.test.ts) no longer read as a regex.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const WIDTH = (JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8')) as { printWidth: number }).printWidth;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Characters of regex literals on each line (0-based), which the width leaves out. */
function regexCharsByLine(file: string, text: string): Map<number, number> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const chars = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      chars.set(line, (chars.get(line) ?? 0) + node.getWidth(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return chars;
}

/** `file:line (length)` of every line of `file` over the width. */
function longLines(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (!lines.some((line) => line.length > WIDTH)) return [];
  const regexChars = regexCharsByLine(file, text);
  const name = relative(ROOT, file).split('\\').join('/');
  return lines.flatMap((line, i) =>
    line.length - (regexChars.get(i) ?? 0) > WIDTH ? [`${name}:${String(i + 1)} (${String(line.length)})`] : [],
  );
}

describe('line width', () => {
  it(`no line of src/ is over ${String(WIDTH)} characters (regex literals aside)`, () => {
    expect(tsFiles(SRC).flatMap(longLines)).toEqual([]);
  });

  it('the check sees a long line, and leaves a long regex literal alone', () => {
    const regex = `const r = /${'a'.repeat(WIDTH)}/;`;
    const prose = `// ${'a'.repeat(WIDTH)}`;
    const chars = regexCharsByLine('probe.ts', `${regex}\n${prose}\n`);
    expect(regex.length - (chars.get(0) ?? 0)).toBeLessThanOrEqual(WIDTH);
    expect(prose.length - (chars.get(1) ?? 0)).toBeGreaterThan(WIDTH);
  });
});
