/**
 * The Kafka clients' connection as every command opens it (the worker, redrive): the configured brokers, TLS and
 * SASL, and with OAUTHBEARER the token source that signs each (re-)authentication in, started before any client
 * connects and stopped with the command. No Kafka client is loaded here, so the worker pays only for the one it runs.
 */
import type { Logger } from 'pino';
import type { OAuthClientSettings } from '../../core/shared/stream.js';
import type { KafkaConnectionOptions, PasswordSaslOptions } from './client.js';
import { OAuthTokenSource } from './oauth.js';

/** The configuration of a connection: the worker's `kafka` settings satisfy it as they are. */
export interface KafkaConnectionSettings extends Omit<KafkaConnectionOptions, 'sasl'> {
  readonly sasl: PasswordSaslOptions | { readonly mechanism: 'oauthbearer'; readonly oauth: OAuthClientSettings } | undefined;
}

export interface KafkaConnection {
  readonly options: KafkaConnectionOptions;
  /** Stops refreshing the token (OAUTHBEARER); nothing to do otherwise. Idempotent. */
  stop(): void;
}

/** The clients' options: the settings, with OAUTHBEARER's replaced by the token source's tokens. */
export function kafkaConnection(settings: KafkaConnectionSettings, tokens?: Pick<OAuthTokenSource, 'token'>): KafkaConnectionOptions {
  const { sasl, ...rest } = settings;
  if (sasl?.mechanism !== 'oauthbearer') return { ...rest, sasl };
  if (tokens === undefined) throw new Error('KAFKA_SASL_MECHANISM=oauthbearer needs a token source');
  return { ...rest, sasl: { mechanism: 'oauthbearer', token: () => tokens.token() } };
}

/**
 * Opens the connection: with OAUTHBEARER, gets the first token (retried with backoff, each failure reported on
 * `logger`) and keeps it refreshed; throws {@link OAuthTokenError} with one line that says why when it cannot.
 */
export async function openKafkaConnection(settings: KafkaConnectionSettings, logger: Logger): Promise<KafkaConnection> {
  if (settings.sasl?.mechanism !== 'oauthbearer') return { options: kafkaConnection(settings), stop: () => undefined };
  const tokens = new OAuthTokenSource(settings.sasl.oauth, { logger });
  await tokens.start();
  return {
    options: kafkaConnection(settings, tokens),
    stop: () => {
      tokens.stop();
    },
  };
}
