/**
 * The `url` string format for ajv, decided in linear time: {@link isUrl} accepts exactly what ajv-formats' `url`
 * regex accepts, without its quadratic backtracking on untrusted values. Registered on both Ajv instances by
 * `createSchemaCompiler` (validate.ts). Pure.
 */
import { isWhiteSpace } from './whitespace.js';

/**
 * Host and port of ajv-formats' `url` regex (its `full` mode), anchored: a public IPv4 address or a host name with
 * a top-level domain, then an optional port. It matches neither `@`, `/` nor `:` outside the port.
 */
const URL_HOST_PORT =
  /^(?:(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)(?:\.(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,})))(?::\d{2,5})?$/iu;
const URL_SCHEME = /^(?:https?|ftp):\/\//iu;

/**
 * ajv-formats' `url` format, `^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?<host and port>(?:\/[^\s]*)?$`, decided in
 * linear time. The regex itself is quadratic: its userinfo `\S+(?::\S*)?@` can split a run of `:` in every way
 * before failing, so 20 000 colons take seconds and a 1 MiB argument would take hours. Same language: the
 * userinfo is any non-empty text without white space up to an `@`; host and port contain neither `@` nor `/`,
 * so they run from the scheme (or from just after an `@`) to the next `/`, and the path after it is any text
 * without white space. Each candidate start is tried once on its own stretch of text, so the work is linear.
 */
export function isUrl(value: string): boolean {
  const scheme = URL_SCHEME.exec(value);
  if (scheme === null) return false;
  const start = scheme[0].length;
  let firstSpace = value.length;
  let lastSpace = -1;
  for (let i = start; i < value.length; i += 1) {
    if (isWhiteSpace(value.charCodeAt(i))) {
      if (firstSpace === value.length) firstSpace = i;
      lastSpace = i;
    }
  }
  let hostStart = start;
  let at = value.indexOf('@', start);
  let slash = value.indexOf('/', start);
  for (;;) {
    if (slash !== -1 && slash < hostStart) slash = value.indexOf('/', hostStart);
    const end = slash === -1 ? value.length : slash;
    if ((at === -1 || at >= end) && end > lastSpace && URL_HOST_PORT.test(value.slice(hostStart, end))) return true;
    // Next candidate: the host starts after the next `@`; the userinfo before it is non-empty, without white space.
    do {
      if (at === -1 || at > firstSpace) return false;
      hostStart = at + 1;
      at = value.indexOf('@', hostStart);
    } while (hostStart - 1 === start);
  }
}
