/**
 * From ajv errors to diagnostics: runs a compiled ajv function, folds its errors (ajv-error-tree.ts) and renders
 * each into a {@link Diagnostic} an agent can act on: a stable code from codes.ts, the JSON Pointer of the
 * offending value, a plain message naming the parameter, a hint saying what to send instead, and
 * machine-readable details. Also the `tool_schema_unusable` diagnostic shared with schema compilation.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { buildErrorTree, numberParam, param, stringParam, type ErrorNode } from './ajv-error-tree.js';
import type { ErrorCode } from '../shared/codes.js';
import {
  arrayOrEmpty,
  boundedList,
  capitalize,
  closeName,
  closeValue,
  codePointLength,
  dedupe,
  DESCRIPTION_CHARS,
  joinAnd,
  joinOr,
  listAnd,
  listValues,
  plural,
  preview,
  PREVIEW_CHARS,
  previewValue,
  QUOTE_CHARS,
  quoteDescription,
  refName,
  roundNoise,
  truncate,
  typeNoun,
} from '../shared/text.js';
import { childPointer, isJsonObject, jsonTypeOf } from '../shared/json.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import { schemaKeyword, typeAllows, type SchemaIndex } from './schema-index.js';
import type { Diagnostic } from '../shared/types.js';

/**
 * How many diagnostics past the cap are still rendered, only to count them for `more_errors` (about 10 µs
 * each): the count is exact for an ordinary call, and a payload wrong everywhere costs at most ~2 ms more.
 */
const UNLISTED_COUNT_LIMIT = 200;

/**
 * Runs a compiled ajv function on `args`: `[]` when valid, else at most `maxDiagnostics` deduplicated diagnostics.
 * When there are more, the last one is `more_errors`, saying how many were left out (see {@link capped}).
 * Never throws: a failure of the evaluation itself is reported as `tool_schema_unusable`.
 */
export function runValidation(
  validateFn: ValidateFunction,
  index: SchemaIndex,
  args: JsonValue,
  maxDiagnostics: number,
): Diagnostic[] {
  try {
    if (validateFn(args)) return [];
    // Copy at once: ajv keeps the errors on the function and overwrites them on the next call.
    const errors = [...(validateFn.errors ?? [])];
    const countLimit = maxDiagnostics + UNLISTED_COUNT_LIMIT;
    const diagnostics = distinctDiagnostics(buildErrorTree(errors, index), new Renderer(index, args), countLimit);
    if (diagnostics.length === 0) {
      // Cannot happen with ajv (a failure always carries an error), but the call must not pass as valid.
      diagnostics.push({
        code: 'schema_violation',
        path: '',
        message: 'The arguments do not satisfy the tool schema.',
        hint: 'Check the arguments against the tool schema.',
        details: {},
      });
    }
    return capped(diagnostics, maxDiagnostics, countLimit);
  } catch (error) {
    // E.g. a RangeError from a recursion the static cycle check could not see. The schema is at fault.
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return [
      unusableDiagnostic(`The tool schema could not be evaluated against these arguments (${truncate(text, 200)}).`, {
        reason: 'validation_failed',
        error: truncate(text, 1000),
      }),
    ];
  }
}

