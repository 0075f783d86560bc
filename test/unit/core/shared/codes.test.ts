import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../../src/core/shared/codes.js';

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

describe('error code catalogue', () => {
  it.each(Object.keys(ERROR_CODES))('README documents %s', (code) => {
    expect(readme).toContain(`\`${code}\``);
  });

  it('codes are lower snake case', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});
