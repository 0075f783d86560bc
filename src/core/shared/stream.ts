/**
 * The names the worker's stream shares across config, adapters and tests: which Kafka client carries it, the
 * delivery guarantee, and its four topics. Declared once here, the lowest layer every part may import.
 */

export const KAFKA_CLIENTS = ['kafkajs', 'platformatic'] as const;
export type KafkaClientName = (typeof KAFKA_CLIENTS)[number];

export const DELIVERIES = ['exactly-once', 'at-least-once'] as const;
export type Delivery = (typeof DELIVERIES)[number];

/** The worker's topics: what it reads, and where each disposition of an output goes. */
export interface StreamTopics {
  readonly input: string;
  readonly output: string;
  readonly rejected: string;
  readonly dlq: string;
}
