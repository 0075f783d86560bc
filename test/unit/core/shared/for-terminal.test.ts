/** forTerminal: control characters become visible escapes; everything else is left as it is. */
import { describe, expect, it } from 'vitest';
import { forTerminal } from '../../../../src/core/shared/text.js';

describe('forTerminal', () => {
  it.each([
    ['a\nPASS', 'a\\nPASS'],
    ['a\r\tb', 'a\\r\\tb'],
    ['\u001b[31mred', '\\x1b[31mred'],
    ['nul\u0000', 'nul\\x00'],
    ['del\u007f csi\u009b', 'del\\x7f csi\\x9b'],
    ['\u202eevil', '\\u202eevil'],
    ['line\u2028sep', 'line\\u2028sep'],
  ])('%j is %j', (text, escaped) => {
    expect(forTerminal(text)).toBe(escaped);
  });

  it('leaves printable text, backslashes and non-ASCII letters alone', () => {
    const text = 'Café ü 日本 \\d+ "quoted" `code` 🙂';
    expect(forTerminal(text)).toBe(text);
  });
});
