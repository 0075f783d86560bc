/**
 * The JSON type the prose gives a value: rules over a sentence ("(integer)", "as a string", "String or number",
 * "List of ..."), and a docstring entry's declared type ("limit (int, optional):"), read as JSON Schema types.
 *
 * Pure: no I/O. Each pattern is linear: no nested quantifiers, bounded gaps.
 */
import type { JsonType, TypeCandidate } from './candidates.js';
import type { Rule } from './prose.js';
import { textBefore } from './prose-text.js';

/** A type named in English or by a programming language's name for it. */
const TYPE_WORD =
  String.raw`strings?|str|numbers?|floats?|doubles?|integers?|ints?|booleans?|bools?|` +
  String.raw`arrays?|lists?|objects?|dictionar(?:y|ies)|dicts?`;

function typeOfWord(word: string): JsonType | undefined {
  const w = word.toLowerCase().replace(/s$/, '');
  if (w === 'string' || w === 'str') return 'string';
  if (w === 'number' || w === 'float' || w === 'double') return 'number';
  if (w === 'integer' || w === 'int') return 'integer';
  if (w === 'boolean' || w === 'bool') return 'boolean';
  if (w === 'array' || w === 'list') return 'array';
  if (w === 'object' || w === 'dict' || w === 'dictionary' || w === 'dictionarie') return 'object';
  return undefined;
}

function typeCandidate(
  m: RegExpExecArray,
  rule: string,
  types: readonly (JsonType | undefined)[],
  strong: boolean,
  alternatives = false,
): TypeCandidate[] {
  const known = types.filter((t): t is JsonType => t !== undefined);
  if (known.length === 0) return [];
  return [
    { kind: 'type', types: [...new Set(known)], strong, alternatives, start: m.index, end: m.index + m[0].length, phrase: m[0], rule },
  ];
}

// As prose.ts's `re`: prose.ts reads these rules while it loads, so this module cannot call into it.
const re = (source: string): RegExp => new RegExp(source, 'gi');

/**
 * A verb earlier in the clause that speaks of what the tool does with a value, not of what is sent ("If true, returns
 * only the count of matched objects as an integer").
 */
const DONE_WITH =
  /\b(?:returns?|returned|returning|outputs?|displayed|shown|rendered|treated|interpreted|parsed|converted|cast|coerced|stored|saved|serialized|handled|sent|logged|printed|written|reported|exported|comes?\s+back)\b[^,;:.()]*$/i;

/**
 * A sentence that lists fields ("An object containing: - configFile: string - ...", "- ``email`` (str or list)"): a
 * type after a bullet or a quoted name is that field's, not the value's.
 */
