/**
 * Suggestions that hold: a finding's {@link SchemaFix} is kept only when the schema it gives still compiles under the
 * tool's own draft and accepts every example the descriptions give for that subschema (audit/examples.ts). A fix
 * that rejects one is narrowed to the keywords that accept them all ("format": "date-time" dropped for a `+0100`
 * offset, the rest kept), or dropped, and the suggestion then says which example it would have rejected.
 *
 * An example applies to a subschema when the schema as it stands accepts it: an example the schema already
 * rejects (a word on a number) speaks of something else, and no fix is blamed for it. Examples are checked with ajv
 * under the tool's draft, its formats as their RFCs define them: ajv-formats' `date-time` also takes a `+0100`
 * offset, which RFC 3339 and stricter validators reject, and a suggestion must hold for every conforming validator.
 *
 * Pure: no I/O.
 */
import type { Options } from 'ajv';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/shared/json.js';
import { valueAt } from '../core/shared/json-pointer.js';
import { newAjv } from '../core/validation/ajv-instance.js';
import { isDateTime } from '../core/validation/date-time-format.js';
import { schemaDraftOf, type SchemaChecker, type SchemaDraft } from '../core/schema/meta-schema.js';
import type { ToolDefinition } from '../core/schema/tool-definition.js';
import { assignedExample, examplesIn, type Example } from './examples.js';
import { json } from './findings.js';
import { applyFix } from './fix.js';
import { splitSentences } from './prose-text.js';
import { auditNodes } from './schema-nav.js';
import type { Finding, SchemaFix } from './types.js';

/** The examples that apply to each subschema (by JSON Pointer) of a tool's input schema. */
export function examplesByPointer(definition: ToolDefinition): Map<string, Example[]> {
  const root = definition.inputSchema;
  const { nodes } = auditNodes(root);
  const names = new Set(nodes.filter((n) => n.location === '').map((n) => n.parameter));
  const byPointer = new Map<string, Example[]>();
  const add = (pointer: string, examples: readonly Example[]): void => {
    const list = byPointer.get(pointer) ?? [];
    for (const e of examples) if (!names.has(e.text) && !list.some((x) => x.text === e.text)) list.push(e);
    byPointer.set(pointer, list);
  };
  const toolText = [definition.description, typeof root.description === 'string' ? root.description : undefined]
    .filter((t): t is string => t !== undefined && t.trim() !== '')
    .join('\n');
  const toolSentences = splitSentences(toolText).map((s) => s.text);
  for (const node of nodes) {
    const own = node.view.description === undefined ? [] : examplesIn(node.view.description);
    // A tool-description sentence gives examples for the one parameter it names.
    const named =
      node.location === ''
        ? toolSentences
            .filter((s) => namesOnly(s, node.parameter, names))
            .flatMap((s) => examplesIn(s).filter((e) => !e.readings.every(isJsonObject)))
        : [];
    // "`rule_types=['crowdsourced_yara']`": the example is the value assigned.
    const examples = [...own, ...named].map((e) => assignedExample(e, node.parameter) ?? e);
    if (examples.length === 0) continue;
    add(node.pointer, examples);
    // For the items, an example of the whole list ("['a', 'b']") stands for each of its elements.
    if (node.view.items !== undefined) add(node.view.items.pointer, examples.flatMap(elementsOf));
  }
  // Whole example calls ("Example: {"city": "Paris"}") apply to the input schema itself.
  add(
    '',
    examplesIn(toolText).filter((e) => e.readings.some(isJsonObject)),
  );
  return byPointer;
}

/** The elements of an example read as a list, each an example of its own; any other example as it is. */
function elementsOf(example: Example): Example[] {
  const list = example.readings.find((r) => Array.isArray(r));
  if (!Array.isArray(list)) return [example];
  return list.map((v) => ({ text: typeof v === 'string' ? v : JSON.stringify(v), readings: [v] }));
}

/** True when `sentence` names `name` as a word and names no other parameter. */
function namesOnly(sentence: string, name: string, names: ReadonlySet<string>): boolean {
  if (!containsWord(sentence, name)) return false;
  for (const other of names) if (other !== name && containsWord(sentence, other)) return false;
  return true;
}

function containsWord(text: string, word: string): boolean {
  if (word === '') return false;
  let at = text.indexOf(word);
  while (at !== -1) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + word.length])) return true;
    at = text.indexOf(word, at + 1);
  }
  return false;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}_]/u.test(c);
}

