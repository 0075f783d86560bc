/**
 * ajv-formats' `date-time` format (full mode: a time zone is required), decided without splitting the string or
 * running its regular expressions: it accepts exactly the same strings. `YYYY-MM-DD`, then `T`, `t` or a white
 * space, then `hh:mm:ss[.fraction]` and `Z`, `z` or `±hh[[:]mm]`. Registered by `createSchemaCompiler`.
 */
import { isWhiteSpace } from './whitespace.js';

export function isDateTime(value: string): boolean {
  // ajv-formats splits at `t` or white space and needs exactly two parts: a ten-character date, then a time,
  // whose characters (digits, `:`, `.`, `z`, `+`, `-`) hold no further separator.
  if (value.length < 19 || !isSeparator(value.charCodeAt(10))) return false;
  return isDate(value) && isTime(value, 11);
}

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(text: string): boolean {
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  if (year < 0 || month < 0 || day < 0 || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && leap ? 29 : (DAYS[month] as number));
}

/** ajv-formats' time check on `text` from `start`: `^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)$`/i. */
function isTime(text: string, start: number): boolean {
  const end = text.length;
  const hr = digits(text, start, 2);
  const min = digits(text, start + 3, 2);
  const whole = digits(text, start + 6, 2);
  if (hr < 0 || min < 0 || whole < 0 || text.charCodeAt(start + 2) !== 0x3a || text.charCodeAt(start + 5) !== 0x3a) return false;
  let at = start + 8;
  let sec = whole;
  if (text.charCodeAt(at) === 0x2e /* . */) {
    const from = at + 1;
    at = from;
    while (at < end && isDigit(text.charCodeAt(at))) at++;
    if (at === from) return false;
    sec = Number(text.slice(start + 6, at));
  }
  if (at >= end) return false;
  const zone = text.charCodeAt(at);
  let tzSign = 1;
  let tzH = 0;
  let tzM = 0;
  if (zone === 0x5a || zone === 0x7a /* Z z */) {
    if (at + 1 !== end) return false;
  } else if (zone === 0x2b || zone === 0x2d /* + - */) {
    tzSign = zone === 0x2d ? -1 : 1;
    tzH = digits(text, at + 1, 2);
    if (tzH < 0) return false;
    const rest = end - (at + 3);
    if (rest === 0) tzM = 0;
    else if (rest === 2) tzM = digits(text, at + 3, 2);
    else if (rest === 3 && text.charCodeAt(at + 3) === 0x3a) tzM = digits(text, at + 4, 2);
    else return false;
    if (tzM < 0) return false;
  } else return false;
  if (tzH > 23 || tzM > 59) return false;
  if (hr <= 23 && min <= 59 && sec < 60) return true;
  // A leap second: 23:59:60 in UTC.
  const utcMin = min - tzM * tzSign;
  const utcHr = hr - tzH * tzSign - (utcMin < 0 ? 1 : 0);
  return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** The decimal number of `count` ASCII digits at `at`, or -1 when one of them is not a digit (or is missing). */
function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return -1;
    n = n * 10 + (code - 0x30);
  }
  return n;
}

/** `t`, `T` or `\s` of a regular expression (WhiteSpace and LineTerminator). */
function isSeparator(code: number): boolean {
  return code === 0x74 || code === 0x54 || isWhiteSpace(code);
}
