/**
 * Literal values in prose: the default a phrase names ("defaults to 10", "(default: `open`)") and lists of
 * values ("one of `a`, `b` or `c`").
 *
 * Pure: no I/O; deterministic.
 */
import type { JsonValue } from '../core/shared/json.js';
import type { DefaultCandidate, EnumCandidate } from './candidates.js';
import { isDigit, NUM, parseNumber, UNIT, unitOf } from './prose-text.js';

// ---------------------------------------------------------------------------------------------------------------
// Defaults

export const DYNAMIC_DEFAULT_WORDS = new Set([
  'the',
  'a',
  'an',
  'now',
  'today',
  'tomorrow',
  'current',
  'currently',
  'empty',
  'none',
  'nothing',
  'unset',
  'all',
  'any',
  'same',
  'caller',
  'user',
  'your',
  'their',
  'its',
  'this',
  'that',
  'whatever',
  'whichever',
  'system',
  'server',
  'unlimited',
  'infinity',
  'infinite',
  'auto',
  'auto-select',
  'auto-selected',
  'auto-detect',
  'auto-detected',
  'autodetect',
  'automatic',
  'automatically',
  'omitted',
  'blank',
  'whole',
  'every',
  'each',
  'one',
  'first',
  'last',
  'previous',
  'next',
  'most',
  'least',
  'our',
  'my',
  'his',
  'her',
]);

export const MEASURE_UNITS =
  /^(?:%|percent|ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|bytes?|kb|kib|mb|mib|gb|gib|kilobytes?|megabytes?|cents?|dollars?|euros?|pounds?|usd|eur|gbp|meters?|metres?|km|miles?|pixels?|px|pt|degrees?)$/i;

export const WORD_END_PUNCTUATION = new Set(['.', ',', ';', ':', ')', '!', '?']);

export function isTokenChar(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c === '_' || c === '.' || c === '+' || c === '/' || c === '-';
}

/**
 * The word a text starts with (`open` of `open.`), and the punctuation after it (`.`): same as
 * `/^([#@/]?[A-Za-z_][\w.+/-]*?)(?=[.,;:)!?]*(?:\s|$))([.,;:)!?]*)/`, by a scan that follows the regex. Its lazy
 * word grows one character at a time and the lookahead reads the punctuation after it each time, so a run of dots
 * (`a.....…#`) would be read once per dot: quadratic. Here a run of punctuation is read once: every position inside it
 * has the same end.
 */
export function leadingWord(text: string): { token: string; punctuation: string } | undefined {
  let first = 0;
  if (text.startsWith('#') || text.startsWith('@') || text.startsWith('/')) first = 1;
  const c = text.charAt(first);
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_')) return undefined;
  let runEnd = first + 1;
  while (runEnd < text.length && WORD_END_PUNCTUATION.has(text.charAt(runEnd))) runEnd++;
  for (let end = first + 1; ; end++) {
    // The lookahead at `end`: punctuation from `end` to `runEnd`, then whitespace or the end of the text.
    if (end > runEnd) {
      runEnd = end;
      while (runEnd < text.length && WORD_END_PUNCTUATION.has(text.charAt(runEnd))) runEnd++;
    }
    if (runEnd === text.length || /\s/.test(text.charAt(runEnd)))
      return { token: text.slice(0, end), punctuation: text.slice(end, runEnd) };
    // The lazy `[\w.+/-]*?` takes one more character.
    if (end >= text.length || !isTokenChar(text.charAt(end))) return undefined;
  }
}

/**
 * A condition right after a default's value ("true when changing time", "400 pixels for iOS", "'x' when y",
 * "'Event reminder' or 'Todo reminder' depending on ..."): the default of some calls only. "if omitted" and its kin
 * say what omitting means, which is the default itself.
 */
const CONDITIONAL_AFTER =
  /^\s+(?:or\s+(?:[\x60'"][^\x60'"\n]{0,60}[\x60'"]|[\w.-]+)\s*,?\s+(?:depending|based)\s+on\b|depending\s+on\b|based\s+on\b)|^\s+on\s+(?:create|creation|update|insert|new\s+[\w-]+)\b|^\s+(?:when|if|for)\s+(?!(?:omitted|not\s+(?:specified|provided|set|given|passed|supplied)|unset|unspecified|none|empty|all|each|every|the\s+(?:call|request|tool))\b|(?:security|safety|privacy|performance|speed|compatibility|backward\s+compatibility)\s*(?:$|[.;,)]))/i;

