/**
 * Reading a tool's input schema the way the audit needs it: each parameter (and, below it, nested properties
 * and array items) with the constraints that apply to it gathered through `$ref`, `allOf`, `anyOf` and `oneOf`.
 *
 * Pure: no I/O, inputs never mutated.
 */
import { isJsonObject, schemaTypeOf, type JsonObject, type JsonValue } from '../core/shared/json.js';
import { escapeToken, formatPointer, pointerTokens } from '../core/shared/json-pointer.js';
import {
  CHILD_MAP_KEYWORDS,
  CHILD_SINGLE_KEYWORDS,
  DEFINITIONS_KEYWORDS,
  ITEMS_KEYWORDS,
  SAME_VALUE_LIST_KEYWORDS,
  SAME_VALUE_MAP_KEYWORDS,
  SAME_VALUE_SINGLE_KEYWORDS,
  SchemaRefs,
  walkSubschemas,
} from '../core/shared/schema-refs.js';

/** One occurrence of a keyword in a parameter's schema (or one of the branches it is made of). */
export interface KeywordSite {
  readonly value: JsonValue;
  /** JSON Pointer of the schema object holding the keyword. */
  readonly pointer: string;
  /** True when it sits in an `anyOf`/`oneOf` branch (it applies to some values only). */
  readonly conditional: boolean;
}

/** The constraints that apply to one instance location, gathered from its schema and the schemas it composes. */
export interface SchemaView {
  /** The JSON types the value may have (union over branches), or undefined when nothing says. */
  readonly types: ReadonlySet<string> | undefined;
  readonly description: string | undefined;
  readonly keywords: ReadonlyMap<string, readonly KeywordSite[]>;
  /** Declared properties, first declaration wins (own before composed). */
  readonly properties: ReadonlyMap<string, { schema: JsonValue; pointer: string }>;
  /** Names required unconditionally (own `required`, and through `$ref`/`allOf`). */
  readonly required: ReadonlySet<string>;
  /** Names required by some branch too (`anyOf`/`oneOf`): where a `required` home can be. */
  readonly anyRequired: ReadonlySet<string>;
  /** The single `items` schema (2020-12 `items`, or draft-07 `items` when it is one schema). */
  readonly items: { schema: JsonValue; pointer: string } | undefined;
  /**
   * True when an `anyOf`/`oneOf` branch takes any string: a `format` in a sibling branch then refuses nothing
   * (`anyOf: [{format: date-time}, {type: string}]`).
   */
  readonly looseStringBranch: boolean;
}

/** Keywords the audit reads from a view. */
const VIEW_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minProperties',
  'maxProperties',
  'enum',
  'const',
  'default',
  'readOnly',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'dependentRequired',
  'dependencies',
] as const;

/**
 * Resolves a reference within `root` as the validator does (core/shared/schema-refs.ts: pointers, anchors, the root's
 * and nested `$id`s); undefined when it names nothing in the document.
 */
export function resolveLocalRef(root: JsonObject, ref: string): { schema: JsonValue; pointer: string } | undefined {
  const found = refsOf(root).resolve(ref);
  return found === undefined ? undefined : { schema: found.schema as JsonValue, pointer: found.pointer };
}

/** Keywords that narrow what a string branch takes. */
const STRING_CONSTRAINTS = ['format', 'pattern', 'enum', 'const', 'minLength', 'maxLength', 'not', 'allOf', 'anyOf', 'oneOf', '$ref', 'if'];

/** A branch that takes any string: `{"type": "string"}` and nothing narrowing it. */
const takesAnyString = (branch: JsonValue): boolean =>
  isJsonObject(branch) && branch.type === 'string' && !STRING_CONSTRAINTS.some((k) => Object.hasOwn(branch, k));

const REFS = new WeakMap<JsonObject, SchemaRefs>();

/** One resolver per schema document: its anchor and id index is built once. */
function refsOf(root: JsonObject): SchemaRefs {
  let refs = REFS.get(root);
  if (refs === undefined) {
    refs = new SchemaRefs(root);
    REFS.set(root, refs);
  }
  return refs;
}