const FIELD_BEFORE = /(?:^|\s)[-*•]\s+\S|[\x60'"][\w.]+[\x60'"]\s*[:(]?\s*$/;

/** "comma-separated list", "space-delimited": a list written inside a string. */
const LIST_IN_A_STRING = /\b(?:comma|space|semicolon|newline|pipe|tab|whitespace)[\s-]*(?:separated|delimited)\b|\bcsv\b/i;

export const TYPE_RULES: readonly Rule[] = [
  {
    name: 'type-in-parentheses',
    examples: {
      yes: ['Comment ID (integer).', 'Page size (int, optional)', 'Include archived (bool)'],
      no: ['Attachments: "content_id" (string) makes the attachment inline.', 'Entity ID (number) or hash (string)'],
    },
    // Said of the value only when a short label leads to it: later in a sentence it types something named there.
    matches: re(String.raw`\((?:optional\s*,\s*)?(${TYPE_WORD})(?:\s*,\s*optional)?\)`),
    yields: (m, s) => {
      if (m.index > 60) return [];
      const before = s.slice(0, m.index);
      if (!/^[\w\s-]*$/.test(before) || before.trim().split(/\s+/).length > 5) return [];
      if (/^\s*(?:or|and)\b/i.test(s.slice(m.index + m[0].length))) return [];
      return typeCandidate(m, 'type-in-parentheses', [typeOfWord(m[1] ?? '')], true);
    },
  },
  {
    name: 'type-as',
    examples: {
      yes: ['Daily budget in cents as a string.', 'Must be an integer between 1 and 100.', 'Headers, as a JSON object.'],
      no: [
        'An object containing: - configFile: string - The full contents of the config file as a string.',
        'Returns the changes as a list of diffs.',
        'If true, returns only the count of matched objects as an integer.',
        'The value is parsed as a number.',
        'Tags as a comma-separated list.',
        'The id as a number string.',
      ],
    },
    matches: re(
      String.raw`\b(?:as|must\s+be|should\s+be|needs\s+to\s+be|is\s+expected\s+to\s+be)\s+an?\s+` +
        String.raw`(?:(?:valid|single|plain)\s+)?(?:json\s+)?(string|number|integer|boolean|array|list|object|dictionary|dict)\b` +
        String.raw`(?![\s-]+(?:strings?|text|encoded|formatted|literal|representation)\b)`,
    ),
    yields: (m, s) => {
      const before = textBefore(s, m.index);
      if (DONE_WITH.test(before) || FIELD_BEFORE.test(before)) return [];
      const clause = s.slice(Math.max(0, m.index - 80), m.index + m[0].length + 80);
      if (typeOfWord(m[1] ?? '') === 'array' && LIST_IN_A_STRING.test(clause)) return [];
      return typeCandidate(m, 'type-as', [typeOfWord(m[1] ?? '')], true);
    },
  },
  {
    name: 'type-alternatives',
    examples: {
      yes: ['String or number.', 'Can be a single string or an array of strings.', 'Accepts an object or an array of objects.'],
      no: ['The page number or a list of page numbers.', 'Issue number or key.', '- ``email`` (str or list of str): Email address(es).'],
    },
    matches: re(String.raw`\b(?:an?\s+)?(?:single\s+)?(${TYPE_WORD})\s+or\s+(?:an?\s+)?(?:single\s+)?(${TYPE_WORD})\b`),
    yields: (m, s) => {
      // Said of the value: the sentence opens with it, or a verb offering it does ("accepts", "can be", "either").
      const before = textBefore(s, m.index);
      if (FIELD_BEFORE.test(before)) return [];
      if (!/^[\s(]*$|\b(?:accepts?|takes?|can\s+be|may\s+be|must\s+be|either|as|is)\s*$|[:(]\s*$/i.test(before)) return [];
      return typeCandidate(m, 'type-alternatives', [typeOfWord(m[1] ?? ''), typeOfWord(m[2] ?? '')], true, true);
    },
  },
  {
    name: 'type-true-false',
    examples: {
      yes: ['Development build (true/false)', 'Set to true or false.'],
      no: ["Either 'true' or 'false' as text.", 'Returns true if the file exists.', 'Fields: - `draft` (true/false), the state.'],
    },
    // Unquoted: "'true' or 'false'" names two strings, which the value-list rules read.
    matches: re(String.raw`(?<![\x60'"\w])true(?![\x60'"])\s*(?:\/|\bor\b)\s*false(?![\x60'"\w])`),
    yields: (m, s) => {
      const before = textBefore(s, m.index);
      if (/\breturns?\b/i.test(before) || FIELD_BEFORE.test(before)) return [];
      return typeCandidate(m, 'type-true-false', ['boolean'], true);
    },
  },
  // Weak: an opening that types a value the schema leaves open, and contradicts nothing the schema says.
  {
    name: 'type-list-of',
    examples: { yes: ['List of labels to add.', 'An array of user IDs.'], no: ['Comma-separated list of labels.', 'The list of labels.'] },
    matches: re(String.raw`^\s*(?:an?\s+)?(?:list|array)\s+of\b`),
    yields: (m, s) => (LIST_IN_A_STRING.test(s) ? [] : typeCandidate(m, 'type-list-of', ['array'], false)),
  },
  {
    name: 'type-whether',
    examples: { yes: ['Whether to include archived items.', 'If true, deletes the branch too.'], no: ['Filter whether archived.'] },
    matches: re(String.raw`^\s*(?:whether\b|if\s+(?:set\s+to\s+)?true\b|set\s+(?:this\s+)?to\s+true\b)`),
    yields: (m) => typeCandidate(m, 'type-whether', ['boolean'], false),
  },
  {
    name: 'type-count',
    examples: { yes: ['Number of results to return.', 'Maximum number of items.', 'How many rows to skip.'], no: ['The number to call.'] },
    matches: re(String.raw`^\s*(?:the\s+)?(?:(?:maximum|max|minimum|min|total)\s+)?number\s+of\b|^\s*how\s+many\b`),
    yields: (m) => typeCandidate(m, 'type-count', ['integer'], false),
  },
];

/**
 * The JSON types of a docstring's declared type ("str", "int, optional", "List[str]", "Optional[Dict[str, Any]]",
 * "str | None"), or undefined when any part of it is no type JSON has a name for (a class, "Any", a "Literal").
 */
export function annotationTypes(annotation: string): JsonType[] | undefined {
  const parts = splitTop(annotation.replace(/\boptional\b(?!\s*\[)/gi, ''), /[|,]|\bor\b/i)
    .map((p) => p.trim())
    .filter((p) => p !== '' && !/^default\b/i.test(p));
  if (parts.length === 0) return undefined;
  const types: JsonType[] = [];
  for (const part of parts) {
    const inner = /^(?:typing\.)?(Optional|Union)\s*\[(.*)\]$/i.exec(part);
    if (inner !== null) {
      const nested = annotationTypes(inner[2] ?? '');
      if (nested === undefined) return undefined;
      types.push(...nested, ...(inner[1]?.toLowerCase() === 'optional' ? (['null'] as const) : []));
      continue;
    }
    const type = ANNOTATION_TYPES.find(([pattern]) => pattern.test(part))?.[1];
    if (type === undefined) return undefined;
    types.push(type);
  }
  return [...new Set(types)];
}

const ANNOTATION_TYPES: readonly (readonly [RegExp, JsonType])[] = [
  [/^(?:str|string)$/i, 'string'],
  [/^(?:int|integer)$/i, 'integer'],
  [/^(?:float|number|double)$/i, 'number'],
  [/^(?:bool|boolean)$/i, 'boolean'],
  [/^(?:typing\.)?(?:list|sequence|tuple|set|array|iterable)(?:\s*\[.*\])?$/i, 'array'],
  [/^(?:typing\.)?(?:dict|mapping|object)(?:\s*\[.*\])?$/i, 'object'],
  [/^(?:none|null)$/i, 'null'],
];

/** `text` split at `separator` outside brackets. */
function splitTop(text: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '[' || ch === '(') depth++;
    else if ((ch === ']' || ch === ')') && depth > 0) depth--;
    else if (depth === 0) {
      const sep = separator.exec(text.slice(i, i + 3));
      if (sep !== null && sep.index === 0 && (sep[0] !== 'or' || /\s/.test(text[i - 1] ?? ' '))) {
        parts.push(text.slice(start, i));
        i += sep[0].length - 1;
        start = i + 1;
      }
    }
  }
  parts.push(text.slice(start));
  return parts;
}
