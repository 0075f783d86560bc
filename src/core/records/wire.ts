/**
 * Confluent's wire format: byte 0 (magic), a 4-byte big-endian schema id, then the payload. Record values may
 * come in it or as plain JSON; JSON text never starts with a zero byte, so the two cannot be confused.
 */
import type { RecordFailure } from './bytes.js';

export type WireResult = { ok: true; payload: Uint8Array; schemaId: number | undefined } | { ok: false; error: RecordFailure };

export function unwrapWireFormat(value: Uint8Array): WireResult {
  if (value.length === 0 || value[0] !== 0) return { ok: true, payload: value, schemaId: undefined };
  if (value.length < 5) {
    return {
      ok: false,
      error: {
        code: 'record_invalid_encoding',
        message: `The record starts with the wire-format magic byte but is only ${value.length} bytes long (a 5-byte header is expected).`,
      },
    };
  }
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  return { ok: true, payload: value.subarray(5), schemaId: view.getUint32(1) };
}
