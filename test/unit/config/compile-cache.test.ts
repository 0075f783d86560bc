import { describe, expect, it } from 'vitest';
import { compileCacheDirectory } from '../../../src/config/compile-cache.js';

const home = (): string => '/home/u';

describe('compileCacheDirectory', () => {
  it('is under an absolute XDG_CACHE_HOME, else under ~/.cache', () => {
    expect(compileCacheDirectory({ XDG_CACHE_HOME: '/var/cache/u' }, home)).toBe('/var/cache/u/toolcall-normalizer/compile-cache');
    for (const xdg of [undefined, '', 'relative/dir']) {
      expect(compileCacheDirectory({ XDG_CACHE_HOME: xdg }, home)).toBe('/home/u/.cache/toolcall-normalizer/compile-cache');
    }
  });

  it('leaves the choice to Node.js when NODE_COMPILE_CACHE is set, and gives none without a home directory', () => {
    expect(compileCacheDirectory({ NODE_COMPILE_CACHE: '/elsewhere' }, home)).toBeUndefined();
    const noHome = (): string => {
      throw new Error('no home');
    };
    expect(compileCacheDirectory({}, noHome)).toBeUndefined();
  });
});