/** The diagnostics of the error forest in order, each once, stopping after `limit + 1` (so "more than limit" shows). */
function distinctDiagnostics(nodes: ErrorNode[], renderer: Renderer, limit: number): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const node of nodes) {
    for (const diagnostic of renderer.render(node)) {
      // The same failure can be reached twice (e.g. through two `allOf` branches): report it once.
      const key = `${diagnostic.code}\u0000${diagnostic.path}\u0000${diagnostic.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      diagnostics.push(diagnostic);
      if (diagnostics.length > limit) return diagnostics;
    }
  }
  return diagnostics;
}

/**
 * At most `max` diagnostics. Over the cap, the first `max - 1` and a `more_errors` saying how many were left out,
 * so the agent knows a retry will bring more (exact up to `countLimit` found, else "over"). With a cap of 1 the
 * one slot goes to the first real problem: a lone `more_errors` would give the agent nothing to fix.
 */
function capped(diagnostics: Diagnostic[], max: number, countLimit: number): Diagnostic[] {
  if (diagnostics.length <= max) return diagnostics;
  if (max === 1) return diagnostics.slice(0, 1);
  const listed = max - 1;
  return [...diagnostics.slice(0, listed), moreErrors(listed, diagnostics.length - listed, diagnostics.length <= countLimit)];
}

/**
 * `unlisted` is the exact count, or when not `exact` a lower bound above {@link UNLISTED_COUNT_LIMIT}. Never 1:
 * the marker itself takes the place of one problem, so at least two are left out.
 */
function moreErrors(listed: number, unlisted: number, exact: boolean): Diagnostic {
  const count = exact ? String(unlisted) : `Over ${String(UNLISTED_COUNT_LIMIT)}`;
  const shown = listed === 1 ? '1 is' : `${String(listed)} are`;
  return {
    code: 'more_errors',
    path: '',
    message: `${count} more problems were found and not listed (at most ${shown} listed per call).`,
    hint: 'Fix the problems listed, then send the call again to see the rest.',
    details: exact ? { listed, unlisted } : { listed, unlistedAtLeast: unlisted },
  };
}

/** The diagnostic of a schema that cannot be compiled or evaluated (shared with validate.ts). */
export function unusableDiagnostic(message: string, details: Record<string, JsonValue>): Diagnostic {
  return {
    code: 'tool_schema_unusable',
    path: '',
    message,
    hint: 'This call cannot be validated until the tool schema is fixed; retrying with other arguments will not help. Report it to the tool owner.',
    details,
  };
}

const COMPARISON_WORDS: Record<string, string> = {
  '>=': 'at least',
  '>': 'greater than',
  '<=': 'at most',
  '<': 'less than',
};

/** Format descriptions and example values, so a hint can show what a valid value looks like. */
const FORMATS: Record<string, { what: string; example: JsonValue }> = {
  date: { what: 'a calendar date, YYYY-MM-DD', example: '2024-05-31' },
  time: { what: 'a time with a time zone, HH:MM:SS followed by Z or an offset', example: '14:30:00Z' },
  'date-time': { what: 'an RFC 3339 date-time with a time zone', example: '2024-05-31T14:30:00Z' },
  'iso-time': { what: 'an ISO 8601 time', example: '14:30:00' },
  'iso-date-time': { what: 'an ISO 8601 date-time', example: '2024-05-31T14:30:00' },
  duration: { what: 'an ISO 8601 duration', example: 'P3DT4H' },
  uri: { what: 'an absolute URI, with a scheme', example: 'https://example.com/path' },
  'uri-reference': { what: 'a URI or a relative reference', example: '/path/to/resource' },
  'uri-template': { what: 'an RFC 6570 URI template', example: 'https://example.com/items/{id}' },
  url: { what: 'a URL', example: 'https://example.com/path' },
  email: { what: 'an email address', example: 'user@example.com' },
  hostname: { what: 'a host name', example: 'api.example.com' },
  ipv4: { what: 'an IPv4 address', example: '192.0.2.10' },
  ipv6: { what: 'an IPv6 address', example: '2001:db8::1' },
  regex: { what: 'a regular expression', example: '^[a-z]+$' },
  uuid: { what: 'a UUID', example: '123e4567-e89b-12d3-a456-426614174000' },
  'json-pointer': { what: 'a JSON Pointer', example: '/items/0' },
  'json-pointer-uri-fragment': { what: 'a JSON Pointer URI fragment', example: '#/items/0' },
  'relative-json-pointer': { what: 'a relative JSON Pointer', example: '1/name' },
  byte: { what: 'base64-encoded data', example: 'aGVsbG8=' },
  int32: { what: 'a 32-bit signed integer', example: 42 },
  int64: { what: 'a 64-bit signed integer', example: 42 },
  float: { what: 'a 32-bit floating-point number', example: 1.5 },
  double: { what: 'a 64-bit floating-point number', example: 1.5 },
};

/** Builds a diagnostic of the keyword being rendered (its name goes into the details). */
type Make = (code: ErrorCode, at: string, message: string, hint: string, details?: Record<string, JsonValue>) => Diagnostic;

/** Turns error nodes into diagnostics. One per validation call: it knows the arguments, to name paths. */
class Renderer {
  constructor(
    private readonly index: SchemaIndex,
    private readonly args: JsonValue,
  ) {}

  render(node: ErrorNode): Diagnostic[] {
    const { error } = node;
    switch (error.keyword) {
      case 'anyOf':
      case 'oneOf':
        return this.alternatives(node);
      case 'if':
        // The failing `then`/`else` errors say precisely what is missing; the `if` error adds nothing to them.
        if (node.children.length > 0) return node.children.flatMap((child) => this.render(child));
        return [this.ifFailed(error)];
      default:
        return [this.single(error, node.children)];
    }
  }

  /**
   * One `no_matching_alternative` instead of every branch's errors, unless the value plainly targets one
   * branch: exactly one branch allows the value's JSON type (Pydantic's `Optional[Model]` sent as an object), or
   * a `const` property discriminates. Then that branch's own errors are the actionable ones and are returned.
   */
  private alternatives(node: ErrorNode): Diagnostic[] {
    const { error } = node;
    const branches: unknown[] = Array.isArray(error.schema) ? error.schema : [];
    const passing = param(error, 'passingSchemas');
    if (error.keyword === 'oneOf' && Array.isArray(passing)) return [this.tooManyAlternatives(error, branches, passing)];
    const target = this.targetBranch(branches, error.data);
    if (target !== undefined) {
      const mine = node.children.filter((child) => this.branchOf(child.error, error, branches) === target);
      const rendered = mine.flatMap((child) => this.render(child));
      if (rendered.length > 0) return rendered;
    }
    return [this.noAlternative(error, branches)];
  }

  /**
   * Which branch an error came from: by schema path when it runs through `<anyOf>/<i>/`, else (inside a `$ref`,
   * whose schema path restarts) the first branch that reaches the failing schema object. The path test comes
   * first because in a recursive schema every branch may reach every schema object.
   */
  private branchOf(child: ErrorObject, wrapper: ErrorObject, branches: unknown[]): number | undefined {
    const prefix = `${wrapper.schemaPath}/`;
    if (child.schemaPath.startsWith(prefix)) {
      const position = Number(child.schemaPath.slice(prefix.length).split('/')[0]);
      if (Number.isInteger(position)) return position;
    }
    if (!isJsonObject(child.parentSchema)) return undefined;
    const found = branches.findIndex((branch) => this.index.reach(branch).has(child.parentSchema));
    return found === -1 ? undefined : found;
  }

  private targetBranch(branches: unknown[], data: unknown): number | undefined {
    let candidates = branches.map((_, i) => i).filter((i) => typeAllows(this.index.types(branches[i]), data));
    if (candidates.length > 1 && isJsonObject(data)) {
      // A discriminator: a property whose `const` (or single-value enum) matches the value sent.
      const discriminated = candidates.filter((i) => this.matchesDiscriminator(branches[i], data));
      if (discriminated.length > 0) candidates = discriminated;
    }
    return candidates.length === 1 ? candidates[0] : undefined;
  }

  private matchesDiscriminator(branch: unknown, data: JsonObject): boolean {
    const resolved = isJsonObject(branch) && typeof branch.$ref === 'string' ? this.index.resolve(branch.$ref) : branch;
    const properties = schemaKeyword(resolved, 'properties');
    if (!isJsonObject(properties)) return false;
    return Object.entries(properties).some(([name, sub]) => {
      const allowed = this.index.allowedValues(sub);
      return (
        allowed !== undefined &&
        allowed.length === 1 &&
        Object.hasOwn(data, name) &&
        JSON.stringify(allowed[0]) === JSON.stringify(data[name])
      );
    });
  }

  private noAlternative(error: ErrorObject, branches: unknown[]): Diagnostic {
    const path = error.instancePath;
    const received = jsonTypeOf(error.data);
    const { shown: summaries, notShown } = this.summaries(branches);
    let expected: string[] | undefined = [];
    for (const branch of branches) {
      const t = this.index.types(branch);
      if (t === undefined || t.size === 0) {
        expected = undefined;
        break;
      }
      expected.push(...t);
    }
    expected = expected === undefined ? undefined : dedupe(expected);
    const typeMismatch = expected !== undefined && !typeAllows(new Set(expected), error.data);
    const message = typeMismatch
      ? `${capitalize(this.name(path))} ${agree(path, 'matches', 'match')} none of the allowed alternatives: expected ${expected?.join(' or ') ?? ''}, received ${received}.`
      : `${capitalize(this.name(path))} ${agree(path, 'matches', 'match')} none of the ${String(branches.length)} allowed alternatives (received ${preview(error.data)}).`;
    const needs = requiredOnlyBranches(branches);
    let hint = needs === undefined ? `Send ${joinOr(summaries)}${moreAlternatives(notShown)}.` : requiredHint(error.keyword, needs);
    if (received === 'string' && expected !== undefined && !expected.includes('string')) {
      if (expected.includes('array') || expected.includes('object')) {
        hint += ` Send the ${expected.includes('array') ? 'array' : 'object'} itself as JSON, not a string containing JSON.`;
      }
    }
    const details: Record<string, JsonValue> = { keyword: error.keyword, alternatives: summaries, received };
    if (notShown > 0) details.alternativesNotListed = notShown;
    if (expected !== undefined) details.expected = expected;
    return { code: 'no_matching_alternative', path, message, hint, details };
  }

  private tooManyAlternatives(error: ErrorObject, branches: unknown[], passing: unknown[]): Diagnostic {
    const indexes = passing.filter((p): p is number => typeof p === 'number');
    const matched = indexes.map((i) => this.summarize(branches[i], i));
    const needs = requiredOnlyBranches(branches);
    const { shown, notShown } = this.summaries(branches);
    return {
      code: 'no_matching_alternative',
      path: error.instancePath,
      message: `${capitalize(this.name(error.instancePath))} ${agree(error.instancePath, 'matches', 'match')} more than one of the alternatives (${joinAnd(matched)}) but must match exactly one.`,
      hint:
        needs !== undefined && needs.every((names) => names.length === 1)
          ? requiredHint('oneOf', needs)
          : `Change the value so that it matches exactly one of: ${shown.join('; ')}${moreAlternatives(notShown)}.`,
      details: { keyword: 'oneOf', passingSchemas: indexes },
    };
  }

  /** The distinct summaries of the first {@link HINT_ALTERNATIVES} branches, and how many branches are left out. */
  private summaries(branches: unknown[]): { shown: string[]; notShown: number } {
    const shown = dedupe(branches.slice(0, HINT_ALTERNATIVES).map((b, i) => this.summarize(b, i)));
    return { shown, notShown: Math.max(0, branches.length - HINT_ALTERNATIVES) };
  }

  private ifFailed(error: ErrorObject): Diagnostic {
    const failing = stringParam(error, 'failingKeyword') || 'then';
    const branch = schemaKeyword(error.parentSchema, failing);
    const name = this.name(error.instancePath);
    return {
      code: 'forbidden_value',
      path: error.instancePath,
      message: `${capitalize(name)} ${agree(error.instancePath, 'does', 'do')} not satisfy the "${failing}" condition of the schema (received ${preview(error.data)}).`,
      hint: `Change ${name} so that ${agree(error.instancePath, 'it is', 'they are')} ${this.summarize(branch)}.`,
      details: { keyword: 'if', failingKeyword: failing },
    };
  }

  /** One ajv error → one diagnostic. `children` are the errors it explains (for `contains`/`propertyNames`). */
  private single(error: ErrorObject, children: ErrorNode[]): Diagnostic {
    const path = error.instancePath;
    const name = this.name(path);
    const Name = capitalize(name);
    const data: unknown = error.data;
    const keyword = error.keyword;
    const parent: unknown = error.parentSchema;
    const description = this.index.annotation(parent, 'description');
    const make: Make = (code, at, message, hint, details = {}) => ({
      code,
      path: at,
      message,
      hint,
      details: { keyword, ...details },
    });

    switch (keyword) {
      case 'required':
        return this.missing(error, 'missing_required', stringParam(error, 'missingProperty'));
      case 'dependentRequired':
      case 'dependencies':
        return this.missing(error, 'missing_dependency', stringParam(error, 'missingProperty'), stringParam(error, 'property'));

      case 'type': {
        const rawType = param(error, 'type');
        const expected = (Array.isArray(rawType) ? rawType : [rawType]).filter((t): t is string => typeof t === 'string');
        const received = jsonTypeOf(data);
        const notWhole = received === 'number' && expected.includes('integer') ? ' (not a whole number)' : '';
        const message = `Wrong type for ${name}: expected ${expected.join(' or ')}, received ${received}${notWhole}.`;
        return make('wrong_type', path, message, this.typeHint(name, expected, data, description), {
          expected,
          received,
        });
      }

      case 'enum': {
        const allowed = arrayOrEmpty(param(error, 'allowedValues'));
        const suggestion = closeValue(data, allowed);
        return make(
          'not_in_enum',
          path,
          `${Name} ${agree(path, 'is', 'are')} not one of the allowed values (received ${preview(data)}).`,
          `Use one of: ${listValues(allowed)}.${suggestion === undefined ? '' : ` Did you mean ${preview(suggestion)}?`}`,
          listDetails('allowedValues', allowed),
        );
      }

      case 'const': {
        const allowed = param(error, 'allowedValue') as JsonValue;
        return make(
          'not_const',
          path,
          `${Name} must be exactly ${preview(allowed)} (received ${preview(data)}).`,
          `Send ${preview(allowed)}.`,
          { allowedValue: previewValue(allowed) },
        );
      }

      case 'additionalProperties':
      case 'unevaluatedProperties': {
        const key = stringParam(error, keyword === 'additionalProperties' ? 'additionalProperty' : 'unevaluatedProperty');
        const allowed = this.index.declaredProperties(parent, keyword === 'unevaluatedProperties');
        const patterns = isJsonObject(schemaKeyword(parent, 'patternProperties'))
          ? Object.keys(schemaKeyword(parent, 'patternProperties') as JsonObject)
          : [];
        const what = path === '' ? 'parameters' : 'properties';
        const message =
          path === ''
            ? `Unknown parameter ${preview(key)}: this tool does not accept it.`
            : `Unknown property ${preview(key)} in ${name}: it is not allowed there.`;
        const suggestion = closeName(key, allowed);
        let hint = `Remove ${preview(key)}.`;
        if (suggestion !== undefined) hint += ` Did you mean ${preview(suggestion)}?`;
        if (allowed.length > 0) hint += ` Allowed ${what}: ${listValues(allowed)}.`;
        if (patterns.length > 0) hint += ` Names matching ${listValues(patterns)} are also accepted.`;
        if (allowed.length === 0 && patterns.length === 0) hint += ` No other ${what} are accepted.`;
        return make('unknown_property', childPointer(path, key), message, hint, {
          property: truncate(key, PREVIEW_CHARS),
          ...listDetails('allowed', allowed),
        });
      }

      case 'minimum':
      case 'exclusiveMinimum':
      case 'maximum':
      case 'exclusiveMaximum': {
        const comparison = stringParam(error, 'comparison');
        const limit = numberParam(error, 'limit') ?? 0;
        const words = COMPARISON_WORDS[comparison] ?? comparison;
        const code: ErrorCode = keyword.toLowerCase().includes('min') ? 'below_minimum' : 'above_maximum';
        return make(
          code,
          path,
          `${Name} must be ${words} ${String(limit)}, received ${preview(data)}.`,
          `Send a number that is ${words} ${String(limit)}${description === undefined ? '' : ` (${quoteDescription(description)})`}.`,
          { limit, comparison, actual: typeof data === 'number' ? data : null },
        );
      }

      case 'multipleOf': {
        const step = numberParam(error, 'multipleOf') ?? 1;
        const actual = typeof data === 'number' ? data : NaN;
        const lower = roundNoise(Math.floor(actual / step) * step);
        const upper = roundNoise(lower + step);
        const example = Number.isFinite(lower) ? ` such as ${String(lower)} or ${String(upper)}` : '';
        return make(
          'not_multiple_of',
          path,
          `${Name} must be a multiple of ${String(step)}, received ${preview(data)}.`,
          `Send a multiple of ${String(step)}${example === '' ? '' : `,${example}`}.`,
          { multipleOf: step, actual: Number.isFinite(actual) ? actual : null },
        );
      }

      case 'minLength':
      case 'maxLength': {
        const limit = numberParam(error, 'limit') ?? 0;
        // ajv counts Unicode code points, not UTF-16 units: so do we, or the numbers would disagree.
        const length = typeof data === 'string' ? codePointLength(data) : 0;
        const min = keyword === 'minLength';
        return make(
          min ? 'too_short' : 'too_long',
          path,
          `${Name} must be ${min ? 'at least' : 'at most'} ${plural(limit, 'character')} long, received ${plural(length, 'character')}.`,
          min
            ? `Send a string of at least ${plural(limit, 'character')}${description === undefined ? '' : ` (${quoteDescription(description)})`}.`
            : `Shorten ${name} to at most ${plural(limit, 'character')}.`,
          { limit, actualLength: length },
        );
      }

      case 'pattern': {
        const pattern = truncate(stringParam(error, 'pattern'), QUOTE_CHARS);
        const example = exampleOf(parent);
        return make(
          'pattern_mismatch',
          path,
          `${Name} does not match the required pattern ${pattern} (received ${preview(data)}).`,
          `Send a string matching the regular expression ${pattern}` +
            (description === undefined ? '' : ` (${quoteDescription(description)})`) +
            (example === undefined ? '' : `, for example ${preview(example)}`) +
            '.',
          { pattern },
        );
      }

      case 'format': {
        const format = truncate(stringParam(error, 'format'), QUOTE_CHARS);
        const known = FORMATS[format];
        const example = exampleOf(parent) ?? known?.example;
        return make(
          'invalid_format',
          path,
          `${Name} is not a valid "${format}"${known === undefined ? '' : ` (${known.what})`} (received ${preview(data)}).`,
          `Send a value in "${format}" format${known === undefined ? '' : `, ${known.what}`}${
            example === undefined ? '' : `, for example ${preview(example)}`
          }.`,
          example === undefined ? { format } : { format, example: previewValue(example, QUOTE_CHARS) },
        );
      }

      case 'minItems':
      case 'maxItems':
      case 'items':
      case 'additionalItems':
      case 'unevaluatedItems': {
        const limit = numberParam(error, 'limit');
        if (limit === undefined) break; // not a count limit: generic handling below
        const count = Array.isArray(data) ? data.length : 0;
        const min = keyword === 'minItems';
        return make(
          min ? 'too_few_items' : 'too_many_items',
          path,
          `${Name} must have ${min ? 'at least' : 'at most'} ${plural(limit, 'item')}, received ${plural(count, 'item')}.`,
          min ? `Send an array with at least ${plural(limit, 'item')}.` : `Remove items so that ${name} ${path === '' ? 'have' : 'has'} at most ${plural(limit, 'item')}.`,
          { limit, actualCount: count },
        );
      }

      case 'uniqueItems': {
        const i = numberParam(error, 'i') ?? 0;
        const j = numberParam(error, 'j') ?? 0;
        const [first, second] = i < j ? [i, j] : [j, i];
        const repeated: unknown = Array.isArray(data) ? data[first] : undefined;
        return make(
          'duplicate_items',
          path,
          `${Name} must not contain duplicate items, but items ${String(first)} and ${String(second)} are equal.`,
          `Remove the repeated value ${preview(repeated)} so that every item is unique.`,
          { duplicateIndexes: [first, second] },
        );
      }

      case 'contains':
        return this.contains(error, children, make);

      case 'minProperties':
      case 'maxProperties': {
        const limit = numberParam(error, 'limit') ?? 0;
        const count = isJsonObject(data) ? Object.keys(data).length : 0;
        const min = keyword === 'minProperties';
        const allowed = this.index.declaredProperties(parent, true);
        return make(
          min ? 'too_few_properties' : 'too_many_properties',
          path,
          `${Name} must have ${min ? 'at least' : 'at most'} ${plural(limit, 'property', 'properties')}, received ${String(count)}.`,
          min
            ? `Add properties so that ${name} has at least ${String(limit)}${allowed.length > 0 ? ` (available: ${listValues(allowed)})` : ''}.`
            : `Remove properties so that ${name} has at most ${String(limit)}.`,
          { limit, actualCount: count },
        );
      }

      case 'propertyNames': {
        const propertyName = stringParam(error, 'propertyName');
        const rules = dedupe(children.map((child) => nameRule(child.error)));
        const where = path === '' ? '' : ` in ${name}`;
        return make(
          'invalid_property_name',
          childPointer(path, propertyName),
          `Property name ${preview(propertyName)}${where} is not allowed.`,
          `Rename or remove ${preview(propertyName)}${rules.length > 0 ? `; property names must ${rules.join(' and ')}` : ''}.`,
          { propertyName: truncate(propertyName, PREVIEW_CHARS), rules },
        );
      }

      case 'not': {
        const summary = this.summarize(error.schema);
        return make(
          'forbidden_value',
          path,
          `${Name} must not be ${summary} (received ${preview(data)}).`,
          `Send a value for ${name} that is not ${summary}.`,
        );
      }

      case 'false schema': {
        // `then: false` / `else: false` forbid a combination, not every value: say which condition.
        // ajv's schemaPath for it ends in `/then/false schema` (or `/else/...`); the `if` sits beside that branch.
        const match = /\/(then|else)\/false schema$/.exec(error.schemaPath);
        const branch = match?.[1];
        if (match !== null && branch !== undefined) {
          const condition = schemaKeyword(this.index.resolve(error.schemaPath.slice(0, match.index)), 'if');
          const holds = branch === 'then' ? 'holds' : 'does not hold';
          return make(
            'forbidden_value',
            path,
            `${Name} ${agree(path, 'is', 'are')} not accepted as sent: the tool schema forbids ${agree(path, 'it', 'them')} when its condition ${holds} (received ${preview(data)}).`,
            `Change the values the condition looks at, so that it ${branch === 'then' ? 'no longer holds' : 'holds'}; the condition: ${preview(condition, QUOTE_CHARS)}.`,
            { branch },
          );
        }
        return path === ''
          ? make('forbidden_value', path, 'The tool schema accepts no arguments at all.', 'No value can satisfy this schema; report it to the tool owner.')
          : make('forbidden_value', path, `${Name} is not allowed here.`, `Remove ${name}.`);
      }
    }

    return make(
      'schema_violation',
      path,
      `${Name} ${agree(path, 'is invalid: it', 'are invalid: they')} ${truncate(error.message ?? 'violates the schema', QUOTE_CHARS)} (keyword "${truncate(keyword, PREVIEW_CHARS)}").`,
      `Change ${name} so that it satisfies the "${truncate(keyword, PREVIEW_CHARS)}" rule of the tool schema.`,
      { schemaPath: error.schemaPath },
    );
  }

  /**
   * Too few items match `contains`, or (with `maxContains`) too many. ajv says neither, but it tries every item when
   * `maxContains` is set, and the errors it adopted name the items that did not match: the rest did.
   */
  private contains(error: ErrorObject, children: ErrorNode[], make: Make): Diagnostic {
    const path = error.instancePath;
    const name = this.name(path);
    const minContains = numberParam(error, 'minContains') ?? 1;
    const maxContains = numberParam(error, 'maxContains');
    const summary = this.summarize(schemaKeyword(error.parentSchema, 'contains'));
    const details: Record<string, JsonValue> = { minContains, contains: summary };
    if (maxContains !== undefined) details.maxContains = maxContains;
    const matching = Array.isArray(error.data) ? error.data.length - failingItems(children, path) : undefined;
    if (maxContains !== undefined && matching !== undefined && matching > maxContains) {
      return make(
        'missing_contains',
        path,
        `${capitalize(name)} must contain at most ${plural(maxContains, 'item')} matching: ${summary}, received ${String(matching)}.`,
        `Remove items that are ${summary} so that at most ${String(maxContains)} ${maxContains === 1 ? 'remains' : 'remain'}.`,
        { ...details, actualCount: matching },
      );
    }
    const range = maxContains === undefined ? `at least ${String(minContains)}` : `between ${String(minContains)} and ${String(maxContains)}`;
    if (matching !== undefined && maxContains !== undefined) details.actualCount = matching;
    return make(
      'missing_contains',
      path,
      `${capitalize(name)} must contain ${range} item(s) matching: ${summary}.`,
      `Include ${range} item(s) that ${maxContains === undefined ? 'are' : 'are each'} ${summary}.`,
      details,
    );
  }

  /** `required` and `dependentRequired`: the diagnostic points at the missing property itself. */
  private missing(error: ErrorObject, code: ErrorCode, property: string, because?: string): Diagnostic {
    const parentPath = error.instancePath;
    // `required` inside `then`/`allOf`/... has no `properties` beside it: then find the property the way the
    // value reached it, from the root.
    const propertySchema =
      this.index.propertySchema(error.parentSchema, property) ??
      this.index.propertySchema(this.index.schemaAtInstance(parentPath, this.args), property);
    const description = this.index.annotation(propertySchema, 'description');
    const allowed = this.index.allowedValues(propertySchema);
    const types = this.index.types(propertySchema);
    const where = parentPath === '' ? '' : ` in ${this.name(parentPath)}`;
    const what = parentPath === '' ? 'parameter' : 'property';
    const message =
      because === undefined
        ? `Missing required ${what} ${preview(property)}${where}.`
        : `${capitalize(what)} ${preview(property)} is required when ${preview(because)} is present${where}.`;
    let hint = `Add ${preview(property)}${description === undefined ? '' : ` (${quoteDescription(description)})`}`;
    hint += because === undefined ? '.' : `, or remove ${preview(because)}.`;
    if (allowed !== undefined && allowed.length > 0) hint += ` Use one of: ${listValues(allowed)}.`;
    else if (types !== undefined && types.size > 0) hint += ` Send ${joinOr([...types].map(typeNoun))}.`;
    const details: Record<string, JsonValue> = {
      keyword: error.keyword,
      missingProperty: truncate(property, PREVIEW_CHARS),
      ...(allowed === undefined ? {} : listDetails('allowedValues', allowed)),
    };
    if (because !== undefined) details.presentProperty = truncate(because, PREVIEW_CHARS);
    if (description !== undefined) details.description = truncate(description, DESCRIPTION_CHARS);
    if (types !== undefined && types.size > 0) details.expected = [...types];
    return { code, path: childPointer(parentPath, property), message, hint, details };
  }

  private typeHint(name: string, expected: string[], data: unknown, description: string | undefined): string {
    const about = description === undefined ? '' : ` (${quoteDescription(description)})`;
    if (typeof data === 'string' && !expected.includes('string')) {
      if (expected.includes('array') || expected.includes('object')) {
        const kind = expected.includes('array') ? 'array' : 'object';
        const example = kind === 'array' ? '["a", "b"]' : '{"key": "value"}';
        return `Send ${name} as a JSON ${kind} itself, for example ${example}, not as a string containing JSON text${about}.`;
      }
      const trimmed = data.trim();
      if (unquotedNumberFits(trimmed, expected)) {
        return `Send the number ${trimmed} without quotes, not the string ${preview(data)}.`;
      }
      if (expected.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) {
        return `Send ${trimmed} without quotes, not the string ${preview(data)}.`;
      }
      if (expected.includes('null') && trimmed === 'null') return 'Send null without quotes, not the string "null".';
    }
    if (typeof data === 'number' && expected.includes('integer') && !Number.isInteger(data)) {
      return `Send a whole number, such as ${String(Math.round(data))}${about}.`;
    }
    return `Send ${joinOr(expected.map(typeNoun))} for ${name}${about}.`;
  }

  /** A short English description of what a schema accepts, for hints ("a JSON array", "one of "a", "b""). */
  /**
   * What a named branch (a `title`, or a `$ref` to a model) needs, which its name alone does not say: its
   * single-valued properties (a discriminator such as `"kind": "card"`) and its other required names. Pydantic's
   * tagged unions are branches like these; "a JSON object ("Card") or a JSON object ("Bank")" tells an agent
   * that sent `"kind": "crad"` nothing.
   */
  private branchNeeds(schema: JsonObject): string | undefined {
    const model = typeof schema.$ref === 'string' ? this.index.resolve(schema.$ref) : schema;
    if (!isJsonObject(model)) return undefined;
    const fixed: string[] = [];
    const fixedNames = new Set<string>();
    if (isJsonObject(model.properties)) {
      for (const [name, sub] of Object.entries(model.properties)) {
        const values = this.index.allowedValues(sub);
        if (values?.length !== 1) continue;
        fixed.push(`${preview(name)}: ${preview(values[0])}`);
        fixedNames.add(name);
        if (fixed.length === 3) break;
      }
    }
    const required = Array.isArray(model.required) ? model.required.filter((name): name is string => typeof name === 'string' && !fixedNames.has(name)) : [];
    const parts = [...fixed, ...required.slice(0, 5).map((name) => preview(name))];
    if (required.length > 5) parts.push(`${String(required.length - 5)} more`);
    return parts.length === 0 ? undefined : joinAnd(parts);
  }

  summarize(schema: unknown, position?: number): string {
    if (schema === true || schema === undefined) return 'any value';
    if (schema === false) return 'no value at all';
    if (!isJsonObject(schema)) return 'any value';
    const allowed = this.index.allowedValues(schema);
    if (allowed !== undefined) return allowed.length === 1 ? `exactly ${preview(allowed[0])}` : `one of ${listValues(allowed)}`;
    const types = this.index.types(schema);
    const typePhrase = types === undefined || types.size === 0 ? undefined : joinOr([...types].map(typeNoun));
    let label = this.index.annotation(schema, 'title');
    if (label === undefined && typeof schema.$ref === 'string') label = refName(schema.$ref);
    if (label !== undefined) {
      const named = typePhrase === undefined ? `"${truncate(label, 60)}"` : `${typePhrase} ("${truncate(label, 60)}")`;
      const needs = this.branchNeeds(schema);
      return needs === undefined ? named : `${named} with ${needs}`;
    }
    if (typePhrase !== undefined) {
      if (typeof schema.pattern === 'string') return `${typePhrase} matching ${truncate(schema.pattern, 60)}`;
      if (typeof schema.format === 'string') return `${typePhrase} in "${truncate(schema.format, 60)}" format`;
      const bounds = boundsPhrase(schema);
      if (bounds !== undefined) return `${typePhrase} ${bounds}`;
      if (Array.isArray(schema.required) && schema.required.length > 0) {
        return `${typePhrase} with ${listValues(schema.required)}`;
      }
      return typePhrase;
    }
    const needs = requiredOnly(schema);
    if (needs !== undefined) return `a value with ${listAnd(needs)}`;
    return position === undefined ? 'a value matching the schema' : `a value matching alternative ${String(position + 1)}`;
  }

  /** How a message names the value at `pointer`: `"currency"`, `"items[0].qty"`, or `the arguments`. */
  name(pointer: string): string {
    if (pointer === '') return 'the arguments';
    let label = '';
    let current: unknown = this.args;
    for (const raw of pointer.slice(1).split('/')) {
      const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(current) && /^\d+$/.test(token)) {
        label += `[${token}]`;
        current = current[Number(token)];
      } else {
        label += label === '' ? token : `.${token}`;
        current = isJsonObject(current) && Object.hasOwn(current, token) ? current[token] : undefined;
      }
      if (label.length > PREVIEW_CHARS) break;
    }
    return preview(label);
  }
}

/**
 * A branch's length or range, so that two branches of one type read differently ("a string of at least 5
 * characters or a string in "email" format", not "a string or a string ..."). Undefined when it has neither.
 */
function boundsPhrase(schema: JsonObject): string | undefined {
  const num = (key: string): number | undefined => (typeof schema[key] === 'number' ? schema[key] : undefined);
  const [minLength, maxLength] = [num('minLength'), num('maxLength')];
  if (minLength !== undefined || maxLength !== undefined) {
    if (minLength !== undefined && maxLength !== undefined) return `of ${String(minLength)} to ${String(maxLength)} characters`;
    return minLength !== undefined ? `of at least ${plural(minLength, 'character')}` : `of at most ${plural(maxLength ?? 0, 'character')}`;
  }
  const low = num('minimum') ?? num('exclusiveMinimum');
  const high = num('maximum') ?? num('exclusiveMaximum');
  const lowWord = num('minimum') !== undefined ? 'at least' : 'greater than';
  const highWord = num('maximum') !== undefined ? 'at most' : 'less than';
  if (low !== undefined && high !== undefined) return `${lowWord} ${String(low)} and ${highWord} ${String(high)}`;
  if (low !== undefined) return `${lowWord} ${String(low)}`;
  if (high !== undefined) return `${highWord} ${String(high)}`;
  return undefined;
}

/** How many items of the array at `path` the adopted `contains` errors are about. */
function failingItems(children: ErrorNode[], path: string): number {
  const items = new Set<string>();
  for (const child of children) {
    const rest = child.error.instancePath.slice(path.length + 1);
    if (child.error.instancePath.startsWith(`${path}/`)) items.add(rest.split('/')[0] ?? '');
  }
  return items.size;
}

/** A details list of values quoted from the schema, bounded, with `<key>NotListed` counting what did not fit. */
function listDetails(key: string, values: readonly unknown[]): Record<string, JsonValue> {
  const { listed, notListed } = boundedList(values);
  return notListed === 0 ? { [key]: listed } : { [key]: listed, [`${key}NotListed`]: notListed };
}

/** Keys that say nothing about what a value must be. */
const ANNOTATION_KEYS = new Set(['title', 'description', '$comment']);

/**
 * The property names a schema made only of `required` (and annotations) asks for: the "at least one of email or
 * phone" idiom. Undefined for any other schema, whose other keywords a list of names would not describe.
 */
function requiredOnly(schema: unknown): string[] | undefined {
  if (!isJsonObject(schema) || !Array.isArray(schema.required) || schema.required.length === 0) return undefined;
  if (!Object.keys(schema).every((key) => key === 'required' || ANNOTATION_KEYS.has(key))) return undefined;
  return schema.required.every((name) => typeof name === 'string') ? schema.required : undefined;
}

function requiredOnlyBranches(branches: unknown[]): string[][] | undefined {
  const needs = branches.map(requiredOnly);
  return branches.length > 0 && needs.every((names) => names !== undefined) ? needs : undefined;
}

/** How many alternatives a hint spells out: the rest are counted, as the values of a list are. */
const HINT_ALTERNATIVES = 10;

/** 'Add "email", or add "phone".'; for `oneOf` of single names 'Send exactly one of: "email", "phone".' */
function requiredHint(keyword: string, needs: string[][]): string {
  if (keyword === 'oneOf' && needs.every((names) => names.length === 1)) return `Send exactly one of: ${listValues(needs.flat())}.`;
  const shown = needs.slice(0, HINT_ALTERNATIVES).map((names) => listAnd(names));
  const options = `Add ${shown.join(', or add ')}${moreAlternatives(needs.length - shown.length)}`;
  return keyword === 'oneOf' ? `${options} (exactly one of these).` : `${options}.`;
}

function moreAlternatives(count: number): string {
  return count > 0 ? `, or … (${String(count)} more alternatives)` : '';
}

/** A JSON number literal: no hex, leading zeros, leading `+` or bare `.5`, which `Number()` accepts and JSON does not. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Whether telling the agent to drop the quotes gives a value that passes the type check: the text must be JSON
 * as it stands (it is echoed, so also short enough to echo whole) and, for an integer, a whole number once read.
 */
function unquotedNumberFits(text: string, expected: string[]): boolean {
  if (text.length > PREVIEW_CHARS || !JSON_NUMBER.test(text)) return false;
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  return expected.includes('number') || (expected.includes('integer') && Number.isInteger(value));
}

/** The verb for the value at `pointer`: the root is named "the arguments", a plural. */
function agree(pointer: string, singular: string, pluralForm: string): string {
  return pointer === '' ? pluralForm : singular;
}

/** What a `propertyNames` subschema error requires of a name, phrased to follow "property names must". */
function nameRule(error: ErrorObject): string {
  switch (error.keyword) {
    case 'pattern':
      return `match the pattern ${truncate(stringParam(error, 'pattern'), QUOTE_CHARS)}`;
    case 'maxLength':
      return `be at most ${plural(numberParam(error, 'limit') ?? 0, 'character')} long`;
    case 'minLength':
      return `be at least ${plural(numberParam(error, 'limit') ?? 0, 'character')} long`;
    case 'enum':
      return `be one of ${listValues(arrayOrEmpty(param(error, 'allowedValues')))}`;
    case 'const':
      return `be ${preview(param(error, 'allowedValue'))}`;
    case 'format':
      return `be in "${truncate(stringParam(error, 'format'), QUOTE_CHARS)}" format`;
    default:
      return truncate(error.message ?? `satisfy "${truncate(error.keyword, PREVIEW_CHARS)}"`, QUOTE_CHARS);
  }
}

function exampleOf(schema: unknown): JsonValue | undefined {
  const examples = schemaKeyword(schema, 'examples');
  if (Array.isArray(examples) && examples.length > 0) return examples[0] as JsonValue;
  const example = schemaKeyword(schema, 'example');
  return example === undefined ? undefined : (example as JsonValue);
}
