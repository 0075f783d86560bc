/**
 * A caller's JavaScript value as the JSON it stands for, without ever throwing: `JSON.stringify` throws on a
 * cycle or a BigInt, silently drops functions, and overflows the stack on deep values. Here each of those is a
 * failure with the code the command line gives the equivalent text, and the walk stops as soon as a bound is
 * crossed, so a huge value costs no more than the limit to refuse.
 */
import type { ErrorCode } from '../core/shared/codes.js';
import type { JsonObject, JsonValue } from '../core/shared/json.js';
import { childPointer } from '../core/shared/json-pointer.js';
import { setOwn } from '../core/shared/own.js';
import { tooDeepFailure } from '../core/records/bytes.js';

/** Bounds on the value; `maxBytes` is compared with a lower bound of its JSON text's UTF-8 size. */
export interface JsonValueLimits {
  readonly maxDepth: number;
  readonly maxBytes: number;
}

export type JsonValueResult =
  | { ok: true; value: JsonValue }
  | { ok: false; code: Extract<ErrorCode, 'record_not_json' | 'record_too_deep' | 'record_too_large'>; message: string };

/** Thrown inside the walk to stop it; caught in {@link toJsonValue}, never escapes. */
class Refusal extends Error {
  constructor(
    readonly code: Extract<ErrorCode, 'record_not_json' | 'record_too_deep' | 'record_too_large'>,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Copies `input` into plain JSON data, as `JSON.stringify` would read it (`toJSON` is honoured, so a `Date` is
 * its ISO text; own enumerable string keys only; boxed primitives unwrapped; an object property whose value is
 * `undefined` is absent). Refused, with `record_not_json`: a cycle, a BigInt, a function, a symbol, a number that
 * is not finite, `undefined` in an array or at the top, and any getter or `toJSON` that throws. Nesting deeper than
 * `maxDepth` is `record_too_deep`; more than `maxBytes` of JSON text is `record_too_large`. Never throws, never
 * mutates `input`; `__proto__` keys stay plain data.
 */
export function toJsonValue(input: unknown, limits: JsonValueLimits, what = 'The record'): JsonValueResult {
  const walk = new Walk(limits, what);
  try {
    const value = walk.value(input, '', '', 0);
    if (value === undefined) return { ok: false, code: 'record_not_json', message: `${what} is undefined, which is not a JSON value.` };
    return { ok: true, value };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, code: error.code, message: error.message };
    // A getter, a Proxy trap or a toJSON that threw, or a stack overflow in one of them.
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, code: 'record_not_json', message: `${what} could not be read as JSON: ${reason.slice(0, 200)}` };
  }
}

class Walk {
  private bytes = 0;
  private readonly ancestors = new Set<object>();

  constructor(
    private readonly limits: JsonValueLimits,
    private readonly what: string,
  ) {}

  /** The JSON value of `input` at `pointer`; undefined when it is absent as an object property would be. */
  value(input: unknown, key: string, pointer: string, depth: number): JsonValue | undefined {
    let value = input;
    if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
    }
    if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
    switch (typeof value) {
      case 'string':
        this.count(value.length + 2);
        return value;
      case 'number':
        if (!Number.isFinite(value)) throw this.notJson(pointer, `the number ${String(value)}`);
        this.count(1);
        return value;
      case 'boolean':
        this.count(4);
        return value;
      case 'undefined':
        return undefined;
      case 'bigint':
        throw this.notJson(pointer, 'a BigInt');
      case 'function':
        throw this.notJson(pointer, 'a function');
      case 'symbol':
        throw this.notJson(pointer, 'a symbol');
      default:
        break;
    }
    if (value === null) {
      this.count(4);
      return null;
    }
    const container = value as object;
    if (depth + 1 > this.limits.maxDepth) throw new Refusal('record_too_deep', tooDeepFailure(this.limits.maxDepth, this.what).message);
    if (this.ancestors.has(container)) throw this.notJson(pointer, 'a reference back to an object that contains it (a cycle)');
    this.ancestors.add(container);
    this.count(2);
    let out: JsonValue;
    if (Array.isArray(container)) {
      const items: JsonValue[] = [];
      for (let index = 0; index < container.length; index++) {
        const item = this.value(container[index] as unknown, String(index), childPointer(pointer, index), depth + 1);
        if (item === undefined) throw this.notJson(childPointer(pointer, index), 'undefined');
        items.push(item);
        this.count(1);
      }
      out = items;
    } else {
      const object: JsonObject = {};
      for (const name of Object.keys(container)) {
        const item = this.value((container as Record<string, unknown>)[name], name, childPointer(pointer, name), depth + 1);
        if (item === undefined) continue;
        this.count(name.length + 4);
        setOwn(object, name, item);
      }
      out = object;
    }
    this.ancestors.delete(container);
    return out;
  }

  private count(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.limits.maxBytes) {
      throw new Refusal(
        'record_too_large',
        `${this.what} is at least ${this.bytes} bytes as JSON text (UTF-8); the limit is ${this.limits.maxBytes} bytes.`,
      );
    }
  }

  private notJson(pointer: string, found: string): Refusal {
    const where = pointer === '' ? 'at the top' : `at ${pointer}`;
    return new Refusal('record_not_json', `${this.what} is not JSON data: it holds ${found} ${where}, which JSON text cannot carry.`);
  }
}
