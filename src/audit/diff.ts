/**
 * Steps two and three of the audit, in both directions:
 *
 * - prose → schema: each candidate constraint extracted from the descriptions (audit/prose.ts) is attributed
 *   to the parameter it speaks of, mapped to the keyword that should encode it, and reported when the schema has
 *   no home for it (or a home that says something else: "at most 1000" against `maximum: 500`);
 * - schema → prose: constraints the schema enforces that no description explains (a `maximum` whose number the
 *   prose never gives, a `pattern` with no word about the format, an `enum` none of whose values are mentioned,
 *   a `format` never named, a required parameter the prose calls optional).
 *
 * Pure: no I/O.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/shared/json.js';
import type { ToolDefinition } from '../core/schema/tool-definition.js';
import {
  extractCandidates,
  ITEM_UNITS,
  LENGTH_UNITS,
  MEASURE_UNITS,
  parseValueList,
  singular,
  splitSentences,
  words,
  type BoundCandidate,
  type Candidate,
  type DefaultCandidate,
  type EnumCandidate,
  type FormatCandidate,
} from './prose.js';
import {
  allows,
  auditNodes,
  firstSite,
  hasKeyword,
  listedValues,
  numberKeyword,
  viewOf,
  type AuditNode,
  type SchemaView,
} from './schema-nav.js';
import { valueAtPointer } from './fix.js';
import { findingId, type AuditLayer, type Confidence, type Finding, type SchemaFix } from './types.js';

/** A candidate attributed to a node, with the sentence it came from. */
interface Claim {
  readonly node: AuditNode;
  readonly candidate: Candidate;
  readonly sentence: string;
  /** True when the claim comes from the tool description (attributed), false from the node's own description. */
  readonly fromTool: boolean;
}

/** The prose-only and schema-only findings of one tool. */
export function diffProseAndSchema(definition: ToolDefinition): Finding[] {
  const root = definition.inputSchema;
  const { rootView, nodes } = auditNodes(root);
  const tool = definition.name;
  const topLevel = nodes.filter((node) => node.location === '');
  const toolTexts = toolDescriptions(definition);
  const findings = new FindingList(tool);

  // Attribution: own descriptions first, then the tool description's sentences that name a parameter.
  const claims: Claim[] = [];
  const mentioned = new Map<string, string[]>();
  for (const node of nodes) {
    if (node.view.description === undefined) continue;
    for (const sentence of splitSentences(node.view.description)) {
      if (/^\s*returns?\b/i.test(sentence.text)) continue;
      // "Provide query or runId, not both" in a parameter's own description is a rule about the tool as a whole.
      const group = node.location === '' && groupRule(sentence.text, topLevel, root, rootView, findings, false);
      for (const candidate of extractCandidates(sentence.text)) {
        if (group && (candidate.kind === 'required' || candidate.kind === 'optional')) continue;
        if (ownClaimBelongsElsewhere(candidate, sentence.text, node, topLevel)) continue;
        claims.push({ node, candidate, sentence: sentence.text, fromTool: false });
      }
    }
  }
  const matchers = mentionMatchers(topLevel);
  for (const text of toolTexts) {
    for (const sentence of splitSentences(text)) {
      // A sentence about what the tool returns ("Returns up to 50 issues") constrains no parameter.
      if (RESPONSE_SENTENCE.test(sentence.text)) continue;
      const mentions = findMentions(sentence.text, matchers);
      for (const mention of new Set(mentions.map((m) => m.parameter))) {
        const list = mentioned.get(mention) ?? [];
        list.push(sentence.text);
        mentioned.set(mention, list);
      }
      const group = groupRule(sentence.text, topLevel, root, rootView, findings, true);
      for (const candidate of extractCandidates(sentence.text)) {
        if (candidate.kind === 'enum' && namesParameters(candidate.values, topLevel)) continue;
        // "At least one of `email` or `phone` must be provided" requires neither on its own.
        if (group && candidate.kind === 'required') continue;
        for (const parameter of attribute(candidate, sentence.text, mentions, topLevel)) {
          const node = topLevel.find((n) => n.parameter === parameter);
          if (node !== undefined && toolClaimFits(node, candidate)) claims.push({ node, candidate, sentence: sentence.text, fromTool: true });
        }
      }
    }
  }

  proseOnly(root, claims, findings);
  schemaOnly(root, nodes, claims, mentioned, toolTexts.join('\n'), findings);
  return findings.list();
}

const RESPONSE_SENTENCE = /^\s*(?:\*\*)?(?:returns?|responds?\s+with|the\s+(?:response|result|output)s?\s+(?:is|are|contains?|includes?))\b/i;

/** The tool's description, and the root schema's when it says something else. */
function toolDescriptions(definition: ToolDefinition): string[] {
  const texts: string[] = [];
  if (definition.description !== undefined && definition.description.trim() !== '') texts.push(definition.description);
  const rootDescription = definition.inputSchema.description;
  if (typeof rootDescription === 'string' && rootDescription.trim() !== '' && rootDescription.trim() !== definition.description?.trim()) {
    texts.push(rootDescription);
  }
  return texts;
}

// ---------------------------------------------------------------------------------------------------------------
// Findings

/** What a finding says beyond its place: how sure it is and the fix as a schema change. */
interface FindingMeta {
  /** Default: `high` for a prose-only finding from the parameter's own description, `medium` from the tool description, `low` for schema-only. */
  readonly confidence?: Confidence | undefined;
  readonly fix?: SchemaFix | undefined;
  /** The claim behind a prose-only finding (its source decides the default confidence). */
  readonly claim?: Claim | undefined;
}

class FindingList {
  readonly #byId = new Map<string, Finding>();
  constructor(readonly tool: string) {}

  add(layer: AuditLayer, parameter: string | null, keyword: string, location: string, path: string, evidence: string, suggestion: string, meta: FindingMeta = {}): void {
    const id = findingId(layer, this.tool, parameter, keyword, location);
    if (this.#byId.has(id)) return;
    const confidence = meta.confidence ?? (layer === 'schema-only' ? 'low' : meta.claim?.fromTool === true ? 'medium' : 'high');
    const finding: Finding = { id, tool: this.tool, parameter, layer, keyword, evidence, suggestion, path, confidence };
    this.#byId.set(id, meta.fix === undefined ? finding : { ...finding, fix: meta.fix });
  }

  list(): Finding[] {
    return [...this.#byId.values()];
  }
}

function quote(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function json(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

// ---------------------------------------------------------------------------------------------------------------
// Mentions of parameters in the tool description

interface Mention {
  readonly parameter: string;
  readonly start: number;
  readonly end: number;
}

/** Words too generic to stand for a parameter on their own (`row_id` is not mentioned by "id"). */
const GENERIC_HEADS = new Set([
  'id', 'ids', 'name', 'names', 'type', 'types', 'value', 'values', 'data', 'text', 'key', 'keys', 'mode', 'kind',
  'list', 'item', 'items', 'info', 'flag', 'flags', 'option', 'options', 'field', 'fields', 'max', 'min', 'num',
  'number', 'count', 'size', 'limit', 'code', 'codes', 'url', 'path', 'time', 'date', 'at', 'by', 'on', 'to', 'from',
  'in', 'of', 'is', 'for', 'new', 'old', 'all', 'any', 'one',
]);

/** Parameter names that are everyday function words: only a quoted or backticked mention counts. */
const FUNCTION_WORDS = new Set([
  'to', 'from', 'in', 'on', 'at', 'by', 'for', 'of', 'as', 'is', 'or', 'and', 'if', 'with', 'before', 'after',
  'since', 'until', 'a', 'an', 'the', 'it', 'all', 'any', 'not', 'no', 'be', 'do', 'up', 'out', 'over', 'under',
]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The words of an identifier: `from_account` → from, account; `clientId` → client, id. */
function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .map((t) => t.toLowerCase())
    .filter((t) => t !== '');
}

function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  return `${word}s`;
}

/** One regular expression per top-level parameter, matching the ways prose names it. */
function mentionMatchers(topLevel: readonly AuditNode[]): Map<string, RegExp> {
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
    if (tokens.length === 1 && /^[a-z]+$/i.test(name)) aliases.push(escapeRegExp(plural(name.toLowerCase())), escapeRegExp(singular(name.toLowerCase())));
    if (tokens.length > 1) {
      const spaced = tokens.map(escapeRegExp).join(String.raw`[\s_-]+`);
      const last = tokens.at(-1) ?? '';
      aliases.push(spaced, [...tokens.slice(0, -1).map(escapeRegExp), escapeRegExp(plural(last))].join(String.raw`[\s_-]+`));
      if (last.length >= 4 && !GENERIC_HEADS.has(last) && heads.get(last) === 1 && !topLevel.some((n) => n.parameter.toLowerCase() === last)) {
        aliases.push(escapeRegExp(last), escapeRegExp(plural(last)));
      }
    }
    const unique = [...new Set(aliases)].sort((a, b) => b.length - a.length);
    matchers.set(name, new RegExp(`(?<![\\w-])(?:${unique.join('|')})(?![\\w-])`, 'gi'));
  }
  return matchers;
}

/** Mentions in a sentence, longest first where they overlap ("per page" over "page"). */
function findMentions(sentence: string, matchers: ReadonlyMap<string, RegExp>): Mention[] {
  const all: Mention[] = [];
  for (const [parameter, pattern] of matchers) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(sentence); m !== null; m = pattern.exec(sentence)) {
      all.push({ parameter, start: m.index, end: m.index + m[0].length });
    }
  }
  all.sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: Mention[] = [];
  for (const mention of all) {
    if (kept.some((k) => k.start < mention.end && mention.start < k.end)) continue;
    kept.push(mention);
  }
  return kept;
}

