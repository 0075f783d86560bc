/**
 * From ajv errors to diagnostics: runs a compiled ajv function, folds its errors (ajv-error-tree.ts) and renders
 * each into a {@link Diagnostic} an agent can act on: a stable code from codes.ts, the JSON Pointer of the
 * offending value, a plain message naming the parameter, a hint saying what to send instead, and
 * machine-readable details. The renderer here keeps what spans keywords (the `anyOf`/`oneOf`/`if` trees, schema
 * summaries, value names); each keyword family's own rendering is a rule in keywords/. Also the
 * `tool_schema_unusable` diagnostic shared with schema compilation.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { buildErrorTree, param, stringParam, type ErrorNode } from './ajv-error-tree.js';
import {
  capitalize,
  dedupe,
  joinAnd,
  joinOr,
  listAnd,
  listValues,
  plural,
  preview,
  PREVIEW_CHARS,
  QUOTE_CHARS,
  refName,
  truncate,
  typeNoun,
} from '../shared/text.js';
import { isJsonObject, jsonTypeOf } from '../shared/json.js';
import { arrayIndex, parsePointer } from '../shared/json-pointer.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import { schemaKeyword, typeAllows, type SchemaIndex } from './schema-index.js';
import type { Diagnostic } from '../shared/types.js';
import { PatternBudgetError } from '../shared/patterns.js';
import { agree, KEYWORD_RULES, type Make } from './keywords/index.js';

/**
 * How many diagnostics past the cap are still rendered, only to count them for `more_errors`: the count is exact
 * for an ordinary call, and a payload wrong everywhere renders a bounded number more.
 */
const UNLISTED_COUNT_LIMIT = 200;

/**
 * Runs a compiled ajv function on `args`: `[]` when valid, else at most `maxDiagnostics` deduplicated diagnostics.
 * When there are more, the last one is `more_errors`, saying how many were left out (see {@link capped}).
 * Never throws: a failure of the evaluation itself is reported as `tool_schema_unusable`.
 */
export function runValidation(validateFn: ValidateFunction, index: SchemaIndex, args: JsonValue, maxDiagnostics: number): Diagnostic[] {
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
    if (error instanceof PatternBudgetError) return [patternBudgetDiagnostic(error.budget)];
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

/** A call whose pattern work passes the budget: neither valid nor invalid, and not for the agent to fix alone. */
function patternBudgetDiagnostic(budget: number): Diagnostic {
  return {
    code: 'tool_schema_unusable',
    path: '',
    message:
      `The arguments cannot be checked: the tool schema's patterns would scan more than ${budget} characters for this call ` +
      '(patternProperties or propertyNames patterns times many keys, or patterns over very long strings).',
    hint: 'Send fewer keys or shorter strings; if ordinary calls reach this, the tool owner should reduce the patterns in the schema.',
    details: { reason: 'pattern_budget_exceeded', limit: budget },
  };
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
    hint:
      'This call cannot be validated until the tool schema is fixed; retrying with other arguments will not help. Report it to ' +
      'the tool owner.',
    details,
  };
}

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
      ? `${capitalize(this.name(path))} ${agree(path, 'matches', 'match')} none of the allowed alternatives: ` +
        `expected ${expected?.join(' or ') ?? ''}, received ${received}.`
      : `${capitalize(this.name(path))} ${agree(path, 'matches', 'match')} none of the ${String(branches.length)} allowed ` +
        `alternatives (received ${preview(error.data)}).`;
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
      message:
        `${capitalize(this.name(error.instancePath))} ${agree(error.instancePath, 'matches', 'match')} more than one of the ` +
        `alternatives (${joinAnd(matched)}) but must match exactly one.`,
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
      message:
        `${capitalize(name)} ${agree(error.instancePath, 'does', 'do')} not satisfy the "${failing}" condition of the schema ` +
        `(received ${preview(error.data)}).`,
      hint: `Change ${name} so that ${agree(error.instancePath, 'it is', 'they are')} ${this.summarize(branch)}.`,
      details: { keyword: 'if', failingKeyword: failing },
    };
  }

  /**
   * One ajv error → one diagnostic, by its keyword's rule (keywords/), else the generic `schema_violation`.
   * `children` are the errors it explains (for `contains`/`propertyNames`).
   */
  private single(error: ErrorObject, children: ErrorNode[]): Diagnostic {
    const path = error.instancePath;
    const name = this.name(path);
    const Name = capitalize(name);
    const keyword = error.keyword;
    const make: Make = (code, at, message, hint, details = {}) => ({
      code,
      path: at,
      message,
      hint,
      details: { keyword, ...details },
    });
    const rule = KEYWORD_RULES[keyword];
    if (rule !== undefined) {
      const parent: unknown = error.parentSchema;
      const rendered = rule({
        error,
        children,
        path,
        name,
        Name,
        data: error.data,
        parent,
        description: this.index.annotation(parent, 'description'),
        make,
        index: this.index,
        args: this.args,
        summarize: (schema) => this.summarize(schema),
      });
      if (rendered !== undefined) return rendered;
    }
    return make(
      'schema_violation',
      path,
      `${Name} ${agree(path, 'is invalid: it', 'are invalid: they')} ` +
        `${truncate(error.message ?? 'violates the schema', QUOTE_CHARS)} (keyword "${truncate(keyword, PREVIEW_CHARS)}").`,
      `Change ${name} so that it satisfies the "${truncate(keyword, PREVIEW_CHARS)}" rule of the tool schema.`,
      { schemaPath: error.schemaPath },
    );
  }

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
    const required = Array.isArray(model.required)
      ? model.required.filter((name): name is string => typeof name === 'string' && !fixedNames.has(name))
      : [];
    const parts = [...fixed, ...required.slice(0, 5).map((name) => preview(name))];
    if (required.length > 5) parts.push(`${String(required.length - 5)} more`);
    return parts.length === 0 ? undefined : joinAnd(parts);
  }

  /** A short English description of what a schema accepts, for hints ("a JSON array", "one of "a", "b""). */
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
    for (const token of parsePointer(pointer) ?? [pointer]) {
      const index = Array.isArray(current) ? arrayIndex(token) : undefined;
      if (Array.isArray(current) && index !== undefined) {
        label += `[${token}]`;
        current = current[index];
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
