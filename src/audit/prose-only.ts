/**
 * prose → schema: each claim (a candidate constraint attributed to a parameter) judged against the schema, and
 * reported when the schema has no home for it or one that says something else.
 *
 * Pure: no I/O.
 */
import { isJsonObject, type JsonObject, type JsonValue, schemaTypeOf } from '../core/shared/json.js';
import { escapeToken, valueAt } from '../core/shared/json-pointer.js';
import type {
  BoundCandidate,
  DefaultCandidate,
  EnumCandidate,
  FormatCandidate,
  JsonType,
  RequiredKeysCandidate,
  TypeCandidate,
} from './candidates.js';
import { type Claim, FindingList, type FindingMeta, json, quote } from './findings.js';
import { IDENTIFIER_ONLY, lastNameWord, nameTokens, unitClass } from './mentions.js';
import { CLAUSE_CHARS, escapePattern, escapeRegExp, mentionsNumber, textBefore } from './prose-text.js';
import { PLACEHOLDER_LAYOUT, PREFIXED_ID, PREFIXED_PLACEHOLDER, singular, templateShape } from './prose.js';
import {
  allows,
  type AuditNode,
  firstSite,
  hasKeyword,
  listedValues,
  numberKeyword,
  resolveLocalRef,
  type SchemaView,
  viewOf,
} from './schema-nav.js';
import type { SchemaFix } from './types.js';

export type Family = 'number' | 'length' | 'items' | 'properties';

const FAMILY_KEYWORDS: Record<Family, { lower: string; upper: string; exclusiveLower?: string; exclusiveUpper?: string }> = {
  number: { lower: 'minimum', upper: 'maximum', exclusiveLower: 'exclusiveMinimum', exclusiveUpper: 'exclusiveMaximum' },
  length: { lower: 'minLength', upper: 'maxLength' },
  items: { lower: 'minItems', upper: 'maxItems' },
  properties: { lower: 'minProperties', upper: 'maxProperties' },
};

/** Where a bound lands: which family of keywords, on the node itself or on its array items. */
export function boundTarget(
  root: JsonObject,
  node: AuditNode,
  candidate: BoundCandidate,
): { family: Family; onItems: boolean } | undefined {
  const target = boundTargetOf(root, node, candidate);
  // "Latitude between -90 and 90" on a string or list: a negative number is no length or count.
  if (target !== undefined && target.family !== 'number' && candidate.value < 0) return undefined;
  // "a message with 0 or more replies": no length or count is below 0, so an inclusive 0 says nothing.
  if (target?.family !== 'number' && candidate.side === 'lower' && candidate.value === 0 && !candidate.exclusive) return undefined;
  return target;
}

function boundTargetOf(root: JsonObject, node: AuditNode, candidate: BoundCandidate): { family: Family; onItems: boolean } | undefined {
  const view = node.view;
  const cls = unitClass(candidate.unit);
  const hasNumber = view.types !== undefined && (view.types.has('number') || view.types.has('integer'));
  const hasString = view.types?.has('string') ?? false;
  const hasArray = view.types?.has('array') ?? false;
  const hasObject = view.types?.has('object') ?? false;
  // "no more than 20 words" on a text or a list of texts: no keyword counts words or lines (a number may count them).
  const counted = candidate.unit !== undefined && /^(?:words?|sentences?|paragraphs?|lines?|tokens?)$/.test(candidate.unit);
  if (counted && view.types !== undefined && !hasNumber) return undefined;
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
  // "values between 0 and 1", "in [0, 1]" on a list of numbers: a range with no noun is of the numbers, not their count.
  // Unless the list's own count already says the number: "Array of transaction IDs (1-500)" with maxItems 500.
  const countKeyword = candidate.side === 'lower' ? 'minItems' : 'maxItems';
  const countSaid = numberKeyword(view, countKeyword) === candidate.value;
  if (hasArray && !hasNumber && cls === undefined && RANGE_RULES.has(candidate.rule) && !countSaid && numericItems(root, node))
    return { family: 'number', onItems: true };
  if (hasArray && !hasNumber && cls !== 'measure') return { family: 'items', onItems: false };
  if (hasNumber) return { family: 'number', onItems: false };
  // "Hour of day (0-23)" on a string: a range from 0 with no unit is of the number the text holds, not of its length.
  if (hasString && cls === undefined && RANGE_RULES.has(candidate.rule) && /\d+(?:\.\d+)?/.exec(candidate.phrase)?.[0] === '0')
    return undefined;
  // "comma-separated values, max 15": a bare number on a string that holds a list counts its values, not characters;
  // "Page size (max: 500)" on a string bounds the number the text holds, which no keyword of a string can.
  if (hasString && cls === undefined && (describesCommaList(view) || SAYS_NUMBER.test(view.description ?? ''))) return undefined;
  // "at most 1000 rows" on a text counts rows, which no keyword of a string holds; a bare number is its length.
  if (hasString && (cls === undefined || (cls === 'noun' && CHARACTER_NOUN.test(candidate.unit ?? ''))))
    return { family: 'length', onItems: false };
  return undefined;
}

const RANGE_RULES = new Set(['between', 'interval', 'from-to', 'n-to-m']);

/** Items that are numbers, or numbers also accepted as text ("integer or string" codes): a range is of their values. */
function numericItems(root: JsonObject, node: AuditNode): boolean {
  const types = [...(itemsOf(root, node)?.view.types ?? [])];
  return types.some((t) => t === 'number' || t === 'integer') && types.every((t) => ['number', 'integer', 'string', 'null'].includes(t));
}

/** "127 alphanumeric, underscore, ... characters": a kind of character, the first of a list of them, counts characters. */
const CHARACTER_NOUN = /^(?:alphanumerics?|ascii|underscores?|hyphens?|dashes?|dots?|periods?|spaces?|symbols?|digits?|numbers?)$/;

/** True when the number can be compared with a schema value (no unit the schema may count differently). */
function comparable(node: AuditNode, candidate: BoundCandidate): boolean {
  if (!candidate.plain) return false;
  const cls = unitClass(candidate.unit);
  if (cls === 'bytes') return false;
  if (cls !== 'measure' || candidate.unit === undefined) return true;
  return countsIn(node, candidate.unit);
}

