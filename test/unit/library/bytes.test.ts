/**
 * Binary records handed to the library: every kind of buffer and view is read as its bytes, and one whose buffer
 * is detached (transferred to a worker, or by `ArrayBuffer.prototype.transfer`) is a clear error result, never a
 * throw: the library never throws on data.
 */
import { describe, expect, it } from 'vitest';
import { createNormalizer } from '../../../src/library/index.js';

const normalizer = createNormalizer({ tools: { search: { type: 'object', properties: { q: { type: 'string' } } } } });
const CALL = '{"tool":"search","arguments":{"q":"a &amp; b"}}';

function detached<T>(make: (buffer: ArrayBuffer) => T): T {
  const buffer = new TextEncoder().encode(CALL).buffer;
  const value = make(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  return value;
}

describe('binary records', () => {
  const bytes = (): ArrayBuffer => new TextEncoder().encode(CALL).buffer;
  it.each<[string, () => unknown]>([
    ['an ArrayBuffer', bytes],
    ['a Uint8Array', () => new Uint8Array(bytes())],
    ['a Buffer', () => Buffer.from(CALL)],
    ['a DataView', () => new DataView(bytes())],
    ['a view on part of a buffer', () => new Uint8Array(new TextEncoder().encode(`xx${CALL}yy`).buffer, 2, CALL.length)],
    [
      'a SharedArrayBuffer',
      () => {
        const shared = new SharedArrayBuffer(CALL.length);
        new Uint8Array(shared).set(new TextEncoder().encode(CALL));
        return shared;
      },
    ],
  ])('%s is read as its bytes', (_name, make) => {
    const [record] = normalizer.normalize(make());
    expect(record?.valid).toBe(true);
    expect(record?.arguments).toEqual({ q: 'a & b' });
  });

  it.each<[string, () => unknown]>([
    ['a detached ArrayBuffer', () => detached((buffer) => buffer)],
    ['a Uint8Array on one', () => detached((buffer) => new Uint8Array(buffer))],
    ['a Buffer on one', () => detached((buffer) => Buffer.from(buffer))],
    ['a DataView on one', () => detached((buffer) => new DataView(buffer))],
    ['a Uint16Array on one', () => detached((buffer) => new Uint16Array(buffer, 0, 2))],
  ])('%s is an error result, not a throw', (_name, make) => {
    const records = normalizer.normalize(make());
    expect(records).toHaveLength(1);
    expect(records[0]?.valid).toBe(false);
    expect(records[0]?.errors[0]?.code).toBe('record_not_json');
    expect(records[0]?.errors[0]?.message).toMatch(/detached ArrayBuffer/);
  });

  it('a view past the end of a shrunk resizable buffer is an error result', () => {
    // Resizable buffers (ES2024) are beyond the project's lib typings.
    const Resizable = ArrayBuffer as unknown as new (
      length: number,
      options: { maxByteLength: number },
    ) => ArrayBuffer & {
      resize(length: number): void;
    };
    const buffer = new Resizable(CALL.length, { maxByteLength: 2 * CALL.length });
    new Uint8Array(buffer).set(new TextEncoder().encode(CALL));
    const view = new DataView(buffer, 4, 8);
    buffer.resize(2);
    const records = normalizer.normalize(view);
    expect(records[0]?.valid).toBe(false);
    expect(records[0]?.errors[0]?.code).toBe('record_not_json');
  });
});
