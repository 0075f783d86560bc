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
