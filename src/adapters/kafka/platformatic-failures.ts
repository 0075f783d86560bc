/**
 * What the @platformatic/kafka port reads from the client's errors: a refusal for good (credentials, TLS), a
 * member the group has moved past, a producer the broker has fenced, offsets an open transaction holds.
 */
import { errorTypes, FENCED_TYPES } from './delivery.js';

/** Node's codes for a broker certificate that does not verify (the `code` of tls.connect's error). */
const CERTIFICATE_CODES =
  /^(?:SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * Why the brokers refuse this client for good (SASL credentials, a certificate that does not verify, TLS to a
 * listener without it), read from the client's error and its causes; undefined for anything else. The client
 * wraps these in a retriable network error and retries them like an outage: the worker stops on them instead.
 */
export function connectionRefusal(error: unknown): string | undefined {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 64; seen++) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null) continue;
    const { code, message, cause, errors } = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    const text = typeof message === 'string' ? message : '';
    if (code === 'PLT_KFK_AUTHENTICATION') return `SASL authentication failed: ${brokerMessage(cause) ?? text}`;
    if (typeof code === 'string' && CERTIFICATE_CODES.test(code)) return `the broker's TLS certificate does not verify: ${text} (${code})`;
    if (code === 'PLT_KFK_USER' && text.startsWith('TLS handshake failed')) return text;
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
  }
  return undefined;
}

/** The broker's own words in a refused request (SaslAuthenticate's `errorMessage`), when the error carries them. */
function brokerMessage(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 8; depth++) {
    const { response, errors, cause } = e as { response?: { errorMessage?: unknown }; errors?: unknown; cause?: unknown };
    if (typeof response?.errorMessage === 'string' && response.errorMessage !== '') return response.errorMessage;
    e = Array.isArray(errors) && errors.length > 0 ? (errors as unknown[])[0] : cause;
  }
  return undefined;
}

/** True when the failure is the group's or the broker's moving past this member or producer: no topic is at fault. */
export function fencedFailure(error: unknown): boolean {
  return errorTypes(error).some((t) => (FENCED_TYPES as readonly string[]).includes(t));
}

/** Failed deliveries in a row on one producer after which it is replaced whatever the reason. */
export const RENEW_AFTER_FAILURES = 2;

/**
 * True when the producer must be replaced after a failed delivery: its abort failed (the client keeps the
 * transaction open), the broker has moved past its epoch (every later transaction would fail), or it failed
 * {@link RENEW_AFTER_FAILURES} times in a row for a reason no rule names (a broker restart can leave its sequence
 * numbers or transaction state out of step with the broker's, and each retry then fails the same way; a new one
 * starts from a new producer id and epoch).
 */
export function producerToRenew(error: unknown, aborted: boolean, failuresInARow: number): boolean {
  return (
    !aborted ||
    failuresInARow >= RENEW_AFTER_FAILURES ||
    errorTypes(error).some((t) => t === 'PRODUCER_FENCED' || t === 'INVALID_PRODUCER_EPOCH')
  );
}

/** True when an offset read was refused because an open transaction holds offsets for the partition. */
export function unstableOffsets(error: unknown): boolean {
  return errorTypes(error).includes('UNSTABLE_OFFSET_COMMIT');
}
