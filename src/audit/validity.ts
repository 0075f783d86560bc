/**
 * Layer one of the audit: is the schema itself sound? Needs no model and no prose.
 *
 * - the schema is valid against the meta-schema of its draft (2020-12 by default, draft-07/06 by `$schema`);
 * - every name in a `required` list exists in the `properties` of the object it applies to;
 * - every `default`, `enum` member and `const` validates against its own subschema;
 * - `pattern`s compile as the validator compiles them (Unicode mode); local `$ref`s resolve;
 * - no pair of bounds is unsatisfiable (`minimum` above `maximum`...).
 *
 * Pure: no I/O.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/shared/json.js';
import { escapeToken, formatPointer, pointerTokens, updateAt, valueAt } from '../core/shared/json-pointer.js';
import { createSchemaChecker, schemaDraftOf, type SchemaChecker, type SchemaDraft } from '../core/schema/meta-schema.js';
import type { ToolDefinition } from '../core/schema/tool-definition.js';
import {
  LIST_KEYWORDS,
  locate,
  MAP_KEYWORDS,
  resolveLocalRef,
  SAME_INSTANCE_KEYWORDS,
  SINGLE_KEYWORDS,
  viewOf,
  walkSchemas,
} from './schema-nav.js';
import { json } from './findings.js';
import { findingId, type Finding, type SchemaFix } from './types.js';

export function validityFindings(definition: ToolDefinition, checker: SchemaChecker = createSchemaChecker()): Finding[] {
  const root = definition.inputSchema;
  const tool = definition.name;
  const byId = new Map<string, Finding>();
  const add = (
    pointer: string,
    keyword: string,
    evidence: string,
    suggestion: string,
    parameterOverride?: string | null,
    fix?: SchemaFix,
  ): void => {
    const where = locate(root, pointer);
    const parameter = parameterOverride === undefined ? where.parameter : parameterOverride;
    const location = parameterOverride === undefined ? where.location : parameterOverride === null ? pointer : '';
    const id = findingId('validity', tool, parameter, keyword, location);
    if (byId.has(id)) return;
    const finding: Finding = { id, tool, parameter, layer: 'validity', keyword, evidence, suggestion, path: pointer, confidence: 'high' };
    byId.set(id, fix === undefined ? finding : { ...finding, fix });
  };

  // Meta-schema, for the declared draft.
  const declared = schemaDraftOf(root);
  const draft: SchemaDraft = declared ?? '2020-12';
  if (declared === undefined) {
    add(
      '',
      '$schema',
      json({ $schema: root.$schema ?? null }),
      'Use a supported "$schema": https://json-schema.org/draft/2020-12/schema (or omit it, as MCP ' +
        'allows), http://json-schema.org/draft-07/schema# or http://json-schema.org/draft-06/schema#.',
      null,
    );
  } else {
    const grouped = new Map<string, { pointer: string; keyword: string; messages: Set<string> }>();
    for (const error of checker.metaSchemaErrors(root, draft)) {
      const { pointer, keyword } = splitSchemaPath(error.instancePath, error.keyword);
      const key = `${pointer}\u0000${keyword}`;
      const entry = grouped.get(key) ?? { pointer, keyword, messages: new Set<string>() };
      entry.messages.add(error.message);
      grouped.set(key, entry);
    }
    const entries = [...grouped.values()];
    for (const { pointer, keyword, messages } of entries) {
      // An error inside a keyword's value also fails the keyword itself (draft-07 `items` when its schema is bad):
      // one finding, the deepest.
      if (entries.some((other) => other.pointer.startsWith(`${pointer}/${keyword}`))) continue;
      const node = valueAt(root, pointer);
      const own = isJsonObject(node) && Object.hasOwn(node, keyword);
      const value = own ? node[keyword] : node;
      // Duplicate `enum` members: the fix is the list without them.
      const unique = keyword === 'enum' && Array.isArray(value) ? uniqueValues(value) : undefined;
      const fix = unique !== undefined && unique.length < (value as JsonValue[]).length ? { pointer, set: { enum: unique } } : undefined;
      add(
        pointer,
        keyword,
        json(own ? { [keyword]: value ?? null } : (value ?? null)),
        `${metaAdvice(keyword)} (meta-schema ${draft}: ${[...messages].slice(0, 3).join('; ')}).`,
        undefined,
        fix,
      );
    }
  }

  walkSchemas(root, (schema, pointer) => {
    // Regular expressions as ajv compiles them (Unicode mode).
    if (typeof schema.pattern === 'string') {
      const problem = regexProblem(schema.pattern);
      if (problem !== undefined) {
        const unescaped = unescapeIdentities(schema.pattern);
        const fixed = unescaped !== schema.pattern && regexProblem(unescaped) === undefined ? unescaped : undefined;
        add(
          pointer,
          'pattern',
          json({ pattern: schema.pattern }),
          `Fix the regular expression: ${problem}. Patterns are compiled in Unicode mode (as the validator does), where ` +
            `escapes such as \\- outside a class are errors${fixed === undefined ? '' : ` (here: ${JSON.stringify(fixed)})`}.`,
          undefined,
          fixed === undefined ? undefined : { pointer, set: { pattern: fixed } },
        );
      }
    }
    if (isJsonObject(schema.patternProperties)) {
      for (const key of Object.keys(schema.patternProperties)) {
        const problem = regexProblem(key);
        if (problem !== undefined)
          add(
            pointer,
            'patternProperties',
            json({ patternProperties: { [key]: '…' } }),
            `Fix the regular expression ${JSON.stringify(key)}: ${problem}.`,
          );
      }
    }
    // Local references resolve.
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#') && resolveLocalRef(root, schema.$ref) === undefined) {
      add(
        pointer,
        '$ref',
        json({ $ref: schema.$ref }),
        `"$ref": ${JSON.stringify(schema.$ref)} resolves to nothing in this ` +
          'definition: define the target (under "$defs") or fix the reference.',
      );
    }
    // Unsatisfiable pairs of bounds.
    for (const [low, high] of [
      ['minimum', 'maximum'],
      ['minLength', 'maxLength'],
      ['minItems', 'maxItems'],
      ['minProperties', 'maxProperties'],
    ] as const) {
      const a = schema[low];
      const b = schema[high];
      if (typeof a === 'number' && typeof b === 'number' && a > b) {
        add(
          pointer,
          low,
          json({ [low]: a, [high]: b }),
          `"${low}" (${a}) is greater than "${high}" (${b}): no value can satisfy both; correct one of them.`,
        );
      }
    }
    const xmin = schema.exclusiveMinimum;
    const xmax = schema.exclusiveMaximum;
    const min = schema.minimum;
    const max = schema.maximum;
    if (typeof xmin === 'number' && typeof max === 'number' && xmin >= max)
      add(
        pointer,
        'exclusiveMinimum',
        json({ exclusiveMinimum: xmin, maximum: max }),
        `"exclusiveMinimum" (${xmin}) leaves no value up to "maximum" (${max}): correct one of them.`,
      );
    if (typeof min === 'number' && typeof xmax === 'number' && min >= xmax)
      add(
        pointer,
        'minimum',
        json({ minimum: min, exclusiveMaximum: xmax }),
        `"minimum" (${min}) leaves no value below "exclusiveMaximum" (${xmax}): correct one of them.`,
      );
  });

  // `required` names exist in `properties` of the object they apply to.
  for (const problem of missingRequired(root)) {
    const parameter = problem.atRoot ? problem.name : undefined;
    add(
      problem.pointer,
      'required',
      json({ required: problem.required }),
      `"required" names "${problem.name}", which is not in ` +
        `"properties"${problem.atRoot ? '' : ` of ${problem.pointer === '' ? 'the input schema' : problem.pointer}`}: ` +
        `add a "${problem.name}" property (with its type and description) or remove the name from "required".`,
      parameter,
    );
  }

  // `default`, `enum` and `const` values validate against their own subschema.
  walkSchemas(root, (schema, pointer) => {
    if (Object.hasOwn(schema, 'default')) {
      const errors = checker.valueErrors(root, draft, pointer, schema.default ?? null);
      if (errors !== undefined && errors.length > 0) {
        add(
          pointer,
          'default',
          json({ default: schema.default ?? null }),
          `The "default" fails its own schema (${describeErrors(errors)}): change it to a value the schema accepts, or remove it.`,
        );
      }
    }
    if (Array.isArray(schema.enum) && schema.enum.length === 0) {
      add(pointer, 'enum', json({ enum: [] }), 'An empty "enum" allows no value at all: list the allowed values, or remove "enum".');
    }
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const modified = updateAt(root, pointer, () => withoutKeys(schema, ['enum', 'const', 'default']));
      const bad: { value: JsonValue; why: string }[] = [];
      for (const value of schema.enum) {
        const errors = checker.valueErrors(modified, draft, pointer, value);
        if (errors !== undefined && errors.length > 0) bad.push({ value, why: describeErrors(errors) });
      }
      if (bad.length > 0) {
        add(
          pointer,
          'enum',
          json({ enum: schema.enum }),
          `${bad.map((b) => `${JSON.stringify(b.value)} (${b.why})`).join(', ')} ${bad.length === 1 ? 'fails' : 'fail'} ` +
            `the rest of the subschema, so ${bad.length === 1 ? 'it' : 'they'} can never be sent: ` +
            `fix the ${bad.length === 1 ? 'value' : 'values'} or the "type"/constraints beside "enum".`,
        );
      }
    }
    if (Object.hasOwn(schema, 'const')) {
      const modified = updateAt(root, pointer, () => withoutKeys(schema, ['enum', 'const', 'default']));
      const errors = checker.valueErrors(modified, draft, pointer, schema.const ?? null);
      if (errors !== undefined && errors.length > 0) {
        add(
          pointer,
          'const',
          json({ const: schema.const ?? null }),
          `The "const" fails the rest of its subschema (${describeErrors(errors)}), ` +
            'so no call can satisfy it: fix the value or the constraints beside it.',
        );
      }
    }
  });

  // Backstop: the worker's compiler refuses the schema for a reason none of the checks above named.
  if (byId.size === 0) {
    const problem = checker.compileProblem(root);
    if (problem !== undefined) {
      const reason = problem.details?.reason;
      const ref = problem.details?.ref;
      const keyword = reason === 'dangling_ref' || reason === 'ref_cycle' || reason === 'too_many_subschemas' ? '$ref' : '$schema';
      let at: string | undefined;
      if (typeof ref === 'string') {
        walkSchemas(root, (schema, pointer) => {
          if (at === undefined && typeof schema.$ref === 'string' && (schema.$ref === ref || ref.endsWith(schema.$ref))) at = pointer;
        });
      }
      const suggestion = `${problem.message} Fix the schema: until then every call to this tool is rejected with tool_schema_unusable.`;
      const evidence = json(typeof ref === 'string' ? { $ref: ref } : { reason: typeof reason === 'string' ? reason : 'compile_failed' });
      if (at === undefined) add('', keyword, evidence, suggestion, null);
      else add(at, keyword, evidence, suggestion);
    }
  }

  return [...byId.values()];
}

/**
 * The pattern without the escapes Unicode mode refuses outside a class (`\_`, `\-`, `\@` written by escaping
 * generators such as zod-to-json-schema): the character alone means the same there.
 */
