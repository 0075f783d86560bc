/**
 * schema → prose: constraints the schema enforces that no description explains, and a required parameter the prose
 * calls optional.
 *
 * Pure: no I/O.
 */
import type { JsonObject, JsonValue } from '../core/shared/json.js';
import { type Claim, FindingList, json, quote } from './findings.js';
import { boundTarget, type Family, holderOf, isInteger, templatePattern } from './prose-only.js';
import { IDENTIFIER_ONLY, lastNameWord, nameTokens, nodeName } from './mentions.js';
import { escapeRegExp, mentionsNumber } from './prose-text.js';
import { type AuditNode, firstSite } from './schema-nav.js';
import type { Confidence } from './types.js';

/** Words that explain a `pattern`: the description says what the value looks like. */
export const PATTERN_VOCABULARY =
  /\b(?:format|formatted|pattern|regex|regular\s+expression|letters?|digits?|characters?|alphanumeric|numeric|lower-?case|upper-?case|capitals?|capitalized|hex(?:adecimal)?|prefix(?:ed)?|suffix(?:ed)?|starts?\s+with|begins?\s+with|ends?\s+with|e\.g\.|for\s+example|such\s+as|iso|rfc|uuid|guid|slug|semver|e\.164|of\s+the\s+form|looks\s+like|hyphens?|dashes|underscores?|yyyy|mm|dd|hh|e-?mail(?:\s+address)?|urls?|uris?|domains?|host\s?names?|ip(?:v[46])?\s+address(?:es)?|phone\s+numbers?)\b|\be\.g\b/i;

