/**
 * The one keyword table and local `$ref` resolver of the project. The RT-TOOL-8 plan, the validation diagnostics
 * and the audit all walk tool schemas; they resolve references here so that they agree with each other and with
 * ajv on what a `$ref` names. Nothing is fetched: a reference outside the document resolves to nothing.
 */
import { isJsonObject, type JsonObject } from './json.js';
import { escapeToken, walkFragmentPointer } from './json-pointer.js';

/** Keywords whose value is one subschema, applied to the same value. */
export const SAME_VALUE_SINGLE_KEYWORDS = ['not', 'if', 'then', 'else'] as const;
/** Keywords whose value is a list of subschemas, applied to the same value. */
export const SAME_VALUE_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'] as const;
/** Keywords whose value maps names to subschemas applied to the same value (when the name is present). */
export const SAME_VALUE_MAP_KEYWORDS = ['dependentSchemas', 'dependencies'] as const;
/** Keywords whose value is one subschema, applied to values inside this one. */
export const CHILD_SINGLE_KEYWORDS = [
  'additionalItems',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;
/** Keywords whose value maps names to subschemas of properties. */
export const CHILD_MAP_KEYWORDS = ['properties', 'patternProperties'] as const;
/** Keywords whose value is one subschema or (draft-07 `items`, `prefixItems`) a list of them, for array items. */
export const ITEMS_KEYWORDS = ['items', 'prefixItems'] as const;
/** Keywords that hold definitions, reached only through references. */
export const DEFINITIONS_KEYWORDS = ['$defs', 'definitions'] as const;

/** A subschema found by a walk or a reference, with its JSON Pointer from the document's root. */
export interface LocatedSchema {
  readonly schema: unknown;
  readonly pointer: string;
}

/**
 * Calls `visit` for every schema object of `root` (itself included) in document order, with its pointer and the
 * schema resource it belongs to (the nearest schema, itself included, with an `$id` that is not a bare fragment;
 * else `root`), against which its `#/...` references resolve. Follows no reference: every target is visited where
 * it is defined. `maxDepth` bounds the walk on hostile documents.
 */
export function walkSubschemas(
  root: unknown,
  visit: (schema: JsonObject, pointer: string, resource: JsonObject) => void,
  maxDepth = 128,
): void {
  const walk = (node: unknown, pointer: string, depth: number, parentResource: JsonObject | undefined): void => {
    if (!isJsonObject(node) || depth > maxDepth) return;
    const resource = parentResource === undefined || (typeof node.$id === 'string' && !node.$id.startsWith('#')) ? node : parentResource;
    visit(node, pointer, resource);
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${escapeToken(key)}`;
      if (isMapKeyword(key) && isJsonObject(value)) {
        for (const [name, sub] of Object.entries(value)) walk(sub, `${at}/${escapeToken(name)}`, depth + 1, resource);
      } else if (isListKeyword(key) && Array.isArray(value)) {
        value.forEach((sub, index) => {
          walk(sub, `${at}/${index}`, depth + 1, resource);
        });
      } else if (isSingleKeyword(key)) {
        walk(value, at, depth + 1, resource);
      }
    }
  };
  walk(root, '', 0, undefined);
}

const MAP_KEYWORDS = new Set<string>([...SAME_VALUE_MAP_KEYWORDS, ...CHILD_MAP_KEYWORDS, ...DEFINITIONS_KEYWORDS]);
const LIST_KEYWORDS = new Set<string>([...SAME_VALUE_LIST_KEYWORDS, ...ITEMS_KEYWORDS]);
const SINGLE_KEYWORDS = new Set<string>([...SAME_VALUE_SINGLE_KEYWORDS, ...CHILD_SINGLE_KEYWORDS, ...ITEMS_KEYWORDS]);

/** A keyword whose value maps names to subschemas. */
export function isMapKeyword(key: string): boolean {
  return MAP_KEYWORDS.has(key);
}

/** A keyword whose value may be a list of subschemas. */
export function isListKeyword(key: string): boolean {
  return LIST_KEYWORDS.has(key);
}

/** A keyword whose value may be one subschema. */
export function isSingleKeyword(key: string): boolean {
  return SINGLE_KEYWORDS.has(key);
}

/**
 * Resolves the local references of one document as ajv does: `#`, `#/json/pointer`, `#anchor` (`$anchor`,
 * `$dynamicAnchor`, draft-07 `$id: "#name"`), the root's own `$id`, and nested `$id`s with or without a fragment.
 * The index of anchors and ids is built on first use, so documents without them pay one walk at most.
 */
export class SchemaRefs {
  #anchors: Map<string, LocatedSchema> | undefined;
  #ids: Map<string, LocatedSchema> | undefined;

  constructor(readonly root: JsonObject) {}

  /** The schema `ref` names, with its pointer from the root; undefined when it names nothing in the document. */
  resolve(ref: string): LocatedSchema | undefined {
    const hash = ref.indexOf('#');
    const base = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    let resource: LocatedSchema = { schema: this.root, pointer: '' };
    if (base !== '' && base !== rootId(this.root)) {
      const found = this.#index().ids.get(base);
      if (found === undefined) return undefined;
      resource = found;
    }
    if (fragment === '' || fragment === '/') return resource;
    if (!fragment.startsWith('/')) return this.#index().anchors.get(fragment);
    const found = walkFragmentPointer(resource.schema, fragment);
    if (found === undefined) return undefined;
    return { schema: found.value, pointer: resource.pointer + found.tokens.map((token) => `/${escapeToken(token)}`).join('') };
  }

  #index(): { anchors: Map<string, LocatedSchema>; ids: Map<string, LocatedSchema> } {
    if (this.#anchors === undefined || this.#ids === undefined) {
      const anchors = new Map<string, LocatedSchema>();
      const ids = new Map<string, LocatedSchema>();
      walkSubschemas(this.root, (schema, pointer) => {
        for (const key of ['$anchor', '$dynamicAnchor']) {
          const anchor = schema[key];
          if (typeof anchor === 'string' && !anchors.has(anchor)) anchors.set(anchor, { schema, pointer });
        }
        const id = schema.$id;
        if (typeof id === 'string' && schema !== this.root) {
          if (id.startsWith('#'))
            anchors.set(id.slice(1), { schema, pointer }); // draft-06/07 location-independent id
          else ids.set(id.replace(/#$/, ''), { schema, pointer });
        }
      });
      this.#anchors = anchors;
      this.#ids = ids;
    }
    return { anchors: this.#anchors, ids: this.#ids };
  }
}

function rootId(root: JsonObject): string | undefined {
  return typeof root.$id === 'string' ? root.$id.replace(/#$/, '') : undefined;
}

/** Reference keywords, as ajv resolves them. */
const REFERENCE_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;

/**
 * The first reference of `root` that ajv would resolve to a member every JavaScript object inherits, where the
 * schema defines nothing: `#/$defs/constructor`, `#/definitions/toString`, `#/properties/__proto__`, or a bare
 * `__proto__` or `constructor` (ajv looks names up in plain objects, and reads pointer tokens with `schema[token]`).
 * ajv then validates against that member (a function, `Object.prototype`), which accepts anything; such a
 * reference dangles, and is reported as dangling. Undefined when there is none.
 */
export function inheritedReference(root: JsonObject): string | undefined {
  const refs = new SchemaRefs(root);
  let found: string | undefined;
  walkSubschemas(root, (schema, _pointer, resource) => {
    if (found !== undefined) return;
    for (const keyword of REFERENCE_KEYWORDS) {
      const ref = schema[keyword];
      if (typeof ref === 'string' && reachesInherited(ref, resource, refs)) {
        found = ref;
        return;
      }
    }
  });
  return found;
}

/** A name a plain object answers without holding it: `constructor`, `toString`, `__proto__`... */
function isInheritedName(name: string): boolean {
  return name in Object.prototype;
}

function reachesInherited(ref: string, resource: JsonObject, refs: SchemaRefs): boolean {
  const hash = ref.indexOf('#');
  const base = hash === -1 ? ref : ref.slice(0, hash);
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  let start: unknown = resource;
  if (base !== '') {
    const target = refs.resolve(base);
    if (target === undefined) return isInheritedName(base);
    start = target.schema;
  }
  if (!fragment.startsWith('/')) return false;
  let node = start;
  for (const raw of fragment.slice(1).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return false; // malformed: ajv finds nothing either
    }
    if ((typeof node === 'object' && node !== null) || typeof node === 'string') {
      if (Object.hasOwn(Object(node) as object, token)) {
        node = (node as Record<string, unknown>)[token];
        continue;
      }
      // Not the schema's own: what ajv's `schema[token]` finds on the prototype.
      return (node as Record<string, unknown>)[token] !== undefined;
    }
    return false;
  }
  return false;
}
