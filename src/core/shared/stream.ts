/**
 * The names the worker's stream shares across config, adapters and tests: which Kafka client carries it, the
 * delivery guarantee, and its four topics. Declared once here, the lowest layer every part may import.
 */

export const KAFKA_CLIENTS = ['kafkajs', 'platformatic'] as const;
export type KafkaClientName = (typeof KAFKA_CLIENTS)[number];

export const DELIVERIES = ['exactly-once', 'at-least-once'] as const;
export type Delivery = (typeof DELIVERIES)[number];

/** Producer compression of every output (Kafka's `compression.type`); input is read whatever its codec. */
export const COMPRESSIONS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type Compression = (typeof COMPRESSIONS)[number];

/** The consumer group protocol: `classic` (JoinGroup/SyncGroup) or `consumer` (KIP-848, broker-driven assignment). */
export const GROUP_PROTOCOLS = ['classic', 'consumer'] as const;
export type GroupProtocol = (typeof GROUP_PROTOCOLS)[number];

/** The broker-side assignors of the `consumer` protocol (`group.consumer.assignors`). */
export const GROUP_REMOTE_ASSIGNORS = ['uniform', 'range'] as const;
export type GroupRemoteAssignor = (typeof GROUP_REMOTE_ASSIGNORS)[number];

/** The worker's topics: what it reads, and where each disposition of an output goes. */
export interface StreamTopics {
  readonly input: string;
  readonly output: string;
  readonly rejected: string;
  readonly dlq: string;
}

/** KAFKA_OAUTH_*: what the OAUTHBEARER token source (src/adapters/kafka/oauth.ts) needs. */
export interface OAuthClientSettings {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string | undefined;
  readonly audience: string | undefined;
  /** Per token request. */
  readonly timeoutMs: number;
  /** Retries of the first token request (transient failures only). */
  readonly maxRetries: number;
}
