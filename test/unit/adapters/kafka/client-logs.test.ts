/**
 * kafkajs's own log lines as the worker's logger gets them (src/adapters/kafka/client.ts): what kafkajs retries or
 * restarts from by itself, and its repeats of a crash the worker logs from the crash event, go below error; any
 * other error stays an error.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createKafka } from '../../../../src/adapters/kafka/client.js';
import { kafkaConnection } from '../../../../src/adapters/kafka/connection.js';
import { loadConfig } from '../../../../src/config/config.js';

function kafkajsLogger(): { log: ReturnType<ReturnType<typeof createKafka>['logger']>; levels: () => Map<string, number> } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level: 'trace' }, stream);
  const config = loadConfig({ KAFKA_BROKERS: '127.0.0.1:9', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9' });
  const kafka = createKafka(kafkaConnection(config.kafka), logger);
  return {
    log: kafka.logger(),
    levels: () =>
      new Map(
        lines
          .join('')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { msg: string; level: number })
          .map((l) => [l.msg, l.level]),
      ),
  };
}

describe("kafkajs's error lines", () => {
  it('go to debug when kafkajs gets past them by itself or repeats a crash the worker logs', () => {
    const { log, levels } = kafkajsLogger();
    log.error('Crash: KafkaJSNoBrokerAvailableError: No broker available', { groupId: 'g' });
    log.error('Restarting the consumer in 300ms', { retryTime: 300, groupId: 'g' });
    log.error('Response Heartbeat(key: 12, version: 3)', { error: 'The coordinator is not aware of this member' });
    log.error('The coordinator is not aware of this member, re-joining the group', { groupId: 'g' });
    log.error('Response GroupCoordinator(key: 10, version: 2)', { error: "The coordinator is loading and hence can't process requests" });
    log.error('Connection error: write after end', { stack: 'Error [ERR_STREAM_WRITE_AFTER_END]: write after end' });
    expect([...levels().values()]).toEqual([20, 20, 20, 20, 20, 20]);
  });

  it('stay errors otherwise, near misses included', () => {
    const { log, levels } = kafkajsLogger();
    log.error('Connection error: connect ECONNREFUSED 127.0.0.1:9', { broker: '127.0.0.1:9' });
    log.error('Response Produce(key: 0, version: 7)', { error: 'The server experienced an unexpected error when processing the request' });
    log.error('Restarting the consumer soon', {});
    log.error('Consumer Crash: something', {});
    log.error('Connection error: read ECONNRESET', { broker: '127.0.0.1:9' });
    expect([...levels().values()]).toEqual([50, 50, 50, 50, 50]);
  });
});