function unescapeIdentities(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '\\') {
      const next = pattern.charAt(i + 1);
      if (!inClass && next !== '' && !/[A-Za-z0-9^$\\.*+?()[\]{}|/]/.test(next)) out += next;
      else out += c + next;
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    out += c;
  }
  return out;
}

function uniqueValues(values: readonly JsonValue[]): JsonValue[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function describeErrors(errors: readonly { instancePath: string; message: string }[]): string {
  return errors
    .slice(0, 3)
    .map((e) => (e.instancePath === '' ? e.message : `${e.instancePath} ${e.message}`))
    .join('; ');
}

const TYPES = 'array, boolean, integer, null, number, object, string';

function metaAdvice(keyword: string): string {
  switch (keyword) {
    case 'type':
      return `"type" must be one of the JSON types (${TYPES}) or a list of them`;
    case 'required':
      return '"required" must be a list of property names (strings, no duplicates)';
    case 'enum':
      return '"enum" must be a list of values';
    case 'properties':
    case 'patternProperties':
    case '$defs':
    case 'definitions':
      return `each entry of "${keyword}" must be a schema (an object or a boolean)`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'multipleOf':
      return `"${keyword}" must be a number${keyword === 'multipleOf' ? ' greater than 0' : ''}`;
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return `"${keyword}" must be a non-negative integer`;
    default:
      return `"${keyword}" is not valid here`;
  }
}

/**
 * Reads an ajv `instancePath` into a schema as (schema object, keyword): `/properties/amount/minimum` is keyword
 * `minimum` of `/properties/amount`; `/required/0` is keyword `required` of the root; a path that ends on a
 * schema position (`/properties/amount` when that is not a schema) is the keyword holding it.
 */
export function splitSchemaPath(instancePath: string, fallbackKeyword: string): { pointer: string; keyword: string } {
  const tokens = pointerTokens(instancePath);
  let node: string[] = [];
  let i = 0;
  let keyword = fallbackKeyword;
  while (i < tokens.length) {
    const token = tokens[i] ?? '';
    keyword = token;
    const next = tokens[i + 1];
    if (MAP_KEYWORDS.has(token) || (token === 'dependencies' && next !== undefined)) {
      if (next === undefined) return { pointer: formatPointer(node), keyword: token };
      // The entry itself is not a schema (`"properties": {"a": "string"}`): the finding is on that entry.
      if (i + 2 >= tokens.length) return { pointer: formatPointer([...node, token, next]), keyword: token };
      node = [...node, token, next];
      i += 2;
      continue;
    }
    if (LIST_KEYWORDS.has(token) || (token === 'items' && next !== undefined && /^\d+$/.test(next))) {
      if (next === undefined || i + 2 >= tokens.length) return { pointer: formatPointer(node), keyword: token };
      node = [...node, token, next];
      i += 2;
      continue;
    }
    if (SINGLE_KEYWORDS.has(token)) {
      if (next === undefined) return { pointer: formatPointer(node), keyword: token };
      node = [...node, token];
      i += 1;
      continue;
    }
    // A keyword whose value is not a schema: the error is inside it (`/required/0`, `/enum`).
    return { pointer: formatPointer(node), keyword: token };
  }
  return { pointer: formatPointer(node), keyword };
}

interface MissingRequired {
  readonly pointer: string;
  readonly name: string;
  readonly required: JsonValue[];
  /** True when the `required` applies to the arguments object itself (the name would be a parameter). */
  readonly atRoot: boolean;
}

/**
 * `required` names with no declaration. A `required` inside `allOf`/`anyOf`/`oneOf`/`if`/`then`/`else`/`not`/
 * `dependentSchemas` applies to the same object as the schema holding that keyword, so names are looked up in
 * the properties of that whole chain (and in every branch, through `$ref`s). `patternProperties` count.
 */
function missingRequired(root: JsonObject): MissingRequired[] {
  const out: MissingRequired[] = [];
  const visit = (
    schema: JsonValue,
    pointer: string,
    owners: { pointer: string; schema: JsonValue }[],
    atRoot: boolean,
    depth: number,
  ): void => {
    if (!isJsonObject(schema) || depth > 64) return;
    const chain = [...owners, { pointer, schema }];
    if (Array.isArray(schema.required)) {
      const declared = new Set<string>();
      const patterns: RegExp[] = [];
      for (const owner of chain) {
        const view = viewOf(root, owner.schema, owner.pointer);
        for (const name of view.properties.keys()) declared.add(name);
        collectPatternProperties(root, owner.schema, patterns);
        // Names declared in any branch of the owner count too (a `required` in one `oneOf` branch, properties in
        // another's `$ref`).
        collectBranchProperties(root, owner.schema, declared, patterns);
      }
      for (const name of schema.required) {
        if (typeof name !== 'string' || declared.has(name) || patterns.some((p) => p.test(name))) continue;
        out.push({ pointer, name, required: schema.required, atRoot });
      }
    }
    for (const [key, value] of Object.entries(schema)) {
      const at = `${pointer}/${escapeToken(key)}`;
      if (SAME_INSTANCE_KEYWORDS.has(key)) {
        if (Array.isArray(value))
          value.forEach((sub, i) => {
            visit(sub, `${at}/${i}`, chain, atRoot, depth + 1);
          });
        else if (isJsonObject(value) && (key === 'dependentSchemas' || key === 'dependencies')) {
          for (const [name, sub] of Object.entries(value))
            if (isJsonObject(sub)) visit(sub, `${at}/${escapeToken(name)}`, chain, atRoot, depth + 1);
        } else visit(value, at, chain, atRoot, depth + 1);
      } else if (MAP_KEYWORDS.has(key) && isJsonObject(value)) {
        for (const [name, sub] of Object.entries(value)) visit(sub, `${at}/${escapeToken(name)}`, [], false, depth + 1);
      } else if ((LIST_KEYWORDS.has(key) || key === 'items') && Array.isArray(value)) {
        value.forEach((sub, i) => {
          visit(sub, `${at}/${i}`, [], false, depth + 1);
        });
      } else if (SINGLE_KEYWORDS.has(key)) {
        visit(value, at, [], false, depth + 1);
      }
    }
  };
  visit(root, '', [], true, 0);
  return out;
}

function collectPatternProperties(root: JsonObject, schema: JsonValue, out: RegExp[], depth = 0): void {
  if (!isJsonObject(schema) || depth > 16) return;
  if (isJsonObject(schema.patternProperties)) {
    for (const key of Object.keys(schema.patternProperties)) {
      try {
        out.push(new RegExp(key, 'u'));
      } catch {
        // Reported by the regex check.
      }
    }
  }
  if (typeof schema.$ref === 'string') {
    const target = resolveLocalRef(root, schema.$ref);
    if (target !== undefined) collectPatternProperties(root, target.schema, out, depth + 1);
  }
}

function collectBranchProperties(root: JsonObject, schema: JsonValue, declared: Set<string>, patterns: RegExp[], depth = 0): void {
  if (!isJsonObject(schema) || depth > 16) return;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isJsonObject(branch)) continue;
      for (const name of viewOf(root, branch, '').properties.keys()) declared.add(name);
      collectPatternProperties(root, branch, patterns);
      collectBranchProperties(root, branch, declared, patterns, depth + 1);
    }
  }
  for (const key of ['then', 'else'] as const) {
    const branch = schema[key];
    if (isJsonObject(branch)) for (const name of viewOf(root, branch, '').properties.keys()) declared.add(name);
  }
}

function withoutKeys(object: JsonObject, keys: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([k]) => !keys.includes(k)));
}
