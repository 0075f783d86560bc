/**
 * Record-batch compression on both clients (KAFKA_COMPRESSION). @platformatic/kafka carries all four codecs
 * (gzip and zstd from Node's zlib, snappy and lz4 from @platformatic/wasm-utils); kafkajs carries gzip only and
 * takes the others through its `CompressionCodecs` table, filled here with those same codecs, so a batch one
 * client writes the other reads. The codecs are registered for every kafkajs worker, compressing or not:
 * input is read whatever codec its producer chose.
 */
import kafkajs from 'kafkajs';
import type { Compression } from '../../core/shared/stream.js';

// kafkajs is CommonJS: Node's named-export detection does not find these two.
const { CompressionCodecs, CompressionTypes } = kafkajs;

/** kafkajs's codec number for each setting value. */
export const KAFKAJS_COMPRESSION: Readonly<Record<Compression, kafkajs.CompressionTypes>> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

type Codec = 'snappy' | 'lz4' | 'zstd';

/** What kafkajs hands a codec to compress: its encoder, whose `buffer` is the batch's records. */
interface KafkajsEncoder {
  readonly buffer: Buffer;
}

/**
 * @platformatic/kafka's codec table, loaded on the first compressed batch: a kafkajs worker that never meets
 * snappy, lz4 or zstd never loads that client.
 */
async function platformaticCodec(name: Codec): Promise<{ compressSync(data: Buffer): Buffer; decompressSync(data: Buffer): Buffer }> {
  const { compressionsAlgorithms } = await import('@platformatic/kafka');
  return compressionsAlgorithms[name];
}

function kafkajsCodec(
  name: Codec,
): () => { compress(encoder: KafkajsEncoder): Promise<Buffer>; decompress(data: Buffer): Promise<Buffer> } {
  const codec = {
    compress: async (encoder: KafkajsEncoder) => (await platformaticCodec(name)).compressSync(encoder.buffer),
    decompress: async (data: Buffer) => (await platformaticCodec(name)).decompressSync(data),
  };
  return () => codec;
}

let registered = false;

/** Fills kafkajs's codec table for snappy, lz4 and zstd (gzip is its own); idempotent. */
export function registerKafkajsCodecs(): void {
  if (registered) return;
  registered = true;
  const codecs = CompressionCodecs as Record<number, unknown>;
  codecs[CompressionTypes.Snappy] = kafkajsCodec('snappy');
  codecs[CompressionTypes.LZ4] = kafkajsCodec('lz4');
  codecs[CompressionTypes.ZSTD] = kafkajsCodec('zstd');
}