/** "between 5 and 1440 minutes" on `duration_minutes` or a value "in minutes": the schema counts in that unit. */
function countsIn(node: AuditNode, measure: string): boolean {
  const unit = singular(measure.toLowerCase());
  const names = [...nameTokens(node.parameter), ...nameTokens(node.name)].map(singular);
  const unitWords =
    unit === 'ms' || unit === 'millisecond'
      ? ['ms', 'millisecond']
      : unit === 's' || unit === 'sec' || unit === 'second'
        ? ['s', 'sec', 'second']
        : [unit];
  if (unitWords.some((u) => names.includes(u))) return true;
  const description = node.view.description ?? '';
  return unitWords.some((u) => new RegExp(`\\bin\\s+${escapeRegExp(u)}s?\\b`, 'i').test(description));
}

export function isInteger(view: SchemaView): boolean {
  return view.types !== undefined && view.types.has('integer') && !view.types.has('number');
}

/** A prose-only finding on what `claim` says, quoting its sentence: at its node unless `at` is a place below it. */
function addClaimFinding(
  findings: FindingList,
  claim: Claim,
  keyword: string,
  suggestion: string,
  meta: Omit<FindingMeta, 'claim'> = {},
  at: { readonly location: string; readonly pointer: string } = claim.node,
): void {
  const { node } = claim;
  findings.add('prose-only', node.parameter, keyword, at.location, at.pointer, quote(claim.sentence), suggestion, { ...meta, claim });
}

/** Every bound claim on one side of one family of one node (or its items), judged together. */
interface BoundEntry {
  readonly node: AuditNode;
  readonly view: SchemaView;
  readonly location: string;
  readonly pointer: string;
  readonly family: Family;
  readonly side: 'lower' | 'upper';
  readonly claims: { claim: Claim; c: BoundCandidate }[];
}

export function proseOnly(root: JsonObject, claims: readonly Claim[], findings: FindingList): void {
  // Bounds are judged per (node, family, side) over every claim, so "at most 100 per page" and "between 1 and
  // 100" agree with `maximum: 100` even when the prose also states another number elsewhere.
  const bounds = new Map<string, BoundEntry>();
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
          if (
            view.types !== undefined &&
            view.types.has('string') &&
            !hasKeyword(view, 'pattern') &&
            !hasKeyword(view, 'format') &&
            listedValues(view) === undefined
          ) {
            addClaimFinding(
              findings,
              claim,
              'pattern',
              `Add a "pattern" to "${node.label}" that encodes what the description requires of its characters ("${c.phrase}").`,
              { confidence: 'medium' },
            );
          }
          if (composition) break;
        }
        const target = boundTarget(root, node, c);
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
        // "4-character entry codes" on a list of strings: the width of each.
        const { view, location, pointer, label } = valueSite(root, node);
        const onItems = location !== node.location;
        if (!allows(view, 'string')) break;
        const min = numberKeyword(view, 'minLength');
        const max = numberKeyword(view, 'maxLength');
        const home =
          (min === c.value && max === c.value) ||
          hasKeyword(view, 'pattern') ||
          listedValues(view) !== undefined ||
          hasKeyword(view, 'format');
        if (home) break;
        // "2 character country codes", "3-letter": a code, whose home is a pattern of that many letters.
        const code = /^\s+(?:[\w-]+\s+)?codes?\b/i.test(claim.sentence.slice(c.end));
        const keyword = /letter|digit/i.test(c.phrase) || code ? 'pattern' : 'maxLength';
        const pattern = /digit/i.test(c.phrase) ? `^[0-9]{${c.value}}$` : `^[A-Za-z]{${c.value}}$`;
        addClaimFinding(
          findings,
          claim,
          keyword,
          keyword === 'pattern'
            ? `Add "pattern": ${json(pattern)} to "${label}" (the description says ` +
                `"${c.phrase}${code ? ' ... code' : ''}"), or "minLength"/"maxLength": ${c.value}.`
            : `Add "minLength": ${c.value} and "maxLength": ${c.value} to "${label}" (the description says ${c.phrase}).`,
          {
            confidence: code || claim.fromTool || onItems ? 'medium' : 'high',
            fix: { pointer, set: keyword === 'pattern' ? { pattern } : { minLength: c.value, maxLength: c.value } },
          },
          onItems ? { location, pointer } : undefined,
        );
        break;
      }
      case 'nonEmpty':
        nonEmpty(claim, findings);
        break;
      case 'unique': {
        // On a list only: "the name must be unique" on a string is about the server's state, not the call.
        if (node.view.types?.has('array') !== true || firstSite(node.view, 'uniqueItems')?.value === true) break;
        addClaimFinding(
          findings,
          claim,
          'uniqueItems',
          `Add "uniqueItems": true to "${node.label}" (the description says its items are distinct).`,
          {
            confidence: 'medium',
            fix: { pointer: node.pointer, set: { uniqueItems: true } },
          },
        );
        break;
      }
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
        const glossed = /([\w-]+)\W*$/.exec(textBefore(claim.sentence, c.start))?.[1]?.toLowerCase();
        if (
          c.phrase.startsWith('(') &&
          glossed !== undefined &&
          (listedValues(view) ?? []).some((v) => typeof v === 'string' && v.toLowerCase() === glossed)
        )
          break;
        addClaimFinding(
          findings,
          claim,
          'readOnly',
          `Add "readOnly": true to "${node.label}" (or "const" with the one value callers ` +
            `may send), or remove the parameter from the tool's input if callers cannot set it.`,
          { fix: { pointer: node.pointer, set: { readOnly: true } } },
        );
        break;
      }
      case 'default':
        defaultClaim(claim, c, findings, propertyNames(root));
        break;
      case 'required': {
        const parent = node.parent;
        if (parent === undefined || parent.anyRequired.has(node.name)) break;
        const where = node.location === '' ? 'the input schema' : `the object holding "${node.label}"`;
        const holder = holderOf(root, node);
        addClaimFinding(
          findings,
          claim,
          'required',
          `Add "${node.name}" to "required" of ${where} (the description says it is required), or, if it truly is optional, ` +
            `reword the description to say when to include it${hasKeyword(node.view, 'default') ? '' : ' and give it a "default"'}.`,
          { fix: holder === undefined ? undefined : { pointer: holder.pointer, set: { required: [...holder.required, node.name] } } },
        );
        break;
      }
      case 'requiredKeys':
        requiredKeysClaim(root, claim, c, findings);
        break;
      case 'optional':
        break;
      case 'type':
        typeClaim(root, claim, c, findings);
        break;
    }
  }

  for (const entry of bounds.values()) judgeBounds(entry, findings);
}

