import { describe, expect, it } from 'vitest';
import { truncate } from '../../../../src/core/shared/text.js';

describe('truncate: the one bounded quote of the project', () => {
  it('keeps text within the bound as it is', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('', 1)).toBe('');
  });

  it('cuts longer text to the bound, an ellipsis marking the cut', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcdef', 4)).toHaveLength(4);
  });

  it('never leaves half of a surrogate pair before the ellipsis', () => {
    // The emoji takes units 2 and 3: a cut after unit 3 would keep its high surrogate alone.
    expect(truncate('ab\u{1F600}cdef', 4)).toBe('ab…');
    expect(truncate('ab\u{1F600}cdef', 5)).toBe('ab\u{1F600}…');
  });
});
