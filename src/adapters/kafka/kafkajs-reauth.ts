/**
 * kafkajs 2.2.4 re-authenticates an OAUTHBEARER connection in band (KIP-368) shortly before its session ends, even
 * with requests in flight on it; the broker then answers the SaslHandshake with ILLEGAL_SASL_STATE. kafkajs copes on
 * a broker's connection (it rebuilds the pool and retries) but not on the seed broker's, where the error is not
 * retriable and the consumer crashes. Marked retriable here, the seed broker is rebuilt and signs in afresh too, as
 * kafkajs's own code for that error intends.
 */
import { createRequire } from 'node:module';

/** The version whose error table this changes; another one keeps its own. */
const PATCHED_VERSION = '2.2.4';
const ILLEGAL_SASL_STATE = 34;

let patched: boolean | undefined;

/** Makes ILLEGAL_SASL_STATE retriable in kafkajs's protocol error table (once; false on another kafkajs version). */
export function patchKafkajsReauthentication(): boolean {
  if (patched !== undefined) return patched;
  patched = false;
  const require = createRequire(import.meta.url);
  const { version } = require('kafkajs/package.json') as { version?: unknown };
  if (version !== PATCHED_VERSION) return patched;
  const { errorCodes } = require('kafkajs/src/protocol/error.js') as { errorCodes?: { code: number; retriable: boolean }[] };
  const entry = errorCodes?.find((e) => e.code === ILLEGAL_SASL_STATE);
  if (entry === undefined) return patched;
  entry.retriable = true;
  patched = true;
  return patched;
}