/** Builds the view of `schema` (at `pointer` within `root`). */
export function viewOf(root: JsonObject, schema: JsonValue, pointer: string): SchemaView {
  const keywords = new Map<string, KeywordSite[]>();
  const properties = new Map<string, { schema: JsonValue; pointer: string }>();
  const required = new Set<string>();
  const anyRequired = new Set<string>();
  let description: string | undefined;
  let items: { schema: JsonValue; pointer: string } | undefined;
  let types: Set<string> | undefined;
  let looseStringBranch = false;
  const seen = new Set<unknown>();

  const visit = (node: JsonValue, at: string, conditional: boolean, depth: number): void => {
    if (!isJsonObject(node) || seen.has(node) || depth > 16) return;
    seen.add(node);
    for (const key of VIEW_KEYWORDS) {
      if (!Object.hasOwn(node, key)) continue;
      const value = node[key] as JsonValue;
      const list = keywords.get(key) ?? [];
      list.push({ value, pointer: at, conditional });
      keywords.set(key, list);
    }
    if (description === undefined && typeof node.description === 'string') description = node.description;
    const type = node.type;
    if (typeof type === 'string' || Array.isArray(type)) {
      types ??= new Set();
      for (const t of Array.isArray(type) ? type : [type]) if (typeof t === 'string') types.add(t);
    }
    if (isJsonObject(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        if (!properties.has(name)) properties.set(name, { schema: sub, pointer: `${at}/properties/${escapeToken(name)}` });
      }
    }
    if (Array.isArray(node.required)) {
      for (const name of node.required) {
        if (typeof name !== 'string') continue;
        anyRequired.add(name);
        if (!conditional) required.add(name);
      }
    }
    if (items === undefined && (isJsonObject(node.items) || typeof node.items === 'boolean')) {
      items = { schema: node.items, pointer: `${at}/items` };
    }
    if (typeof node.$ref === 'string') {
      const target = resolveLocalRef(root, node.$ref);
      if (target !== undefined) visit(target.schema, target.pointer, conditional, depth + 1);
    }
    if (Array.isArray(node.allOf))
      node.allOf.forEach((sub, i) => {
        visit(sub, `${at}/allOf/${i}`, conditional, depth + 1);
      });
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = node[key];
      if (Array.isArray(branches))
        branches.forEach((sub, i) => {
          if (takesAnyString(sub)) looseStringBranch = true;
          visit(sub, `${at}/${key}/${i}`, true, depth + 1);
        });
    }
  };
  visit(schema, pointer, false, 0);

  // No `type` anywhere: infer from `enum`/`const` values when every site agrees on what they are.
  if (types === undefined) {
    const values = [
      ...(keywords.get('enum') ?? []).flatMap((site) => (Array.isArray(site.value) ? site.value : [])),
      ...(keywords.get('const') ?? []).map((site) => site.value),
    ];
    if (values.length > 0) types = new Set(values.map(schemaTypeOf));
  }
  return { types, description, keywords, properties, required, anyRequired, items, looseStringBranch };
}

/**
 * True when a view may hold a value of JSON type `type` (unknown types allow everything). Integers are numbers, and
 * a `number` schema holds every integer.
 */
export function allows(view: SchemaView, type: string): boolean {
  if (view.types === undefined) return true;
  if (type === 'number' || type === 'integer') return view.types.has('number') || view.types.has('integer');
  return view.types.has(type);
}

/** The first numeric value of `keyword` in a view (unconditional sites first). */
export function numberKeyword(view: SchemaView, keyword: string): number | undefined {
  const sites = [...(view.keywords.get(keyword) ?? [])].sort((a, b) => Number(a.conditional) - Number(b.conditional));
  for (const site of sites) if (typeof site.value === 'number') return site.value;
  return undefined;
}

/** The first site of `keyword` (unconditional first). */
export function firstSite(view: SchemaView, keyword: string): KeywordSite | undefined {
  const sites = view.keywords.get(keyword);
  if (sites === undefined || sites.length === 0) return undefined;
  return sites.find((site) => !site.conditional) ?? sites[0];
}

