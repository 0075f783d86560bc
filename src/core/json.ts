/** JSON values as `JSON.parse` produces them. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonArray = JsonValue[];
export interface JsonObject {
  [key: string]: JsonValue;
}
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;

/** A plain JSON map: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Escapes one reference token for a JSON Pointer (RFC 6901). */
export function escapePointerToken(token: string | number): string {
  if (typeof token === 'number') return String(token);
  // Most keys need no escaping: skip the two regex passes for them (this runs for every argument).
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Appends a token to a JSON Pointer. */
export function childPointer(parent: string, token: string | number): string {
  return `${parent}/${escapePointerToken(token)}`;
}

/**
 * Follows a JSON Pointer written in a URI fragment (`/$defs/a%20b/0`, the part of `#/...` after the `#`) from
 * `root`: each token percent-decoded, then `~1` and `~0` unescaped (RFC 6901 section 6); array elements by
 * decimal index only. Returns the value and the decoded tokens, or undefined when a token is malformed or names
 * nothing. Every schema walk in the core resolves local `$ref`s through this one function.
 */
export function walkFragmentPointer(root: unknown, pointer: string): { value: unknown; tokens: string[] } | undefined {
  let node = root;
  const tokens: string[] = [];
  if (pointer === '') return { value: node, tokens };
  if (!pointer.startsWith('/')) return undefined;
  for (const raw of pointer.slice(1).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined; // malformed percent-encoding, or a lone surrogate
    }
    if (Array.isArray(node) && /^\d+$/.test(token)) node = node[Number(token)] as unknown;
    else if (isJsonObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
    if (node === undefined) return undefined;
    tokens.push(token);
  }
  return { value: node, tokens };
}

/**
 * Parses JSON text, returning `undefined` instead of throwing. `JSON.parse` creates `__proto__` as an own
 * data property (it never calls the setter), so parsed keys cannot pollute prototypes.
 */
export function tryParseJson(text: string): { ok: true; value: JsonValue } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Names the JSON type of a value the way JSON Schema does (`integer` is reported as `number`). */
export function jsonTypeOf(value: unknown): 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  if (t === 'string' || t === 'number' || t === 'boolean') return t;
  return 'object';
}
