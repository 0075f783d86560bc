/**
 * The key hash and partitioner the worker gives kafkajs: the same partition as kafkajs's DefaultPartitioner (and
 * as @platformatic/kafka's murmur2, the Java client's) for every key, so a key keeps its output partition.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { murmur2 as platformaticMurmur2 } from '@platformatic/kafka';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { murmur2 } from '../../../../src/adapters/kafka/delivery.js';
import { javaCompatiblePartitioner } from '../../../../src/adapters/kafka/kafkajs.js';
import { platformaticPartitioner } from '../../../../src/adapters/kafka/platformatic-client.js';

const require = createRequire(import.meta.url);
const kafkajsMurmur2 = require(join(dirname(require.resolve('kafkajs')), 'src/producer/partitioners/default/murmur2.js')) as (
  key: Buffer,
) => number;

function keys(): Buffer[] {
  let seed = 12345;
  const random = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const out = [Buffer.alloc(0), Buffer.from('agent-1'), Buffer.from('é✓'), Buffer.from([0xff, 0x80, 0x00, 0x7f])];
  for (let i = 0; i < 400; i++) out.push(Buffer.from(Array.from({ length: i % 37 }, () => Math.floor(random() * 256))));
  return out;
}

const metadata = (n: number): PartitionMetadata[] =>
  Array.from({ length: n }, (_, partitionId) => ({ partitionId, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }));

/** Kafka's own figures for its Java `Utils.murmur2` (clients/src/test/.../utils/UtilsTest.java, testMurmur2). */
const JAVA_MURMUR2: readonly [string, number][] = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
];

describe('murmur2', () => {
  it("equals the Java client's on Kafka's own test keys, and so does the partition (toPositive, modulo)", () => {
    for (const [key, hash] of JAVA_MURMUR2) {
      expect(murmur2(Buffer.from(key))).toBe(hash);
      for (const partitions of [1, 6, 12])
        expect((murmur2(Buffer.from(key)) & 0x7fffffff) % partitions).toBe((hash & 0x7fffffff) % partitions);
    }
  });

  it("equals kafkajs's and @platformatic/kafka's on keys of every length and byte", () => {
    for (const key of keys()) {
      expect(murmur2(key)).toBe(kafkajsMurmur2(key));
      expect(murmur2(key) & 0x7fffffff).toBe(platformaticMurmur2(key) & 0x7fffffff);
    }
  });
});

describe('javaCompatiblePartitioner', () => {
  it("gives every keyed record the partition kafkajs's DefaultPartitioner gives it", () => {
    const ours = javaCompatiblePartitioner();
    const theirs = Partitioners.DefaultPartitioner();
    for (const partitions of [1, 3, 12]) {
      const partitionMetadata = metadata(partitions);
      for (const key of keys()) {
        const message = { key, value: null };
        expect(ours({ topic: 't', partitionMetadata, message })).toBe(theirs({ topic: 't', partitionMetadata, message }));
      }
      const text = { key: 'agent-7', value: null };
      expect(ours({ topic: 't', partitionMetadata, message: text })).toBe(theirs({ topic: 't', partitionMetadata, message: text }));
    }
  });

  it('keeps a partition given, and spreads keyless records over the partitions with a leader', () => {
    const ours = javaCompatiblePartitioner();
    const partitionMetadata = metadata(4);
    expect(ours({ topic: 't', partitionMetadata, message: { key: Buffer.from('k'), value: null, partition: 2 } })).toBe(2);
    const noLeader = partitionMetadata.map((p) => (p.partitionId === 1 ? { ...p, leader: -1 } : p));
    const seen = new Set<number>();
    for (let i = 0; i < 30; i++) seen.add(ours({ topic: 't', partitionMetadata: noLeader, message: { key: null, value: null } }));
    expect([...seen].sort()).toEqual([0, 2, 3]);
  });
});

describe('platformaticPartitioner', () => {
  it('gives every key the partition the kafkajs partitioner gives it: one partitioner for both clients', () => {
    const kafkajsSide = javaCompatiblePartitioner();
    const platformaticSide = platformaticPartitioner();
    const message = { topic: 't' };
    for (const partitions of [1, 3, 6, 12]) {
      const partitionMetadata = metadata(partitions);
      for (const key of keys()) {
        // @platformatic/kafka takes the partitioner's answer modulo the partition count (Transaction.addPartitions).
        expect(platformaticSide(message, key) % partitions).toBe(
          kafkajsSide({ topic: 't', partitionMetadata, message: { key, value: null } }),
        );
      }
      for (const [key, hash] of JAVA_MURMUR2)
        expect(platformaticSide(message, Buffer.from(key)) % partitions).toBe((hash & 0x7fffffff) % partitions);
    }
  });

  it('spreads keyless records round the partitions', () => {
    const partitioner = platformaticPartitioner();
    expect(Array.from({ length: 6 }, () => partitioner({ topic: 't' }, undefined) % 3)).toEqual([0, 1, 2, 0, 1, 2]);
  });
});