/**
 * "Must include: version, sources, layers" on an object, or on a list's items: the keys its `required` lacks. A key
 * a closed object does not declare is not suggested (the prose and the properties disagree: the maintainer's call).
 */
function requiredKeysClaim(root: JsonObject, claim: Claim, c: RequiredKeysCandidate, findings: FindingList): void {
  const { node } = claim;
  const onItems = !allows(node.view, 'object') && allows(node.view, 'array');
  if (!onItems && !allows(node.view, 'object')) return;
  const site = objectSite(root, valueAt(root, node.pointer), node.pointer, onItems);
  const view = site === undefined ? undefined : viewOf(root, site.schema, site.pointer);
  const closed = site?.schema.additionalProperties === false;
  const missing = c.keys.filter((key) => view === undefined || (!view.required.has(key) && (!closed || view.properties.has(key))));
  if (missing.length === 0) return;
  const holder = onItems ? `the items of "${node.label}"` : `"${node.label}"`;
  const named = missing.map((k) => `"${k}"`).join(', ');
  const required = Array.isArray(site?.schema.required) ? site.schema.required.filter((n): n is string => typeof n === 'string') : [];
  addClaimFinding(
    findings,
    claim,
    'required',
    `Add "required": ${json([...required, ...missing])} to ${holder} (the description says it must have ${named}).`,
    { confidence: 'medium', fix: site === undefined ? undefined : { pointer: site.pointer, set: { required: [...required, ...missing] } } },
  );
}

/** The object schema at `pointer` (or its items'), through a `$ref` or the one object branch of an `anyOf`/`oneOf`. */
function objectSite(
  root: JsonObject,
  schema: JsonValue | undefined,
  pointer: string,
  items: boolean,
  depth = 0,
): { schema: JsonObject; pointer: string } | undefined {
  if (!isJsonObject(schema) || depth > 4) return undefined;
  if (typeof schema.$ref === 'string') {
    const target = resolveLocalRef(root, schema.$ref);
    return target === undefined ? undefined : objectSite(root, target.schema, target.pointer, items, depth + 1);
  }
  const type = schema.type;
  const is = (t: string): boolean => type === t || (Array.isArray(type) && type.includes(t));
  if (items && is('array')) return objectSite(root, schema.items, `${pointer}/items`, false, depth + 1);
  if (!items && (is('object') || (type === undefined && isJsonObject(schema.properties)))) return { schema, pointer };
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const found = branches.flatMap((branch, i) => objectSite(root, branch, `${pointer}/${keyword}/${i}`, items, depth + 1) ?? []);
    if (found.length === 1) return found[0];
  }
  return undefined;
}

/**
 * A type the prose gives: on a value the schema leaves open, the `type` to add; on a typed value, reported only
 * when stated outright and the schema allows none of it (or, for "a string or a number", not each of them).
 */
function typeClaim(root: JsonObject, claim: Claim, c: TypeCandidate, findings: FindingList): void {
  const { node } = claim;
  const view = node.view;
  const stated = c.types.filter((t) => t !== 'null');
  if (stated.length === 0 || listedValues(view) !== undefined) return;
  const schema = valueAt(root, node.pointer);
  if (isJsonObject(schema) && isUntyped(view, schema)) {
    const nullable = view.types?.has('null') === true || c.types.includes('null');
    const type: JsonValue = stated.length === 1 && !nullable ? (stated[0] as string) : [...stated, ...(nullable ? ['null'] : [])];
    const branches = BRANCH_KEYWORDS.some((k) => Object.hasOwn(schema, k));
    const defaults = (view.keywords.get('default') ?? []).map((site) => site.value);
    // A default of another type ("ten" on "Number of results") would be refused by the fix: no fix then.
    const fits = defaults.every((d) => {
      const given = schemaTypeOf(d);
      return given === 'null' || stated.includes(given) || (given === 'integer' && stated.includes('number'));
    });
    addClaimFinding(
      findings,
      claim,
      'type',
      `Add "type": ${json(type)} to "${node.label}" (the description says "${c.phrase.trim()}"; the schema accepts any value).`,
      { confidence: c.strong ? undefined : 'medium', fix: branches || !fits ? undefined : { pointer: node.pointer, set: { type } } },
    );
    return;
  }
  if (!c.strong || view.types === undefined) return;
  const items = view.types.has('array') ? itemsOf(root, node)?.view : undefined;
  const allowed = (t: JsonType): boolean => allows(view, t) || (!c.alternatives && items !== undefined && allows(items, t));
  const conflict = c.alternatives ? !stated.every(allowed) : !stated.some(allowed);
  if (!conflict) return;
  const declared = [...view.types].filter((t) => t !== 'null').join(' or ');
  addClaimFinding(
    findings,
    claim,
    'type',
    `"${node.label}" is typed ${declared}, but the description says "${c.phrase.trim()}" (${stated.join(' or ')}): ` +
      `make the schema's "type" and the description agree.`,
  );
}

const BRANCH_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;

/** No `type`, nor anything that implies one (values, properties, items), nor a reference the audit does not follow. */
function isUntyped(view: SchemaView, schema: JsonObject): boolean {
  if (view.types !== undefined && [...view.types].some((t) => t !== 'null')) return false;
  if (view.properties.size > 0 || view.items !== undefined) return false;
  const branches = BRANCH_KEYWORDS.flatMap((k) => (Array.isArray(schema[k]) ? schema[k] : []));
  return ![schema, ...branches].some((s) => isJsonObject(s) && Object.hasOwn(s, '$ref'));
}

