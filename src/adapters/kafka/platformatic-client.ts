/**
 * How the @platformatic/kafka clients are made: connection options (TLS, SASL, retries), the partitioner, and the
 * one change to the client's API choice that transactions of an ordinary user need.
 */
import type { BaseOptions, MessageToProduce, SASLMechanismValue } from '@platformatic/kafka';
import { BACKOFF_POLICIES, backoffDelay } from '../shared/retry.js';
import type { KafkaConnectionOptions } from './client.js';
import { murmur2 } from './delivery.js';

export type OutMessage = MessageToProduce<Buffer, Buffer, Buffer | string>;

/** The client's `retryDelay`: its attempts count from 1. */
function retryDelay(_client: unknown, _operation: string, attempt: number): number {
  return backoffDelay(BACKOFF_POLICIES.platformaticRequest, Math.max(0, attempt - 1));
}

/**
 * The Java client's partitioner on our murmur2 (the one kafkajs is given too): the same key lands on the same
 * partition on both clients. The client takes the result modulo the topic's partition count; keyless records
 * go round the partitions.
 */
export function platformaticPartitioner(): (message: OutMessage, key: Buffer | undefined) => number {
  let next = 0;
  return (_message, key) => (Buffer.isBuffer(key) ? murmur2(key) & 0x7fffffff : next++);
}

export function platformaticBaseOptions(connection: KafkaConnectionOptions): BaseOptions {
  const options: BaseOptions = {
    clientId: connection.clientId,
    bootstrapBrokers: [...connection.brokers],
    connectTimeout: connection.connectionTimeoutMs,
    retries: 8,
    retryDelay,
  };
  if (connection.ssl !== false) options.tls = { ...connection.ssl };
  const sasl = connection.sasl;
  if (sasl?.mechanism === 'oauthbearer') {
    options.sasl = { mechanism: 'OAUTHBEARER', token: () => sasl.token() };
  } else if (sasl !== undefined) {
    options.sasl = {
      mechanism: sasl.mechanism.toUpperCase() as SASLMechanismValue,
      username: sasl.username,
      password: sasl.password,
    };
  }
  return options;
}

/**
 * AddPartitionsToTxn v4 and above are the brokers' own (KIP-890 batches): a broker with an authorizer answers them
 * CLUSTER_AUTHORIZATION_FAILED unless the principal may ClusterAction, so every transaction of an ordinary user
 * fails. The client takes the highest version the broker lists; the list it keeps is capped at v3, the client
 * version (as the Java client sends). False when the client's internals are not where 2.x keeps them.
 */
export function capAddPartitionsToTxn(client: object): boolean {
  const key = Object.getOwnPropertySymbols(client).find((s) => s.description === 'plt.kafka.base.apis');
  if (key === undefined || !Array.isArray(Reflect.get(client, key))) return false;
  type Api = { name?: unknown; maxVersion?: unknown };
  const capped = (list: unknown): unknown =>
    Array.isArray(list)
      ? (list as Api[]).map((api) =>
          api.name === 'AddPartitionsToTxn' && typeof api.maxVersion === 'number' && api.maxVersion > 3 ? { ...api, maxVersion: 3 } : api,
        )
      : list;
  let apis = capped(Reflect.get(client, key));
  Object.defineProperty(client, key, {
    configurable: true,
    get: () => apis,
    set: (value: unknown) => {
      apis = capped(value);
    },
  });
  return true;
}

/** Waits for `work` at most `ms`; its failure goes to `onError` (ignored by default), never thrown. */
export async function within(work: Promise<unknown>, ms: number, onError: (error: unknown) => void = () => undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.then(() => undefined, onError), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
