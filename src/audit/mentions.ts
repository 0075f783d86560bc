/**
 * Which parameter a sentence of the tool description speaks of (by name, by its words), and the rules about several
 * parameters at once ("at least one of", "together", "mutually exclusive").
 *
 * Pure: no I/O.
 */
import type { JsonObject } from '../core/shared/json.js';
import type { Candidate } from './candidates.js';
import { FindingList, json, quote } from './findings.js';
import { CLAUSE_CHARS, escapeRegExp, lastSeparator, textBefore } from './prose-text.js';
import { MEASURE_UNITS, parseValueList } from './prose-values.js';
import { ITEM_UNITS, LENGTH_UNITS, singular, words } from './prose.js';
import { type AuditNode, listedValues, type SchemaView } from './schema-nav.js';

export interface Mention {
  readonly parameter: string;
  readonly start: number;
  readonly end: number;
}

/** Words too generic to stand for a parameter on their own (`row_id` is not mentioned by "id"). */
export const GENERIC_HEADS = new Set([
  'id',
  'ids',
  'name',
  'names',
  'type',
  'types',
  'value',
  'values',
  'data',
  'text',
  'key',
  'keys',
  'mode',
  'kind',
  'list',
  'item',
  'items',
  'info',
  'flag',
  'flags',
  'option',
  'options',
  'field',
  'fields',
  'max',
  'min',
  'num',
  'number',
  'count',
  'size',
  'limit',
  'code',
  'codes',
  'url',
  'path',
  'time',
  'date',
  'at',
  'by',
  'on',
  'to',
  'from',
  'in',
  'of',
  'is',
  'for',
  'new',
  'old',
  'all',
  'any',
  'one',
]);

/** Parameter names that are everyday function words: only a quoted or backticked mention counts. */
export const FUNCTION_WORDS = new Set([
  'to',
  'from',
  'in',
  'on',
  'at',
  'by',
  'for',
  'of',
  'as',
  'is',
  'or',
  'and',
  'if',
  'with',
  'before',
  'after',
  'since',
  'until',
  'a',
  'an',
  'the',
  'it',
  'all',
  'any',
  'not',
  'no',
  'be',
  'do',
  'up',
  'out',
  'over',
  'under',
]);

/** The words of an identifier: `from_account` → from, account; `clientId` → client, id. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .map((t) => t.toLowerCase())
    .filter((t) => t !== '');
}

/** The name a node goes by: a list's items go by the list's name (`paper_ids` items are ids). */
export function nodeName(node: AuditNode): string {
  return node.name === 'items' ? node.parameter : node.name;
}

/** The last word of the name a node goes by (`cell_id` → `id`, `paper_ids` items → `ids`). */
export function lastNameWord(node: AuditNode): string {
  return nameTokens(nodeName(node)).at(-1) ?? '';
}

/** The last words of a parameter that names a thing by its identifier (`paper_id`, `commitSha`, `requestUuid`). */
export const IDENTIFIER_ONLY: ReadonlySet<string> = new Set(['id', 'ids', 'uuid', 'guid', 'sha', 'hash', 'digest']);

export function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** One regular expression per top-level parameter, matching the ways prose names it. */
export function mentionMatchers(topLevel: readonly AuditNode[]): Map<string, RegExp> {
  const heads = new Map<string, number>();
  for (const node of topLevel) {
    const tokens = nameTokens(node.parameter);
    const head = tokens.at(-1);
    if (tokens.length > 1 && head !== undefined) heads.set(head, (heads.get(head) ?? 0) + 1);
  }
  const matchers = new Map<string, RegExp>();
  for (const node of topLevel) {
    const name = node.parameter;
    if (name.trim() === '') continue;
    const aliases: string[] = [];
    const tokens = nameTokens(name);
    if (FUNCTION_WORDS.has(name.toLowerCase())) {
      matchers.set(name, new RegExp(`[\`"'“]${escapeRegExp(name)}[\`"'”]`, 'gi'));
      continue;
    }
    aliases.push(escapeRegExp(name));
    if (tokens.length === 1 && /^[a-z]+$/i.test(name))
      aliases.push(escapeRegExp(plural(name.toLowerCase())), escapeRegExp(singular(name.toLowerCase())));
    if (tokens.length > 1) {
      const spaced = tokens.map(escapeRegExp).join(String.raw`[\s_-]+`);
      const last = tokens.at(-1) ?? '';
      aliases.push(spaced, [...tokens.slice(0, -1).map(escapeRegExp), escapeRegExp(plural(last))].join(String.raw`[\s_-]+`));
      if (
        last.length >= 4 &&
        !GENERIC_HEADS.has(last) &&
        heads.get(last) === 1 &&
        !topLevel.some((n) => n.parameter.toLowerCase() === last)
      ) {
        aliases.push(escapeRegExp(last), escapeRegExp(plural(last)));
      }
    }
    const unique = [...new Set(aliases)].sort((a, b) => b.length - a.length);
    matchers.set(name, new RegExp(`(?<![\\w-])(?:${unique.join('|')})(?![\\w-])`, 'gi'));
  }
  return matchers;
}

/** Mentions in a sentence, longest first where they overlap ("per page" over "page"). */
export function findMentions(sentence: string, matchers: ReadonlyMap<string, RegExp>): Mention[] {
  const all: Mention[] = [];
  for (const [parameter, pattern] of matchers) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(sentence); m !== null; m = pattern.exec(sentence)) {
      all.push({ parameter, start: m.index, end: m.index + m[0].length });
    }
  }
  all.sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  // Kept mentions do not overlap and come in order, so the last one ends furthest: only it can overlap the next.
  const kept: Mention[] = [];
  for (const mention of all) {
    const last = kept.at(-1);
    if (last !== undefined && mention.start < last.end) continue;
    kept.push(mention);
  }
  return kept;
}

/** The index of the first item for which `past` holds, `items.length` if none; `past` must hold from some index on. */
function firstIndex<T>(items: readonly T[], past: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (past(items[mid] as T)) high = mid;
    else low = mid + 1;
  }
  return low;
}

export function wordsBetween(sentence: string, from: number, to: number): number {
  return from >= to ? 0 : words(sentence.slice(from, to)).length;
}

/** How much of a span {@link fewWordsBetween} reads first: ample for a few words. */
const FEW_WORDS_CHARS = 1024;

/**
 * `wordsBetween(...) <= max`, reading the span's first {@link FEW_WORDS_CHARS} characters first: over `max` words
 * there means over `max` in all, so a long sentence of many candidates is not read whole for each of them.
 */
export function fewWordsBetween(sentence: string, from: number, to: number, max: number): boolean {
  if (to - from > FEW_WORDS_CHARS && wordsBetween(sentence, from, from + FEW_WORDS_CHARS) > max) return false;
  return wordsBetween(sentence, from, to) <= max;
}

/**
 * The parameters a candidate in the tool description speaks of, if the sentence says: the nearest mention before
 * it (with the mentions coordinated with that one: "check_in and check_out must be ..."), else one right after it.
 */
