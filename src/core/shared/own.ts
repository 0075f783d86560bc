/**
 * Sets `key` as an own, enumerable data property of a plain object. Keys are data (`__proto__`, `constructor`):
 * assignment to `__proto__` would set the object's prototype instead, so that one key is defined. Plain objects
 * keep V8's fast properties, which prototype-free ones (`Object.create(null)`) do not.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
