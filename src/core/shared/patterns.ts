/**
 * Schema patterns (`pattern`, `patternProperties`, `propertyNames`) run by a linear-time engine (re2js, a pure
 * JavaScript port of RE2), never by V8's backtracking one: a schema's nested quantifier (`^(a+)+$`) would
 * otherwise be exponential in a value the model sends. Pure: no I/O, no state beyond a {@link PatternMeter}.
 *
 * JSON Schema patterns are ECMAScript regular expressions (ajv compiles them with the `u` flag). They are
 * translated to RE2 syntax with ECMAScript's meaning kept where the two differ: `\s` and `.` name ECMAScript's
 * characters (RE2's `\s` is ASCII, its `.` matches `\r`), every literal and class member is written as a code
 * point, `\u` escapes (and surrogate pairs) become `\x{...}`, `\p{Script=Greek}` becomes `\p{Greek}`. What RE2
 * cannot run in linear time (backreferences, lookahead and lookbehind, repeat counts over 1000) is refused with
 * an {@link UnsupportedPatternError} naming the pattern and the construct.
 */
import { RE2JS } from 're2js';

/** A compiled pattern: `test` finds a match anywhere in the string, as `RegExp.prototype.test` does. */
export interface LinearPattern {
  test(text: string): boolean;
}

/** A syntactically valid pattern that the linear-time engine cannot run. */
export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly construct: string,
  ) {
    super(`pattern ${JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}...` : pattern)} uses ${construct}`);
    this.name = 'UnsupportedPatternError';
  }
}

/** Thrown by {@link PatternMeter.charge} once a call's pattern work passes its budget. */
export class PatternBudgetError extends Error {
  constructor(readonly budget: number) {
    super(`the schema's patterns would scan more than ${budget} characters for one call`);
    this.name = 'PatternBudgetError';
  }
}

/**
 * Most pattern work one call may do, in characters scanned plus {@link PATTERN_TEST_OVERHEAD} a test, in the
 * validator and in the RT-TOOL-8 plan each: `patternProperties` test every pattern on every key, so 2,000 patterns
 * times 40,000 keys would otherwise block for a minute. 4,000,000 lets every string of a 1 MiB record meet three
 * patterns; past it the validator refuses the call (`tool_schema_unusable`, `pattern_budget_exceeded`) in a
 * fraction of a second.
 */
export const MAX_PATTERN_WORK_PER_CALL = 4_000_000;

/** What one pattern test costs beyond the characters it scans: the engine's set-up, in characters. */
export const PATTERN_TEST_OVERHEAD = 16;

/**
 * Counts the work of pattern tests (characters scanned, plus {@link PATTERN_TEST_OVERHEAD} a test) against a
 * budget: `patternProperties` run every pattern on every key, so a schema's pattern count times a call's key
 * count is otherwise unbounded. Reset before each call.
 */
export class PatternMeter {
  private used = 0;

  constructor(readonly budget: number) {}

  reset(): void {
    this.used = 0;
  }

  /** True once the budget is spent. */
  get spent(): boolean {
    return this.used > this.budget;
  }

  /** Counts one test of `text`; false once the budget is spent (the test is then not to be run). */
  tryCharge(text: string): boolean {
    this.used += text.length + PATTERN_TEST_OVERHEAD;
    return this.used <= this.budget;
  }

  /** Counts one test of `text`; throws {@link PatternBudgetError} once the budget is spent. */
  charge(text: string): void {
    if (!this.tryCharge(text)) throw new PatternBudgetError(this.budget);
  }
}

/**
 * Compiles an ECMAScript (`u` flag) pattern for the linear-time engine.
 *
 * @throws SyntaxError when the pattern is not a valid ECMAScript regular expression (as `new RegExp` throws it).
 * @throws UnsupportedPatternError when it is valid but needs backtracking (backreferences, lookaround), or RE2
 *   refuses its translation (a repeat count over 1000, an unknown Unicode property).
 */
