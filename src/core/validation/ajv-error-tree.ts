/**
 * Folding of ajv's flat `allErrors` list into a forest: an `anyOf`/`oneOf`/`if`/`contains`/`propertyNames` error
 * adopts the errors of the subschemas it tried, so the renderer can report one actionable diagnostic instead of
 * every branch's noise. Also the typed accessors of an ajv error's `params`.
 */
import type { ErrorObject } from 'ajv';
import { isJsonObject } from '../shared/json.js';
import { schemaKeyword, type SchemaIndex } from './schema-index.js';

/** One ajv error, with the errors it explains away (the branch errors of an `anyOf`, say). */
export interface ErrorNode {
  error: ErrorObject;
  children: ErrorNode[];
}

/** Keywords whose ajv error is reported after the errors of the subschemas it tried, which it explains. */
function ownedSubschemas(error: ErrorObject): { schemas: unknown[]; schemaPathPrefixes: string[] } | undefined {
  const parent: unknown = error.parentSchema;
  switch (error.keyword) {
    case 'anyOf':
    case 'oneOf': {
      const branches: unknown[] = Array.isArray(error.schema) ? error.schema : [];
      return { schemas: branches, schemaPathPrefixes: [`${error.schemaPath}/`] };
    }
    case 'if': {
      const failing = param(error, 'failingKeyword');
      if (failing !== 'then' && failing !== 'else') return undefined;
      const base = error.schemaPath.replace(/\/if$/, '');
      return { schemas: [schemaKeyword(parent, failing)], schemaPathPrefixes: [`${base}/${failing}/`] };
    }
    case 'contains':
    case 'propertyNames':
      return { schemas: [schemaKeyword(parent, error.keyword)], schemaPathPrefixes: [`${error.schemaPath}/`] };
    default:
      return undefined;
  }
}

function isUnderPath(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * Folds ajv's flat error list into a forest. ajv (with `allErrors`) reports an `anyOf`/`oneOf`/`if`/`contains`/
 * `propertyNames` error right after the errors of the subschemas it evaluated, which are contiguous. We claim,
 * walking back from the wrapper, the errors at or below its instance path that come from one of its subschemas
 * (by schema path prefix, or by identity of the failing schema object, which also catches errors from inside a
 * `$ref`, whose schema path restarts at the referenced schema). The walk stops at the first error that is not
 * ours, so unrelated errors are never swallowed.
 */
export function buildErrorTree(errors: ErrorObject[], index: SchemaIndex): ErrorNode[] {
  const top: ErrorNode[] = [];
  for (const error of errors) {
    const node: ErrorNode = { error, children: [] };
    const owned = ownedSubschemas(error);
    if (owned !== undefined) {
      const reach = new Set<unknown>();
      for (const schema of owned.schemas) for (const s of index.reach(schema)) reach.add(s);
      let start = top.length;
      while (start > 0) {
        const candidate = top[start - 1];
        if (candidate === undefined || !belongsTo(candidate.error, error, owned.schemaPathPrefixes, reach)) break;
        start -= 1;
      }
      node.children = top.splice(start);
    }
    top.push(node);
  }
  return top;
}

function belongsTo(candidate: ErrorObject, wrapper: ErrorObject, prefixes: string[], reach: Set<unknown>): boolean {
  if (!isUnderPath(candidate.instancePath, wrapper.instancePath)) return false;
  // A sibling keyword of the same schema object at the same value ran before the wrapper: not ours.
  if (candidate.parentSchema === wrapper.parentSchema && candidate.instancePath === wrapper.instancePath) return false;
  if (wrapper.keyword === 'propertyNames' && candidate.propertyName !== param(wrapper, 'propertyName')) return false;
  if (prefixes.some((prefix) => candidate.schemaPath.startsWith(prefix))) return true;
  return isJsonObject(candidate.parentSchema) && reach.has(candidate.parentSchema);
}

export function param(error: ErrorObject, name: string): unknown {
  const params = error.params as Record<string, unknown>;
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

export function numberParam(error: ErrorObject, name: string): number | undefined {
  const value = param(error, name);
  return typeof value === 'number' ? value : undefined;
}

export function stringParam(error: ErrorObject, name: string): string {
  const value = param(error, name);
  return typeof value === 'string' ? value : '';
}
