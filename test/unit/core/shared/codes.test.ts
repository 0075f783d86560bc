import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../../src/core/shared/codes.js';

const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');

describe('error code catalogue', () => {
  it.each(Object.keys(ERROR_CODES))('docs/errors.md documents %s', (code) => {
    expect(doc).toContain(`| \`${code}\` |`);
  });

  it('docs/errors.md lists no code the catalogue lacks', () => {
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(rows.length).toBe(Object.keys(ERROR_CODES).length);
    for (const code of rows) expect(Object.keys(ERROR_CODES)).toContain(code);
  });

  it('codes are lower snake case', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});