/** The object schema that declares `node` as a property, and its own `required` list (for a fix that edits it). */
export function holderOf(root: JsonObject, node: AuditNode): { pointer: string; required: string[] } | undefined {
  const suffix = `/properties/${escapeToken(node.name)}`;
  if (!node.pointer.endsWith(suffix)) return undefined;
  const pointer = node.pointer.slice(0, -suffix.length);
  const holder = valueAt(root, pointer);
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

const CHARACTER_CLASS =
  /\b(?:upper-?case|lower-?case|capital|alphanumeric|ascii|hex(?:adecimal)?|numeric|latin|printable|non-whitespace)\b/i;

/**
 * "At most 2 decimal places" on a number: `multipleOf: 0.01`; on a string, a decimal numeral ("a numeric string with
 * up to 18 decimal places"): a `pattern`. A value that may be either is left alone: its string form is the precise one.
 */
function precisionClaim(claim: Claim, c: BoundCandidate, findings: FindingList): void {
  const { node } = claim;
  if (c.side !== 'upper' || node.view.types === undefined || !Number.isInteger(c.value) || c.value < 1) return;
  const numeric = allows(node.view, 'number');
  const text = node.view.types.has('string');
  if (text && !numeric) {
    if (hasKeyword(node.view, 'pattern') || hasKeyword(node.view, 'format') || hasKeyword(node.view, 'enum')) return;
    const pattern = `^-?\\d+(?:\\.\\d{1,${c.value}})?$`;
    addClaimFinding(
      findings,
      claim,
      'pattern',
      `Add "pattern": ${json(pattern)} to "${node.label}" (the description says ${c.phrase}), so a string that is no ` +
        `decimal number of that precision is rejected.`,
      { fix: { pointer: node.pointer, set: { pattern } } },
    );
    return;
  }
  if (!numeric || text || hasKeyword(node.view, 'multipleOf')) return;
  const step = Number((10 ** -c.value).toFixed(Math.max(0, Math.min(20, Math.round(c.value)))));
  addClaimFinding(findings, claim, 'multipleOf', `Add "multipleOf": ${step} to "${node.label}" (the description says ${c.phrase}).`, {
    fix: { pointer: node.pointer, set: { multipleOf: step } },
  });
}

/** Where a claim about the values lands: the node, or the items of a list that is no string. */
function valueSite(root: JsonObject, node: AuditNode): { view: SchemaView; location: string; pointer: string; label: string } {
  const types = node.view.types;
  const items = types !== undefined && types.has('array') && !types.has('string') ? itemsOf(root, node) : undefined;
  if (items === undefined) return { view: node.view, location: node.location, pointer: node.pointer, label: node.label };
  return { view: items.view, location: `${node.location}/items`, pointer: items.pointer, label: `${node.label}[]` };
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
      return { [c.side === 'lower' ? (keywords.exclusiveLower ?? '') : (keywords.exclusiveUpper ?? '')]: c.value };
    }
    return { [c.side === 'lower' ? keywords.lower : keywords.upper]: c.value };
  }
  const value = c.exclusive ? (c.side === 'lower' ? c.value + 1 : c.value - 1) : c.value;
  return { [c.side === 'lower' ? keywords.lower : keywords.upper]: value };
}

function suggestedBound(family: Family, c: BoundCandidate, integer: boolean): string {
  return json(boundFix(family, c, integer))
    .replace(/^\{|\}$/g, '')
    .replace(':', ': ');
}

function addMissingBound(
  findings: FindingList,
  node: AuditNode,
  location: string,
  pointer: string,
  family: Family,
  c: BoundCandidate,
  claim: Claim,
  exists: boolean,
): void {
  // The keyword the fix sets: "greater than 0" on a number is `exclusiveMinimum`, on an integer `minimum: 1`.
  const set = boundFix(family, c, isInteger(node.view));
  const keyword = Object.keys(set)[0] ?? (c.side === 'lower' ? FAMILY_KEYWORDS[family].lower : FAMILY_KEYWORDS[family].upper);
  const label = location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`;
  const medium = c.fromWord || claim.fromTool || !c.plain;
  findings.add(
    'prose-only',
    node.parameter,
    keyword,
    location,
    pointer,
    quote(claim.sentence),
    `Add ${suggestedBound(family, c, isInteger(node.view))} to ${label} (the description ` +
      `says ${boundPhrase(c)}), or drop the bound from the description if it is not enforced.`,
    {
      claim,
      confidence: medium ? 'medium' : 'high',
      fix: exists ? { pointer, set } : undefined,
    },
  );
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
    // "Scale factor (0.0-1.0)" against `exclusiveMinimum: 0`: a range's ends are written loosely; the number agrees.
    if (exc === c.value && (c.rule === 'n-to-m' || c.rule === 'between' || c.rule === 'from-to')) return true;
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
    if (typeof pattern === 'string' && quantifierBounds(pattern).some((q) => (c.side === 'lower' ? q.min === wanted : q.max === wanted)))
      return true;
    const values = listedValues(view);
    if (values !== undefined && values.length > 0) {
      return values.every(
        (v) => typeof v !== 'string' || (c.side === 'lower' ? Array.from(v).length >= wanted : Array.from(v).length <= wanted),
      );
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
  if (side === 'lower')
    return hasKeyword(view, keywords.lower) || (keywords.exclusiveLower !== undefined && hasKeyword(view, keywords.exclusiveLower));
  return hasKeyword(view, keywords.upper) || (keywords.exclusiveUpper !== undefined && hasKeyword(view, keywords.exclusiveUpper));
}

function judgeBounds(entry: BoundEntry, findings: FindingList): void {
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
  const schemaValues = sideKeywords
    .map((k) => (k === undefined ? undefined : numberKeyword(view, k)))
    .filter((v): v is number => v !== undefined);
  // "larger than 0" against `minimum: 0`: the same number, but the schema admits the bound itself.
  const exclusiveOnly = disagreeing.find(
    ({ c }) =>
      c.exclusive &&
      family === 'number' &&
      !isInteger(view) &&
      schemaValues.includes(c.value) &&
      !hasKeyword(view, side === 'lower' ? 'exclusiveMinimum' : 'exclusiveMaximum'),
  );
  if (exclusiveOnly === undefined && entry.claims.some(({ claim }) => schemaValues.some((v) => mentionsNumber(claim.sentence, v)))) return;
  const shown = exclusiveOnly ?? disagreeing[0];
  if (shown === undefined) return;
  const schemaKeyword =
    side === 'lower'
      ? hasKeyword(view, keywords.lower)
        ? keywords.lower
        : (keywords.exclusiveLower ?? keywords.lower)
      : hasKeyword(view, keywords.upper)
        ? keywords.upper
        : (keywords.exclusiveUpper ?? keywords.upper);
  const actual = numberKeyword(view, schemaKeyword);
  const label = entry.location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`;
  findings.add(
    'prose-only',
    node.parameter,
    side === 'lower' ? keywords.lower : keywords.upper,
    entry.location,
    entry.pointer,
    quote(shown.claim.sentence),
    `The description says ${boundPhrase(shown.c)} but ${label} has "${schemaKeyword}": ${String(actual)}: ` +
      `make them agree (set ${suggestedBound(family, shown.c, isInteger(view))}, or correct the description).`,
    {
      claim: shown.claim,
      confidence: shown.c.fromWord || shown.claim.fromTool ? 'medium' : 'high',
      fix: { pointer: entry.pointer, set: boundFix(family, shown.c, isInteger(view)) },
    },
  );
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
        return (
          (min !== undefined && min >= 1) ||
          patternRejectsEmpty(view) ||
          hasKeyword(view, 'format') ||
          (values !== undefined && !values.includes(''))
        );
      },
    },
    { type: 'array', keyword: 'minItems', home: () => (numberKeyword(view, 'minItems') ?? 0) >= 1 || hasKeyword(view, 'contains') },
    { type: 'object', keyword: 'minProperties', home: () => (numberKeyword(view, 'minProperties') ?? 0) >= 1 || view.required.size > 0 },
  ];
  const applicable = checks.filter((check) => (view.types === undefined ? check.type === 'string' : view.types.has(check.type)));
  if (applicable.length === 0) return;
  if (applicable.some((check) => check.home())) return;
  const keyword = applicable[0]?.keyword ?? 'minLength';
  addClaimFinding(findings, claim, keyword, `Add "${keyword}": 1 to "${node.label}" (the description says it must not be empty).`, {
    confidence: 'medium',
    fix: { pointer: node.pointer, set: { [keyword]: 1 } },
  });
}