/** `findings` with every fix checked against the tool's draft and its examples; findings keep their order. */
export function holdSuggestions(definition: ToolDefinition, findings: readonly Finding[], checker: SchemaChecker): Finding[] {
  if (!findings.some((f) => f.fix !== undefined)) return [...findings];
  const root = definition.inputSchema;
  const draft = schemaDraftOf(root);
  // An unsupported `$schema` is the validity layer's finding; nothing can be checked under it.
  if (draft === undefined) return [...findings];
  const examples = examplesByPointer(definition);
  const baseline = { meta: checker.metaSchemaErrors(root, draft).length === 0, compiles: checker.compileProblem(root) === undefined };
  return findings.map((finding) => {
    const { fix } = finding;
    if (fix === undefined) return finding;
    const applicable = [
      ...applicableValues(root, draft, fix.pointer, examples.get(fix.pointer) ?? []),
      ...ownDefault(root, draft, fix.pointer),
    ];
    const check = (candidate: SchemaFix): Rejection | undefined => rejection(root, draft, candidate, applicable, baseline, checker);
    const whole = check(fix);
    if (whole === undefined) return finding;
    const keys = Object.keys(fix.set);
    const kept = keys.filter((k) => check({ ...fix, set: { [k]: fix.set[k] ?? null } }) === undefined);
    if (kept.length > 0 && kept.length < keys.length) {
      const narrowed: SchemaFix = { ...fix, set: Object.fromEntries(kept.map((k) => [k, fix.set[k] ?? null])) };
      if (check(narrowed) === undefined) {
        const dropped = Object.fromEntries(keys.filter((k) => !kept.includes(k)).map((k) => [k, fix.set[k] ?? null]));
        return {
          ...finding,
          suggestion: `${finding.suggestion} Only ${json(narrowed.set)}: ${json(dropped)} ${whyNot(whole)}.`,
          fix: narrowed,
        };
      }
    }
    const rest: Finding = Object.fromEntries(Object.entries(finding).filter(([k]) => k !== 'fix')) as unknown as Finding;
    return {
      ...rest,
      confidence: finding.confidence === 'high' ? 'medium' : finding.confidence,
      suggestion:
        `${finding.suggestion} Not as ${json(fix.set)}, which ${whyNot(whole)}: ` +
        (whole.kind === 'default'
          ? 'change the default with it, or encode the constraint so that the default stays valid.'
          : 'encode the constraint so that the examples stay valid, or correct them.'),
    };
  });
}

type Rejection =
  | { readonly kind: 'example'; readonly example: string }
  | { readonly kind: 'default'; readonly value: string }
  | { readonly kind: 'schema'; readonly message: string };

function whyNot(r: Rejection): string {
  if (r.kind === 'example') return `would reject the description's own example "${r.example}"`;
  if (r.kind === 'default') return `would reject the subschema's own "default" (${r.value})`;
  return `does not compile (${r.message})`;
}

/** The subschema's own `default`, when the schema accepts it now: a fix that rejects it breaks the schema's own word. */
function ownDefault(root: JsonObject, draft: SchemaDraft, pointer: string): { text: string; value: JsonValue; isDefault: true }[] {
  const subschema = valueAt(root, pointer);
  if (pointer === '' || !isJsonObject(subschema)) return [];
  const value = subschema.default;
  if (value === undefined || value === null || accepts(root, draft, pointer, value) !== true) return [];
  return [{ text: json(value), value, isDefault: true }];
}

const OPTIONS: Options = { strict: false, allErrors: false, validateSchema: false, logger: false, validateFormats: true };

/** RFC 3339 `date-time`: ajv's reading, with the offset `Z` or `±hh:mm` (RFC 3339 section 5.6). */
function isRfc3339DateTime(value: string): boolean {
  if (!isDateTime(value)) return false;
  const last = value[value.length - 1];
  if (last === 'z' || last === 'Z') return true;
  const offset = value.slice(-6);
  return (offset[0] === '+' || offset[0] === '-') && offset[3] === ':';
}

/** True when `value` is valid against the subschema at `pointer` of `root`; undefined when it cannot be compiled. */
function accepts(root: JsonObject, draft: SchemaDraft, pointer: string, value: JsonValue): boolean | undefined {
  const sub = pointer === '' ? root : valueAt(root, pointer);
  if (typeof sub === 'boolean') return sub;
  if (!isJsonObject(sub)) return undefined;
  const standalone: JsonObject = Object.fromEntries(Object.entries(sub).filter(([k]) => k !== '$schema'));
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = root[key];
    if (defs !== undefined && !Object.hasOwn(standalone, key)) standalone[key] = defs;
  }
  try {
    const ajv = newAjv(draft, OPTIONS);
    ajv.addFormat('date-time', { type: 'string', validate: isRfc3339DateTime });
    return ajv.compile(standalone)(value);
  } catch {
    return undefined;
  }
}

/** Each example read as the first value the subschema accepts as it stands; examples it rejects do not apply. */
function applicableValues(
  root: JsonObject,
  draft: SchemaDraft,
  pointer: string,
  examples: readonly Example[],
): { text: string; value: JsonValue }[] {
  const out: { text: string; value: JsonValue }[] = [];
  for (const example of examples) {
    const value = example.readings.find((v) => accepts(root, draft, pointer, v) === true);
    if (value !== undefined) out.push({ text: example.text, value });
  }
  return out;
}

function rejection(
  root: JsonObject,
  draft: SchemaDraft,
  fix: SchemaFix,
  applicable: readonly { text: string; value: JsonValue; isDefault?: true }[],
  baseline: { meta: boolean; compiles: boolean },
  checker: SchemaChecker,
): Rejection | undefined {
  let changed: JsonObject;
  try {
    changed = applyFix(root, fix);
  } catch (error) {
    return { kind: 'schema', message: error instanceof Error ? error.message : String(error) };
  }
  if (baseline.meta) {
    const first = checker.metaSchemaErrors(changed, draft)[0];
    if (first !== undefined) return { kind: 'schema', message: `${first.instancePath || '/'} ${first.message}` };
  }
  if (baseline.compiles) {
    const problem = checker.compileProblem(changed);
    if (problem !== undefined) return { kind: 'schema', message: problem.message };
  }
  for (const { text, value, isDefault } of applicable) {
    if (accepts(changed, draft, fix.pointer, value) !== true)
      return isDefault === true ? { kind: 'default', value: text } : { kind: 'example', example: text };
  }
  return undefined;
}