export function compileLinearPattern(pattern: string, meter?: PatternMeter): LinearPattern {
  // V8 parses (without running) to give ECMAScript's own verdict and message on a malformed pattern.
  new RegExp(pattern, 'u');
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(translatePattern(pattern));
  } catch (error) {
    if (error instanceof UnsupportedPatternError) throw error;
    const text = error instanceof Error ? error.message : String(error);
    throw new UnsupportedPatternError(pattern, `a construct the linear-time engine refuses (${text.slice(0, 200)})`);
  }
  if (meter === undefined) return { test: (text) => engine.test(text) };
  return {
    test: (text) => {
      meter.charge(text);
      return engine.test(text);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Translation, ECMAScript (u flag, no other flag) to RE2

type Range = readonly [number, number];

const MAX_CODE_POINT = 0x10ffff;
/** ECMAScript's WhiteSpace and LineTerminator: what `\s` matches. */
const SPACE: readonly Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const DIGIT: readonly Range[] = [[0x30, 0x39]];
const WORD: readonly Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** What `.` does not match without the `s` flag: ECMAScript's line terminators. */
const LINE_TERMINATORS: readonly Range[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

/** The complement of sorted, disjoint ranges, within the code points. */
function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

const hex = (code: number): string => `\\x{${code.toString(16)}}`;
const rangesText = (ranges: readonly Range[]): string => ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('');

const CLASS_ESCAPES: Readonly<Record<string, readonly Range[]>> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};
const DOT = `[${rangesText(complement(LINE_TERMINATORS))}]`;

/** ECMAScript's long General_Category names, for RE2, which knows the short ones only. */
const CATEGORY_NAMES: Readonly<Record<string, string>> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

const SYNTAX_CHARACTERS = '^$\\.*+?()[]{}|/';

/** Reads a pattern one code point at a time, as the `u` flag reads it. */
class Reader {
  index = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.index >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.index + offset] ?? '';
  }

  startsWith(prefix: string): boolean {
    return this.text.startsWith(prefix, this.index);
  }

  /** The next code point (a surrogate pair is one). */
  codePoint(): number {
    const code = this.text.codePointAt(this.index) ?? 0;
    this.index += code > 0xffff ? 2 : 1;
    return code;
  }
}

/** Translates a pattern that `new RegExp(pattern, 'u')` accepts; throws UnsupportedPatternError otherwise. */
export function translatePattern(pattern: string): string {
  const reader = new Reader(pattern);
  let out = '';
  while (!reader.done) {
    const char = reader.peek();
    if (char === '\\') out += translateEscape(reader, pattern, false);
    else if (char === '[') out += translateClass(reader, pattern);
    else if (char === '(') out += translateGroup(reader, pattern);
    else if (char === '.') {
      reader.index++;
      out += DOT;
    } else if (char === '{') {
      // A quantifier (the u flag refuses a lone brace): `{n}`, `{n,}`, `{n,m}` mean the same in both.
      const end = pattern.indexOf('}', reader.index);
      out += pattern.slice(reader.index, end + 1);
      reader.index = end + 1;
    } else if ('^$|)*+?'.includes(char)) {
      // Anchors, alternation and quantifiers mean the same in both.
      reader.index++;
      out += char;
    } else {
      const code = reader.codePoint();
      out += /[A-Za-z0-9]/.test(char) ? char : hex(code);
    }
  }
  return out === '' ? '(?:)' : out;
}

function translateGroup(reader: Reader, pattern: string): string {
  if (reader.startsWith('(?:')) {
    reader.index += 3;
    return '(?:';
  }
  for (const look of ['(?=', '(?!', '(?<=', '(?<!']) {
    if (reader.startsWith(look)) throw new UnsupportedPatternError(pattern, `a lookaround assertion "${look}...)"`);
  }
  if (reader.startsWith('(?<')) {
    const end = pattern.indexOf('>', reader.index);
    const name = pattern.slice(reader.index + 3, end);
    reader.index = end + 1;
    // RE2 names are ASCII words; ECMAScript's may hold any identifier letter, which is all the same to a test.
    return /^\w+$/.test(name) ? `(?P<${name}>` : '(';
  }
  if (reader.startsWith('(?')) throw new UnsupportedPatternError(pattern, 'a group modifier "(?...)"');
  reader.index++;
  return '(';
}

/** One escape outside a class (`inClass` false: the text to emit) or inside one (the ranges or `\p{}` text). */
function translateEscape(reader: Reader, pattern: string, inClass: boolean): string {
  reader.index++; // the backslash
  const char = reader.peek();
  const classEscape = CLASS_ESCAPES[char];
  if (classEscape !== undefined) {
    reader.index++;
    return inClass ? rangesText(classEscape) : `[${rangesText(classEscape)}]`;
  }
  if (char === 'b' || char === 'B') {
    reader.index++;
    // Inside a class `\b` is a backspace; outside, a word boundary, ASCII in both engines (no `i` flag).
    return inClass ? (char === 'b' ? hex(8) : 'B') : `\\${char}`;
  }
  if (char === 'p' || char === 'P') return translateProperty(reader, pattern, char);
  if (/[1-9]/.test(char) || char === 'k') throw new UnsupportedPatternError(pattern, `a backreference "\\${char}..."`);
  return hex(escapedCodePoint(reader));
}