export function hasKeyword(view: SchemaView, keyword: string): boolean {
  return (view.keywords.get(keyword)?.length ?? 0) > 0;
}

/** Every allowed value a view lists: `enum` members and `const` values (branches of `anyOf`/`oneOf` included). */
export function listedValues(view: SchemaView): JsonValue[] | undefined {
  const enums = view.keywords.get('enum') ?? [];
  const consts = view.keywords.get('const') ?? [];
  if (enums.length === 0 && consts.length === 0) return undefined;
  return [...enums.flatMap((site) => (Array.isArray(site.value) ? site.value : [])), ...consts.map((site) => site.value)];
}

/** A place in the arguments the audit looks at: a parameter, or a property/items below one. */
export interface AuditNode {
  /** The top-level parameter this node belongs to. */
  readonly parameter: string;
  /** The property name (`state`), or `items` for array items; the parameter's own name at the top. */
  readonly name: string;
  /** Human label: `filters.state`, `labels[]`. */
  readonly label: string;
  /** JSON Pointer of the node's schema within the input schema. */
  readonly pointer: string;
  /** Logical location below the parameter (`""` for the parameter itself, `/properties/state`, `/items`). */
  readonly location: string;
  readonly view: SchemaView;
  /** The view of the object holding this node as a property (undefined for array items). */
  readonly parent: SchemaView | undefined;
  /** Descriptions of the enclosing parameter/properties, outermost first. */
  readonly ancestorDescriptions: readonly string[];
}

/** How deep below a parameter nested properties and items are audited. */
const MAX_NESTING = 6;

/** The parameters of `root` and everything below them that carries its own constraints, in schema order. */
export function auditNodes(root: JsonObject): { rootView: SchemaView; nodes: AuditNode[] } {
  const rootView = viewOf(root, root, '');
  const nodes: AuditNode[] = [];
  for (const [name, entry] of rootView.properties) {
    const view = viewOf(root, entry.schema, entry.pointer);
    const node: AuditNode = {
      parameter: name,
      name,
      label: name,
      pointer: entry.pointer,
      location: '',
      view,
      parent: rootView,
      ancestorDescriptions: [],
    };
    nodes.push(node);
    collectChildren(root, node, nodes, new Set([entry.schema]), 1);
  }
  return { rootView, nodes };
}