export function attribute(candidate: Candidate, sentence: string, mentions: readonly Mention[], topLevel: readonly AuditNode[]): string[] {
  // Mentions come in order without overlapping (findMentions), so their ends are in order too: each of these is
  // one binary search, not a walk over every mention for every candidate.
  let precedingCount = firstIndex(mentions, (m) => m.end > candidate.start);
  // "relation_type (required for RELATION) is one of: ...": a name inside a gloss is not what the clause speaks of.
  const glossStart = glossBefore(sentence, candidate.start);
  if (glossStart !== undefined) {
    const outside = firstIndex(mentions, (m) => m.end > glossStart);
    if (outside > 0) precedingCount = outside;
  }
  const nearest = precedingCount > 0 ? mentions[precedingCount - 1] : undefined;
  // "At least one parameter (other than limit) must be provided": a name set apart is not what the clause speaks of.
  const before =
    nearest !== undefined && SET_APART.test(sentence.slice(Math.max(0, nearest.start - 24), nearest.start)) ? undefined : nearest;
  const after = mentions[firstIndex(mentions, (m) => m.start >= candidate.end)];
  const first = mentions[firstIndex(mentions, (m) => m.start >= candidate.start)];
  // "property_type is one of: TEXT, OPTION": a value of the list that happens to name a parameter is a value.
  const isValue = (m: Mention): boolean =>
    candidate.kind === 'enum' &&
    candidate.values.some((v) => singular(v.toLowerCase()) === singular(sentence.slice(m.start, m.end).toLowerCase()));
  const inside = first !== undefined && first.end <= candidate.end && !isValue(first) ? first : undefined;
  const withCoordinated = (last: Mention): string[] => {
    const names = [last.parameter];
    for (let i = precedingCount - 2; i >= 0; i--) {
      const current = mentions[i];
      const next = mentions[i + 1];
      if (current === undefined || next === undefined) break;
      if (!/^\s*(?:,|and|or|,\s*and|,\s*or)\s*(?:the\s+)?$/i.test(sentence.slice(current.end, next.start).replace(/[`"']/g, ''))) break;
      names.unshift(current.parameter);
    }
    return [...new Set(names)];
  };
  // "Requires 'name' and 'url'": every name the first one is coordinated with by "and" (not "or": that is a choice).
  const withFollowing = (first: Mention): string[] => {
    const names = [first.parameter];
    for (let i = mentions.indexOf(first); i + 1 < mentions.length; i++) {
      const current = mentions[i];
      const next = mentions[i + 1];
      if (current === undefined || next === undefined) break;
      if (!/^\s*(?:,|and|,\s*and)\s*(?:the\s+)?$/i.test(sentence.slice(current.end, next.start).replace(/[`"']/g, ''))) break;
      names.push(next.parameter);
    }
    return [...new Set(names)];
  };
  if (candidate.kind === 'required') {
    if (candidate.subject === 'after')
      return after !== undefined && fewWordsBetween(sentence, candidate.end, after.start, 2) ? withFollowing(after) : [];
    return before !== undefined && fewWordsBetween(sentence, before.end, candidate.start, 4) ? withCoordinated(before) : [];
  }
  if (candidate.kind === 'optional') {
    return before !== undefined && fewWordsBetween(sentence, before.end, candidate.start, 2) ? [before.parameter] : [];
  }
  if (inside !== undefined) return [inside.parameter];
  if (conditionalClause(sentence, candidate.start)) return [];
  if (before !== undefined && fewWordsBetween(sentence, before.end, candidate.start, 8)) return withCoordinated(before);
  if (
    after !== undefined &&
    fewWordsBetween(sentence, candidate.end, after.start, 2) &&
    !/[;:.,]/.test(sentence.slice(candidate.end, after.start))
  )
    return [after.parameter];
  // "Dates are ISO 8601 (YYYY-MM-DD)": a plural class as the subject speaks of every parameter named for that class.
  const subject = candidate.kind === 'format' ? CLASS_SUBJECT.exec(sentence) : null;
  if (subject !== null) {
    const head = singular((subject[1] ?? '').toLowerCase());
    const owners = topLevel.filter((node) => nameTokens(node.parameter).at(-1) === head);
    if (owners.length > 0) return owners.map((node) => node.parameter);
  }
  // By its words: "use at most 1000 rows" speaks of the one parameter whose name or description says "rows".
  if (candidate.kind === 'bound' && candidate.unit !== undefined && !MEASURE_UNITS.test(candidate.unit)) {
    const unit = singular(candidate.unit);
    if (unit.length < 3 || GENERIC_HEADS.has(unit)) return [];
    const owners = topLevel.filter((node) => vocabulary(node).has(unit));
    const owner = owners.length === 1 ? owners[0] : undefined;
    if (owner !== undefined) return [owner.parameter];
  }
  return [];
}

/** Words that set a name apart from what a clause speaks of, right before it: "other than `limit`", "except page". */
const SET_APART = /\b(?:other\s+than|except(?:\s+for)?|besides|apart\s+from|excluding|but\s+not)\s*[\x60"']?$/i;

/** "Dates are ...", "All timestamps must be ...": a plural noun opening the sentence as its subject. */
const CLASS_SUBJECT = /^\s*(?:all\s+)?([A-Za-z]{3,}s)\s+(?:are|must\s+be|should\s+be)\b/i;

/** Where a parenthesized gloss starts when one ends right before `at` ("name (...) is one of"), else undefined. */
function glossBefore(sentence: string, at: number): number | undefined {
  const head = sentence.slice(Math.max(0, at - 200), at);
  const m = /\([^()]{1,120}\)\s*(?:(?:is|are)\s+)?$/.exec(head);
  return m === null ? undefined : at - head.length + m.index;
}

/**
 * The tool description speaks of many things besides parameters ("returns at most 50 issues"): a bound attributed
 * from it must say what it counts in the parameter's own words, unless the parameter is a number. "Use at most
 * 1000 rows" fits `max_rows` ("rows") and a `limit` described as "Number of rows"; "at most 50 issues" does not
 * fit `labels`.
 */
export function toolClaimFits(node: AuditNode, candidate: Candidate): boolean {
  // "as a string" in a sentence that names a parameter may type any value the sentence speaks of; "Must include:
  // version, layers" may be said of any object the sentence names.
  if (candidate.kind === 'type' || candidate.kind === 'requiredKeys') return false;
  if (candidate.kind !== 'bound' || candidate.fromWord) return true;
  const cls = unitClass(candidate.unit);
  const view = node.view;
  const isNumber = view.types === undefined || view.types.has('number') || view.types.has('integer');
  if (cls === 'length' || cls === 'bytes' || cls === 'items' || cls === 'properties') return true;
  if (candidate.unit === undefined) return isNumber;
  const unit = singular(candidate.unit);
  return vocabulary(node).has(unit) || (isNumber && cls === 'measure');
}

const vocabularies = new WeakMap<AuditNode, ReadonlySet<string>>();

/**
 * The words a parameter is known by (its name's tokens and its description's words, singular), read once per node:
 * every candidate of a long description asks for them.
 */
function vocabulary(node: AuditNode): ReadonlySet<string> {
  let known = vocabularies.get(node);
  if (known === undefined) {
    known = new Set([...nameTokens(node.parameter), ...words(node.view.description ?? '')].map(singular));
    vocabularies.set(node, known);
  }
  return known;
}

/** How much of a clause's start {@link conditionalClause} reads. */
const CLAUSE_HEAD_CHARS = 64;

/** A candidate inside "if ..."/"when ..." states when something happens, not a constraint. */
export function conditionalClause(sentence: string, at: number): boolean {
  const separator = lastSeparator(sentence, at - 1);
  // A clause that starts further back than a separator is looked for is no "if ..." clause.
  if (separator === -1 && at - 1 > CLAUSE_CHARS) return false;
  const clauseStart = separator + 1;
  // The clause's first words decide; read no more of it (a long one would be read whole for every candidate).
  return /^\s*(?:if|when|whenever|unless|once|while|for\s+example|e\.g\.)\b/i.test(
    sentence.slice(clauseStart, Math.min(at, clauseStart + CLAUSE_HEAD_CHARS)),
  );
}

/**
 * A candidate in a parameter's own description that speaks of another parameter ("When `limit` is above 100 ...")
 * or sits in a conditional clause is not about this parameter.
 */
export function ownClaimBelongsElsewhere(candidate: Candidate, sentence: string, node: AuditNode, topLevel: readonly AuditNode[]): boolean {
  if (candidate.kind === 'enum' && namesParameters(candidate.values, topLevel)) return true;
  const others = topLevel.filter((n) => n.parameter !== node.parameter && n.parameter !== node.name);
  const prefix = textBefore(sentence, candidate.start);
  const quotedBefore = others.some((other) =>
    // "Raise ``size`` (max 200)": a constraint right after another parameter's quoted name, or glossing it, is its.
    new RegExp(`[\`"']${escapeRegExp(other.parameter)}[\`"']{1,2},?\\s+(?:\\w+\\s+){0,3}\\(?$`, 'i').test(prefix),
  );
  if (candidate.kind === 'required' || candidate.kind === 'optional') {
    // "Must be after `start`, which is required": the requirement is about `start`.
    if (candidate.kind === 'required' && candidate.subject === 'after') {
      const suffix = sentence.slice(candidate.end);
      // "Must include a 'type' field": a requirement on the value's contents, not on the parameter.
      if (/^\s+(?:an?\s+|the\s+)?[`"']?[\w-]+[`"']?\s+(?:field|property|key|attribute|entry|column|member)s?\b/i.test(suffix)) return true;
      // "Must include instance groups or ..." of an object: its contents, which its own keywords describe.
      if (/\b(?:include|contain)$/i.test(candidate.phrase) && holdsOnly(node, 'object')) return true;
      return others.some((other) => new RegExp(`^\\s+(?:the\\s+)?[\`"']${escapeRegExp(other.parameter)}[\`"']`, 'i').test(suffix));
    }
    return quotedBefore;
  }
  if (conditionalClause(sentence, candidate.start)) return true;
  // "Each task: {title: str, priority: int (0-5)}": inside an object written out, a constraint is of one of its keys.
  if (candidate.kind !== 'requiredKeys' && OPEN_OBJECT_SPEC.test(prefix)) return true;
  // "ListParams object containing: - limit: Number of results (default 20)": in a list of an object's keys, a value
  // said after a key is that key's.
  if (candidate.kind !== 'requiredKeys' && holdsOnly(node, 'object') && KEY_BULLET.test(prefix)) return true;
  return quotedBefore;
}

/** A bullet naming a key ("- limit: ", "- name (str): ") with no sentence end after it. */
const KEY_BULLET = /(?:^|\s)[-*]\s+[A-Za-z_][\w.]*(?:\s*\([^()\n]{0,40}\))?:[^.;\n]*$/;

/** An object written out key by key and not yet closed at the end of the text: "{title: str, priority: int ". */
const OPEN_OBJECT_SPEC = /\{\s*['"]?\w+['"]?\??\s*:[^{}]*$/;

/** A node of `type`, or of `type` or null, and nothing else: an object one is a parameter whose text speaks of its keys. */
function holdsOnly(node: AuditNode, type: string): boolean {
  const types = node.view.types;
  return types !== undefined && types.has(type) && [...types].every((t) => t === type || t === 'null');
}

export function namesParameters(values: readonly string[], topLevel: readonly AuditNode[]): boolean {
  const names = new Set(topLevel.map((n) => n.parameter.toLowerCase()));
  // Two names among many values ("Valid sets: all, ..., firewall, graders, ...") are values that share a word with
  // parameters; a list of parameters is mostly names.
  const named = values.filter((v) => names.has(v.toLowerCase())).length;
  return named >= 2 && named * 2 >= values.length;
}

/**
 * The object a rule across its properties is said of, and where its home goes: the input schema (`parameter` null),
 * or an object a parameter holds (itself, or its items).
 */
export interface GroupHolder {
  readonly parameter: string | null;
  readonly label: string;
  readonly location: string;
  readonly pointer: string;
  readonly view: SchemaView;
}

/**
 * Rules about several parameters (or several properties of one object) at once, whose homes are keywords of the
 * object that holds them:
 * - "at least one of `email` or `phone` must be provided": `anyOf` of `required` lists;
 * - "exactly one of `a` or `b`", "provide query or runId, not both": `oneOf` of `required` lists;
 * - "`start` and `end` must be provided together": `dependentRequired` (draft-07: `dependencies`);
 * - "`cursor` and `page` are mutually exclusive", "X cannot be used with Y": `not` of a `required` list.
 * Returns true when the sentence states one, so its "required" is not read as a requirement of each name.
 */
export function groupRule(
  text: string,
  topLevel: readonly AuditNode[],
  root: JsonObject,
  holder: GroupHolder,
  findings: FindingList,
  fromTool: boolean,
  self?: string,
  following = '',
): boolean {
  // reStructuredText quotes names in double backticks (``repo_id``): read as one quote.
  const sentence = text.replace(/``/g, '`');
  let found = false;
  const namesIn = (values: readonly string[]): string[] => {
    const out: string[] = [];
    for (const v of values) {
      const node = topLevel.find((n) => n.parameter.toLowerCase() === v.toLowerCase());
      if (node !== undefined && !out.includes(node.parameter)) out.push(node.parameter);
    }
    return out;
  };
  const hasHome = (keywords: readonly string[]): boolean =>
    keywords.some((k) =>
      (holder.view.keywords.get(k) ?? []).some(
        (site) => site.pointer === holder.pointer || site.pointer.startsWith(`${holder.pointer}/allOf`),
      ),
    );
  const draft07 = typeof root.$schema === 'string' && /draft-0[467]/.test(root.$schema);
  const where = holder.parameter === null ? 'at the root of the input schema' : `on "${holder.label}"`;
  const report = (keyword: string, names: readonly string[], set: JsonObject, what: string): void => {
    found = true;
    findings.add(
      'prose-only',
      holder.parameter,
      keyword,
      holder.location,
      holder.pointer,
      quote(sentence),
      `Encode the rule in the schema: ${json(set).replace(/^\{|\}$/g, '')} ${where}, so a ` +
        `${holder.parameter === null ? 'call' : 'value'} that ${what} of ${names.map((n) => `"${n}"`).join(', ')} is rejected.`,
      { confidence: fromTool ? 'high' : 'medium', fix: hasHome([keyword]) ? undefined : { pointer: holder.pointer, set } },
    );
  };
  const ALL_HOMES = ['anyOf', 'oneOf', 'dependentRequired', 'dependencies', 'if', 'not', 'minProperties'];

  const trigger =
    /\b(at\s+least\s+one\s+of|exactly\s+one\s+of|only\s+one\s+of|one\s+of|either|(?:provide|pass|specify|use|set|give|send|supply)\s+(?:either\s+|only\s+)?)\s*/gi;
  // What holds of the whole sentence is read once, not once per trigger: a long sentence of triggers stays linear.
  const notBoth = /\bnot\s+both\b|\bbut\s+not\b|\bnot\s+(?:all|several)\b/i.test(sentence);
  const asksForValues = /\b(?:must|required|requires|provide|specify|give|pass|supply|include|needed|set|use)\b/i.test(sentence);
  // "Either a or b must be provided. If both are provided, a takes precedence.": the next sentence may allow both.
  const bothAllowedSaid = BOTH_ALLOWED.test(sentence) || BOTH_ALLOWED.test(following);
  const lastAtMostOne = lastMatchStart(AT_MOST_ONE, sentence);
  /** The clause after a trigger, up to the first of `stops`, read from a bounded stretch of the text. */
  const clauseAfter = (at: number, stops: RegExp): string =>
    (sentence.slice(at, at + CLAUSE_CHARS).split(stops)[0] ?? '').split(/\b(?:must|should|is|are|has|have|needs?)\b/i)[0] ?? '';
  for (let m = trigger.exec(sentence); m !== null; m = trigger.exec(sentence)) {
    const verbTrigger = /^(?:provide|pass|specify|use|set|give|send|supply)/i.test(m[1] ?? '');
    const list = parseValueList(sentence, m.index + m[0].length);
    let values = list !== undefined && namesParameters(list.values, topLevel) ? list.values : undefined;
    // "Either name or uid is required", "Requires either uid or name parameter": the two names the clause mentions.
    if (values === undefined && /^either/i.test(m[1] ?? '')) {
      const clause = clauseAfter(m.index + m[0].length, /[;,.]/);
      const named = [...new Set(findMentions(clause, mentionMatchers(topLevel)).map((x) => x.parameter))];
      // "Either this OR `reference_dataset_id`", in a parameter's own text: this one is the first of the two.
      if (self !== undefined && /^\s*(?:this|it)\b/i.test(clause) && !named.includes(self)) named.unshift(self);
      if (named.length === 2 && /\sor\s/i.test(clause)) values = named;
      // "Either dataset_id, dataset_name, or example_ids must be provided": names joined by commas and "or" alone.
      else values = namesByOr(clauseAfter(m.index + m[0].length, /[;.]/), topLevel);
    }
    // Named in words or broken by glosses ("either a user handle (...) or a member number (...), not both"): the
    // parameters the rest of the clause mentions, only where the sentence says it is exactly one.
    if (values === undefined && (notBoth || /^(?:exactly|only|at\s+least)/i.test(m[1] ?? ''))) {
      // The names up to the verb that says what is asked of them ("cores, memory, or disk_size must be provided").
      const clause = clauseAfter(m.index + m[0].length, /;/);
      const named = [...new Set(findMentions(clause, mentionMatchers(topLevel)).map((x) => x.parameter))];
      if (named.length >= 2) values = named;
    }
    if (values === undefined) continue;
    // "Provide either `url` or `scrapeId`", "either a or b must be given": either ... or of two names is one of them.
    // Names read from the clause's mentions were joined by "or" (checked where they were read).
    const namedByOr = values !== list?.values || list.separators.includes('or');
    const eitherOr = /either\s*$/i.test(m[1] ?? '') && values.length === 2 && namedByOr;
    if (verbTrigger && !notBoth && !eitherOr) continue;
    // "Only one of voice_id or voice_name can be provided": at most one, so none is fine too (`not` of both).
    if (/^only/i.test(m[1] ?? '') && lastAtMostOne >= m.index) {
      found = true;
      const names = namesIn(values);
      if (!hasHome(ALL_HOMES) && names.length >= 2) {
        const not = names.length === 2 ? { required: names } : { anyOf: pairs(names).map((pair) => ({ required: pair })) };
        report('not', names, { not }, 'sends several');
      }
      continue;
    }
    if (!verbTrigger && !asksForValues) continue;
    found = true;
    // "uid takes priority if both are given": both may be sent, so at least one (`anyOf`), not exactly one.
    // "Requires either uid or name": a requirement of one at least; nothing says the other is refused.
    const bothAllowed = bothAllowedSaid || /\brequires?\s+$/i.test(sentence.slice(Math.max(0, m.index - 40), m.index));
    const exactlyOne = !bothAllowed && (verbTrigger || /^(?:exactly|only)/i.test(m[1] ?? '') || notBoth || eitherOr);
    const keyword = exactlyOne ? 'oneOf' : 'anyOf';
    if (hasHome(ALL_HOMES)) continue;
    const names = namesIn(values);
    report(keyword, names, { [keyword]: names.map((name) => ({ required: [name] })) }, exactlyOne ? 'sends none or several' : 'sends none');
  }

  // "Show a NAT section by name or UID (at least one is required)": at least one of the parameters named before.
  const atLeastOne = found ? null : AT_LEAST_ONE_OF_NAMED.exec(sentence);
  if (atLeastOne !== null) {
    const names = [...new Set(findMentions(sentence.slice(0, atLeastOne.index), mentionMatchers(topLevel)).map((x) => x.parameter))];
    if (names.length >= 2) {
      found = true;
      if (!hasHome(ALL_HOMES)) report('anyOf', names, { anyOf: names.map((name) => ({ required: [name] })) }, 'sends none');
    }
  }

  // In the tool's description, "At least one filter must be provided" names no parameter: at least one of the
  // optional parameters it refers to (those without a default, less the paging ones).
  if (self === undefined && !found && AT_LEAST_ONE_UNNAMED.test(sentence)) {
    const names = topLevel
      // A default of null (pydantic's optional) is no value: such a parameter is still one the caller may give or not.
      .filter((n) => !holder.view.required.has(n.parameter) && !hasValueDefault(n.view) && !PAGING.test(n.parameter))
      .map((n) => n.parameter);
    if (names.length >= 2) {
      found = true;
      if (!hasHome(ALL_HOMES)) report('anyOf', names, { anyOf: names.map((name) => ({ required: [name] })) }, 'sends none');
    }
  }

  // "`start` and `end` must be provided together", "are required together"
  const together = TOGETHER.exec(sentence);
  if (together !== null) {
    const listed = together[1] ?? together[2] ?? together[3] ?? '';
    const names = namesIn(listed.split(/\s*(?:,|\band\b)\s*/i).map((n) => n.replace(/[`"']/g, '').trim()));
    if (names.length >= 2) {
      found = true;
      const keyword = draft07 ? 'dependencies' : 'dependentRequired';
      if (!hasHome(ALL_HOMES) && !names.every((n) => holder.view.required.has(n))) {
        const set = { [keyword]: Object.fromEntries(names.map((n) => [n, names.filter((o) => o !== n)])) };
        report(keyword, names, set, 'sends only some');
      }
    }
  }

  // In a parameter's own description, "Must be provided with `start`", "(...; requires font_family)": this one needs
  // the other.
  const needs = self === undefined ? null : (NEEDS_SELF.exec(sentence) ?? REQUIRES_SELF.exec(sentence));
  // "'csv/table-uni' for unidirectional (requires source parameter)": said of one value of this one, an `if`.
  const ofValue = needs !== null && /['"\x60][^'"\x60]+['"\x60][^.;]*$/.test(sentence.slice(0, needs.index + 1));
  if (needs !== null && self !== undefined && !ofValue) {
    const names = namesIn([self, (needs[1] ?? needs[2] ?? '').replace(/[`"']|\.+$/g, '')]);
    const [own, other] = names;
    if (names.length === 2 && own !== undefined && other !== undefined) {
      found = true;
      const keyword = draft07 ? 'dependencies' : 'dependentRequired';
      // "Requires flight_datetime_to." when that one is required anyway: the schema already holds the rule.
      if (!hasHome(ALL_HOMES) && !holder.view.required.has(other))
        report(keyword, names, { [keyword]: { [own]: [other] } }, `sends "${own}" without "${other}"`);
    }
  }

  // In a parameter's own description, "Required if `sort_order` is specified": the other needs this one;
  // "Required unless `queries` is provided": this one or the other.
  const requiredIf = self === undefined ? null : REQUIRED_IF_SELF.exec(sentence);
  if (requiredIf !== null && self !== undefined) {
    const names = namesIn([self, (requiredIf[2] ?? '').replace(/[`"']|\.+$/g, '')]);
    const [own, other] = names;
    if (names.length === 2 && own !== undefined && other !== undefined) {
      found = true;
      // "unless X is provided" and "if X is not provided": this one or the other. A gloss in parentheses, "(required
      // if amount_off is passed)", is a conditional requirement the audit leaves to the handler (docs/audit.md).
      if (/^unless$/i.test(requiredIf[1] ?? '') !== (requiredIf[3] !== undefined)) {
        if (!hasHome(ALL_HOMES)) report('anyOf', names, { anyOf: names.map((name) => ({ required: [name] })) }, 'sends none');
      } else if (!requiredIf[0].trimStart().startsWith('(')) {
        const keyword = draft07 ? 'dependencies' : 'dependentRequired';
        if (!hasHome(ALL_HOMES) && !holder.view.required.has(own))
          report(keyword, names, { [keyword]: { [other]: [own] } }, `sends "${other}" without "${own}"`);
      }
    }
  }

  // "`cursor` and `page` are mutually exclusive", "`a` cannot be combined with `b`"
  const exclusive = EXCLUSIVE.exec(sentence);
  if (exclusive !== null) {
    const names = namesIn([exclusive[1] ?? exclusive[3] ?? '', exclusive[2] ?? exclusive[4] ?? ''].map((n) => n.replace(/[`"']/g, '')));
    if (names.length === 2) {
      found = true;
      if (!hasHome(ALL_HOMES)) report('not', names, { not: { required: names } }, 'sends both');
    }
  }
  // In a parameter's own description, "Cannot be combined with `cursor`" is said of that parameter.
  const withSelf = self === undefined ? null : EXCLUSIVE_SELF.exec(sentence);
  // The name ends the clause: "cannot be used with element screenshots" names no parameter.
  // A list ("mutually exclusive with `a`, `b`, and `c`") is read below, name by name.
  const endsClause =
    withSelf !== null &&
    /^\s*(?:[.;()]|,(?!\s*(?:(?:and|or)\s+)?[\x60"']?[A-Za-z_][\w.-]*[\x60"']?\s*(?:[,.;)]|and\b|or\b|$))|$)/.test(
      sentence.slice(withSelf.index + withSelf[0].length),
    );
  if (withSelf !== null && endsClause && self !== undefined && exclusive === null) {
    const other = withSelf[1] ?? withSelf[2] ?? withSelf[3] ?? withSelf[4] ?? withSelf[5] ?? '';
    const names = namesIn([self, other.replace(/[`"']|\.+$/g, '')]);
    if (names.length === 2) {
      found = true;
      if (!hasHome(ALL_HOMES)) report('not', names, { not: { required: names } }, 'sends both');
    }
  }
  // In the tool's text, "via `add_tags`/`remove_tags` (mutually exclusive with `tags`)": each named before it.
  const glossed = self === undefined ? GLOSSED_EXCLUSIVE.exec(sentence) : null;
  if (glossed !== null && exclusive === null) {
    const pieces = (glossed[1] ?? '').split('/').map((n) => n.trim().replace(/[\x60"']/g, ''));
    const subjects = namesIn(pieces);
    const [other] = namesIn([(glossed[2] ?? '').replace(/[\x60"']/g, '')]);
    if (other !== undefined && subjects.length === pieces.length && !subjects.includes(other)) {
      found = true;
      const set =
        subjects.length === 1
          ? { not: { required: [...subjects, other] } }
          : { not: { anyOf: subjects.map((subject) => ({ required: [subject, other] })) } };
      if (!hasHome(ALL_HOMES)) report('not', [...subjects, other], set, 'sends both');
    }
  }
  // In a parameter's own description, "(not compatible with `a` and `b`)": this one with none of the others.
  const incompatible = self === undefined ? null : NOT_COMPATIBLE_SELF.exec(sentence);
  if (incompatible !== null && self !== undefined && !found) {
    const pieces = (incompatible[1] ?? '')
      .trim()
      .split(/\s*,\s*|\s+(?:and|or|nor)\s+/)
      .map((n) => n.replace(/[\x60"']/g, '').replace(/^(?:and|or|the)\s+|\s+(?:parameters?|fields?|options?|arguments?)$/gi, ''))
      .filter((n) => n !== '');
    const others = namesIn(pieces).filter((n) => n !== self);
    const own = namesIn([self])[0];
    // A flag is incompatible only when it is on: `false` with the other is fine, so no plain `not` of the pair.
    const flag = topLevel.find((n) => n.parameter === own)?.view.types?.has('boolean') === true;
    if (own !== undefined && !flag && others.length > 0 && others.length === pieces.length) {
      found = true;
      const set =
        others.length === 1
          ? { not: { required: [own, ...others] } }
          : { not: { anyOf: others.map((other) => ({ required: [own, other] })) } };
      if (!hasHome(ALL_HOMES)) report('not', [own, ...others], set, `sends "${own}" with any`);
    }
  }
  return found;
}

/**
 * "(not compatible with `a` and `b`)", "Incompatible with x.", "Cannot be used with a, b, or c.": said in the
 * parameter's own text, a list of names.
 */
const NOT_COMPATIBLE_SELF =
  /(?:^|\(|[.;:,]\s)\s*(?:(?:this|it)\s+(?:is\s+)?)?(?:not\s+compatible|incompatible|mutually\s+exclusive|(?:cannot|can't|must\s+not|may\s+not)\s+be\s+(?:used|combined|set|passed|provided)(?:\s+together)?)\s+with\s+([^.;()]{1,200})/i;

/** "EXACTLY ONE of these THREE options must be used", "only one of the following ways". */
const OPTIONS_INTRO =
  /\b(?:exactly|only)\s+one\s+of\s+(?:these|the\s+following)\s+(?:\w+\s+)?(?:options|ways|modes|forms|combinations)\b[^\n]*/i;
/** "Option 1 - Project slug and branch:", "Option B: direct URL". */
const OPTION_HEADER = /^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?option[ \t]+(?:\d+|[A-Z])\b[^\n]*$/gim;
/** A bullet naming a parameter: "- projectSlug: the project slug", "* `branch` - the branch". */
const OPTION_BULLET = /^[ \t]*[-*][ \t]+\x60?([A-Za-z_][\w.]*)\x60?[ \t]*(?::|[ \t]-[ \t])/gm;

/**
 * Options spelled out as blocks: an intro ("EXACTLY ONE of these THREE options must be used") and then "Option N"
 * headers, each with bullets naming the parameters it takes. The home is a `oneOf` of each block's `required`
 * list, on the object that declares every name: the input itself, or one object parameter (`params`).
 */
export function optionBlocks(
  text: string,
  rootView: SchemaView,
  nodes: readonly AuditNode[],
  findings: FindingList,
  fromTool: boolean,
): void {
  const intro = OPTIONS_INTRO.exec(text);
  if (intro === null) return;
  const rest = text.slice(intro.index + intro[0].length);
  const headers = [...rest.matchAll(OPTION_HEADER)];
  if (headers.length < 2) return;
  const blocks: string[][] = [];
  for (const [i, header] of headers.entries()) {
    const from = header.index + header[0].length;
    let body = rest.slice(from, headers[i + 1]?.index ?? rest.length);
    // The last block ends where the text leaves its bullets: a blank line and then a line that is not one.
    const after = /\n[ \t]*\n(?![ \t]*[-*])/.exec(body);
    if (after !== null) body = body.slice(0, after.index);
    const names = [...new Set([...body.matchAll(OPTION_BULLET)].map((m) => m[1] ?? ''))];
    if (names.length === 0) return;
    blocks.push(names);
  }
  const all = [...new Set(blocks.flat())];
  const holders: GroupHolder[] = [
    { parameter: null, label: '', location: '', pointer: '', view: rootView },
    ...nodes.map((n) => ({ parameter: n.parameter, label: n.label, location: n.location, pointer: n.pointer, view: n.view })),
  ];
  const holder = holders.find((h) => all.every((name) => h.view.properties.has(name)));
  if (holder === undefined) return;
  if (['oneOf', 'anyOf', 'if', 'not', 'dependentRequired', 'dependencies'].some((k) => holder.view.keywords.has(k))) return;
  const set = { oneOf: blocks.map((names) => ({ required: names })) };
  const where = holder.parameter === null ? 'the root of the input schema' : `"${holder.parameter}"`;
  findings.add(
    'prose-only',
    holder.parameter,
    'oneOf',
    holder.location,
    holder.pointer,
    quote(intro[0].trim()),
    `Encode the options in the schema: ${json(set).replace(/^\{|\}$/g, '')} on ${where}, so a call that uses none ` +
      `of them, or several, is rejected.`,
    { confidence: fromTool ? 'medium' : 'low', fix: { pointer: holder.pointer, set } },
  );
}

/** A parameter name as prose writes it, bare or quoted. */
const NAME = String.raw`[\x60"']?[A-Za-z_][\w.-]*[\x60"']?`;

/**
 * Where a name may start: not inside a token or just after its opening quote, where the name from the token's
 * start already covers it. Each token is then tried once, not from each of its characters (quadratic on a long
 * word); the leftmost match, and so the result, is the same.
 */
const TOKEN_START = String.raw`(?:(?=[A-Za-z_])(?<![A-Za-z_][\w.-]*?|[\x60"'])|(?=[\x60"']))`;

/** Where a list of names may start: also not after an item of a list, which the list's first item already covers. */
const LIST_START = String.raw`${TOKEN_START}(?<![A-Za-z_][\w.-]*?[\x60"']?\s*,\s*)`;

const NAME_LIST = String.raw`${LIST_START}(?:${NAME}\s*,\s*)*${NAME}\s+and\s+${NAME}`;

/**
 * "At least one filter must be provided", "at least one field is required", "Provide at least one search
 * criterion": at least one of the optional parameters, none named ("at least one of X or Y" names them).
 */
const AT_LEAST_ONE_UNNAMED =
  /\bat\s+least\s+one\s+(?:(?:writable|updatable|editable|optional|other|mutable)\s+)?(?:filter|field|parameter|argument|option|criterion|criteria|search\s+criterion|property|update|change)s?\s+(?:must\s+be\s+(?:provided|given|specified|set|supplied|passed|included)|is\s+required|(?:needs|has)\s+to\s+be\s+(?:provided|given|specified|set))\b|\b(?:provide|specify|pass|supply|give|set|include)\s+at\s+least\s+one\s+(?:(?:writable|updatable|editable|optional|other|mutable)\s+)?(?:filter|field|parameter|argument|option|criterion|search\s+criterion|property|change)\b(?!\s+of\b)/i;

/** A `default` other than null: what omitting the parameter means, so it is no filter a caller must pick. */
function hasValueDefault(view: SchemaView): boolean {
  return (view.keywords.get('default') ?? []).some((site) => site.value !== null);
}

/** Paging and result-size parameters: no filter or field a caller means by "at least one". */
const PAGING = /^(?:limit|cursor|page|offset|per_?page|page_?size|page_?token|next_?token|max_?results|after|before)$/i;

/** "`start` and `end` must be provided together", "are required together". */
const TOGETHER = new RegExp(
  String.raw`(${NAME_LIST})\s+(?:must|should|have\s+to|need\s+to)\s+(?:be\s+)?` +
    String.raw`(?:provided|used|given|passed|specified|set|sent|supplied)\s+together\b|` +
    // "always use city AND state together"
    String.raw`\b(?:always\s+)?(?:use|provide|pass|send|specify)\s+(${NAME_LIST})\s+together\b|` +
    String.raw`(${NAME_LIST})\s+are\s+(?:required|needed)\s+together\b`,
  'i',
);

/** "`add_tags`/`remove_tags` (mutually exclusive with `tags`)": names, then a gloss that excludes another. */
const GLOSSED_EXCLUSIVE = new RegExp(
  String.raw`(${TOKEN_START}${NAME}(?:\s*\/\s*${NAME}){0,4})\s*\(\s*(?:mutually\s+exclusive|not\s+(?:together|combined))\s+` +
    String.raw`with\s+(${NAME})\s*\)`,
  'i',
);

/** "`cursor` and `page` are mutually exclusive", "query and item_key cannot be combined", "`a` cannot be combined with `b`". */
const EXCLUSIVE = new RegExp(
  String.raw`(${TOKEN_START}${NAME})\s+and\s+(${NAME})\s+(?:are\s+mutually\s+exclusive|(?:cannot|can't|must\s+not|may\s+not)\s+be\s+` +
    String.raw`(?:combined|used\s+together|set\s+together|passed\s+together|provided\s+together))\b|` +
    String.raw`(${TOKEN_START}${NAME})\s+(?:cannot|can't|must\s+not|may\s+not)\s+be\s+` +
    String.raw`(?:used|combined|set|passed|provided)\s+(?:together\s+)?with\s+(${NAME})`,
  'i',
);

/** "only one of a or b can be provided", "may be set at a time": permission for one, so at most one. */
const AT_MOST_ONE = /\b(?:can|may|could)\s+be\s+(?:provided|given|specified|set|used|passed|supplied|sent)\b|\bat\s+a\s+time\b/i;

/** Where the last match of `pattern` in `text` starts; -1 when there is none. */
function lastMatchStart(pattern: RegExp, text: string): number {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  let last = -1;
  for (let m = global.exec(text); m !== null; m = global.exec(text)) {
    last = m.index;
    if (m[0] === '') global.lastIndex++;
  }
  return last;
}

/** Every pair of the names, in order. */
function pairs(names: readonly string[]): string[][] {
  return names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b]));
}

/** The parameters a clause names as "a, b, or c" (nothing but commas and "or" between the names), else undefined. */
function namesByOr(clause: string, topLevel: readonly AuditNode[]): string[] | undefined {
  const mentions = findMentions(clause, mentionMatchers(topLevel));
  if (mentions.length < 3) return undefined;
  const gaps = mentions.slice(1).map((m, i) => clause.slice(mentions[i]?.end ?? 0, m.start).replace(/[\x60"']/g, ''));
  if (!gaps.every((gap) => /^\s*(?:,|,?\s*or)\s*$/i.test(gap)) || !/\bor\s*$/i.test(gaps.at(-1) ?? '')) return undefined;
  const names = [...new Set(mentions.map((m) => m.parameter))];
  return names.length === mentions.length ? names : undefined;
}

/** "if both are given", "takes priority", "in order of precedence": both parameters may be sent together. */
const BOTH_ALLOWED =
  /\bif\s+(?:both|multiple|several|more\s+than\s+one)\s+(?:are|is|were)\s+(?:given|provided|set|passed|specified|supplied)\b|\btakes?\s+(?:priority|precedence)\b|\border\s+of\s+precedence\b|\bwins\s+if\s+both\b|\(\s*or\s+both\s*\)|,\s*or\s+both\b|\bthe\s+other\s+(?:can|may)\s+be\s+(?:empty|omitted|left\s+out)\b/i;

/** "by name or UID (at least one is required)": at least one of the parameters the clause before names. */
const AT_LEAST_ONE_OF_NAMED = /\(?\s*at\s+least\s+one\s+(?:is|must\s+be)\s+(?:required|provided|given|specified|set)\s*\)?/i;

/** "Must be provided with `start`", "Must be used together with 'operations'": said in the parameter's own text. */
const NEEDS_SELF = new RegExp(
  String.raw`^\s*(?:(?:this|it)\s+)?(?:must|has\s+to|needs\s+to)\s+be\s+(?:provided|used|given|passed|specified|set|sent|supplied)\s+` +
    String.raw`(?:together\s+)?(?:with|alongside)\s+(${NAME})|` +
    // "If set, end_month is also required", "When provided, `end` must also be given".
    String.raw`^\s*(?:if|when)\s+(?:it\s+is\s+|this\s+is\s+)?(?:set|provided|given|specified|used|passed|present)\s*,\s*` +
    String.raw`(?:the\s+)?(${NAME})(?:\s+(?:parameter|field|argument|option))?\s+(?:is\s+also\s+required|` +
    String.raw`(?:must|has\s+to|needs\s+to)\s+(?:also\s+)?be\s+(?:provided|given|passed|specified|set|sent|supplied))\b`,
  'i',
);

/**
 * "(100-900; requires font_family)", "Requires `start`.", "(requires server parameter)", "Requires experiment to be set.":
 * a parameter named alone after "requires", ending its clause.
 */
const REQUIRES_SELF = new RegExp(
  String.raw`(?:^\s*|[(;,.]\s*)requires\s+(?:the\s+)?(${NAME})(?:\s+(?:parameter|field|argument|option))?` +
    String.raw`(?:\s+to\s+(?:also\s+)?be\s+(?:set|provided|given|specified|passed))?(?=\s*(?:[.;,)]|$))`,
  'i',
);

/**
 * "Required if `sort_order` is specified", "Required unless queries parameter is provided", "(required if file_path
 * not provided)": said in the parameter's own text.
 */
const REQUIRED_IF_SELF = new RegExp(
  String.raw`(?:^\s*|\(\s*)(?:(?:this|it)\s+is\s+)?required\s+(if|when|unless)\s+(?:the\s+)?(${NAME})` +
    String.raw`(?:\s+(?:parameter|field|argument|option))?\s+` +
    String.raw`(?:(?:is|are)\s+)?(not\s+)?(?:provided|given|specified|set|passed|supplied|present|used)\b`,
  'i',
);

/** "Required when `type` is 'webhook'", "required if mode = fast": the other parameter named, then its value(s). */
const REQUIRED_WHEN_VALUE = new RegExp(
  String.raw`(?:^\s*|[(;:,]\s*)(?:(?:this|it)\s+is\s+|is\s+)?required\s+(?:only\s+)?(?:when|if)\s+(?:the\s+)?(${NAME})` +
    String.raw`(?:\s+(?:parameter|field|argument|option))?\s*(?:(?:is|equals)\s+(?:set\s+to\s+)?|={1,2}\s*)`,
  'i',
);
/** What may follow the values ("... mode", "... action") before the clause ends. */
const AFTER_VALUES = /^\s*(?:(?:operations?|actions?|modes?|commands?|methods?|types?|requests?|calls?)\b)?\s*(?:[.;,)]|$)/i;

/** The values read at `at`: a list, or one quoted or bare value. */
function valuesAt(sentence: string, at: number): { values: string[]; end: number; quoted: boolean } | undefined {
  const list = parseValueList(sentence, at);
  if (list !== undefined) return { values: list.values, end: list.end, quoted: list.quoted };
  const one = /^(?:`([^`\n]{1,60})`|"([^"\n]{1,60})"|'([^'\n]{1,60})'|([A-Za-z0-9_][\w-]*(?:\.[\w-]+)*))/.exec(sentence.slice(at));
  if (one === null) return undefined;
  // "`\"section\"`": a quoted value written as code is the value inside the quotes.
  const value = (one[1] ?? one[2] ?? one[3] ?? one[4] ?? '').replace(/^(["'])(.*)\1$/, '$2');
  return { values: [value], end: at + one[0].length, quoted: one[4] === undefined };
}

/** Whether the schema at `view` lists every one of `words` as a value (case aside). */
export function listsEvery(view: SchemaView, words: readonly string[]): boolean {
  const listed = listedValues(view);
  return listed !== undefined && spelledAsListed(words, listed) !== undefined;
}

/** The schema's own spelling of each value in `listed`, or undefined when one of them is not listed. */
function spelledAsListed(values: readonly string[], listed: readonly unknown[]): (string | number | boolean)[] | undefined {
  const out: (string | number | boolean)[] = [];
  for (const v of values) {
    const hit = listed.find(
      (l) => (typeof l === 'string' || typeof l === 'number' || typeof l === 'boolean') && String(l).toLowerCase() === v.toLowerCase(),
    );
    if (hit === undefined) return undefined;
    out.push(hit as string | number | boolean);
  }
  return out;
}

/** A parameter required on some values of another: "Required when `type` is 'webhook'". */
export interface ValueCondition {
  /** The parameter said to be required. */
  readonly self: string;
  /** The parameter whose values make it required, and those values as the schema spells them. */
  readonly other: string;
  readonly values: readonly (string | number | boolean)[];
  readonly sentence: string;
  /** "Required for: add, update" naming every value of a parameter every call sends: required outright. */
  readonly always?: boolean;
}

/**
 * "Required when `action` is 'move'" in the descriptions of several parameters: one `if`/`then` each, reported as one
 * finding whose fix adds them all (a second `allOf` would replace the first). None when the root already has a home
 * for such rules (an `allOf` of its own may hold them); described without a fix before draft-07 (no `if`).
 */
export function reportValueConditions(conditions: readonly ValueCondition[], root: JsonObject, findings: FindingList): void {
  if (conditions.length === 0 || ['if', 'allOf', 'oneOf', 'anyOf', 'dependentRequired', 'dependencies'].some((k) => k in root)) return;
  const allOf: JsonObject[] = conditions.map((c) => ({
    if: { properties: { [c.other]: { enum: [...c.values] } }, required: [c.other] },
    then: { required: [c.self] },
  }));
  const fixable = !/draft-0[46]/.test(typeof root.$schema === 'string' ? root.$schema : '');
  const rules = conditions.map((c) => `"${c.self}" when "${c.other}" is ${c.values.map((v) => json(v)).join(' or ')}`);
  findings.add(
    'prose-only',
    null,
    'if',
    '',
    '',
    quote(conditions.map((c) => c.sentence).join(' / ')),
    `Encode the rule${conditions.length > 1 ? 's' : ''} in the schema: ${json({ allOf }).replace(/^\{|\}$/g, '')} at the ` +
      `root of the input schema, so a call that leaves out ${rules.join(', or ')} is rejected.`,
    { confidence: 'medium', fix: fixable ? { pointer: '', set: { allOf } } : undefined },
  );
}

/**
 * The parameter and the values of it on which `self` is said to be required: "Required when `action` is 'move'", the
 * named parameter listing each value, or "(required for 'create')", the values naming the parameter.
 */
export function requiredOnValues(
  sentence: string,
  self: string,
  topLevel: readonly AuditNode[],
  rootView: SchemaView,
): Omit<ValueCondition, 'self' | 'sentence'> | undefined {
  if (rootView.required.has(self)) return undefined;
  const when = REQUIRED_WHEN_VALUE.exec(sentence);
  if (when === null) return requiredForValues(sentence, self, topLevel, rootView);
  const name = (when[1] ?? '').replace(/[\x60"']/g, '');
  const node = topLevel.find((n) => n.parameter !== self && n.parameter.toLowerCase() === name.toLowerCase());
  const read = valuesAt(sentence, when.index + when[0].length);
  if (node === undefined || read === undefined || !AFTER_VALUES.test(sentence.slice(read.end))) return undefined;
  const listed = listedValues(node.view) ?? (node.view.types?.has('boolean') === true ? [true, false] : undefined);
  // On a text that lists no values, a value quoted or written as a code ("is 'pod'", "is CALL_NOW") is its literal.
  const literal =
    listed === undefined && holdsOnly(node, 'string') && (read.quoted || read.values.every((v) => /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(v)));
  const values = literal ? read.values : listed === undefined ? undefined : spelledAsListed(read.values, listed);
  return values === undefined ? undefined : { other: node.parameter, values };
}

const REQUIRED_FOR_VALUES =
  /(?:^\s*|[(;:,\u2013\u2014-]\s*)(?:(?:this|it)\s+is\s+|is\s+)?(?:required|mandatory)\s+(?:only\s+)?(?:for|with|on)(?:\s*:)?\s+(?:the\s+)?/i;

/**
 * "(required for 'create')", "Required for: add, remove": the parameter is the one other top-level parameter whose
 * listed values hold every value named. Named all, of a parameter every call sends, they make this one required outright.
 */
function requiredForValues(
  sentence: string,
  self: string,
  topLevel: readonly AuditNode[],
  rootView: SchemaView,
): Omit<ValueCondition, 'self' | 'sentence'> | undefined {
  const when = REQUIRED_FOR_VALUES.exec(sentence);
  if (when === null) return undefined;
  const read = valuesAt(sentence, when.index + when[0].length);
  if (read === undefined || !AFTER_VALUES.test(sentence.slice(read.end))) return undefined;
  const owners = topLevel.flatMap((n) => {
    const listed = n.parameter === self ? undefined : listedValues(n.view);
    const values = listed === undefined ? undefined : spelledAsListed(read.values, listed);
    if (values === undefined || listed === undefined) return [];
    const always = new Set(values).size >= listed.length;
    // Every value of a parameter a call may leave out is no rule on every call.
    return always && !rootView.required.has(n.parameter) ? [] : [{ other: n.parameter, values, always }];
  });
  return owners.length === 1 ? owners[0] : undefined;
}

/** "Cannot be combined with `cursor`", "Mutually exclusive with `page`": said of the parameter it describes. */
const EXCLUSIVE_SELF = new RegExp(
  String.raw`(?:^|[,;(])\s*(?:(?:this|it)\s+)?(?:cannot|can't|must\s+not|may\s+not)\s+be\s+` +
    String.raw`(?:used|combined|set|passed|provided)\s+(?:together\s+|simultaneously\s+|at\s+the\s+same\s+time\s+)?` +
    String.raw`with\s+(${NAME})|` +
    // Also as a gloss: "Tags to add (mutually exclusive with `tags`)", "Session ID (not together with trace_id)",
    // "Capability invocation, mutually exclusive with url".
    String.raw`(?:^|\(|[,;\u2013\u2014]|\band)\s*(?:(?:this\s+is|it\s+is|is)\s+)?(?:mutually\s+exclusive|not\s+(?:together|combined))\s+` +
    String.raw`with\s+(${NAME})|` +
    // "Cannot be used if composition_plan is provided": the same, said as a condition.
    String.raw`^\s*(?:(?:this|it)\s+)?(?:cannot|can't|must\s+not|may\s+not)\s+be\s+(?:used|set|passed|provided|given|specified)\s+` +
    String.raw`(?:if|when)\s+(?:the\s+)?(${NAME})(?:\s+(?:parameter|field|argument|option))?\s+(?:is|are)\s+` +
    String.raw`(?:provided|given|specified|set|passed|used|present|supplied)\b|` +
    // "Don't set this param if "apexTests" is also set", "Do not combine with `cursor`".
    String.raw`^\s*(?:do\s+not|don't|never)\s+(?:set|use|pass|provide|specify|send|combine)\s+` +
    String.raw`(?:(?:this|it)(?:\s+(?:param|parameter|field|option|argument))?\s+)?(?:(?:together\s+)?with\s+(${NAME})|` +
    String.raw`(?:if|when)\s+(?:the\s+)?(${NAME})(?:\s+(?:parameter|field|argument|option))?\s+is\s+(?:also\s+)?` +
    String.raw`(?:provided|given|specified|set|passed|used|present|supplied)\b)`,
  'i',
);

export type UnitClass = 'length' | 'bytes' | 'items' | 'properties' | 'measure' | 'precision' | 'noun' | undefined;

export function unitClass(unit: string | undefined): UnitClass {
  if (unit === undefined) return undefined;
  if (/^(?:places?|decimals?|significant)$/.test(unit)) return 'precision';
  if (LENGTH_UNITS.test(unit) || /^digits?$/.test(unit)) return 'length';
  if (/^(?:bytes?|b|kb|kib|mb|mib|gb|gib|kilobytes?|megabytes?)$/.test(unit)) return 'bytes';
  if (ITEM_UNITS.test(unit)) return 'items';
  if (/^(?:properties|property|keys?|fields?|pairs?|key-value)$/.test(unit)) return 'properties';
  if (MEASURE_UNITS.test(unit)) return 'measure';
  return 'noun';
}
