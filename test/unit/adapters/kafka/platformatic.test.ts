/**
 * What the @platformatic/kafka port reads from the client's errors and changes in its API choice. The error trees
 * are the shapes @platformatic/kafka 2.12.1 gives against a real SCRAM and TLS broker (a wrong password, a CA that
 * did not sign the broker's certificate); the behaviour end to end is in test/integration/security.test.ts and
 * output-unavailable.test.ts.
 */
import { Producer } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { capAddPartitionsToTxn } from '../../../../src/adapters/kafka/platformatic-client.js';
import { stampedBy } from '../../../../src/adapters/kafka/platformatic-fetch.js';
import { connectionRefusal } from '../../../../src/adapters/kafka/platformatic-failures.js';

/** The client's wrapping of one broker's connection failure: listing, "cannot connect to any broker", network. */
function wrapped(cause: object): object {
  const network = { name: 'Error', code: 'PLT_KFK_NETWORK', canRetry: true, message: 'Connection to 127.0.0.1:9093 failed.', cause };
  const anyBroker = { name: 'AggregateError', code: 'PLT_KFK_MULTIPLE', message: 'Cannot connect to any broker.', errors: [network] };
  return { name: 'AggregateError', code: 'PLT_KFK_MULTIPLE', message: 'Listing topics failed.', errors: [anyBroker] };
}

describe('connectionRefusal', () => {
  it("reads a refused SASL login, with the broker's own reason", () => {
    const refused = wrapped({
      code: 'PLT_KFK_AUTHENTICATION',
      canRetry: false,
      message: 'SASL authentication failed.',
      cause: {
        code: 'PLT_KFK_RESPONSE',
        message: 'Received response with error while executing API SaslAuthenticate(v2)',
        response: {
          errorCode: 58,
          errorMessage: 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
        },
        errors: [{ code: 'PLT_KFK_PROTOCOL', apiId: 'SASL_AUTHENTICATION_FAILED', message: 'SASL authentication failed.' }],
      },
    });
    expect(connectionRefusal(refused)).toBe(
      'SASL authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    );
  });

  it('reads a broker certificate that does not verify, and TLS to a listener without it', () => {
    const unverified = wrapped({ code: 'SELF_SIGNED_CERT_IN_CHAIN', message: 'self-signed certificate in certificate chain' });
    expect(connectionRefusal(unverified)).toBe(
      "the broker's TLS certificate does not verify: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)",
    );
    expect(
      connectionRefusal(wrapped({ code: 'ERR_TLS_CERT_ALTNAME_INVALID', message: "Hostname/IP does not match certificate's altnames" })),
    ).toMatch(/does not verify/);
    const plaintext = wrapped({ code: 'PLT_KFK_USER', message: 'TLS handshake failed. Please verify the broker supports TLS.' });
    expect(connectionRefusal(plaintext)).toBe('TLS handshake failed. Please verify the broker supports TLS.');
  });

  it('leaves an outage, a timeout and anything not an error to the retries', () => {
    expect(connectionRefusal(wrapped({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9093' }))).toBeUndefined();
    expect(connectionRefusal(wrapped({ code: 'PLT_KFK_NETWORK', message: 'Connection to 127.0.0.1:9093 timed out.' }))).toBeUndefined();
    expect(connectionRefusal(new Error('broker gone'))).toBeUndefined();
    expect(connectionRefusal('text')).toBeUndefined();
    expect(connectionRefusal(undefined)).toBeUndefined();
  });
});

describe('capAddPartitionsToTxn', () => {
  it("caps the client's list of the broker's AddPartitionsToTxn versions at v3, now and whenever it lists them again", () => {
    const producer = new Producer({ clientId: 'unit', bootstrapBrokers: ['127.0.0.1:1'] });
    try {
      expect(capAddPartitionsToTxn(producer)).toBe(true);
      const key = Object.getOwnPropertySymbols(producer).find((s) => s.description === 'plt.kafka.base.apis');
      if (key === undefined) throw new Error('no API list on the producer');
      Reflect.set(producer, key, [
        { name: 'AddPartitionsToTxn', minVersion: 0, maxVersion: 5 },
        { name: 'Produce', minVersion: 3, maxVersion: 12 },
      ]);
      expect(Reflect.get(producer, key)).toEqual([
        { name: 'AddPartitionsToTxn', minVersion: 0, maxVersion: 3 },
        { name: 'Produce', minVersion: 3, maxVersion: 12 },
      ]);
    } finally {
      void producer.close().catch(() => undefined);
    }
  });

  it('says so when the list is not where the client keeps it', () => {
    expect(capAddPartitionsToTxn({})).toBe(false);
  });
});

describe('stampedBy', () => {
  const member = { generationId: 4, memberId: 'worker-a-1' };
  const stamp = (generationId: number, memberId = 'worker-a-1'): { metadata: Record<string, unknown> } => ({
    metadata: { consumer: { groupId: 'g', generationId, memberId, coordinatorId: 1 } },
  });

  it('accepts records stamped with the assignment, one stamp shared by a fetch response or one each', () => {
    const one = stamp(4);
    expect(stampedBy([one, one, one], member)).toBe(true);
    expect(stampedBy([stamp(4), stamp(4)], member)).toBe(true);
  });

  it('refuses a list with any record of another generation or member: fetched across a rebalance', () => {
    // The client moves to the next generation at JoinGroup, before SyncGroup hands out the new assignment.
    expect(stampedBy([stamp(4), stamp(5)], member)).toBe(false);
    expect(stampedBy([stamp(3)], member)).toBe(false);
    expect(stampedBy([stamp(4, 'worker-a-2')], member)).toBe(false);
  });

  it('refuses everything before the first assignment, and records without a stamp', () => {
    expect(stampedBy([stamp(4)], undefined)).toBe(false);
    expect(stampedBy([{ metadata: {} }], member)).toBe(false);
  });
});