function collectChildren(root: JsonObject, node: AuditNode, out: AuditNode[], seen: Set<unknown>, depth: number): void {
  if (depth > MAX_NESTING) return;
  const ancestors = node.view.description === undefined ? node.ancestorDescriptions : [...node.ancestorDescriptions, node.view.description];
  for (const [name, entry] of node.view.properties) {
    if (seen.has(entry.schema) || !isJsonObject(entry.schema)) continue;
    const child: AuditNode = {
      parameter: node.parameter,
      name,
      label: `${node.label}.${name}`,
      pointer: entry.pointer,
      location: `${node.location}/properties/${escapeToken(name)}`,
      view: viewOf(root, entry.schema, entry.pointer),
      parent: node.view,
      ancestorDescriptions: ancestors,
    };
    out.push(child);
    collectChildren(root, child, out, new Set([...seen, entry.schema]), depth + 1);
  }
  const items = node.view.items;
  if (items !== undefined && isJsonObject(items.schema) && !seen.has(items.schema)) {
    const child: AuditNode = {
      parameter: node.parameter,
      name: 'items',
      label: `${node.label}[]`,
      pointer: items.pointer,
      location: `${node.location}/items`,
      view: viewOf(root, items.schema, items.pointer),
      parent: undefined,
      ancestorDescriptions: ancestors,
    };
    out.push(child);
    collectChildren(root, child, out, new Set([...seen, items.schema]), depth + 1);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Walking every subschema (for the validity layer)

// The sets below read a pointer's tokens (a name follows a map keyword, an index a list keyword). They come from
// the one keyword table in core/shared/schema-refs.ts, less its two keywords of two kinds: draft-07 `items` (one
// schema or a list) and `dependencies` (schemas or name lists), which validity.ts reads from the token after them.

/** Keywords whose value is a map of names to schemas. */
export const MAP_KEYWORDS: ReadonlySet<string> = new Set(
  [...CHILD_MAP_KEYWORDS, ...DEFINITIONS_KEYWORDS, ...SAME_VALUE_MAP_KEYWORDS].filter((key) => key !== 'dependencies'),
);
/** Keywords whose value is a list of schemas. */
export const LIST_KEYWORDS: ReadonlySet<string> = new Set([
  ...SAME_VALUE_LIST_KEYWORDS,
  ...ITEMS_KEYWORDS.filter((key) => key !== 'items'),
]);
/** Keywords whose value is one schema. */
export const SINGLE_KEYWORDS: ReadonlySet<string> = new Set([...SAME_VALUE_SINGLE_KEYWORDS, ...CHILD_SINGLE_KEYWORDS, 'items']);
/** Keywords whose subschemas apply to the same instance as the schema holding them. */
const SAME_VALUE_SINGLE: ReadonlySet<string> = new Set(SAME_VALUE_SINGLE_KEYWORDS);
export const SAME_INSTANCE_KEYWORDS: ReadonlySet<string> = new Set([
  ...SAME_VALUE_SINGLE_KEYWORDS,
  ...SAME_VALUE_LIST_KEYWORDS,
  ...SAME_VALUE_MAP_KEYWORDS,
]);

/**
 * Calls `visit` for every schema object in `root` (itself included) with its JSON Pointer, in document order.
 * Does not follow `$ref` (every target is visited where it is defined). Bounded depth.
 */
export function walkSchemas(root: JsonObject, visit: (schema: JsonObject, pointer: string) => void): void {
  walkSubschemas(root, visit, 64);
}

/**
 * Where a schema location belongs: the top-level parameter (when the pointer leads to `properties/NAME` of the
 * root instance, possibly through `allOf`/`anyOf`/... of the root), and the location below it used in ids.
 * A pointer into `$defs`/`definitions` is attributed to the one parameter that references that definition, if
 * exactly one does; otherwise to the tool as a whole.
 */
export function locate(root: JsonObject, pointer: string): { parameter: string | null; location: string } {
  const tokens = pointerTokens(pointer);
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i] ?? '';
    if (token === 'properties' && i + 1 < tokens.length) {
      const parameter = tokens[i + 1] ?? '';
      const rest = formatPointer(tokens.slice(i + 2));
      return { parameter, location: i === 0 ? rest : pointer };
    }
    if (SAME_INSTANCE_KEYWORDS.has(token)) {
      // not/if/then/else hold one schema; allOf/anyOf/oneOf take an index, dependentSchemas/dependencies a name.
      i += SAME_VALUE_SINGLE.has(token) ? 1 : 2;
      continue;
    }
    break;
  }
  const first = tokens[0];
  if ((first === '$defs' || first === 'definitions') && tokens.length >= 2) {
    const defPointer = formatPointer(tokens.slice(0, 2));
    const users = parametersReferencing(root, defPointer);
    if (users.length === 1) return { parameter: users[0] ?? null, location: pointer };
  }
  return { parameter: null, location: pointer };
}

/** Top-level parameters whose schema (transitively through local `$ref`s) references `defPointer`. */
function parametersReferencing(root: JsonObject, defPointer: string): string[] {
  const properties = isJsonObject(root.properties) ? root.properties : {};
  const users: string[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    if (!isJsonObject(schema)) continue;
    const seenPointers = new Set<string>();
    const state = { found: false };
    const scan = (node: JsonObject): void => {
      walkSchemas(node, (sub) => {
        if (state.found || typeof sub.$ref !== 'string') return;
        const target = resolveLocalRef(root, sub.$ref);
        if (target === undefined) return;
        if (target.pointer === defPointer || target.pointer.startsWith(`${defPointer}/`)) {
          state.found = true;
          return;
        }
        if (!seenPointers.has(target.pointer) && isJsonObject(target.schema)) {
          seenPointers.add(target.pointer);
          scan(target.schema);
        }
      });
    };
    scan(schema);
    if (state.found) users.push(name);
  }
  return users;
}