function valueMentionKey(value: JsonValue): string {
  return typeof value === 'string' ? value.toLowerCase() : JSON.stringify(value);
}

function enumClaim(root: JsonObject, claim: Claim, c: EnumCandidate, findings: FindingList): void {
  const { node } = claim;
  const { view, location, pointer } = valueSite(root, node);
  // A bare list of words ("(Point, LineString, or Polygon)") is a value list of a string only: on an object or a
  // number it names kinds of the value, not values.
  if (c.rule === 'bare-values' && view.types?.has('string') !== true) return;
  // An object (or a list of objects) has no values to list: "Each comment must specify either taskId or projectId"
  // speaks of its fields.
  if (view.types !== undefined && ![...view.types].some((t) => t !== 'object' && t !== 'array')) return;
  // "The cell can be either vertex or edge" on `cell_id`: words name kinds of the thing identified; an id is copied.
  const identifiers = IDENTIFIER_ONLY.has(lastNameWord(node));
  if (identifiers && !c.quoted && c.values.every((v) => /^[A-Za-z]+$/.test(v))) return;
  // "'2025-01-01T10:00:00' (timed) or '2025-01-01' (all-day)": dates shown as examples of a layout, never the values;
  // "'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM:SS'": the layouts themselves.
  if (c.values.every((v) => /^\d{4}-\d{2}-\d{2}/.test(v) || /^YYYY\b/i.test(v))) return;
  const claimed = c.values.map((v) => v.toLowerCase());
  if (c.rule === 'code-values' && boundsAllowExactly(view, c.values.map(Number))) return;
  if (view.types?.has('boolean') === true && claimed.every((v) => ['true', 'false', 'yes', 'no'].includes(v))) return;
  const listed = listedValues(view);
  if (listed !== undefined) {
    const allowed = new Set(listed.map(valueMentionKey));
    const missing = c.values.filter((v) => !allowed.has(v.toLowerCase()) && !allowed.has(v));
    // An enum in a branch beside one that takes any string ("anyOf": [{"enum": [...]}, {"type": "string"}]) refuses nothing.
    if (missing.length === 0 && view.looseStringBranch)
      addClaimFinding(
        findings,
        claim,
        'enum',
        `"${node.label}" lists these values in an "enum" beside a branch that takes any string, so any string passes: drop that ` +
          'branch, or say in the description that other values are accepted.',
        { confidence: 'medium' },
        { location, pointer },
      );
    if (missing.length === 0) return;
    const overlap = c.values.length - missing.length;
    if (!c.quoted && overlap === 0) return;
    const enumSite = firstSite(view, 'enum');
    addClaimFinding(
      findings,
      claim,
      'enum',
      `The description allows ${missing.map((v) => `"${v}"`).join(', ')}, which "${node.label}" does not list in ` +
        `"enum" (${json(listed)}): add ${missing.length === 1 ? 'it' : 'them'} to "enum" or correct the description.`,
      {
        confidence: c.quoted && !claim.fromTool ? 'high' : 'medium',
        fix:
          enumSite === undefined || enumSite.conditional
            ? undefined
            : { pointer: enumSite.pointer, set: { enum: [...listed, ...missing.map(enumValue(view))] } },
      },
      { location, pointer },
    );
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
  // "Comma-separated channel types. Allowed values: 'mpim', 'im'": each piece is one of the values, so the whole
  // string is a list of them, which an enum would refuse.
  if (
    view.types?.has('string') === true &&
    location === node.location &&
    (COMMA_SEPARATED.test(clauseAround(claim.sentence, c)) || describesCommaList(view))
  ) {
    const one = `(?:${c.values.map(escapeRegExp).join('|')})`;
    const listPattern = `^${one}(?:\\s*,\\s*${one})*$`;
    addClaimFinding(
      findings,
      claim,
      'pattern',
      `Add "pattern": ${json(listPattern)} to "${node.label}" (the description lists the values its comma-separated items take).`,
      { confidence: 'medium', fix: { pointer, set: { pattern: listPattern } } },
    );
    return;
  }
  const values = c.values.map(enumValue(view));
  addClaimFinding(
    findings,
    claim,
    'enum',
    `Add "enum": ${json(values)} to ${location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`} ` +
      '(the description lists the allowed values).',
    { confidence: c.quoted && !claim.fromTool && c.rule === 'one-of' ? 'high' : 'medium', fix: { pointer, set: { enum: values } } },
    { location, pointer },
  );
}

/** Codes 0-6 on an integer with `minimum: 0` and `maximum: 6`: the bounds already allow exactly those. */
function boundsAllowExactly(view: SchemaView, codes: readonly number[]): boolean {
  const low = numberKeyword(view, 'minimum');
  const high = numberKeyword(view, 'maximum');
  if (low === undefined || high === undefined) return false;
  return codes.every((n) => Number.isInteger(n) && n >= low && n <= high) && new Set(codes).size === high - low + 1;
}

/**
 * A string that holds a list: "Comma-separated channel types", "a comma delimited list", "separated by commas", "CSV of
 * ids" (not "returns CSV of groups": that is the output).
 */
const COMMA_SEPARATED = /\bcomma[- ]?(?:separated|delimited)\b|\bseparated\s+by\s+commas\b|(?<!\breturns?\s+)\bcsv\s+(?:of|list)\b/i;

/**
 * The stretch of `sentence` around a candidate found in it, so each claim of a long sentence reads a bounded part; the
 * whole of it when the candidate's offsets are not into it (a bulleted list quotes its own block).
 */
function clauseAround(sentence: string, c: { readonly start: number; readonly end: number }): string {
  if (c.end > sentence.length) return sentence;
  return sentence.slice(Math.max(0, c.start - CLAUSE_CHARS), c.end + CLAUSE_CHARS);
}

/** Whether the schema's own description calls the string a comma-separated list: read once per schema, not per claim. */
const commaListViews = new WeakMap<SchemaView, boolean>();
function describesCommaList(view: SchemaView): boolean {
  let said = commaListViews.get(view);
  if (said === undefined) {
    said = COMMA_SEPARATED.test(view.description ?? '');
    commaListViews.set(view, said);
  }
  return said;
}

function enumValue(view: SchemaView): (text: string) => JsonValue {
  return (text) => {
    if (
      (view.types?.has('integer') === true || view.types?.has('number') === true) &&
      !view.types.has('string') &&
      Number.isFinite(Number(text))
    )
      return Number(text);
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
  return /\b(?:not|never|no|instead\s+of|rather\s+than|unlike)\s+(?:an?\s+|in\s+|as\s+|the\s+)?$/i.test(textBefore(sentence, at));
}

/**
 * A format the prose offers alongside others ("ISO 8601 date or range", "ISO 8601, or relative dates such as
 * '2 weeks ago'"), for some values only ("for dates, YYYY-MM-DD"), or of a default ("defaults to a random UUID"):
 * a `format` would reject calls the prose allows.
 */
function formatIsPartial(whole: string, c: FormatCandidate): boolean {
  // The clause around the format, not the whole sentence: each format of a long sentence reads a bounded stretch.
  const sentence = clauseAround(whole, c);
  if (
    /\b(?:or|and\/or)\s+(?:an?\s+)?(?:[\w-]+\s+)?(?:ranges?|relative|durations?|keywords?|expressions?|natural[- ]language|timestamps?\s+like)\b/i.test(
      sentence,
    )
  )
    return true;
  if (/\brelative\s+(?:dates?|times?)\b|\b(?:\d+\s+\w+\s+ago|yesterday|tomorrow)\b/i.test(sentence)) return true;
  const before = textBefore(whole, c.start);
  if (
    /(?:^|[.;]\s*)for\s+[\w\s-]{1,30},\s*(?:use\s+)?$/i.test(before) ||
    /\bfor\s+[\w-]+\s+(?:fields?|values?|parameters?)\s*,?\s*$/i.test(before)
  )
    return true;
  return /\bdefaults?\s+to\s+(?:an?\s+)?(?:random|new|generated|fresh)?\s*$/i.test(before);
}

/** Upper-case words that stand for a value in a template (`user:ID`); others (`GHSA`) are literal. */
const PLACEHOLDER_WORDS = /^(?:ID|IDS|NAME|NUMBER|NUM|OWNER|REPO|ORG|KEY|SLUG|USER|TEAM|VALUE|TOKEN|HASH|SHA|UUID|LOGIN|EMAIL)$/;

/** A `pattern` for the templates the prose shows: `GHSA-xxxx-xxxx-xxxx`, `user:ID` or `team:ID`, `HH:MM`. */
export function templatePattern(templates: readonly string[]): string | undefined {
  const parts: string[] = [];
  for (const template of templates) {
    let out = '';
    // "<key>=<value>", "{host}:{port}": placeholders in brackets, literal separators between.
    if (PLACEHOLDER_LAYOUT.test(template)) {
      parts.push(templateShape(template).slice(1, -1));
      continue;
    }
    // A prefix and one placeholder in brackets ("job-<digits>"): the prefix, then digits or anything.
    if (PREFIXED_PLACEHOLDER.test(template)) {
      const cut = template.search(/[<{]/);
      const digits = /^.(?:digits?|numbers?|n|num|int|integer)\W$/i.test(template.slice(cut));
      parts.push(`${escapePattern(template.slice(0, cut))}${digits ? '[0-9]+' : '\\S+'}`);
      continue;
    }
    // A prefix and an example or a placeholder ("mem_xyz123", "ext_my_[MyMemory ID]"): the prefix, then anything.
    const prefixed = PREFIXED_ID.exec(template);
    if (prefixed !== null) {
      parts.push(`${prefixed[1] ?? ''}\\S+`);
      continue;
    }
    // A number shown as the format ("1234567890.123456"): digits where its digits are.
    if (/^\d+(?:\.\d+)+$/.test(template)) {
      parts.push(template.replace(/\d+/g, '[0-9]+').replace(/\./g, '\\.'));
      continue;
    }
    const tokens = template.match(/YYYY|MM|DD|HH|SS|[xX]{2,}|\bx(?:\.x)+\b|#+|N{2,}|[A-Z]{2,}|[\s\S]/g) ?? [];
    for (const token of tokens) {
      if (/^(?:YYYY|MM|DD|HH|SS)$/.test(token)) out += `[0-9]{${token.length}}`;
      // "emr-x.x.x": a version's numbers.
      else if (/^x(?:\.x)+$/.test(token)) out += token.replace(/x/g, '[0-9]+').replace(/\./g, '\\.');
      else if (/^[xX]{2,}$/.test(token)) out += `[A-Za-z0-9]{${token.length}}`;
      else if (/^#+$|^N{2,}$/.test(token)) out += `[0-9]{${token.length}}`;
      else if (PLACEHOLDER_WORDS.test(token)) out += '[^\\s]+';
      else out += escapePattern(token);
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
  const examples = [...sentence.matchAll(/'([A-Za-z]{2,3})'|"([A-Za-z]{2,3})"|\x60([A-Za-z]{2,3})\x60/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  );
  const first = examples[0];
  if (first !== undefined && examples.every((e) => e.length === first.length)) return `^[A-Za-z]{${first.length}}$`;
  return undefined;
}

/** The last word of a parameter whose value is a layout for other values, or the name of one. */
const LAYOUT_WORDS = new Set(['format', 'pattern', 'template', 'layout', 'mask']);

function formatClaim(root: JsonObject, claim: Claim, c: FormatCandidate, findings: FindingList): void {
  const { node } = claim;
  if (negated(claim.sentence, c.start)) return;
  if (c.keyword === 'format' && formatIsPartial(claim.sentence, c)) return;
  // A value named as a format (`dateFormat`, `output_format`, `template`) is a layout or a format's name: "yyyy/MM/dd"
  // or "RFC3339" in its text is what it may say, not its shape.
  if (LAYOUT_WORDS.has(lastNameWord(node))) return;
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
  // A format in a branch beside one that takes any string ("anyOf": [{"format": "date-time"}, {"type": "string"}]) refuses nothing.
  const moot = hasKeyword(view, 'format') && view.looseStringBranch;
  if ((hasKeyword(view, 'format') && !moot) || listedValues(view) !== undefined) return;
  const pattern = firstSite(view, 'pattern');
  if (pattern !== undefined && typeof pattern.value === 'string' && (c.keyword !== 'format' || patternIsHomeFor(pattern.value, c.format)))
    return;
  const label = location.endsWith('/items') ? `the items of "${node.label}"` : `"${node.label}"`;
  const loose = moot
    ? ' (its "format" sits in a branch beside one that takes any string, so it refuses nothing)'
    : pattern !== undefined
      ? ` (its "pattern" ${json(pattern.value)} accepts values that are not ${c.format ?? 'in that format'})`
      : '';
  let suggestion: string;
  let fix: SchemaFix | undefined;
  const derived = c.keyword === 'format' ? undefined : (c.pattern ?? codePattern(claim.sentence, c));
  if (c.keyword === 'enum')
    suggestion =
      `Add an "enum" of the accepted codes to ${label} (the description says "${c.phrase}"), ` + 'or at least "pattern": "^[A-Z]{3}$".';
  else if (c.keyword === 'format') {
    suggestion = `Add "format": "${c.format ?? ''}" to ${label}${loose} (the description says "${c.phrase}").`;
    fix = { pointer, set: { format: c.format ?? '' } };
  } else if (derived !== undefined) {
    suggestion = `Add "pattern": ${json(derived)} to ${label} (the description says "${c.phrase}").`;
    fix = { pointer, set: { pattern: derived } };
  } else suggestion = `Add a "pattern" to ${label} that encodes the format the description states ("${c.phrase}").`;
  // A format shown ("YYYY-MM-DD", "UUID", a template) is sure; one named ("ISO 8601", "ISO country code") is read.
  const shown = c.rule === 'yyyy-mm-dd' || c.rule === 'uuid' || c.rule === 'format-template' || c.rule === 'hh-mm' || c.rule === 'e164';
  addClaimFinding(
    findings,
    claim,
    c.keyword,
    suggestion,
    { confidence: shown && !claim.fromTool ? 'high' : 'medium', fix },
    { location, pointer },
  );
}

function sameDefault(a: JsonValue, b: JsonValue): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  // Prose writes 0 and "0" alike: a number said of a numeric string is that string.
  if (typeof a === 'number' && typeof b === 'string') return NUMERIC_TEXT.test(b) && Number(b) === a;
  if (typeof a === 'string' && typeof b === 'number') return NUMERIC_TEXT.test(a) && Number(a) === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Every property name declared anywhere in the schema: the names a default may point at instead of a value. */
function propertyNames(root: JsonValue, out = new Set<string>()): Set<string> {
  if (Array.isArray(root)) for (const v of root) propertyNames(v, out);
  else if (isJsonObject(root))
    for (const [key, value] of Object.entries(root)) {
      if (key === 'properties' && isJsonObject(value)) for (const name of Object.keys(value)) out.add(name);
      propertyNames(value, out);
    }
  return out;
}

/**
 * A default that is no literal (unless the schema lists it as a value): another parameter's name
 * ("Default: border_color.", "Default: `sheet`." — the
 * value of that parameter), or a generated name with a counter ("Default: PivotTableN.", "Sheet<n>").
 */
function namesNoLiteral(literal: JsonValue | undefined, names: ReadonlySet<string>, own: string): boolean {
  if (typeof literal !== 'string') return false;
  if (literal !== own && names.has(literal)) return true;
  // "defaults to due_date+1hr": a value computed from another parameter.
  const operand = /^([A-Za-z_]\w*)\s*[-+*/]/.exec(literal)?.[1];
  if (operand !== undefined && operand !== own && names.has(operand)) return true;
  return /[a-z]N$|<n>|\{n\}/.test(literal);
}

/** "None/False" against `default: null`: a default written in alternative spellings, one of them the schema's. */
function oneSpellingIs(literal: string, value: JsonValue): boolean {
  if (!/^\w+(?:\/\w+)+$/.test(literal)) return false;
  return literal.split('/').some((word) => {
    const key = word.toLowerCase();
    return sameDefault(value, SPELLED_LITERALS.has(key) ? (SPELLED_LITERALS.get(key) ?? null) : word);
  });
}

const SPELLED_LITERALS = new Map<string, JsonValue>([
  ['none', null],
  ['null', null],
  ['true', true],
  ['false', false],
]);

/** Words a switch's default is written in. */
const SWITCH_WORDS = new Map([
  ['yes', true],
  ['no', false],
  ['on', true],
  ['off', false],
  ['enabled', true],
  ['disabled', false],
]);

/** A number shown quoted, as the text of a string: "(e.g., '1800' for 30 minutes)". */
const QUOTED_NUMBER = /(['"\x60])-?\d+(?:\.\d+)?\1/;
/** A text of a number written as a string ("18", "-0.5"). */
const NUMERIC_TEXT = /^-?\d+(?:\.\d+)?$/;
/** A description that calls its value a number: "The number of decimals", "Minimum number of votes". */
const SAYS_NUMBER = /\b(?:number|count)\s+of\b|\bhow\s+many\b|\b(?:page|batch|chunk)\s+size\b/i;

function defaultClaim(claim: Claim, c: DefaultCandidate, findings: FindingList, names: ReadonlySet<string> = new Set()): void {
  const { node } = claim;
  const view = node.view;
  const isListed = (listedValues(view) ?? []).some((v) => sameDefault(v, c.literal ?? null));
  if (!isListed && namesNoLiteral(c.literal, names, node.name)) return;
  if (c.listedOnly === true && !isListed) return;
  const site = firstSite(view, 'default');
  if (site !== undefined) {
    // "Defaults to 600 seconds" on a value in seconds: the number is the schema's.
    const inItsUnit = c.measure !== undefined && countsIn(node, c.measure);
    if (c.literal === undefined || !(c.comparable || inItsUnit)) return;
    // "Return all fields (default: slim)" on a boolean defaulting to false: a word of the prose, not a value of this type.
    if (typeof c.literal === 'string' && typeof site.value !== 'string' && !allows(view, 'string')) return;
    // "Default: 10KB (10240 bytes)" against `default: 10240`: a number with a unit is not compared with a count.
    if (typeof site.value === 'number' && (c.written !== undefined || (typeof c.literal === 'string' && /^[-−\d]/.test(c.literal)))) return;
    if (sameDefault(site.value, c.literal)) return;
    if (typeof c.literal === 'string' && oneSpellingIs(c.literal, site.value)) return;
    // "defaults to false" against `default: null` where null means false is still a disagreement worth a look,
    // but a string default spelled differently in prose ("open" vs "OPEN") is not.
    addClaimFinding(
      findings,
      claim,
      'default',
      `The description says the default is ${json(c.literal)} but "${node.label}" has "default": ${json(site.value)}: make them agree.`,
    );
    return;
  }
  if (c.literal === undefined) return;
  // "(default: 2h)" on a string: the default is the text as written.
  if (typeof c.literal === 'number' && c.written !== undefined && !allows(view, 'number') && allows(view, 'string')) {
    defaultClaim(claim, { ...c, literal: c.written, comparable: true }, findings, names);
    return;
  }
  // "defaults to 1800 seconds" on a string its examples show holding numbers ("e.g., '1800'"), or that it calls a
  // number ("The number of decimals. Defaults to 18."): the default is that text.
  const description = view.description ?? '';
  if (
    typeof c.literal === 'number' &&
    !allows(view, 'number') &&
    allows(view, 'string') &&
    (QUOTED_NUMBER.test(description) || SAYS_NUMBER.test(description))
  ) {
    defaultClaim(claim, { ...c, literal: String(c.literal), comparable: true }, findings, names);
    return;
  }
  // "Default: no" on a boolean: the switch's word for false.
  const switchWord = typeof c.literal === 'string' ? SWITCH_WORDS.get(c.literal.toLowerCase()) : undefined;
  if (switchWord !== undefined && allows(view, 'boolean') && !allows(view, 'string')) {
    defaultClaim(claim, { ...c, literal: switchWord }, findings, names);
    return;
  }
  if (typeof c.literal === 'string' && !allows(view, 'string')) return;
  if (typeof c.literal === 'number' && !allows(view, 'number')) return;
  if (typeof c.literal === 'boolean' && !allows(view, 'boolean')) return;
  if (Array.isArray(c.literal) && !allows(view, 'array')) return;
  // The schema's own spelling of the value ("Defaults to low." for `"enum": ["low", ...]`); none when it lists no such value.
  const listed = listedValues(view);
  const literal = listed === undefined ? c.literal : listed.find((v) => sameDefault(v, c.literal ?? null));
  addClaimFinding(
    findings,
    claim,
    'default',
    `Add "default": ${json(literal ?? c.literal)} to "${node.label}" (the description says it defaults ` +
      `to ${json(literal ?? c.literal)}), so the model and the tool agree on what omitting it means.`,
    { confidence: 'medium', fix: literal === undefined ? undefined : { pointer: node.pointer, set: { default: literal } } },
  );
}

/**
 * "Pass null to clear it", "set to null to remove the value", "null clears the due date": the prose offers null as
 * a value, so a schema whose type leaves null out rejects the call it describes.
 */
const NULL_OFFERED =
  /\b(?:pass|send|use|provide|give|set\s+(?:it\s+|this\s+|the\s+value\s+)?to)\s+[`"']?null[`"']?(?:\s*\([^()]{0,80}\))?\s+to\s+(?:clear|remove|unset|reset|delete|empty|erase)\b|\b[`"']?null[`"']?\s+(?:clears|removes|unsets|resets|deletes|erases)\b/i;
/** "Do not pass null to clear it", "you cannot set it to null to remove it": null refused, not offered. */
const NEGATED = /\b(?:not|never|don't|do\s+not|cannot|can't|must\s+not)\s+(?:\w+\s+)?$/i;

export function nullOffered(root: JsonObject, nodes: readonly AuditNode[], findings: FindingList): void {
  for (const node of nodes) {
    const text = node.view.description;
    if (text === undefined || node.view.types === undefined || allows(node.view, 'null')) continue;
    const m = NULL_OFFERED.exec(text);
    if (m === null || NEGATED.test(text.slice(0, m.index))) continue;
    const types = [...node.view.types];
    const set = { type: [...types, 'null'] };
    // The fix goes where the type is written: on the node's own schema, not through a `$ref` or a branch.
    const own = valueAt(root, node.pointer);
    const direct = isJsonObject(own) && typeof own.type === 'string' && types.length === 1;
    const label =
      node.location.endsWith('/items') && node.name === 'items' ? `the items of "${node.label.slice(0, -2)}"` : `"${node.label}"`;
    findings.add(
      'prose-only',
      node.parameter,
      'type',
      node.location,
      node.pointer,
      quote(m[0]),
      `Allow null in the type of ${label} (${json(set).replace(/^\{|\}$/g, '')}), as the description offers it.`,
      { confidence: 'medium', fix: direct ? { pointer: node.pointer, set } : undefined },
    );
  }
}