/** Words that explain a `format`, by format. */
export const FORMAT_VOCABULARY: Readonly<Record<string, RegExp>> = {
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

export function mentionsValue(text: string, value: JsonValue): boolean {
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
export function trivialBound(keyword: string, value: number): boolean {
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
export function unrealisticBound(keyword: string, value: number, name = ''): boolean {
  const limit = Math.abs(value);
  if ([2 ** 53 - 1, 2 ** 53, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1].includes(limit)) return true;
  if (keyword === 'maximum' || keyword === 'exclusiveMaximum') return value >= 1_000_000 || (value >= 1000 && namedAs(RESULT_COUNT, name));
  if (keyword === 'maxLength')
    return value >= 8192 || (value >= 255 && namedAs(IDENTIFIER, name)) || (value >= 253 && namedAs(STORED_TEXT, name));
  if (keyword === 'maxItems' || keyword === 'maxProperties') return value >= 1000;
  return false;
}

/**
 * A parameter named as an identifier, a name or an address: a cap of 255 characters and more is the storage limit
 * of such values (file and ref names, `VARCHAR(255)`, 2048-character URLs), which no real value reaches.
 */
export const IDENTIFIER = new Set([
  'id',
  'ids',
  'name',
  'names',
  'ref',
  'refs',
  'branch',
  'tag',
  'remote',
  'url',
  'uri',
  'path',
  'key',
  'slug',
  'handle',
  'target',
]);

/**
 * Values whose schema bound is the natural domain of the quantity they name, which every reader assumes: a latitude
 * lies in −90..90 and a longitude in −180..180, a percentage in 0..100, an opacity, ratio or probability in 0..1, a
 * bearing in 0..360, an hour of the day in 0..23, a month in 1..12, a port in 0..65535, a colour channel in 0..255.
 * Read from the last word of the name (`minLatitude`, `fill_opacity`) or, failing that, from a description that is
 * the quantity's name ("Latitude of the point").
 */
export const NATURAL_DOMAINS: readonly { words: RegExp; min: readonly number[]; max: readonly number[] }[] = [
  { words: /^(?:lat|latitude)$/, min: [-90], max: [90] },
  { words: /^(?:lng|lon|long|longitude)$/, min: [-180], max: [180] },
  { words: /^(?:percent|percentage|pct)$/, min: [0, 1], max: [100] },
  { words: /^(?:opacity|alpha|ratio|fraction|probability|proportion|transparency)$/, min: [0], max: [1] },
  { words: /^(?:bearing|heading|azimuth|angle|rotation|hue)$/, min: [0, -180, -360], max: [180, 359, 360] },
  { words: /^(?:hour|hours)$/, min: [0], max: [23, 24] },
  { words: /^(?:minute|minutes|second|seconds)$/, min: [0], max: [59, 60] },
  { words: /^(?:month)$/, min: [0, 1], max: [11, 12] },
  { words: /^(?:weekday|dayofweek)$/, min: [0, 1], max: [6, 7] },
  { words: /^(?:day|dayofmonth)$/, min: [1], max: [31] },
  { words: /^(?:port)$/, min: [0, 1], max: [65535] },
  { words: /^(?:red|green|blue|r|g|b)$/, min: [0], max: [255] },
];

/** The first two words of a description, past an article: where it names its quantity ("The fill opacity, 0 to 1"). */
function leadWords(text: string): string[] {
  const words = /^\s*(?:(?:the|a|an)\s+)?([a-z]+)\b(?:[\s-]+([a-z]+)\b)?/i.exec(text);
  return [words?.[1], words?.[2]].filter((w): w is string => w !== undefined).map((w) => w.toLowerCase());
}

/**
 * A pair of numbers that is a geographic position (`[longitude, latitude]`, `center`, `coordinates`): exactly two
 * items is the shape of a position, as a line has at least two positions.
 */
const POSITION_NAMES = /^(?:coordinate|coordinates|coord|coords|position|point|center|centre|lnglat|latlng|lonlat|latlon|location)$/;
const POSITION_WORDS = /\b(?:lng|lon|longitude|lat|latitude|coordinates?)\b/i;
/** The same words ending a camel-case name: `minLng`, `maxLatitude`. */
const POSITION_CAMEL = /(?<=[a-z])(?:Lng|Lon|Longitude|Lat|Latitude)\b/;
const POSITION_TEXT = { test: (text: string): boolean => POSITION_WORDS.test(text) || POSITION_CAMEL.test(text) };
const LINE_TEXT = /\b(?:line|linestring|polyline|multilinestring)\b/i;

export function naturalDomain(keyword: string, value: number, node: AuditNode, text: string): boolean {
  const name = lastNameWord(node);
  if (keyword === 'minimum' || keyword === 'maximum') {
    const side = keyword === 'minimum' ? 'min' : 'max';
    const own = /^[a-z]+$/.test(name) ? name : '';
    const words = [own, ...leadWords(node.view.description ?? '')];
    return NATURAL_DOMAINS.some((d) => words.some((w) => d.words.test(w)) && d[side].includes(value));
  }
  if (keyword === 'minItems' || keyword === 'maxItems') {
    const items = node.view.items?.schema;
    // Numbers, or items the branches of an `anyOf` leave unsaid.
    const numbers =
      items === undefined || (typeof items === 'object' && items !== null && !Array.isArray(items) && items.type === 'number');
    const pairOf = (v: JsonValue | undefined): boolean => typeof v === 'number' && v === 2;
    const exactlyTwo = pairOf(firstSite(node.view, 'minItems')?.value) && pairOf(firstSite(node.view, 'maxItems')?.value);
    // A position: two numbers named or described as one ("Coordinate as [longitude, latitude]").
    if (exactlyTwo && numbers && (POSITION_NAMES.test(name) || POSITION_TEXT.test(text))) return true;
    // Two of something shown as a two-element list: "[[minLng, minLat], [maxLng, maxLat]]" (a box of two corners).
    if (exactlyTwo && showsPair(node.view.description ?? '')) return true;
    // A line of positions has at least two of them.
    if (keyword === 'minItems' && value === 2 && (LINE_TEXT.test(text) || /^line/.test(name))) return true;
    return false;
  }
  return false;
}

/** A two-element bracketed list in the text: `[a, b]` or `[[a, b], [c, d]]`. */
function showsPair(text: string): boolean {
  return /\[\s*(?:\[[^[\]]*\]|[^[\],]+)\s*,\s*(?:\[[^[\]]*\]|[^[\],]+)\s*\]/.test(text);
}

/**
 * Values whose length cap is the storage or protocol limit of their kind: a host or domain name (253, DNS), an
 * e-mail address (254), a password, a user name, a number-format code or a formula (255, and 8192 for any text: the
 * longest formula Excel takes, past what a model writes in a parameter).
 */
export const STORED_TEXT = new Set([
  'host',
  'hosts',
  'hostname',
  'hostnames',
  'domain',
  'domains',
  'email',
  'emails',
  'password',
  'passphrase',
  'secret',
  'username',
  'user',
  'login',
  'format',
  'formula',
]);

/**
 * Length bounds and a pattern on an identifier are the identifier's own shape (a fixed width, a hex alphabet, the
 * id scheme's longest form): a model copies ids from earlier results and never makes one up, so prose that only says
 * "the paper ID" misleads no one. Bounds on how many ids a list holds are not its shape, and are still reported.
 */
export function identifierShape(keyword: string, name: string): boolean {
  const shape = keyword === 'minLength' || keyword === 'maxLength' || keyword === 'pattern';
  return shape && (namedAs(IDENTIFIER_ONLY, name) || namedAs(STANDARD_CODE, name));
}

/**
 * The last words of a parameter whose values have one standard written form (`start_date` as YYYY-MM-DD, a
 * `currency` as its three-letter code): a pattern or width there is that form, as intrinsic as an id's.
 */
const STANDARD_CODE = new Set(['date', 'currency', 'currencycode']);

/** A parameter that caps how many results come back: a cap of a thousand and more is never the caller's concern. */
export const RESULT_COUNT = new Set([
  'limit',
  'pagesize',
  'perpage',
  'maxresults',
  'maxcount',
  'maxitems',
  'maxrows',
  'maxrecords',
  'maxentries',
]);

/**
 * The last word of a parameter name (`branchName` → `name`, `remote_branch` → `branch`), or the words of a compound
 * (`page_size` → `pagesize`).
 */
export function lastWord(name: string): string {
  return nameTokens(name).at(-1) ?? '';
}

const namedAs = (words: ReadonlySet<string>, name: string): boolean =>
  words.has(lastWord(name)) || words.has(name.replace(/[_\s-]+/g, '').toLowerCase());

/** Formats that name a type's width (OpenAPI's `int32`, `double`): their limits are type limits, left alone too. */
/** Formats that say how a value is stored, not what it looks like (pydantic writes `binary` for `bytes`). */
export const TYPE_WIDTH_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'binary']);

/**
 * An enum whose values a model cannot read: numbers (`60, 300, 600`) or one-character codes. Words, names and
 * standard codes (`asc`/`desc`, `open`/`closed`, severities, regions, locales) explain themselves: the model reads
 * them in the schema, so the prose need not repeat them.
 */
export function crypticEnum(values: readonly JsonValue[]): boolean {
  return values.some((v) => typeof v === 'number' || (typeof v === 'string' && v.length === 1 && /[A-Za-z0-9]/.test(v)));
}

export const BOUND_KEYWORDS: readonly { keyword: string; family: Family; side: 'lower' | 'upper'; exclusive: boolean }[] = [
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

export function schemaOnly(
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
    const nodeClaims = claims.filter(
      (claim) => claim.node === node || (node.name === 'items' && claim.node.pointer === parentPointer(node)),
    );
    const label =
      node.location.endsWith('/items') && node.name === 'items' ? `the items of "${node.label.slice(0, -2)}"` : `"${node.label}"`;

    for (const spec of BOUND_KEYWORDS) {
      const site = firstSite(view, spec.keyword);
      if (site === undefined || typeof site.value !== 'number') continue;
      const value = site.value;
      if (trivialBound(spec.keyword, value) || unrealisticBound(spec.keyword, value, nodeName(node))) continue;
      if (spec.family === 'length' && identifierShape(spec.keyword, nodeName(node))) continue;
      if (naturalDomain(spec.keyword, value, node, text)) continue;
      const spoken = nodeClaims.some(({ candidate: c, node: owner }) => {
        if (c.kind === 'bound') {
          const target = boundTarget(root, owner, c);
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
      findings.add(
        'schema-only',
        node.parameter,
        spec.keyword,
        node.location,
        site.pointer,
        json({ [spec.keyword]: value }),
        `Say it in the description of ${label}, next to the keyword (e.g. ` +
          `"${phrase} ${value}${unit}"${spec.family === 'number' ? ', with the unit' : ''}), ` +
          `or drop "${spec.keyword}" if it is not a real limit.`,
        { confidence: spec.side === 'upper' ? 'medium' : 'low' },
      );
    }

    const multipleOf = firstSite(view, 'multipleOf');
    if (multipleOf !== undefined && typeof multipleOf.value === 'number') {
      const explained =
        mentionsNumber(text, multipleOf.value) ||
        /\b(?:multiples?|increments?|steps?|decimals?|decimal\s+places|cents|whole|granularity|precision|rounded)\b/i.test(text);
      if (!explained) {
        findings.add(
          'schema-only',
          node.parameter,
          'multipleOf',
          node.location,
          multipleOf.pointer,
          json({ multipleOf: multipleOf.value }),
          `Say it in the description of ${label} (e.g. "in steps of ${multipleOf.value}"), or drop "multipleOf".`,
        );
      }
    }

    const pattern = firstSite(view, 'pattern');
    if (pattern !== undefined && typeof pattern.value === 'string' && !identifierShape('pattern', nodeName(node))) {
      const spoken = nodeClaims.some(({ candidate: c }) => c.kind === 'format' || c.kind === 'exactLength' || c.kind === 'enum');
      if (!spoken && !PATTERN_VOCABULARY.test(text) && !hasMatchingExample(text, pattern.value)) {
        findings.add(
          'schema-only',
          node.parameter,
          'pattern',
          node.location,
          pattern.pointer,
          json({ pattern: pattern.value }),
          `Describe the format in the description of ${label}: what a valid ` +
            `value looks like, with an example that matches ${pattern.value}.`,
        );
      }
    }

    const format = firstSite(view, 'format');
    if (format !== undefined && typeof format.value === 'string' && !TYPE_WIDTH_FORMATS.has(format.value)) {
      const name = format.value;
      const spoken = nodeClaims.some(({ candidate: c }) => c.kind === 'format');
      const vocabulary = FORMAT_VOCABULARY[name] ?? new RegExp(`\\b(?:${escapeRegExp(name)}|format)\\b`, 'i');
      // A parameter named for its format (`email`, `contactEmail`, `website_url`) says it as plainly as prose would.
      if (!spoken && !vocabulary.test(text) && !vocabulary.test(nameTokens(nodeName(node)).join(' '))) {
        findings.add(
          'schema-only',
          node.parameter,
          'format',
          node.location,
          format.pointer,
          json({ format: name }),
          `Name the format in the description of ${label} (e.g. "${FORMAT_EXAMPLES[name] ?? `a ${name}`}").`,
        );
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
          findings.add(
            'schema-only',
            node.parameter,
            'enum',
            node.location,
            enumSite.pointer,
            json({ enum: enumSite.value }),
            `List the allowed values in the description of ${label} and say what each means (e.g. "one of ${values
              .slice(0, 4)
              .map((v) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``)
              .join(', ')}${values.length > 4 ? ', ...' : ''}").`,
          );
        }
      }
    }

    // The prose calls a required parameter optional: the visible conflict (strict validation rejects every call
    // that believes the prose), reported against the schema's `required`.
    const optional = claims.find((claim) => claim.node === node && claim.candidate.kind === 'optional');
    const holder = holderOf(root, node);
    // The fix that makes this node optional, where its own holder lists it.
    const unrequire =
      holder !== undefined && holder.required.includes(node.name)
        ? { pointer: holder.pointer, set: { required: holder.required.filter((n) => n !== node.name) } }
        : undefined;
    // Each conflict with `required` below has the same fix; only the evidence, the wording and the confidence differ.
    const reportRequired = (evidence: string, message: string, confidence: Confidence): void => {
      findings.add('schema-only', node.parameter, 'required', node.location, node.pointer, evidence, message, {
        confidence,
        fix: unrequire,
      });
    };
    if (optional !== undefined && node.parent?.required.has(node.name) === true) {
      reportRequired(
        quote(optional.sentence),
        `The description says ${label} is optional but the schema requires it: remove ` +
          'it from "required" (and give it a "default"), or correct the description.',
        optional.fromTool ? 'medium' : 'high',
      );
    }

    // The prose gives a required parameter a default ("Defaults to current working directory"): a caller told of it
    // omits the parameter and is refused. From the parameter's own text only, where nothing above said so.
    // Not a bare word marked as the default ("plain text by default"), which counts only where the schema lists it.
    const proseDefault = claims.find(
      (claim) => claim.node === node && claim.candidate.kind === 'default' && claim.candidate.listedOnly !== true && !claim.fromTool,
    );
    if (optional === undefined && proseDefault !== undefined && unrequire !== undefined) {
      reportRequired(
        quote(proseDefault.sentence),
        `The description gives ${label} a default but the schema requires it, so no call can rely on that default: ` +
          'remove it from "required" (and give it the "default"), or correct the description.',
        'medium',
      );
    }

    // A required parameter with a `default`: the default can never apply, and a caller told of it omits the
    // parameter and is refused. Said once, where the prose did not already call it optional (above).
    const defaultSite = firstSite(view, 'default');
    if (
      optional === undefined &&
      proseDefault === undefined &&
      defaultSite !== undefined &&
      defaultSite.value !== null &&
      unrequire !== undefined
    ) {
      reportRequired(
        json({ default: defaultSite.value }),
        `${label} has a "default" (${json(defaultSite.value)}) but the schema requires it, so the default never applies: ` +
          'remove it from "required", or drop the "default".',
        'medium',
      );
    }

    // "'YYYY-MM-DDtoYYYY-MM-DD' - Timeframe is also supported ... e.g. 2022-04-01to2022-07-30": an enum that lists
    // the placeholder itself refuses every real value of that shape.
    if (enumSite !== undefined && Array.isArray(enumSite.value) && !enumSite.conditional) {
      const placeholders = enumSite.value.filter((v): v is string => typeof v === 'string' && /YYYY|MM-DD|HH:MM/.test(v));
      const template = placeholders[0];
      if (template !== undefined && mentionsValue(text, template)) {
        const others = enumSite.value.filter((v) => !placeholders.includes(v as string));
        const regex = templatePattern(placeholders);
        findings.add(
          'prose-only',
          node.parameter,
          'enum',
          node.location,
          enumSite.pointer,
          quote(text.slice(0, 200)),
          `The "enum" of ${label} lists the placeholder ${json(template)} itself, so the values ` +
            `the description allows (${template} filled in) are rejected: replace it with a ` +
            `"pattern" for that shape (an "anyOf" of the other values and ${json(regex ?? '')}).`,
          {
            confidence: 'high',
            fix:
              regex === undefined
                ? undefined
                : { pointer: enumSite.pointer, remove: ['enum'], set: { anyOf: [{ enum: others }, { type: 'string', pattern: regex }] } },
          },
        );
      }
    }
  }
}

export const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  date: 'a date, YYYY-MM-DD',
  'date-time': 'an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z',
  time: 'a time, HH:MM:SS with offset',
  email: 'an email address',
  uri: 'an absolute URL',
  uuid: 'a UUID',
  duration: 'an ISO 8601 duration, e.g. PT15M',
};

export function parentPointer(node: AuditNode): string {
  return node.pointer.replace(/\/items$/, '');
}

/** A word or quoted example in the prose that the pattern accepts (the pattern must not accept the empty string). */
export function hasMatchingExample(text: string, pattern: string): boolean {
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

export const LEADING_PUNCTUATION = new Set(['(', '"', "'", '`']);
export const TRAILING_PUNCTUATION = new Set([')', '"', "'", '`', '.', ',', ';', ':', '!', '?']);

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
