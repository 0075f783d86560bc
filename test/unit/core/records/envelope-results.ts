/** What the envelope tests read out of a decode result, failing with what came instead. */
import type { EnvelopeResult } from '../../../../src/core/records/envelope.js';
import type { DecodedCall } from '../../../../src/core/shared/types.js';

export function callOf(result: EnvelopeResult): DecodedCall {
  if (!result.ok) throw new Error(`expected a call, got ${result.error.code}: ${result.error.message}`);
  return result.call;
}

export function errorOf(result: EnvelopeResult): { code: string; message: string } {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.call)}`);
  return result.error;
}
