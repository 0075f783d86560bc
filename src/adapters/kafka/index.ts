/**
 * The Kafka port's implementations, chosen by name (KAFKA_CLIENT). Each is imported only when chosen: loading
 * @platformatic/kafka (its option validators compile at import) is start-up time a kafkajs worker need not pay.
 */
import type { Logger } from 'pino';
import type { KafkaConnectionOptions } from './client.js';
import type { DeliveryObserver, KafkaClientName, KafkaStream, StreamOptions } from './port.js';

export async function createKafkaStream(
  client: KafkaClientName,
  connection: KafkaConnectionOptions,
  options: StreamOptions,
  observer: DeliveryObserver,
  logger: Logger,
): Promise<KafkaStream> {
  if (client === 'platformatic') {
    const { PlatformaticStream } = await import('./platformatic.js');
    return new PlatformaticStream({ options, connection, observer, logger: logger.child({ component: 'platformatic-kafka' }) });
  }
  const [{ createKafka }, { KafkajsStream }] = await Promise.all([import('./client.js'), import('./kafkajs.js')]);
  return new KafkajsStream({ options, kafka: createKafka(connection, logger), observer, logger });
}
