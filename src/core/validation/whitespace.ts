/** Character classes of ECMAScript regular expressions, for the formats checked by hand instead of by regex. */

/** `\s` of an ECMAScript regex: WhiteSpace (any Zs, tab, VT, FF, U+FEFF) and LineTerminator. */
export function isWhiteSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
