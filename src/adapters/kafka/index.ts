/** The Kafka port's implementations, chosen by name (KAFKA_CLIENT). */
import type { Logger } from 'pino';
import { createKafka, type KafkaConnectionOptions } from './client.js';
import { KafkajsStream } from './kafkajs.js';
import { PlatformaticStream } from './platformatic.js';
import type { DeliveryObserver, KafkaClientName, KafkaStream, StreamOptions } from './port.js';

export function createKafkaStream(client: KafkaClientName, connection: KafkaConnectionOptions, options: StreamOptions, observer: DeliveryObserver, logger: Logger): KafkaStream {
  if (client === 'platformatic') return new PlatformaticStream({ options, connection, observer, logger: logger.child({ component: 'platformatic-kafka' }) });
  return new KafkajsStream({ options, kafka: createKafka(connection, logger), observer, logger });
}