function wordsBetween(sentence: string, from: number, to: number): number {
  return from >= to ? 0 : words(sentence.slice(from, to)).length;
}

/**
 * The parameters a candidate in the tool description speaks of, if the sentence says: the nearest mention before
 * it (with the mentions coordinated with that one: "check_in and check_out must be ..."), else one right after it.
 */
function attribute(candidate: Candidate, sentence: string, mentions: readonly Mention[], topLevel: readonly AuditNode[]): string[] {
  const preceding = mentions.filter((m) => m.end <= candidate.start);
  const before = preceding.at(-1);
  const after = mentions.find((m) => m.start >= candidate.end);
  const inside = mentions.find((m) => m.start >= candidate.start && m.end <= candidate.end);
  const withCoordinated = (last: Mention): string[] => {
    const names = [last.parameter];
    for (let i = preceding.indexOf(last) - 1; i >= 0; i--) {
      const current = preceding[i];
      const next = preceding[i + 1];
      if (current === undefined || next === undefined) break;
      if (!/^\s*(?:,|and|or|,\s*and|,\s*or)\s*(?:the\s+)?$/i.test(sentence.slice(current.end, next.start).replace(/[`"']/g, ''))) break;
      names.unshift(current.parameter);
    }
    return [...new Set(names)];
  };
  if (candidate.kind === 'required') {
    if (candidate.subject === 'after') return after !== undefined && wordsBetween(sentence, candidate.end, after.start) <= 2 ? [after.parameter] : [];
    return before !== undefined && wordsBetween(sentence, before.end, candidate.start) <= 4 ? withCoordinated(before) : [];
  }
  if (candidate.kind === 'optional') {
    return before !== undefined && wordsBetween(sentence, before.end, candidate.start) <= 2 ? [before.parameter] : [];
  }
  if (inside !== undefined) return [inside.parameter];
  if (conditionalClause(sentence, candidate.start)) return [];
  if (before !== undefined && wordsBetween(sentence, before.end, candidate.start) <= 8) return withCoordinated(before);
  if (after !== undefined && wordsBetween(sentence, candidate.end, after.start) <= 2 && !/[;:.,]/.test(sentence.slice(candidate.end, after.start))) return [after.parameter];
  // By its words: "use at most 1000 rows" speaks of the one parameter whose name or description says "rows".
  if (candidate.kind === 'bound' && candidate.unit !== undefined && !MEASURE_UNITS.test(candidate.unit)) {
    const unit = singular(candidate.unit);
    if (unit.length < 3 || GENERIC_HEADS.has(unit)) return [];
    const owners = topLevel.filter((node) => {
      const vocabulary = [...nameTokens(node.parameter), ...words(node.view.description ?? '')].map(singular);
      return vocabulary.includes(unit);
    });
    const owner = owners.length === 1 ? owners[0] : undefined;
    if (owner !== undefined) return [owner.parameter];
  }
  return [];
}

/**
 * The tool description speaks of many things besides parameters ("returns at most 50 issues"): a bound attributed
 * from it must say what it counts in the parameter's own words, unless the parameter is a number. "Use at most
 * 1000 rows" fits `max_rows` ("rows") and a `limit` described as "Number of rows"; "at most 50 issues" does not
 * fit `labels`.
 */
function toolClaimFits(node: AuditNode, candidate: Candidate): boolean {
  if (candidate.kind !== 'bound' || candidate.fromWord) return true;
  const cls = unitClass(candidate.unit);
  const view = node.view;
  const isNumber = view.types === undefined || view.types.has('number') || view.types.has('integer');
  if (cls === 'length' || cls === 'bytes' || cls === 'items' || cls === 'properties') return true;
  if (candidate.unit === undefined) return isNumber;
  const unit = singular(candidate.unit);
  const vocabulary = [...nameTokens(node.parameter), ...words(node.view.description ?? '')].map(singular);
  return vocabulary.includes(unit) || (isNumber && cls === 'measure');
}

/** A candidate inside "if ..."/"when ..." states when something happens, not a constraint. */
function conditionalClause(sentence: string, at: number): boolean {
  const clauseStart = Math.max(sentence.lastIndexOf(',', at - 1), sentence.lastIndexOf(';', at - 1), -1) + 1;
  return /^\s*(?:if|when|whenever|unless|once|while|for\s+example|e\.g\.)\b/i.test(sentence.slice(clauseStart, at));
}

/**
 * A candidate in a parameter's own description that speaks of another parameter ("When `limit` is above 100 ...")
 * or sits in a conditional clause is not about this parameter.
 */
function ownClaimBelongsElsewhere(candidate: Candidate, sentence: string, node: AuditNode, topLevel: readonly AuditNode[]): boolean {
  if (candidate.kind === 'enum' && namesParameters(candidate.values, topLevel)) return true;
  const others = topLevel.filter((n) => n.parameter !== node.parameter && n.parameter !== node.name);
  const prefix = sentence.slice(0, candidate.start);
  const quotedBefore = others.some((other) => new RegExp(`[\`"']${escapeRegExp(other.parameter)}[\`"'],?\\s+(?:\\w+\\s+){0,3}$`, 'i').test(prefix));
  if (candidate.kind === 'required' || candidate.kind === 'optional') {
    // "Must be after `start`, which is required": the requirement is about `start`.
    if (candidate.kind === 'required' && candidate.subject === 'after') {
      const suffix = sentence.slice(candidate.end);
      // "Must include a 'type' field": a requirement on the value's contents, not on the parameter.
      if (/^\s+(?:an?\s+|the\s+)?[`"']?[\w-]+[`"']?\s+(?:field|property|key|attribute|entry|column|member)s?\b/i.test(suffix)) return true;
      return others.some((other) => new RegExp(`^\\s+(?:the\\s+)?[\`"']${escapeRegExp(other.parameter)}[\`"']`, 'i').test(suffix));
    }
    return quotedBefore;
  }
  if (conditionalClause(sentence, candidate.start)) return true;
  return quotedBefore;
}

function namesParameters(values: readonly string[], topLevel: readonly AuditNode[]): boolean {
  const names = new Set(topLevel.map((n) => n.parameter.toLowerCase()));
  return values.filter((v) => names.has(v.toLowerCase())).length >= 2;
}

/**
 * Rules about several parameters at once, whose homes are keywords of the tool as a whole:
 * - "at least one of `email` or `phone` must be provided": `anyOf` of `required` lists;
 * - "exactly one of `a` or `b`", "provide query or runId, not both": `oneOf` of `required` lists;
 * - "`start` and `end` must be provided together": `dependentRequired` (draft-07: `dependencies`);
 * - "`cursor` and `page` are mutually exclusive", "X cannot be used with Y": `not` of a `required` list.
 * Returns true when the sentence states one, so its "required" is not read as a requirement of each name.
 */
function groupRule(sentence: string, topLevel: readonly AuditNode[], root: JsonObject, rootView: SchemaView, findings: FindingList, fromTool: boolean): boolean {
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
    keywords.some((k) => (rootView.keywords.get(k) ?? []).some((site) => site.pointer === '' || site.pointer.startsWith('/allOf')));
  const draft07 = typeof root.$schema === 'string' && /draft-0[467]/.test(root.$schema);
  const report = (keyword: string, names: readonly string[], set: JsonObject, what: string): void => {
    found = true;
    findings.add('prose-only', null, keyword, '', '', quote(sentence),
      `Encode the rule in the schema: ${json(set).replace(/^\{|\}$/g, '')} at the root of the input schema, so a call that ${what} of ${names.map((n) => `"${n}"`).join(', ')} is rejected.`,
      { confidence: fromTool ? 'high' : 'medium', fix: hasHome([keyword]) ? undefined : { pointer: '', set } });
  };
  const ALL_HOMES = ['anyOf', 'oneOf', 'dependentRequired', 'dependencies', 'if', 'not', 'minProperties'];

  const trigger = /\b(at\s+least\s+one\s+of|exactly\s+one\s+of|only\s+one\s+of|one\s+of|either|(?:provide|pass|specify|use|set|give|send|supply)\s+(?:either\s+|only\s+)?)\s*/gi;
  for (let m = trigger.exec(sentence); m !== null; m = trigger.exec(sentence)) {
    const list = parseValueList(sentence, m.index + m[0].length);
    if (list === undefined || !namesParameters(list.values, topLevel)) continue;
    const verbTrigger = /^(?:provide|pass|specify|use|set|give|send|supply)/i.test(m[1] ?? '');
    const notBoth = /\bnot\s+both\b|\bbut\s+not\b|\bnot\s+(?:all|several)\b/i.test(sentence);
    if (verbTrigger && !notBoth) continue;
    if (!verbTrigger && !/\b(?:must|required|requires|provide|specify|give|pass|supply|include|needed|set|use)\b/i.test(sentence)) continue;
    found = true;
    const exactlyOne = verbTrigger || /^(?:exactly|only)/i.test(m[1] ?? '') || notBoth;
    const keyword = exactlyOne ? 'oneOf' : 'anyOf';
    if (hasHome(ALL_HOMES)) continue;
    const names = namesIn(list.values);
    report(keyword, names, { [keyword]: names.map((name) => ({ required: [name] })) }, exactlyOne ? 'sends none or several' : 'sends none');
  }

  // "`start` and `end` must be provided together", "are required together"
  const together = /((?:[`"']?[A-Za-z_][\w.-]*[`"']?\s*,\s*)*[`"']?[A-Za-z_][\w.-]*[`"']?\s+and\s+[`"']?[A-Za-z_][\w.-]*[`"']?)\s+(?:must|should|have\s+to|need\s+to)\s+(?:be\s+)?(?:provided|used|given|passed|specified|set|sent|supplied)\s+together\b|((?:[`"']?[A-Za-z_][\w.-]*[`"']?\s*,\s*)*[`"']?[A-Za-z_][\w.-]*[`"']?\s+and\s+[`"']?[A-Za-z_][\w.-]*[`"']?)\s+are\s+(?:required|needed)\s+together\b/i.exec(sentence);
  if (together !== null) {
    const names = namesIn((together[1] ?? together[2] ?? '').split(/\s*(?:,|\band\b)\s*/).map((n) => n.replace(/[`"']/g, '').trim()));
    if (names.length >= 2) {
      found = true;
      const keyword = draft07 ? 'dependencies' : 'dependentRequired';
      if (!hasHome(ALL_HOMES)) {
        const set = { [keyword]: Object.fromEntries(names.map((n) => [n, names.filter((o) => o !== n)])) };
        report(keyword, names, set, 'sends only some');
      }
    }
  }

  // "`cursor` and `page` are mutually exclusive", "`a` cannot be combined with `b`"
  const exclusive = /([`"']?[A-Za-z_][\w.-]*[`"']?)\s+and\s+([`"']?[A-Za-z_][\w.-]*[`"']?)\s+are\s+mutually\s+exclusive\b|([`"']?[A-Za-z_][\w.-]*[`"']?)\s+(?:cannot|can't|must\s+not|may\s+not)\s+be\s+(?:used|combined|set|passed|provided)\s+(?:together\s+)?with\s+([`"']?[A-Za-z_][\w.-]*[`"']?)/i.exec(sentence);
  if (exclusive !== null) {
    const names = namesIn([exclusive[1] ?? exclusive[3] ?? '', exclusive[2] ?? exclusive[4] ?? ''].map((n) => n.replace(/[`"']/g, '')));
    if (names.length === 2) {
      found = true;
      if (!hasHome(ALL_HOMES)) report('not', names, { not: { required: names } }, 'sends both');
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------------
// prose → schema

type Family = 'number' | 'length' | 'items' | 'properties';

const FAMILY_KEYWORDS: Record<Family, { lower: string; upper: string; exclusiveLower?: string; exclusiveUpper?: string }> = {
  number: { lower: 'minimum', upper: 'maximum', exclusiveLower: 'exclusiveMinimum', exclusiveUpper: 'exclusiveMaximum' },
  length: { lower: 'minLength', upper: 'maxLength' },
  items: { lower: 'minItems', upper: 'maxItems' },
  properties: { lower: 'minProperties', upper: 'maxProperties' },
};

type UnitClass = 'length' | 'bytes' | 'items' | 'properties' | 'measure' | 'precision' | 'noun' | undefined;

function unitClass(unit: string | undefined): UnitClass {
  if (unit === undefined) return undefined;
  if (/^(?:places?|decimals?|significant)$/.test(unit)) return 'precision';
  if (LENGTH_UNITS.test(unit) || /^digits?$/.test(unit)) return 'length';
  if (/^(?:bytes?|b|kb|kib|mb|mib|gb|gib|kilobytes?|megabytes?)$/.test(unit)) return 'bytes';
  if (ITEM_UNITS.test(unit)) return 'items';
  if (/^(?:properties|property|keys?|fields?)$/.test(unit)) return 'properties';
  if (MEASURE_UNITS.test(unit)) return 'measure';
  return 'noun';
}

/** Where a bound lands: which family of keywords, on the node itself or on its array items. */
function boundTarget(node: AuditNode, candidate: BoundCandidate): { family: Family; onItems: boolean } | undefined {
  const view = node.view;
  const cls = unitClass(candidate.unit);
  const hasNumber = view.types !== undefined && (view.types.has('number') || view.types.has('integer'));
  const hasString = view.types?.has('string') ?? false;
  const hasArray = view.types?.has('array') ?? false;
  const hasObject = view.types?.has('object') ?? false;
  if (candidate.fromWord) return view.types === undefined || hasNumber ? { family: 'number', onItems: false } : undefined;
  // "at most 2 decimal places" is precision (`multipleOf`), judged apart.
  if (cls === 'precision') return undefined;
  if (cls === 'bytes' && !hasString) return undefined;
  if (cls === 'length' || cls === 'bytes') {
    if (view.types === undefined || hasString) return { family: 'length', onItems: false };
    if (hasArray) return { family: 'length', onItems: true };
    return undefined;
  }
  if (cls === 'properties') return view.types === undefined || hasObject ? { family: 'properties', onItems: false } : undefined;
  if (view.types === undefined) return { family: cls === 'items' ? 'items' : 'number', onItems: false };
  if (hasArray && !hasNumber && cls !== 'measure') return { family: 'items', onItems: false };
  if (hasNumber) return { family: 'number', onItems: false };
  if (hasString && (cls === undefined || cls === 'noun')) return { family: 'length', onItems: false };
  return undefined;
}

/** True when the number can be compared with a schema value (no unit the schema may count differently). */
function comparable(node: AuditNode, candidate: BoundCandidate): boolean {
  if (!candidate.plain) return false;
  const cls = unitClass(candidate.unit);
  if (cls === 'bytes') return false;
  if (cls !== 'measure' || candidate.unit === undefined) return true;
  // "between 5 and 1440 minutes" on `duration_minutes` or a value "in minutes": the schema counts in that unit.
  const unit = singular(candidate.unit.toLowerCase());
  const names = [...nameTokens(node.parameter), ...nameTokens(node.name)].map(singular);
  const unitWords = unit === 'ms' || unit === 'millisecond' ? ['ms', 'millisecond'] : unit === 's' || unit === 'sec' || unit === 'second' ? ['s', 'sec', 'second'] : [unit];
  if (unitWords.some((u) => names.includes(u))) return true;
  const description = node.view.description ?? '';
  return unitWords.some((u) => new RegExp(`\\bin\\s+${escapeRegExp(u)}s?\\b`, 'i').test(description));
}

function isInteger(view: SchemaView): boolean {
  return view.types !== undefined && view.types.has('integer') && !view.types.has('number');
}

function proseOnly(root: JsonObject, claims: readonly Claim[], findings: FindingList): void {
  // Bounds are judged per (node, family, side) over every claim, so "at most 100 per page" and "between 1 and
  // 100" agree with `maximum: 100` even when the prose also states another number elsewhere.
  const bounds = new Map<string, { node: AuditNode; view: SchemaView; location: string; pointer: string; family: Family; side: 'lower' | 'upper'; claims: { claim: Claim; c: BoundCandidate }[] }>();
  const formatsByNode = new Set<AuditNode>();
  for (const claim of claims) if (claim.candidate.kind === 'format') formatsByNode.add(claim.node);

  for (const claim of claims) {
    const { node, candidate: c } = claim;
    switch (c.kind) {
      case 'bound': {
        if (unitClass(c.unit) === 'precision') {
          precisionClaim(claim, c, findings);
          break;
        }
        const composition = isComposition(c);
        if (composition || characterClass(c)) {
          // "at least one digit", "1 to 5 uppercase letters": what the characters are is a `pattern`'s job.
          const view = node.view;
          if (view.types !== undefined && view.types.has('string') && !hasKeyword(view, 'pattern') && !hasKeyword(view, 'format') && listedValues(view) === undefined) {
            findings.add('prose-only', node.parameter, 'pattern', node.location, node.pointer, quote(claim.sentence),
              `Add a "pattern" to "${node.label}" that encodes what the description requires of its characters ("${c.phrase}").`, { claim, confidence: 'medium' });
          }
          if (composition) break;
        }
        const target = boundTarget(node, c);
        if (target === undefined) break;
        const itemsView = target.onItems ? itemsOf(root, node) : undefined;
        if (target.onItems && itemsView === undefined) {
          addMissingBound(findings, node, `${node.location}/items`, `${node.pointer}/items`, target.family, c, claim, false);
          break;
        }
        const view = itemsView?.view ?? node.view;
        const key = `${node.pointer}\u0000${String(target.onItems)}\u0000${target.family}\u0000${c.side}`;
        const entry = bounds.get(key) ?? {
          node,
          view,
          location: target.onItems ? `${node.location}/items` : node.location,
          pointer: itemsView?.pointer ?? node.pointer,
          family: target.family,
          side: c.side,
          claims: [],
        };
        entry.claims.push({ claim, c });
        bounds.set(key, entry);
        break;
      }
      case 'exactLength': {
        if (formatsByNode.has(node)) break;
        const view = node.view;
        if (!allows(view, 'string')) break;
        const min = numberKeyword(view, 'minLength');
        const max = numberKeyword(view, 'maxLength');
        const home = (min === c.value && max === c.value) || hasKeyword(view, 'pattern') || listedValues(view) !== undefined || hasKeyword(view, 'format');
        if (home) break;
        // "2 character country codes", "3-letter": a code, whose home is a pattern of that many letters.
        const code = /^\s+(?:[\w-]+\s+)?codes?\b/i.test(claim.sentence.slice(c.end));
        const keyword = /letter|digit/i.test(c.phrase) || code ? 'pattern' : 'maxLength';
        const pattern = /digit/i.test(c.phrase) ? `^[0-9]{${c.value}}$` : `^[A-Za-z]{${c.value}}$`;
        findings.add('prose-only', node.parameter, keyword, node.location, node.pointer, quote(claim.sentence),
          keyword === 'pattern'
            ? `Add "pattern": ${json(pattern)} to "${node.label}" (the description says "${c.phrase}${code ? ' ... code' : ''}"), or "minLength"/"maxLength": ${c.value}.`
            : `Add "minLength": ${c.value} and "maxLength": ${c.value} to "${node.label}" (the description says ${c.phrase}).`,
          { claim, confidence: code || claim.fromTool ? 'medium' : 'high', fix: { pointer: node.pointer, set: keyword === 'pattern' ? { pattern } : { minLength: c.value, maxLength: c.value } } });
        break;
      }
      case 'nonEmpty':
        nonEmpty(claim, findings);
        break;
      case 'enum':
        enumClaim(root, claim, c, findings);
        break;
      case 'format':
        formatClaim(root, claim, c, findings);
        break;
      case 'readOnly': {
        const view = node.view;
        if (view.types?.has('boolean') === true || /read_?only/i.test(node.name)) break;
        if (firstSite(view, 'readOnly')?.value === true || hasKeyword(view, 'const')) break;
        // "viewer (read only), editor or admin": a gloss on one of the allowed values, not on the parameter.
        const glossed = /([\w-]+)\W*$/.exec(claim.sentence.slice(0, c.start))?.[1]?.toLowerCase();
        if (c.phrase.startsWith('(') && glossed !== undefined && (listedValues(view) ?? []).some((v) => typeof v === 'string' && v.toLowerCase() === glossed)) break;
        findings.add('prose-only', node.parameter, 'readOnly', node.location, node.pointer, quote(claim.sentence),
          `Add "readOnly": true to "${node.label}" (or "const" with the one value callers may send), or remove the parameter from the tool's input if callers cannot set it.`,
          { claim, fix: { pointer: node.pointer, set: { readOnly: true } } });
        break;
      }
      case 'default':
        defaultClaim(claim, c, findings);
        break;
      case 'required': {
        const parent = node.parent;
        if (parent === undefined || parent.anyRequired.has(node.name)) break;
        const where = node.location === '' ? 'the input schema' : `the object holding "${node.label}"`;
        const holder = holderOf(root, node);
        findings.add('prose-only', node.parameter, 'required', node.location, node.pointer, quote(claim.sentence),
          `Add "${node.name}" to "required" of ${where} (the description says it is required), or, if it truly is optional, reword the description to say when to include it${hasKeyword(node.view, 'default') ? '' : ' and give it a "default"'}.`,
          { claim, fix: holder === undefined ? undefined : { pointer: holder.pointer, set: { required: [...holder.required, node.name] } } });
        break;
      }
      case 'optional':
        break;
    }
  }

  for (const entry of bounds.values()) judgeBounds(entry, findings);
}

/** The object schema that declares `node` as a property, and its own `required` list (for a fix that edits it). */
function holderOf(root: JsonObject, node: AuditNode): { pointer: string; required: string[] } | undefined {
  const suffix = `/properties/${node.name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  if (!node.pointer.endsWith(suffix)) return undefined;
  const pointer = node.pointer.slice(0, -suffix.length);
  const holder = valueAtPointer(root, pointer);
  if (!isJsonObject(holder)) return undefined;
  const required = Array.isArray(holder.required) ? holder.required.filter((n): n is string => typeof n === 'string') : [];
  return { pointer, required };
}

/** "At least one digit", "at least 2 uppercase letters": a rule on some of the characters, not on the length. */
function isComposition(c: BoundCandidate): boolean {
  if (c.side !== 'lower' || c.value > 3 || c.unit === undefined || (c.rule !== 'lower-inclusive' && c.rule !== 'or-more')) return false;
  if (/^(?:digits?|numbers?|symbols?|special)$/.test(c.unit)) return true;
  return /^(?:letters?|characters?)$/.test(c.unit) && CHARACTER_CLASS.test(c.phrase);
}

/** "1 to 5 uppercase letters", "8 hex digits": a length and a kind of character. */
function characterClass(c: BoundCandidate): boolean {
  return c.unit !== undefined && /^(?:letters?|characters?|chars?|digits?)$/.test(c.unit) && CHARACTER_CLASS.test(c.phrase);
}

const CHARACTER_CLASS = /\b(?:upper-?case|lower-?case|capital|alphanumeric|ascii|hex(?:adecimal)?|numeric|latin|printable|non-whitespace)\b/i;

/** "At most 2 decimal places" on a number: `multipleOf: 0.01`. */
function precisionClaim(claim: Claim, c: BoundCandidate, findings: FindingList): void {
  const { node } = claim;
  if (c.side !== 'upper' || !allows(node.view, 'number') || node.view.types === undefined) return;
  if (hasKeyword(node.view, 'multipleOf')) return;
  const step = Number((10 ** -c.value).toFixed(Math.max(0, Math.min(20, Math.round(c.value)))));
  findings.add('prose-only', node.parameter, 'multipleOf', node.location, node.pointer, quote(claim.sentence),
    `Add "multipleOf": ${step} to "${node.label}" (the description says ${c.phrase}).`, { claim, fix: { pointer: node.pointer, set: { multipleOf: step } } });
}

function itemsOf(root: JsonObject, node: AuditNode): { view: SchemaView; pointer: string } | undefined {
  const items = node.view.items;
  if (items === undefined || !isJsonObject(items.schema)) return undefined;
  return { view: viewOf(root, items.schema, items.pointer), pointer: items.pointer };
}

function boundPhrase(c: BoundCandidate): string {
  if (c.fromWord) return c.phrase;
  const op = c.side === 'lower' ? (c.exclusive ? 'greater than' : 'at least') : c.exclusive ? 'less than' : 'at most';
  return `${op} ${formatNumber(c.value)}${c.unit === undefined ? '' : ` ${c.unit}`}`;
}

function formatNumber(value: number): string {
  return String(value);
}

/** The keyword and value that encode a prose bound. */
function boundFix(family: Family, c: BoundCandidate, integer: boolean): { [keyword: string]: number } {
  const keywords = FAMILY_KEYWORDS[family];
  if (family === 'number') {
    if (c.exclusive) {
      if (integer) return { [c.side === 'lower' ? 'minimum' : 'maximum']: c.side === 'lower' ? c.value + 1 : c.value - 1 };
      return { [c.side === 'lower' ? keywords.exclusiveLower ?? '' : keywords.exclusiveUpper ?? '']: c.value };
    }
    return { [c.side === 'lower' ? keywords.lower : keywords.upper]: c.value };
  }
  const value = c.exclusive ? (c.side === 'lower' ? c.value + 1 : c.value - 1) : c.value;
  return { [c.side === 'lower' ? keywords.lower : keywords.upper]: value };
}

function suggestedBound(family: Family, c: BoundCandidate, integer: boolean): string {
  return json(boundFix(family, c, integer)).replace(/^\{|\}$/g, '').replace(':', ': ');
}

function addMissingBound(findings: FindingList, node: AuditNode, location: string, pointer: string, family: Family, c: BoundCandidate, claim: Claim, exists: boolean): void {
  const keyword = c.side === 'lower' ? FAMILY_KEYWORDS[family].lower : FAMILY_KEYWORDS[family].upper;
  const label = location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`;
  const medium = c.fromWord || claim.fromTool || !c.plain;
  findings.add('prose-only', node.parameter, keyword, location, pointer, quote(claim.sentence),
    `Add ${suggestedBound(family, c, isInteger(node.view))} to ${label} (the description says ${boundPhrase(c)}), or drop the bound from the description if it is not enforced.`,
    { claim, confidence: medium ? 'medium' : 'high', fix: exists ? { pointer, set: boundFix(family, c, isInteger(node.view)) } : undefined });
}

/** Does the schema bound agree with the prose bound? */
function boundMatches(view: SchemaView, family: Family, c: BoundCandidate): boolean {
  const integer = isInteger(view);
  if (family === 'number') {
    const inc = numberKeyword(view, c.side === 'lower' ? 'minimum' : 'maximum');
    const exc = numberKeyword(view, c.side === 'lower' ? 'exclusiveMinimum' : 'exclusiveMaximum');
    const sign = c.side === 'lower' ? 1 : -1;
    if (c.fromWord) {
      // "positive": exclusiveMinimum 0, or any minimum above 0. "non-negative": minimum 0 or stricter.
      if (c.exclusive) return (exc !== undefined && sign * exc >= sign * c.value) || (inc !== undefined && sign * inc > sign * c.value);
      return (inc !== undefined && sign * inc >= sign * c.value) || (exc !== undefined && sign * exc >= sign * c.value - (integer ? 1 : 0));
    }
    if (c.exclusive) {
      if (exc === c.value) return true;
      if (inc !== undefined && integer && inc === c.value + sign) return true;
      // "greater than 0" with `minimum: 0.01`: any positive minimum states it.
      return inc !== undefined && c.value === 0 && sign * inc > 0;
    }
    if (inc === c.value) return true;
    return exc !== undefined && integer && exc === c.value - sign;
  }
  const keyword = c.side === 'lower' ? FAMILY_KEYWORDS[family].lower : FAMILY_KEYWORDS[family].upper;
  const actual = numberKeyword(view, keyword);
  const wanted = c.exclusive ? c.value + (c.side === 'lower' ? 1 : -1) : c.value;
  if (actual === wanted) return true;
  // Lists and formats bound lengths too: every allowed value within the bound is a home.
  if (family === 'length') {
    // A pattern whose quantifier carries the bound ("^[A-Za-z0-9-]{1,39}$" for "1-39 letters or digits").
    const pattern = firstSite(view, 'pattern')?.value;
    if (typeof pattern === 'string' && quantifierBounds(pattern).some((q) => (c.side === 'lower' ? q.min === wanted : q.max === wanted))) return true;
    const values = listedValues(view);
    if (values !== undefined && values.length > 0) {
      return values.every((v) => typeof v !== 'string' || (c.side === 'lower' ? Array.from(v).length >= wanted : Array.from(v).length <= wanted));
    }
    if (c.side === 'lower' && wanted <= 1) return hasKeyword(view, 'format') || patternRejectsEmpty(view);
  }
  if (family === 'items' && c.side === 'lower' && wanted <= 1) return hasKeyword(view, 'contains');
  if (family === 'properties' && c.side === 'lower' && wanted <= 1) return view.required.size > 0;
  return false;
}

/** The `{n}`, `{n,}` and `{n,m}` quantifiers of a regular expression's source. */
function quantifierBounds(pattern: string): { min: number; max: number | undefined }[] {
  return [...pattern.matchAll(/\{(\d+)(,(\d*))?\}/g)].map((m) => ({
    min: Number(m[1]),
    max: m[2] === undefined ? Number(m[1]) : m[3] === undefined || m[3] === '' ? undefined : Number(m[3]),
  }));
}

function familyHasKeyword(view: SchemaView, family: Family, side: 'lower' | 'upper'): boolean {
  const keywords = FAMILY_KEYWORDS[family];
  if (side === 'lower') return hasKeyword(view, keywords.lower) || (keywords.exclusiveLower !== undefined && hasKeyword(view, keywords.exclusiveLower));
  return hasKeyword(view, keywords.upper) || (keywords.exclusiveUpper !== undefined && hasKeyword(view, keywords.exclusiveUpper));
}

function judgeBounds(
  entry: { node: AuditNode; view: SchemaView; location: string; pointer: string; family: Family; side: 'lower' | 'upper'; claims: { claim: Claim; c: BoundCandidate }[] },
  findings: FindingList,
): void {
  const { node, view, family, side } = entry;
  const first = entry.claims[0];
  if (first === undefined) return;
  // A bound keyword whose value is not a number is the validity layer's finding; the prose is not at fault.
  const keywords = FAMILY_KEYWORDS[family];
  const sideKeywords = side === 'lower' ? [keywords.lower, keywords.exclusiveLower] : [keywords.upper, keywords.exclusiveUpper];
  if (sideKeywords.some((k) => k !== undefined && (view.keywords.get(k) ?? []).some((site) => typeof site.value !== 'number'))) return;
  if (entry.claims.some(({ c }) => boundMatches(view, family, c))) return;
  if (!familyHasKeyword(view, family, side)) {
    // Lists bound lengths and formats make non-empty strings: a home without the keyword itself.
    if (family === 'length' && listedValues(view) !== undefined) return;
    addMissingBound(findings, node, entry.location, entry.pointer, family, first.c, first.claim, true);
    return;
  }
  const disagreeing = entry.claims.filter(({ c }) => comparable(node, c));
  if (disagreeing.length === 0) return;
  // "at most 30 days (2592000)": the schema's own number is in the prose too.
  const schemaValues = sideKeywords.map((k) => (k === undefined ? undefined : numberKeyword(view, k))).filter((v): v is number => v !== undefined);
  // "larger than 0" against `minimum: 0`: the same number, but the schema admits the bound itself.
  const exclusiveOnly = disagreeing.find(({ c }) => c.exclusive && family === 'number' && !isInteger(view) && schemaValues.includes(c.value) && !hasKeyword(view, side === 'lower' ? 'exclusiveMinimum' : 'exclusiveMaximum'));
  if (exclusiveOnly === undefined && entry.claims.some(({ claim }) => schemaValues.some((v) => mentionsNumber(claim.sentence, v)))) return;
  const shown = exclusiveOnly ?? disagreeing[0];
  if (shown === undefined) return;
  const schemaKeyword = side === 'lower'
    ? (hasKeyword(view, keywords.lower) ? keywords.lower : keywords.exclusiveLower ?? keywords.lower)
    : (hasKeyword(view, keywords.upper) ? keywords.upper : keywords.exclusiveUpper ?? keywords.upper);
  const actual = numberKeyword(view, schemaKeyword);
  const label = entry.location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`;
  findings.add('prose-only', node.parameter, side === 'lower' ? keywords.lower : keywords.upper, entry.location, entry.pointer, quote(shown.claim.sentence),
    `The description says ${boundPhrase(shown.c)} but ${label} has "${schemaKeyword}": ${String(actual)}: make them agree (set ${suggestedBound(family, shown.c, isInteger(view))}, or correct the description).`,
    { claim: shown.claim, confidence: shown.c.fromWord || shown.claim.fromTool ? 'medium' : 'high', fix: { pointer: entry.pointer, set: boundFix(family, shown.c, isInteger(view)) } });
}

function patternRejectsEmpty(view: SchemaView): boolean {
  const site = firstSite(view, 'pattern');
  if (site === undefined || typeof site.value !== 'string') return false;
  try {
    return !new RegExp(site.value, 'u').test('');
  } catch {
    return false;
  }
}

function nonEmpty(claim: Claim, findings: FindingList): void {
  const { node } = claim;
  const view = node.view;
  const checks: { type: string; keyword: string; home: () => boolean }[] = [
    {
      type: 'string',
      keyword: 'minLength',
      home: () => {
        const min = numberKeyword(view, 'minLength');
        const values = listedValues(view);
        return (min !== undefined && min >= 1) || patternRejectsEmpty(view) || hasKeyword(view, 'format') || (values !== undefined && !values.includes(''));
      },
    },
    { type: 'array', keyword: 'minItems', home: () => (numberKeyword(view, 'minItems') ?? 0) >= 1 || hasKeyword(view, 'contains') },
    { type: 'object', keyword: 'minProperties', home: () => (numberKeyword(view, 'minProperties') ?? 0) >= 1 || view.required.size > 0 },
  ];
  const applicable = checks.filter((check) => view.types === undefined ? check.type === 'string' : view.types.has(check.type));
  if (applicable.length === 0) return;
  if (applicable.some((check) => check.home())) return;
  const keyword = applicable[0]?.keyword ?? 'minLength';
  findings.add('prose-only', node.parameter, keyword, node.location, node.pointer, quote(claim.sentence),
    `Add "${keyword}": 1 to "${node.label}" (the description says it must not be empty).`, { claim, confidence: 'medium', fix: { pointer: node.pointer, set: { [keyword]: 1 } } });
}

function valueMentionKey(value: JsonValue): string {
  return typeof value === 'string' ? value.toLowerCase() : JSON.stringify(value);
}

function enumClaim(root: JsonObject, claim: Claim, c: EnumCandidate, findings: FindingList): void {
  const { node } = claim;
  let view = node.view;
  let location = node.location;
  let pointer = node.pointer;
  if (view.types !== undefined && view.types.has('array') && !view.types.has('string')) {
    const items = itemsOf(root, node);
    if (items !== undefined) {
      view = items.view;
      location = `${node.location}/items`;
      pointer = items.pointer;
    }
  }
  const claimed = c.values.map((v) => v.toLowerCase());
  if (view.types?.has('boolean') === true && claimed.every((v) => ['true', 'false', 'yes', 'no'].includes(v))) return;
  const listed = listedValues(view);
  if (listed !== undefined) {
    const allowed = new Set(listed.map(valueMentionKey));
    const missing = c.values.filter((v) => !allowed.has(v.toLowerCase()) && !allowed.has(v));
    if (missing.length === 0) return;
    const overlap = c.values.length - missing.length;
    if (!c.quoted && overlap === 0) return;
    const enumSite = firstSite(view, 'enum');
    findings.add('prose-only', node.parameter, 'enum', location, pointer, quote(claim.sentence),
      `The description allows ${missing.map((v) => `"${v}"`).join(', ')}, which "${node.label}" does not list in "enum" (${json(listed)}): add ${missing.length === 1 ? 'it' : 'them'} to "enum" or correct the description.`,
      { claim, confidence: c.quoted && !claim.fromTool ? 'high' : 'medium', fix: enumSite === undefined || enumSite.conditional ? undefined : { pointer: enumSite.pointer, set: { enum: [...listed, ...missing.map(enumValue(view))] } } });
    return;
  }
  const pattern = firstSite(view, 'pattern');
  if (pattern !== undefined && typeof pattern.value === 'string') {
    try {
      const regex = new RegExp(pattern.value, 'u');
      if (c.values.every((v) => regex.test(v))) return;
    } catch {
      // An invalid pattern is the validity layer's finding.
    }
  }
  const values = c.values.map(enumValue(view));
  findings.add('prose-only', node.parameter, 'enum', location, pointer, quote(claim.sentence),
    `Add "enum": ${json(values)} to ${location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`} (the description lists the allowed values).`,
    { claim, confidence: c.quoted && !claim.fromTool && c.rule === 'one-of' ? 'high' : 'medium', fix: { pointer, set: { enum: values } } });
}

function enumValue(view: SchemaView): (text: string) => JsonValue {
  return (text) => {
    if ((view.types?.has('integer') === true || view.types?.has('number') === true) && !(view.types.has('string')) && Number.isFinite(Number(text))) return Number(text);
    return text;
  };
}

/** Values a pattern claiming a standard format must refuse; a pattern that accepts one of them is too loose. */
const BAD_SAMPLES: Readonly<Record<string, readonly string[]>> = {
  date: ['x', 'tomorrow', '2024/01/31', '31-01-2024', '20240131x', 'not a date'],
  'date-time': ['x', 'tomorrow at 9', 'not a date', '2024/01/31 10:00'],
  time: ['x', 'noon', 'not a time'],
  uuid: ['x', 'not-a-uuid', '1234', 'abc'],
  email: ['x', 'not an email', 'a@', 'user.example.com'],
  uri: ['x', 'not a url', 'example'],
  ipv4: ['x', '999', 'not an ip'],
  ipv6: ['x', 'not an ip'],
  duration: ['x', '5 minutes'],
};

function patternIsHomeFor(pattern: string, format: string | undefined): boolean {
  if (format === undefined) return true;
  const bad = BAD_SAMPLES[format];
  if (bad === undefined) return true;
  try {
    const regex = new RegExp(pattern, 'u');
    return bad.every((sample) => !regex.test(sample));
  } catch {
    return true;
  }
}

function negated(sentence: string, at: number): boolean {
  return /\b(?:not|never|no|instead\s+of|rather\s+than|unlike)\s+(?:an?\s+|in\s+|as\s+|the\s+)?$/i.test(sentence.slice(0, at));
}

/**
 * A format the prose offers alongside others ("ISO 8601 date or range", "ISO 8601, or relative dates such as
 * '2 weeks ago'"), for some values only ("for dates, YYYY-MM-DD"), or of a default ("defaults to a random UUID"):
 * a `format` would reject calls the prose allows.
 */
function formatIsPartial(sentence: string, c: FormatCandidate): boolean {
  if (/\b(?:or|and\/or)\s+(?:an?\s+)?(?:[\w-]+\s+)?(?:ranges?|relative|durations?|keywords?|expressions?|natural[- ]language|timestamps?\s+like)\b/i.test(sentence)) return true;
  if (/\brelative\s+(?:dates?|times?)\b|\b(?:\d+\s+\w+\s+ago|yesterday|tomorrow)\b/i.test(sentence)) return true;
  const before = sentence.slice(0, c.start);
  if (/(?:^|[.;]\s*)for\s+[\w\s-]{1,30},\s*(?:use\s+)?$/i.test(before) || /\bfor\s+[\w-]+\s+(?:fields?|values?|parameters?)\s*,?\s*$/i.test(before)) return true;
  return /\bdefaults?\s+to\s+(?:an?\s+)?(?:random|new|generated|fresh)?\s*$/i.test(before);
}

/** Upper-case words that stand for a value in a template (`user:ID`); others (`GHSA`) are literal. */
const PLACEHOLDER_WORDS = /^(?:ID|IDS|NAME|NUMBER|NUM|OWNER|REPO|ORG|KEY|SLUG|USER|TEAM|VALUE|TOKEN|HASH|SHA|UUID|LOGIN|EMAIL)$/;

/** A `pattern` for the templates the prose shows: `GHSA-xxxx-xxxx-xxxx`, `user:ID` or `team:ID`, `HH:MM`. */
export function templatePattern(templates: readonly string[]): string | undefined {
  const parts: string[] = [];
  for (const template of templates) {
    let out = '';
    const tokens = template.match(/YYYY|MM|DD|HH|SS|[xX]{2,}|#+|N{2,}|[A-Z]{2,}|[\s\S]/g) ?? [];
    for (const token of tokens) {
      if (/^(?:YYYY|MM|DD|HH|SS)$/.test(token)) out += `[0-9]{${token.length}}`;
      else if (/^[xX]{2,}$/.test(token)) out += `[A-Za-z0-9]{${token.length}}`;
      else if (/^#+$|^N{2,}$/.test(token)) out += `[0-9]{${token.length}}`;
      else if (PLACEHOLDER_WORDS.test(token)) out += '[^\\s]+';
      else out += token.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    if (out === '') return undefined;
    parts.push(out);
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? `^${parts[0] ?? ''}$` : `^(?:${parts.join('|')})$`;
}

/** A pattern for a code the prose describes ("Three-letter ISO code", "ISO country code (e.g., 'US', 'GB')"). */
function codePattern(sentence: string, c: FormatCandidate): string | undefined {
  if (c.templates !== undefined) return templatePattern(c.templates);
  const letters = /\b(two|three|2|3)[- ]letter\b/i.exec(sentence)?.[1]?.toLowerCase();
  if (letters !== undefined) return `^[A-Za-z]{${letters === 'two' || letters === '2' ? 2 : 3}}$`;
  const examples = [...sentence.matchAll(/'([A-Za-z]{2,3})'|"([A-Za-z]{2,3})"|\x60([A-Za-z]{2,3})\x60/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
  const first = examples[0];
  if (first !== undefined && examples.every((e) => e.length === first.length)) return `^[A-Za-z]{${first.length}}$`;
  return undefined;
}

function formatClaim(root: JsonObject, claim: Claim, c: FormatCandidate, findings: FindingList): void {
  const { node } = claim;
  if (negated(claim.sentence, c.start)) return;
  if (c.keyword === 'format' && formatIsPartial(claim.sentence, c)) return;
  let view = node.view;
  let location = node.location;
  let pointer = node.pointer;
  if (view.types !== undefined && !view.types.has('string')) {
    if (!view.types.has('array')) return;
    const items = itemsOf(root, node);
    if (items === undefined) return;
    view = items.view;
    location = `${node.location}/items`;
    pointer = items.pointer;
    if (view.types !== undefined && !view.types.has('string')) return;
  }
  if (hasKeyword(view, 'format') || listedValues(view) !== undefined) return;
  const pattern = firstSite(view, 'pattern');
  if (pattern !== undefined && typeof pattern.value === 'string' && (c.keyword !== 'format' || patternIsHomeFor(pattern.value, c.format))) return;
  const label = location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`;
  const loose = pattern !== undefined ? ` (its "pattern" ${json(pattern.value)} accepts values that are not ${c.format ?? 'in that format'})` : '';
  let suggestion: string;
  let fix: SchemaFix | undefined;
  const derived = c.keyword === 'format' ? undefined : codePattern(claim.sentence, c);
  if (c.keyword === 'enum') suggestion = `Add an "enum" of the accepted codes to ${label} (the description says "${c.phrase}"), or at least "pattern": "^[A-Z]{3}$".`;
  else if (c.keyword === 'format') {
    suggestion = `Add "format": "${c.format ?? ''}" to ${label}${loose} (the description says "${c.phrase}").`;
    fix = { pointer, set: { format: c.format ?? '' } };
  } else if (derived !== undefined) {
    suggestion = `Add "pattern": ${json(derived)} to ${label} (the description says "${c.phrase}").`;
    fix = { pointer, set: { pattern: derived } };
  } else suggestion = `Add a "pattern" to ${label} that encodes the format the description states ("${c.phrase}").`;
  // A format shown ("YYYY-MM-DD", "UUID", a template) is sure; one named ("ISO 8601", "ISO country code") is read.
  const shown = c.rule === 'yyyy-mm-dd' || c.rule === 'uuid' || c.rule === 'format-template' || c.rule === 'hh-mm' || c.rule === 'e164';
  findings.add('prose-only', node.parameter, c.keyword, location, pointer, quote(claim.sentence), suggestion,
    { claim, confidence: shown && !claim.fromTool ? 'high' : 'medium', fix });
}

function sameDefault(a: JsonValue, b: JsonValue): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

function defaultClaim(claim: Claim, c: DefaultCandidate, findings: FindingList): void {
  const { node } = claim;
  const view = node.view;
  const site = firstSite(view, 'default');
  if (site !== undefined) {
    if (c.literal === undefined || !c.comparable) return;
    if (sameDefault(site.value, c.literal)) return;
    // "defaults to false" against `default: null` where null means false is still a disagreement worth a look,
    // but a string default spelled differently in prose ("open" vs "OPEN") is not.
    findings.add('prose-only', node.parameter, 'default', node.location, node.pointer, quote(claim.sentence),
      `The description says the default is ${json(c.literal)} but "${node.label}" has "default": ${json(site.value)}: make them agree.`, { claim });
    return;
  }
  if (c.literal === undefined) return;
  if (typeof c.literal === 'string' && !allows(view, 'string')) return;
  if (typeof c.literal === 'number' && !allows(view, 'number')) return;
  if (typeof c.literal === 'boolean' && !allows(view, 'boolean')) return;
  // The schema's own spelling of the value ("Defaults to low." for `"enum": ["low", ...]`); none when it lists no such value.
  const listed = listedValues(view);
  const literal = listed === undefined ? c.literal : listed.find((v) => sameDefault(v, c.literal ?? null));
  findings.add('prose-only', node.parameter, 'default', node.location, node.pointer, quote(claim.sentence),
    `Add "default": ${json(literal ?? c.literal)} to "${node.label}" (the description says it defaults to ${json(literal ?? c.literal)}), so the model and the tool agree on what omitting it means.`,
    { claim, confidence: 'medium', fix: literal === undefined ? undefined : { pointer: node.pointer, set: { default: literal } } });
}

// ---------------------------------------------------------------------------------------------------------------
// schema → prose

/** Words that explain a `pattern`: the description says what the value looks like. */
const PATTERN_VOCABULARY = /\b(?:format|formatted|pattern|regex|regular\s+expression|letters?|digits?|characters?|alphanumeric|numeric|lower-?case|upper-?case|capitals?|capitalized|hex(?:adecimal)?|prefix(?:ed)?|suffix(?:ed)?|starts?\s+with|begins?\s+with|ends?\s+with|e\.g\.|for\s+example|such\s+as|iso|rfc|uuid|guid|slug|semver|e\.164|of\s+the\s+form|looks\s+like|hyphens?|dashes|underscores?|yyyy|mm|dd|hh)\b|\be\.g\b/i;

/** Words that explain a `format`, by format. */
const FORMAT_VOCABULARY: Readonly<Record<string, RegExp>> = {
  date: /\b(?:dates?|day|yyyy|iso|rfc|birthday|deadline)\b/i,
  'date-time': /\b(?:date|time|timestamp|datetime|date-time|iso|rfc|instant|moment|when)\b/i,
  time: /\b(?:time|hh|iso|rfc|clock|hour)\b/i,
  duration: /\b(?:duration|iso|period|interval|how\s+long)\b/i,
  email: /\be-?mail\b/i,
  'idn-email': /\be-?mail\b/i,
  uri: /\b(?:url|urls|uri|uris|iri|link|address|https?|href|endpoint|web|website|webhook)\b/i,
  'uri-reference': /\b(?:url|uri|iri|link|reference|path|href|address)\b/i,
  iri: /\b(?:url|uri|iri|link|address)\b/i,
  'iri-reference': /\b(?:url|uri|iri|link|reference|address)\b/i,
  'uri-template': /\b(?:template|url|uri)\b/i,
  uuid: /\b(?:uuid|guid)\b/i,
  hostname: /\b(?:host|hostname|domain|server)\b/i,
  'idn-hostname': /\b(?:host|hostname|domain|server)\b/i,
  ipv4: /\b(?:ip|ipv4|address)\b/i,
  ipv6: /\b(?:ip|ipv6|address)\b/i,
  regex: /\b(?:regex|regular\s+expression|pattern)\b/i,
  'json-pointer': /\b(?:pointer|json)\b/i,
  'relative-json-pointer': /\b(?:pointer|json)\b/i,
};

/** `\d` (ASCII: the regex has no `u` flag). */
function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** `\w`: `[A-Za-z0-9_]`. */
function isWordChar(c: string): boolean {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

/**
 * `1234567` → `1,234,567`: what `text.replace(/\B(?=(\d{3})+(?!\d))/g, ',')` gives, for any text (`1.2345e+25` →
 * `1.2,345e+25` too), by a scan. That regex runs its `(\d{3})+` lookahead to the end of the digit run at every
 * position: quadratic in the run's length. Here each run is walked once: a comma goes before position `i` of a
 * run ending at `end` when `end - i` is a positive multiple of 3 and `i` is not a word boundary (`i > 0` and the
 * character before `i` is a word character).
 */
export function groupThousands(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text.charAt(i))) {
      out += text.charAt(i);
      i++;
      continue;
    }
    let end = i;
    while (end < text.length && isDigit(text.charAt(end))) end++;
    for (let at = i; at < end; at++) {
      if ((end - at) % 3 === 0 && at > 0 && isWordChar(text.charAt(at - 1))) out += ',';
      out += text.charAt(at);
    }
    i = end;
  }
  return out;
}

function mentionsNumber(text: string, value: number): boolean {
  const variants = new Set<string>([String(value)]);
  if (Number.isInteger(value) && Math.abs(value) >= 1000) {
    const grouped = groupThousands(Math.abs(value).toString());
    const sign = value < 0 ? '-' : '';
    variants.add(`${sign}${grouped}`);
    variants.add(`${sign}${grouped.replace(/,/g, ' ')}`);
    variants.add(`${sign}${grouped.replace(/,/g, '_')}`);
    variants.add(`${sign}${grouped.replace(/,/g, '.')}`);
    variants.add(`${sign}${grouped.replace(/,/g, '\u202f')}`);
    if (value % 1000 === 0) {
      variants.add(`${value / 1000}k`);
      variants.add(`${value / 1000} thousand`);
    }
    if (value % 1_000_000 === 0) {
      variants.add(`${value / 1_000_000}M`);
      variants.add(`${value / 1_000_000} million`);
    }
  }
  for (const [word, n] of Object.entries(NUMBER_NAMES)) if (n === value) variants.add(word);
  return [...variants].some((variant) => new RegExp(`(?<![\\d.,\\w])${escapeRegExp(variant)}(?![\\d\\w]|[.,]\\d)`, 'i').test(text));
}

const NUMBER_NAMES: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11,
  twelve: 12, fifteen: 15, twenty: 20, thirty: 30, fifty: 50, hundred: 100, thousand: 1000, million: 1_000_000,
};

function mentionsValue(text: string, value: JsonValue): boolean {
  if (typeof value === 'number') return mentionsNumber(text, value);
  if (typeof value !== 'string' || value === '') return false;
  if (/^[\w-]+$/.test(value)) {
    const spaced = value.replace(/[_-]+/g, '[\\s_-]+');
    return new RegExp(`(?<![\\w])(?:${escapeRegExp(value)}|${spaced})(?![\\w])`, 'i').test(text);
  }
  return text.toLowerCase().includes(value.toLowerCase());
}

/**
 * Trivial bounds every reader assumes: a quantity is not negative, a count or page number starts at 1, a name is
 * not empty, a list has an item. Stating them is good practice; leaving them unsaid misleads no one.
 */
function trivialBound(keyword: string, value: number): boolean {
  if (keyword === 'minimum') return value === 0 || value === 1;
  if (keyword === 'exclusiveMinimum') return value === 0;
  if (keyword === 'minLength') return value <= 2;
  if (keyword === 'minItems' || keyword === 'minProperties') return value <= 1;
  return false;
}

/**
 * Bounds that are the limits of a type, not of the tool: zod writes ±9007199254740991 (the safe-integer limit) on
 * every integer, generators write int32/int64 limits. And upper bounds no realistic value comes near: a million
 * and more, ten thousand characters and more, a thousand items and more. Neither surprises a model or an engineer.
 */
function unrealisticBound(keyword: string, value: number): boolean {
  const limit = Math.abs(value);
  if ([2 ** 53 - 1, 2 ** 53, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1].includes(limit)) return true;
  if (keyword === 'maximum' || keyword === 'exclusiveMaximum') return value >= 1_000_000;
  if (keyword === 'maxLength') return value >= 10_000;
  if (keyword === 'maxItems' || keyword === 'maxProperties') return value >= 1000;
  return false;
}

/**
 * An enum whose values a model cannot read: numbers (`60, 300, 600`) or one-character codes. Words, names and
 * standard codes (`asc`/`desc`, `open`/`closed`, severities, regions, locales) explain themselves: the model reads
 * them in the schema, so the prose need not repeat them.
 */
function crypticEnum(values: readonly JsonValue[]): boolean {
  return values.some((v) => typeof v === 'number' || (typeof v === 'string' && v.length === 1 && /[A-Za-z0-9]/.test(v)));
}

const BOUND_KEYWORDS: readonly { keyword: string; family: Family; side: 'lower' | 'upper'; exclusive: boolean }[] = [
  { keyword: 'minimum', family: 'number', side: 'lower', exclusive: false },
  { keyword: 'exclusiveMinimum', family: 'number', side: 'lower', exclusive: true },
  { keyword: 'maximum', family: 'number', side: 'upper', exclusive: false },
  { keyword: 'exclusiveMaximum', family: 'number', side: 'upper', exclusive: true },
  { keyword: 'minLength', family: 'length', side: 'lower', exclusive: false },
  { keyword: 'maxLength', family: 'length', side: 'upper', exclusive: false },
  { keyword: 'minItems', family: 'items', side: 'lower', exclusive: false },
  { keyword: 'maxItems', family: 'items', side: 'upper', exclusive: false },
  { keyword: 'minProperties', family: 'properties', side: 'lower', exclusive: false },
  { keyword: 'maxProperties', family: 'properties', side: 'upper', exclusive: false },
];

function schemaOnly(
  root: JsonObject,
  nodes: readonly AuditNode[],
  claims: readonly Claim[],
  mentioned: ReadonlyMap<string, string[]>,
  toolText: string,
  findings: FindingList,
): void {
  for (const node of nodes) {
    const view = node.view;
    // A node's own keywords only: those of a `$ref` target are the node's too, but nested properties are nodes of
    // their own.
    const texts = [node.view.description ?? '', ...node.ancestorDescriptions];
    if (node.location === '') texts.push(...(mentioned.get(node.parameter) ?? []));
    const text = texts.join('\n');
    const nodeClaims = claims.filter((claim) => claim.node === node || (node.name === 'items' && claim.node.pointer === parentPointer(node)));
    const label = node.location.endsWith('/items') && node.name === 'items' ? `the items of "${node.label.slice(0, -2)}"` : `"${node.label}"`;

    for (const spec of BOUND_KEYWORDS) {
      const site = firstSite(view, spec.keyword);
      if (site === undefined || typeof site.value !== 'number') continue;
      const value = site.value;
      if (trivialBound(spec.keyword, value) || unrealisticBound(spec.keyword, value)) continue;
      const spoken = nodeClaims.some(({ candidate: c, node: owner }) => {
        if (c.kind === 'bound') {
          const target = boundTarget(owner, c);
          return target !== undefined && target.family === spec.family && c.side === spec.side;
        }
        if (c.kind === 'nonEmpty') return spec.side === 'lower' && value <= 1;
        if (c.kind === 'exactLength') return spec.family === 'length';
        return false;
      });
      if (spoken) continue;
      const neighbours = spec.exclusive && isInteger(view) ? [value, value + (spec.side === 'lower' ? 1 : -1)] : [value];
      if (neighbours.some((n) => mentionsNumber(text, n))) continue;
      const unit = spec.family === 'length' ? ' characters' : spec.family === 'items' ? ' items' : '';
      const phrase = spec.side === 'lower' ? (spec.exclusive ? 'greater than' : 'at least') : spec.exclusive ? 'less than' : 'at most';
      findings.add('schema-only', node.parameter, spec.keyword, node.location, site.pointer, json({ [spec.keyword]: value }),
        `Say it in the description of ${label}, next to the keyword (e.g. "${phrase} ${value}${unit}"${spec.family === 'number' ? ', with the unit' : ''}), or drop "${spec.keyword}" if it is not a real limit.`,
        { confidence: spec.side === 'upper' ? 'medium' : 'low' });
    }

    const multipleOf = firstSite(view, 'multipleOf');
    if (multipleOf !== undefined && typeof multipleOf.value === 'number') {
      const explained = mentionsNumber(text, multipleOf.value) || /\b(?:multiples?|increments?|steps?|decimals?|decimal\s+places|cents|whole|granularity|precision|rounded)\b/i.test(text);
      if (!explained) {
        findings.add('schema-only', node.parameter, 'multipleOf', node.location, multipleOf.pointer, json({ multipleOf: multipleOf.value }),
          `Say it in the description of ${label} (e.g. "in steps of ${multipleOf.value}"), or drop "multipleOf".`);
      }
    }

    const pattern = firstSite(view, 'pattern');
    if (pattern !== undefined && typeof pattern.value === 'string') {
      const spoken = nodeClaims.some(({ candidate: c }) => c.kind === 'format' || c.kind === 'exactLength' || c.kind === 'enum');
      if (!spoken && !PATTERN_VOCABULARY.test(text) && !hasMatchingExample(text, pattern.value)) {
        findings.add('schema-only', node.parameter, 'pattern', node.location, pattern.pointer, json({ pattern: pattern.value }),
          `Describe the format in the description of ${label}: what a valid value looks like, with an example that matches ${pattern.value}.`);
      }
    }

    const format = firstSite(view, 'format');
    if (format !== undefined && typeof format.value === 'string') {
      const name = format.value;
      const spoken = nodeClaims.some(({ candidate: c }) => c.kind === 'format');
      const vocabulary = FORMAT_VOCABULARY[name] ?? new RegExp(`\\b(?:${escapeRegExp(name)}|format)\\b`, 'i');
      if (!spoken && !vocabulary.test(text)) {
        findings.add('schema-only', node.parameter, 'format', node.location, format.pointer, json({ format: name }),
          `Name the format in the description of ${label} (e.g. "${FORMAT_EXAMPLES[name] ?? `a ${name}`}").`);
      }
    }

    const enumSite = firstSite(view, 'enum');
    if (enumSite !== undefined && Array.isArray(enumSite.value)) {
      const values = enumSite.value.filter((v) => v !== null && typeof v !== 'boolean');
      if (values.length >= 2 && crypticEnum(values)) {
        const spoken = nodeClaims.some(({ candidate: c }) => c.kind === 'enum');
        const standard = /\b(?:ISO|IANA|RFC|BCP\s*47|IETF|ICAO|IATA|UN\/LOCODE)\b/.test(text);
        const anyMentioned = values.some((v) => mentionsValue(text, v) || mentionsValue(toolText, v));
        if (!spoken && !standard && !anyMentioned) {
          findings.add('schema-only', node.parameter, 'enum', node.location, enumSite.pointer, json({ enum: enumSite.value }),
            `List the allowed values in the description of ${label} and say what each means (e.g. "one of ${values.slice(0, 4).map((v) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``).join(', ')}${values.length > 4 ? ', ...' : ''}").`);
        }
      }
    }

    // The prose calls a required parameter optional: the visible conflict (strict validation rejects every call
    // that believes the prose), reported against the schema's `required`.
    const optional = claims.find((claim) => claim.node === node && claim.candidate.kind === 'optional');
    if (optional !== undefined && node.parent?.required.has(node.name) === true) {
      const holder = holderOf(root, node);
      const own = holder !== undefined && holder.required.includes(node.name);
      findings.add('schema-only', node.parameter, 'required', node.location, node.pointer, quote(optional.sentence),
        `The description says ${label} is optional but the schema requires it: remove it from "required" (and give it a "default"), or correct the description.`,
        { confidence: optional.fromTool ? 'medium' : 'high', fix: own ? { pointer: holder.pointer, set: { required: holder.required.filter((n) => n !== node.name) } } : undefined });
    }

    // "'YYYY-MM-DDtoYYYY-MM-DD' - Timeframe is also supported ... e.g. 2022-04-01to2022-07-30": an enum that lists
    // the placeholder itself refuses every real value of that shape.
    if (enumSite !== undefined && Array.isArray(enumSite.value) && !enumSite.conditional) {
      const placeholders = enumSite.value.filter((v): v is string => typeof v === 'string' && /YYYY|MM-DD|HH:MM/.test(v));
      const template = placeholders[0];
      if (template !== undefined && mentionsValue(text, template)) {
        const others = enumSite.value.filter((v) => !placeholders.includes(v as string));
        const regex = templatePattern(placeholders);
        findings.add('prose-only', node.parameter, 'enum', node.location, enumSite.pointer, quote(text.slice(0, 200)),
          `The "enum" of ${label} lists the placeholder ${json(template)} itself, so the values the description allows (${template} filled in) are rejected: replace it with a "pattern" for that shape (an "anyOf" of the other values and ${json(regex ?? '')}).`,
          { confidence: 'high', fix: regex === undefined ? undefined : { pointer: enumSite.pointer, remove: ['enum'], set: { anyOf: [{ enum: others }, { type: 'string', pattern: regex }] } } });
      }
    }
  }
}

const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  date: 'a date, YYYY-MM-DD',
  'date-time': 'an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z',
  time: 'a time, HH:MM:SS with offset',
  email: 'an email address',
  uri: 'an absolute URL',
  uuid: 'a UUID',
  duration: 'an ISO 8601 duration, e.g. PT15M',
};

function parentPointer(node: AuditNode): string {
  return node.pointer.replace(/\/items$/, '');
}

/** A word or quoted example in the prose that the pattern accepts (the pattern must not accept the empty string). */
function hasMatchingExample(text: string, pattern: string): boolean {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch {
    return true;
  }
  if (regex.test('')) return false;
  const candidates = new Set<string>();
  for (const m of text.matchAll(/`([^`]+)`|"([^"]+)"|'([^']+)'/g)) candidates.add(m[1] ?? m[2] ?? m[3] ?? '');
  for (const token of text.split(/\s+/)) candidates.add(stripWordPunctuation(token));
  for (const candidate of candidates) if (candidate !== '' && regex.test(candidate) && candidate.length >= 2) return true;
  return false;
}

const LEADING_PUNCTUATION = new Set(['(', '"', "'", '`']);
const TRAILING_PUNCTUATION = new Set([')', '"', "'", '`', '.', ',', ';', ':', '!', '?']);

/**
 * A token without its leading `("'\`` and trailing `)"'\`.,;:!?`: what
 * `token.replace(/^[("'\`]+|[)"'\`.,;:!?]+$/g, '')` gives, by two scans. The regex's second branch, unanchored at
 * the start, is tried at every position of a run of those characters and runs to its end before failing on `$`
 * (`))))…)a`): quadratic. As with the global replace, the trailing run is taken only after the leading one (a
 * token that is all punctuation loses it all once).
 */
export function stripWordPunctuation(token: string): string {
  let start = 0;
  while (start < token.length && LEADING_PUNCTUATION.has(token.charAt(start))) start++;
  let end = token.length;
  while (end > start && TRAILING_PUNCTUATION.has(token.charAt(end - 1))) end--;
  return token.slice(start, end);
}
