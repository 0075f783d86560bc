/**
 * How a delivery failure leaves a kafkajs batch: judged by kafkajs's own runner predicates (rejoin on a rebalance,
 * restart on a retriable cause), from the protocol errors kafkajs itself builds.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { errorTypes } from '../../../../src/adapters/kafka/delivery.js';
import { forKafkajsRunner } from '../../../../src/adapters/kafka/kafkajs.js';

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require('kafkajs/src/protocol/error.js') as { createErrorFromCode: (code: number) => Error };
const { isRebalancing, KafkaJSNumberOfRetriesExceeded } = require('kafkajs/src/errors.js') as {
  isRebalancing: (e: unknown) => boolean;
  KafkaJSNumberOfRetriesExceeded: new (cause: Error, meta: { retryCount: number; retryTime: number }) => Error;
};

const INVALID_PRODUCER_EPOCH = 47;
const INVALID_PRODUCER_ID_MAPPING = 49;
const TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53;
const OPERATION_NOT_ATTEMPTED = 55;
const UNKNOWN_TOPIC_OR_PARTITION = 3;

function mapped(error: Error): unknown {
  return forKafkajsRunner(error, errorTypes(error));
}

describe('forKafkajsRunner', () => {
  it.each([INVALID_PRODUCER_EPOCH, INVALID_PRODUCER_ID_MAPPING])('makes the runner rejoin on fenced code %i', (code) => {
    const fenced = createErrorFromCode(code);
    expect(isRebalancing(fenced)).toBe(false);
    const out = mapped(fenced);
    expect(isRebalancing(out)).toBe(true);
    expect(out).toMatchObject({ retriable: true, message: expect.stringContaining('producer fenced') as unknown });
  });

  it('sees the fence inside kafkajs’s own retry wrapper', () => {
    const wrapped = new KafkaJSNumberOfRetriesExceeded(createErrorFromCode(INVALID_PRODUCER_EPOCH), { retryCount: 5, retryTime: 1 });
    expect(isRebalancing(mapped(wrapped))).toBe(true);
  });

  it('retries a delivery the broker did not attempt, without a rejoin', () => {
    const out = mapped(createErrorFromCode(OPERATION_NOT_ATTEMPTED));
    expect(isRebalancing(out)).toBe(false);
    expect(out).toMatchObject({ retriable: true, type: 'OPERATION_NOT_ATTEMPTED' });
  });

  it.each([TRANSACTIONAL_ID_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION])('leaves code %i as kafkajs threw it', (code) => {
    const error = createErrorFromCode(code);
    expect(mapped(error)).toBe(error);
  });
});
