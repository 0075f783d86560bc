/**
 * KAFKA_COMPRESSION, KAFKA_GROUP_PROTOCOL and KAFKA_GROUP_REMOTE_ASSIGNOR: refused at start in one line naming the
 * variable when the value is unknown or the client cannot honour it, passed on to the stream otherwise.
 */
import { describe, expect, it } from 'vitest';
import { streamOptions } from '../../../src/app/worker/run-command.js';
import { loadConfig } from '../../../src/config/config.js';
import { BASE, problemsOf } from './config-problems.js';
import { COMPRESSIONS } from '../../../src/core/shared/stream.js';

describe('KAFKA_COMPRESSION', () => {
  it('defaults to none, takes every codec (any case) and hands it to the stream', () => {
    expect(streamOptions(loadConfig({ ...BASE })).compression).toBe('none');
    for (const codec of COMPRESSIONS) {
      expect(streamOptions(loadConfig({ ...BASE, KAFKA_COMPRESSION: codec.toUpperCase() })).compression).toBe(codec);
    }
  });

  it('refuses an unknown codec in one line that lists the codecs', () => {
    expect(problemsOf({ KAFKA_COMPRESSION: 'brotli' })).toEqual([
      'KAFKA_COMPRESSION: must be one of none, gzip, snappy, lz4, zstd, got "brotli"',
    ]);
  });
});

describe('KAFKA_GROUP_PROTOCOL', () => {
  it('is classic by default; consumer on platformatic, with its assignor', () => {
    expect(streamOptions(loadConfig({ ...BASE })).groupProtocol).toBe('classic');
    const options = streamOptions(
      loadConfig({ ...BASE, KAFKA_CLIENT: 'platformatic', KAFKA_GROUP_PROTOCOL: 'consumer', KAFKA_GROUP_REMOTE_ASSIGNOR: 'range' }),
    );
    expect(options.groupProtocol).toBe('consumer');
    expect(options.groupRemoteAssignor).toBe('range');
  });

  it('refuses consumer on kafkajs, which has only the classic protocol', () => {
    expect(problemsOf({ KAFKA_CLIENT: 'kafkajs', KAFKA_GROUP_PROTOCOL: 'consumer' })).toEqual([
      'KAFKA_GROUP_PROTOCOL: consumer (KIP-848) needs KAFKA_CLIENT=platformatic (kafkajs has only the classic protocol)',
    ]);
  });

  it('refuses an unknown protocol, and an assignor without the consumer protocol', () => {
    expect(problemsOf({ KAFKA_CLIENT: 'platformatic', KAFKA_GROUP_PROTOCOL: 'cooperative' })).toEqual([
      'KAFKA_GROUP_PROTOCOL: must be one of classic, consumer, got "cooperative"',
    ]);
    expect(problemsOf({ KAFKA_CLIENT: 'platformatic', KAFKA_GROUP_REMOTE_ASSIGNOR: 'uniform' })).toEqual([
      'KAFKA_GROUP_REMOTE_ASSIGNOR: needs KAFKA_GROUP_PROTOCOL=consumer (the classic protocol assigns on the client)',
    ]);
  });
});