/** The code point an escape (after its backslash) stands for: control, hex, unicode and identity escapes. */
function escapedCodePoint(reader: Reader): number {
  const char = reader.peek();
  const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0, '-': 0x2d };
  if (Object.hasOwn(simple, char)) {
    reader.index++;
    return simple[char] as number;
  }
  if (char === 'c') {
    const letter = reader.peek(1);
    reader.index += 2;
    return letter.charCodeAt(0) % 32;
  }
  if (char === 'x') {
    const code = Number.parseInt(reader.text.slice(reader.index + 1, reader.index + 3), 16);
    reader.index += 3;
    return code;
  }
  if (char === 'u') return unicodeEscape(reader);
  if (SYNTAX_CHARACTERS.includes(char)) {
    reader.index++;
    return char.charCodeAt(0);
  }
  // The u flag allows no other escape, and every pattern is compiled by V8 first, which refuses it.
  return reader.codePoint();
}

/** `\u{...}`, `\uXXXX`, and a `\uXXXX\uXXXX` surrogate pair, which the u flag reads as one code point. */
function unicodeEscape(reader: Reader): number {
  if (reader.peek(1) === '{') {
    const end = reader.text.indexOf('}', reader.index);
    const code = Number.parseInt(reader.text.slice(reader.index + 2, end), 16);
    reader.index = end + 1;
    return code;
  }
  const high = Number.parseInt(reader.text.slice(reader.index + 1, reader.index + 5), 16);
  reader.index += 5;
  if (
    high >= 0xd800 &&
    high <= 0xdbff &&
    reader.startsWith('\\u') &&
    /^[0-9A-Fa-f]{4}$/.test(reader.text.slice(reader.index + 2, reader.index + 6))
  ) {
    const low = Number.parseInt(reader.text.slice(reader.index + 2, reader.index + 6), 16);
    if (low >= 0xdc00 && low <= 0xdfff) {
      reader.index += 6;
      return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
    }
  }
  return high;
}

function translateProperty(reader: Reader, pattern: string, char: 'p' | 'P'): string {
  const end = reader.text.indexOf('}', reader.index);
  const body = reader.text.slice(reader.index + 2, end);
  reader.index = end + 1;
  const [name, value] = body.includes('=') ? (body.split('=') as [string, string]) : [undefined, body];
  let re2Name: string;
  if (name === undefined) re2Name = CATEGORY_NAMES[value] ?? value;
  else if (name === 'General_Category' || name === 'gc') re2Name = CATEGORY_NAMES[value] ?? value;
  else if (name === 'Script' || name === 'sc') re2Name = value;
  else throw new UnsupportedPatternError(pattern, `the Unicode property "\\${char}{${body}}"`);
  return `\\${char}{${re2Name}}`;
}

function translateClass(reader: Reader, pattern: string): string {
  reader.index++; // `[`
  const negated = reader.peek() === '^';
  if (negated) reader.index++;
  let body = '';
  let empty = true;
  while (reader.peek() !== ']') {
    empty = false;
    let from: number;
    if (reader.peek() === '\\') {
      const escape = translateEscape(reader, pattern, true);
      // A class escape (\d, \p{...}) stands for a set: it cannot start a range (the u flag refuses `[\d-z]`).
      if (!/^\\x\{[0-9a-f]+\}$/.test(escape)) {
        body += escape;
        continue;
      }
      from = Number.parseInt(escape.slice(3, -1), 16);
    } else from = reader.codePoint();
    if (reader.peek() === '-' && reader.peek(1) !== ']' && reader.peek(1) !== '') {
      reader.index++;
      let to: number;
      if (reader.peek() === '\\') {
        const escape = translateEscape(reader, pattern, true);
        to = Number.parseInt(escape.slice(3, -1), 16);
      } else to = reader.codePoint();
      body += `${hex(from)}-${hex(to)}`;
    } else body += hex(from);
  }
  reader.index++; // `]`
  // `[]` matches nothing and `[^]` anything: RE2 has no such classes, so they are written as ranges.
  if (empty) return negated ? `[${hex(0)}-${hex(MAX_CODE_POINT)}]` : `[^${hex(0)}-${hex(MAX_CODE_POINT)}]`;
  return `[${negated ? '^' : ''}${body}]`;
}
