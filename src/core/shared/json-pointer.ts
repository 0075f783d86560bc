/**
 * RFC 6901 JSON Pointer, the one reader and writer of pointers in src/: tokens escaped `~0` (`~`) and `~1` (`/`),
 * array elements by index written in decimal digits only (no `""`, no `1e0`, no leading zero), `-` (past the last
 * element) only where a writer appends. The URI fragment form (`#/a%20b`, section 6) is read by
 * {@link walkFragmentPointer}. Pure.
 */
import type { JsonValue } from './json.js';

/** Escapes one reference token. */
export function escapeToken(token: string | number): string {
  if (typeof token === 'number') return String(token);
  // Most keys need no escaping: skip the two replacements for them (this runs for every argument).
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Unescapes one reference token; undefined when a `~` is followed by neither `0` nor `1`. */
export function unescapeToken(raw: string): string | undefined {
  if (!raw.includes('~')) return raw;
  if (/~(?![01])/.test(raw)) return undefined;
  return raw.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Appends a token to a pointer. */
export function childPointer(parent: string, token: string | number): string {
  return `${parent}/${escapeToken(token)}`;
}

/** Joins unescaped tokens into a pointer (`[]` is `""`, the whole document). */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let pointer = '';
  for (const token of tokens) pointer += `/${escapeToken(token)}`;
  return pointer;
}

/** Splits a pointer into unescaped tokens; undefined when it is not a pointer (no leading `/`, a bad `~` escape). */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapeToken(raw);
    if (token === undefined) return undefined;
    tokens.push(token);
  }
  return tokens;
}

/** The tokens of a pointer this program made; throws a RangeError when it is malformed. */
export function pointerTokens(pointer: string): string[] {
  const tokens = parsePointer(pointer);
  if (tokens === undefined) throw new RangeError(`"${pointer}" is not a JSON Pointer`);
  return tokens;
}

/** The array index a token names: decimal digits, no leading zero (`0` itself aside); undefined otherwise. */
export function arrayIndex(token: string): number | undefined {
  if (!/^(?:0|[1-9]\d*)$/.test(token)) return undefined;
  const index = Number(token);
  return Number.isSafeInteger(index) ? index : undefined;
}

/** The child of `node` a token names: an existing array element, or an own property of a plain object. */
function childOf(node: unknown, token: string): { found: true; value: unknown } | { found: false } {
  if (Array.isArray(node)) {
    const index = arrayIndex(token);
    return index !== undefined && index < node.length ? { found: true, value: node[index] as unknown } : { found: false };
  }
  if (typeof node === 'object' && node !== null && Object.hasOwn(node, token)) {
    return { found: true, value: (node as Record<string, unknown>)[token] };
  }
  return { found: false };
}

/** The value at `tokens` within `root`; undefined when they name nothing. */
export function valueAtTokens(root: unknown, tokens: readonly string[]): unknown {
  let node = root;
  for (const token of tokens) {
    const child = childOf(node, token);
    if (!child.found) return undefined;
    node = child.value;
  }
  return node;
}

/** The value at `pointer` within `root`; undefined when the pointer is malformed or names nothing. */
export function valueAt(root: JsonValue, pointer: string): JsonValue | undefined;
export function valueAt(root: unknown, pointer: string): unknown;
export function valueAt(root: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  return tokens === undefined ? undefined : valueAtTokens(root, tokens);
}

/**
 * Follows a pointer written in a URI fragment (`/$defs/a%20b/0`, the part of `#/...` after the `#`) from `root`:
 * each token percent-decoded, then unescaped (RFC 6901 section 6). Returns the value and the decoded tokens, or
 * undefined when a token is malformed or names nothing. Every schema walk in the core resolves local `$ref`s here.
 */
export function walkFragmentPointer(root: unknown, pointer: string): { value: unknown; tokens: string[] } | undefined {
  if (pointer === '') return { value: root, tokens: [] };
  if (!pointer.startsWith('/')) return undefined;
  let node = root;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return undefined; // malformed percent-encoding, or a lone surrogate
    }
    const token = unescapeToken(decoded);
    if (token === undefined) return undefined;
    const child = childOf(node, token);
    if (!child.found || child.value === undefined) return undefined;
    node = child.value;
    tokens.push(token);
  }
  return { value: node, tokens };
}

/** A pointer as a URI fragment (section 6): characters outside the fragment set percent-encoded. */
export function fragmentOf(pointer: string): string {
  return pointer
    .split('/')
    .map((token) => encodeURIComponent(token).replace(/%7E/gi, '~'))
    .join('/');
}

/**
 * A copy of `root` with the value at `pointer` replaced by `update` of it, copying only along the path (the input
 * is not mutated). A missing object member is added (`update` gets undefined); on an array, `-` appends. Throws a
 * RangeError naming the pointer when it is malformed, indexes past an array's end, or runs through a scalar.
 */
export function updateAt<T>(root: T, pointer: string, update: (current: unknown) => unknown): T {
  const tokens = parsePointer(pointer);
  if (tokens === undefined) throw new RangeError(`"${pointer}" is not a JSON Pointer`);
  const rebuild = (node: unknown, depth: number): unknown => {
    if (depth === tokens.length) return update(node);
    const token = tokens[depth] ?? '';
    if (Array.isArray(node)) {
      const index = token === '-' ? node.length : arrayIndex(token);
      if (index === undefined || index > node.length || (index === node.length && token !== '-')) {
        throw new RangeError(`JSON Pointer "${pointer}": "${token}" is not an element of the array`);
      }
      const copy = [...(node as unknown[])];
      copy[index] = rebuild(node[index], depth + 1);
      return copy;
    }
    if (typeof node === 'object' && node !== null) {
      const object = node as Record<string, unknown>;
      const replaced = rebuild(Object.hasOwn(object, token) ? object[token] : undefined, depth + 1);
      // Object.fromEntries defines own data properties: a member named `__proto__` stays plain data.
      const entries = Object.entries(object).map(([k, v]): [string, unknown] => [k, k === token ? replaced : v]);
      if (!Object.hasOwn(object, token)) entries.push([token, replaced]);
      return Object.fromEntries(entries);
    }
    throw new RangeError(`JSON Pointer "${pointer}": "${token}" runs through a value that is neither an object nor an array`);
  };
  return rebuild(root, 0) as T;
}