export function defaultCandidate(m: RegExpExecArray, sentence: string): DefaultCandidate[] {
  // "stops after KEYCLOAK_DEADLINE seconds (default 45)": the default of a setting of the server, not of a parameter.
  if (SETTING_BEFORE.test(sentence.slice(Math.max(0, m.index - 80), m.index))) return [];
  // Whatever the literal, a condition right after it makes it the default of some calls only.
  return readDefault(m, sentence).map((c) =>
    CONDITIONAL_AFTER.test(sentence.slice(c.end)) ? { ...c, literal: undefined, comparable: false } : c,
  );
}

/** An environment variable or constant (`KEYCLOAK_MAX_USERS`), maybe with its unit, just before a gloss. */
const SETTING_BEFORE = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b[\x60"']?(?:\s+[a-z]+)?\s*\(?\s*$/;

function readDefault(m: RegExpExecArray, sentence: string): DefaultCandidate[] {
  // "Default is boolean false": the type named before the literal.
  const typed = /^(?:boolean|bool|integer|number|string)\s+(?=true\b|false\b|[-−\d]|['"\x60])/i.exec(sentence.slice(m.index + m[0].length));
  const at = m.index + m[0].length + (typed?.[0].length ?? 0);
  const rest = sentence.slice(at);
  const base = { kind: 'default', start: m.index, rule: 'default' } as const;
  const quoted = /^(?:`([^`]*)`|"([^"]*)"|'([^']*)'|“([^”]*)”)/.exec(rest);
  if (quoted !== null) {
    const quotedText = quoted[1] ?? quoted[2] ?? quoted[3] ?? quoted[4] ?? '';
    // `ignoreMode='untilEscalating'`: the default is the value, not the assignment around it.
    const assignment = /^[A-Za-z_][\w.]*\s*=\s*(['"]?)([^'"]+)\1$/.exec(quotedText);
    const text = assignment?.[2] ?? quotedText;
    let literal: JsonValue = text;
    if (quoted[1] !== undefined && assignment === null) {
      try {
        literal = JSON.parse(text) as JsonValue;
      } catch {
        literal = text;
      }
    }
    const end = at + quoted[0].length;
    // "defaults to 'Fwd: <original subject>'": a template filled in per call, no one value.
    if (/<[A-Za-z][^<>]{0,40}>|\{[A-Za-z_][\w ]{0,40}\}/.test(text))
      return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal: undefined, comparable: false }];
    return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal, comparable: true }];
  }
  // "(default: 127.0.0.1)", "defaults to 1.2.3": an address or a version, text the schema holds, not a number.
  const dotted = /^\d+(?:\.\d+){2,}(?=[\s,;)]|\.(?:\s|$)|$)/.exec(rest);
  if (dotted !== null) {
    const end = at + dotted[0].length;
    return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal: dotted[0], comparable: true }];
  }
  const number = new RegExp(String.raw`^(${NUM})${UNIT}`, 'i').exec(rest);
  // "Default is 7-day click": a number joined to a word names a kind of thing, no number the schema holds.
  if (number !== null && /^[-−]?[\d.,]+-[A-Za-z]/.test(rest)) {
    const end = at + (/^[-−]?[\d.,]+-[A-Za-z]+/.exec(rest)?.[0].length ?? 0);
    return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal: undefined, comparable: false }];
  }
  if (number !== null && /^[-−\d]/.test(number[1] ?? '')) {
    const parsed = parseNumber(number[1] ?? '');
    if (parsed !== undefined) {
      const unit = unitOf(number[2], number[3]);
      const measured = unit !== undefined && MEASURE_UNITS.test(unit);
      const end = at + number[0].length;
      const glued = /^[-−\d.,]+[A-Za-z]+/.exec(rest)?.[0];
      return [
        {
          ...base,
          end,
          phrase: sentence.slice(m.index, end).trim(),
          literal: parsed.value,
          comparable: parsed.plain && !measured,
          ...(glued === undefined ? {} : { written: glued }),
          ...(measured && parsed.plain && glued === undefined ? { measure: unit } : {}),
        },
      ];
    }
  }
  // "Default: ['Sheet1']": a list of literals, in JSON or Python's quotes.
  const array = /^\[[^[\]{}\n]{1,200}\](?=\s*(?:[.,;)]|$)|\s+(?:when|if)\s+(?:omitted|not\s+(?:specified|provided|given|set))\b)/.exec(
    rest,
  );
  if (array !== null) {
    const literal = jsonList(array[0]);
    if (literal !== undefined) {
      const end = at + array[0].length;
      return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal, comparable: true }];
    }
  }
  // "(defaults to: {})": an empty object or list.
  const empty = /^(\{\s*\}|\[\s*\])(?=\s*(?:[.,;)]|$))/.exec(rest);
  if (empty !== null) {
    const end = at + empty[0].length;
    const literal = (empty[1] ?? '').startsWith('{') ? {} : [];
    return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal, comparable: true }];
  }
  const assigned = /^[A-Za-z_][\w.]*=(['"])([^'"]+)\1/.exec(rest);
  if (assigned !== null) {
    const end = at + assigned[0].length;
    return [{ ...base, end, phrase: sentence.slice(m.index, end).trim(), literal: assigned[2] ?? '', comparable: true }];
  }
  const word = leadingWord(rest);
  if (word === undefined) return [];
  const token = word.token;
  const end = at + token.length;
  const phrase = sentence.slice(m.index, end).trim();
  const lower = token.toLowerCase();
  const after = rest.slice(token.length);
  if (lower === 'true' || lower === 'false') return [{ ...base, end, phrase, literal: lower === 'true', comparable: true }];
  if (lower === 'null') return [{ ...base, end, phrase, literal: null, comparable: true }];
  // One word followed by punctuation or the end: a literal ("defaults to open."). Several words ("defaults to
  // the current user", "defaults to open issues only") or a word that names no value: the prose describes a
  // default the schema cannot state.
  const single = /^(?:[.,;:)!?]|\s*\(|\s*$|\s+(?:and|or|but|if|when|unless|which|so)\b)/.test(after) || word.punctuation !== '';
  // "Defaults to AWS_REGION or us-east-1", "Defaults to eleven_v2 or environment variable MODEL_ID": the first that is
  // set, a fallback chain no one `default` states.
  const fallback = /^\s+or\s+(?!(?:the|a|an)\b)[\w.:/-]+\s*(?:[.,;)]|$)|^\s+or\s+(?:(?:the|an?)\s+)?env(?:ironment)?\s+var/i.test(after);
  // "(Default: unknown-organization)": a placeholder the server prints when nothing is configured, no value to send.
  const sentinel = /^(?:unknown|undefined|unset|not[-_]set|n\/a)(?:[-_]|$)/.test(lower);
  if (!single || fallback || sentinel || /'s$/.test(lower)) return [{ ...base, end, phrase, literal: undefined, comparable: false }];
  // "(default: all)": a word that usually says what omitting means ("all", "now"), a value only where the schema lists it.
  if (DYNAMIC_DEFAULT_WORDS.has(lower)) return [{ ...base, end, phrase, literal: token, comparable: true, listedOnly: true }];
  return [{ ...base, end, phrase, literal: token, comparable: true }];
}

/** `["a", 1]` or Python's `['a', 1]` as a JSON list; undefined when it is not a list of literals. */
function jsonList(text: string): JsonValue[] | undefined {
  const json = text.includes('"') ? text : text.replaceAll("'", '"');
  try {
    const parsed = JSON.parse(json) as JsonValue;
    return Array.isArray(parsed) && parsed.every((v) => v === null || typeof v !== 'object') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Value lists

/** Words that start a phrase rather than a list of values ("one of the user's accounts"). */
export const LIST_STOP_WORDS = new Set([
  'the',
  'a',
  'an',
  'these',
  'those',
  'following',
  'its',
  'their',
  'your',
  'our',
  'this',
  'that',
  'any',
  'all',
  'each',
  'every',
  'several',
  'many',
  'some',
  'two',
  'three',
  'four',
  'five',
  'them',
  'us',
  'you',
  'it',
  'his',
  'her',
  'my',
  'way',
  'case',
  'not',
  'no',
  'be',
  'set',
  'provided',
  'given',
  'specified',
  'used',
  'at',
  'in',
  'on',
  'greater',
  'less',
  'more',
  'fewer',
  'between',
  'positive',
  'negative',
  'non-negative',
  'non-empty',
  'empty',
  'unique',
  'valid',
  'present',
  'called',
  'sent',
  'included',
  'omitted',
  'supplied',
  'passed',
  'exactly',
  'either',
  'both',
  'neither',
  'true',
  'false',
  'null',
  'none',
  'earlier',
  'later',
  'before',
  'after',
  'within',
  'from',
]);

export interface ParsedList {
  readonly values: string[];
  readonly quoted: boolean;
  readonly end: number;
  /** The separators seen (`,`, `or`, `and`, `/`, `|`; ", or" is `or`). */
  readonly separators: string[];
  /** True when the list was written as a JSON or Python array (`['a', 'b']`), which may be a value of an array. */
  readonly array?: boolean;
}

/**
 * Parses a list of values starting at `from`: quoted/backticked values, or bare single words, separated by
 * commas, "or", "and", "/" or "|". A value may carry a parenthetical gloss ("`asc` (ascending)"). A bare list must
 * end where the clause ends, so "one of low, medium or high priority tasks" is not a list of values.
 */
export function parseValueList(text: string, from: number): ParsedList | undefined {
  let at = from;
  const filler = /^\s*:?\s*(?:the\s+following(?:\s+(?:values|options|strings|codes|names|keywords))?\s*:?\s*)?/i.exec(text.slice(at));
  at += filler?.[0].length ?? 0;
  // "One of: (table, wide, yaml)", "Supported values are: ['a', 'b']": the list in brackets, which must close it.
  const opening = /^[[(]\s*/.exec(text.slice(at));
  at += opening?.[0].length ?? 0;
  const values: string[] = [];
  const separators: string[] = [];
  let quoted = true;
  for (let i = 0; i < 64; i++) {
    const rest = text.slice(at);
    // An empty pair of quotes is a value too: "'dead', or '' for all".
    const q = /^(?:`([^`]+)`|"([^"]*)"|'([^']*)'|“([^”]+)”)/.exec(rest);
    if (q !== null) {
      values.push(q[1] ?? q[2] ?? q[3] ?? q[4] ?? '');
      at += q[0].length;
    } else {
      // A dotted name is one value ("payments.card", "G.1X", "v1.2").
      const bare = /^[A-Za-z0-9_][\w+-]*(?:\.[A-Za-z0-9_][\w+-]*)*/.exec(rest);
      if (bare === null) break;
      // A word in capitals is a value ("One of NONE, SUPERSCRIPT", "A, AAAA, CNAME"), never a word of the phrase
      // around a list.
      const capitals = /^[A-Z][A-Z0-9_]+$/.test(bare[0]) || (bare[0] === 'A' && /^\s*,\s*[A-Z]{2,}\b/.test(rest.slice(1)));
      const stop = LIST_STOP_WORDS.has(bare[0].toLowerCase()) && !capitals && separators.at(-1) !== '|';
      if (values.length === 0 && stop) return undefined;
      if (stop && bare[0].toLowerCase() !== 'true' && bare[0].toLowerCase() !== 'false' && bare[0].toLowerCase() !== 'null') break;
      values.push(bare[0]);
      quoted = false;
      at += bare[0].length;
    }
    const gloss = /^\s*\([^()]*\)/.exec(text.slice(at));
    if (gloss !== null) at += gloss[0].length;
    // "或" is "or" in Chinese ("'in'或'out'", "'in', 'out', 或 'both'"), "、" a comma.
    const separator = /^(?:\s*,\s*(?:or\s+|and\s+|或者?\s*)?|\s+or\s+|\s+and\s+|\s*或者?\s*|\s*、\s*|\s*\/\s*|\s*\|\s*)/i.exec(
      text.slice(at),
    );
    if (separator === null) break;
    const next = text.slice(at + separator[0].length);
    if (!/^(?:[`"'“]|[A-Za-z0-9_])/.test(next)) break;
    // "a, b or c, depending on ...": a comma followed by a non-value word ends the list; so does a participle that
    // opens a clause ("c, defaulting to c"), or "and" before a verb ("view, comment, edit and is a separate scale").
    if (
      /^[a-z]+ing\s+(?:to|on|with|by|from|in)\b/.test(next) ||
      (/\band\s*$/i.test(separator[0]) && /^(?:is|are|must|should|can|has|have)\b/i.test(next))
    )
      break;
    // "open | closed | all": after a pipe, any word is a value.
    if (!/^[`"'“]/.test(next) && !/\|\s*$/.test(separator[0])) {
      const written = /^[A-Za-z0-9_][\w+-]*/.exec(next)?.[0] ?? '';
      const word = written.toLowerCase();
      if (LIST_STOP_WORDS.has(word) && !/^[A-Z][A-Z0-9_]+$/.test(written) && word !== 'true' && word !== 'false' && word !== 'null') break;
    }
    // ", or" and ", and" are the word: "a, b, or c" is a list closed by "or".
    const sep = separator[0].trim().toLowerCase();
    separators.push(/(?:\bor|或者?)$/.test(sep) ? 'or' : /\band$/.test(sep) ? 'and' : sep === '、' ? ',' : sep || ' ');
    at += separator[0].length;
  }
  if (values.length < 2) return undefined;
  if (opening !== null) {
    const closing = (opening[0].startsWith('[') ? /^\s*\]/ : /^\s*\)/).exec(text.slice(at));
    if (closing === null) return undefined;
    at += closing[0].length;
  }
  if (!quoted) {
    // A bare list ends with the clause: end of text, punctuation, a parenthesis, a dash (or two), or "and" before a verb.
    if (!/^(?:\s*$|\s*[.;:,!?)(—–]|\s+--?\s|\s+and\s+(?:is|are|must|should|can|has|have)\b)/i.test(text.slice(at))) return undefined;
  }
  return { values, quoted, end: at, separators, ...(opening?.[0].startsWith('[') === true ? { array: true } : {}) };
}

/** An identifier, not a word: `mp3_44100_128`, `eu-west-1`, `GitRepository`, `h264`. */
const IDENTIFIER_LIKE =
  /^(?:[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+|[A-Za-z]+\d\w*|[A-Z]+[a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z]\w*)$/;

/**
 * Identifiers by spaces alone after "one of" ("Must be one of: mp3_22050_32 mp3_44100_32 pcm_16000", "one of
 * GitRepository OCIRepository Bucket"): three or more that end the sentence, most of them identifiers, not words.
 */
function spacedIdentifiers(trigger: string, sentence: string, from: number): ParsedList | undefined {
  if (!/^one\s+of/.test(trigger)) return undefined;
  const run = /^\s*:?\s*([A-Za-z][\w-]*(?:[ \t]+[A-Za-z][\w-]*){2,63})(?=\s*(?:[.;)]|$))/.exec(sentence.slice(from));
  if (run === null) return undefined;
  const values = (run[1] ?? '').split(/[ \t]+/);
  if (values.filter((v) => IDENTIFIER_LIKE.test(v)).length * 3 < values.length * 2) return undefined;
  return { values, quoted: false, end: from + run[0].length, separators: values.slice(1).map(() => ' ') };
}

/**
 * One quoted value that ends its clause after "must be" or "allowed values:" ('Must be "image".', "Allowed values:
 * 'popularity' - sort by members"): the only value, an enum of one.
 */
function singleValue(trigger: string, sentence: string, from: number): ParsedList | undefined {
  if (!/^(?:must|allowed|valid|possible|accepted|supported|permitted)/.test(trigger)) return undefined;
  const q = /^\s*(?:`([^`\n]{1,60})`|"([^"\n]{1,60})"|'([^'\n]{1,60})')(?=\s*(?:[.;,)]|$|\s[-—–]\s))/.exec(sentence.slice(from));
  if (q === null) return undefined;
  return { values: [q[1] ?? q[2] ?? q[3] ?? ''], quoted: true, end: from + q[0].length, separators: [] };
}

/** A verb of holding right before "one of": the list names what the value contains (a key, a member). */
const HOLDS_BEFORE = /\b(?:include|includes|contain|contains|have|has|hold|holds)\s+(?:exactly\s+|at\s+least\s+)?$/i;

/** Words after a list that leave it open ("..., etc.", "and more", "among others"): examples, not every value. */
const OPEN_LIST_TAIL = /^\s*,?\s*(?:etc\b|and\s+(?:more|others|so\s+on)\b|among\s+others\b|\.\.\.|…)/i;

export function enumCandidate(m: RegExpExecArray, sentence: string): EnumCandidate[] {
  const trigger = m[0].toLowerCase();
  // "Valid values include: a, b, c": some of the values, not all of them.
  if (/\binclude\b/.test(trigger)) return [];
  const list =
    parseValueList(sentence, m.index + m[0].length) ??
    spacedIdentifiers(trigger, sentence, m.index + m[0].length) ??
    singleValue(trigger, sentence, m.index + m[0].length);
  if (list === undefined) return [];
  if (list.values.some((v) => v.toLowerCase() === 'etc') || OPEN_LIST_TAIL.test(sentence.slice(list.end))) return [];
  if (/^either/.test(trigger) && !list.separators.includes('or')) return [];
  if (/^(?:must|only|accept|can)/.test(trigger) && !list.quoted) return [];
  // 'Accepts ["tagA", "tagB"]': an array shown as a value; only a list of values ("Supported values: [...]") lists them.
  if (list.array === true && !/values?|one\s+of/.test(trigger)) return [];
  // "Must include one of GrokClassifier, ... or CsvClassifier": what the value holds, not what it is.
  if (/^one/.test(trigger) && HOLDS_BEFORE.test(sentence.slice(Math.max(0, m.index - 40), m.index))) return [];
  return [
    {
      kind: 'enum',
      values: list.values,
      quoted: list.quoted,
      start: m.index,
      end: list.end,
      phrase: sentence.slice(m.index, list.end).trim(),
      rule: 'one-of',
    },
  ];
}
