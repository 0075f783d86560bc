/**
 * A record's headers by name, as both clients hand them to the worker, in maps that inherit nothing
 * ({@link headerMap}): `constructor`, `toString` or `__proto__` are data, an inherited name is never mistaken for a
 * header already seen, and `__proto__` is an own key, not the map's prototype.
 */
import { headerMap, type HeaderValue, type Headers } from '../../core/records/output.js';

/** Adds one header to the map, a repeated name becoming a list in record order. */
export function addHeader(headers: Headers, name: string, value: HeaderValue): void {
  const existing = Object.hasOwn(headers, name) ? headers[name] : undefined;
  if (existing === undefined) headers[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else headers[name] = [existing, value];
}

/** The headers of a record from its (name, value) pairs in record order (@platformatic/kafka's `Map`). */
export function headersFromPairs(pairs: Iterable<readonly [Buffer, Buffer]>): Headers {
  const headers = headerMap();
  for (const [name, value] of pairs) addHeader(headers, name.toString('utf8'), value);
  return headers;
}

/** What kafkajs's decoder reads for a name not yet seen (`{}['__proto__']` is `Object.prototype`). */
const PLAIN: Readonly<Record<string, unknown>> = {};

/**
 * The headers kafkajs decoded, each name with exactly the values the record carries. kafkajs 2.2.4 folds repeated
 * names by testing `obj[key] === undefined` on a plain object: a name `Object.prototype` has (`constructor`,
 * `toString`, `__proto__`...) starts its list with the inherited value (`[Function Object, <Buffer>]`), which no
 * encoder takes. A header value is bytes or null, never that inherited value, so dropping it restores the record.
 */
export function kafkajsHeaders(decoded: Readonly<Record<string, unknown>> | undefined): Headers {
  const headers = headerMap();
  if (decoded === undefined) return headers;
  for (const name of Object.keys(decoded)) {
    let value = decoded[name];
    const inherited = PLAIN[name];
    if (inherited !== undefined && Array.isArray(value) && value[0] === inherited) {
      value = value.length === 2 ? value[1] : value.slice(1);
    }
    headers[name] = value as Headers[string];
  }
  return headers;
}
