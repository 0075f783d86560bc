/**
 * The codecs kafkajs is given: each round-trips a record batch's bytes, and what one client's codec writes the
 * other's reads (they are the same @platformatic/kafka codecs, plus Node's zlib for gzip).
 */
import { compressionsAlgorithms } from '@platformatic/kafka';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KAFKAJS_COMPRESSION, registerKafkajsCodecs } from '../../../../src/adapters/kafka/compression.js';

interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(data: Buffer): Promise<Buffer>;
}

describe('kafkajs codecs', () => {
  registerKafkajsCodecs();
  const data = Buffer.from(JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: `call-${i}`, tool: 'search_issues' }))));

  it.each(['gzip', 'snappy', 'lz4', 'zstd'] as const)(
    '%s round-trips, smaller, and reads what @platformatic/kafka writes',
    async (name) => {
      const codecs = kafkajs.CompressionCodecs as unknown as Record<number, () => Codec>;
      const codec = codecs[KAFKAJS_COMPRESSION[name]]?.();
      if (codec === undefined) expect.fail(`no kafkajs codec for ${name}`);
      const compressed = await codec.compress({ buffer: data });
      expect(compressed.length).toBeLessThan(data.length / 2);
      expect((await codec.decompress(compressed)).equals(data)).toBe(true);
      const theirs = compressionsAlgorithms[name].compressSync(data);
      expect((await codec.decompress(theirs)).equals(data)).toBe(true);
      expect(compressionsAlgorithms[name].decompressSync(compressed).equals(data)).toBe(true);
    },
  );
});
