/**
 * When a failed exactly-once delivery is the broker refusing this principal writes to an output topic (fatal, exit
 * 1) and when it is left to the retry. The refusal itself, end to end, is in test/integration/output-unavailable.
 */
import { describe, expect, it } from 'vitest';
import { NOT_ATTEMPTED_LIMIT, outputRefusal } from '../../../../src/adapters/kafka/delivery.js';

describe('outputRefusal', () => {
  it('reads TOPIC_AUTHORIZATION_FAILED as a refusal at once, wherever it is in the causes', () => {
    expect(outputRefusal(['TOPIC_AUTHORIZATION_FAILED'], 0)).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(outputRefusal(['KAFKAJS_ERROR', 'OPERATION_NOT_ATTEMPTED', 'TOPIC_AUTHORIZATION_FAILED'], 1)).toBe('TOPIC_AUTHORIZATION_FAILED');
  });

  it('reads OPERATION_NOT_ATTEMPTED as a refusal only once it repeats: alone it may follow a transient error', () => {
    for (let inARow = 1; inARow < NOT_ATTEMPTED_LIMIT; inARow++) expect(outputRefusal(['OPERATION_NOT_ATTEMPTED'], inARow)).toBeUndefined();
    expect(outputRefusal(['OPERATION_NOT_ATTEMPTED'], NOT_ATTEMPTED_LIMIT)).toMatch(/^OPERATION_NOT_ATTEMPTED on 3 deliveries in a row/);
  });

  it('leaves every other failure to the retry', () => {
    expect(outputRefusal([], 5)).toBeUndefined();
    expect(outputRefusal(['NOT_LEADER_FOR_PARTITION'], 5)).toBeUndefined();
    expect(outputRefusal(['CONCURRENT_TRANSACTIONS'], 0)).toBeUndefined();
  });
});
