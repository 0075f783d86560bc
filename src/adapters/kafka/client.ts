/**
 * The kafkajs client, built from configuration, with kafkajs's own logs routed into our structured logger.
 */
import { Kafka, logLevel as KafkaLogLevel, type KafkaConfig, type LogEntry, type SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import { patchKafkajsAbortedFilter } from './kafkajs-aborted.js';
import { registerKafkajsCodecs } from './compression.js';
import { patchKafkajsReauthentication } from './kafkajs-reauth.js';
import { patchKafkajsRequestQueue } from './kafkajs-request-queue.js';

/** What the client needs to reach the brokers; the worker's configuration satisfies it as it is. */
export interface KafkaConnectionOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly ssl: false | { readonly ca?: string; readonly cert?: string; readonly key?: string; readonly rejectUnauthorized: boolean };
  readonly sasl: PasswordSaslOptions | OAuthBearerSaslOptions | undefined;
  readonly connectionTimeoutMs: number;
}

export interface PasswordSaslOptions {
  readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  readonly username: string;
  readonly password: string;
}

/** OAUTHBEARER: `token` is asked on every (re-)authentication, so a refreshed token reaches the next one. */
export interface OAuthBearerSaslOptions {
  readonly mechanism: 'oauthbearer';
  readonly token: () => Promise<string>;
}

export function createKafka(config: KafkaConnectionOptions, logger: Logger): Kafka {
  patchKafkajsRequestQueue();
  patchKafkajsAbortedFilter();
  patchKafkajsReauthentication();
  registerKafkajsCodecs();
  const options: KafkaConfig = {
    clientId: config.clientId,
    brokers: [...config.brokers],
    connectionTimeout: config.connectionTimeoutMs,
    logLevel: KafkaLogLevel.INFO,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...extra } = entry.log;
      const log = logger.child({ component: 'kafkajs', namespace: entry.namespace });
      const fields = redact(extra);
      switch (entry.level) {
        case KafkaLogLevel.ERROR:
          // A protocol answer kafkajs retries (a coordinator loading or moving, a leader election) is not a failure;
          // its own lines on a consumer crash repeat the one the worker logs from the crash event (kafkajs.ts).
          if (isRetriedState(fields.error) || isRetriedState(message) || CRASH_LINES.test(message)) log.debug(fields, message);
          else log.error(fields, message);
          break;
        case KafkaLogLevel.WARN:
          log.warn(fields, message);
          break;
        case KafkaLogLevel.INFO:
          log.debug(fields, message); // kafkajs is chatty at INFO (joins, commits): keep it below our info
          break;
        default:
          log.trace(fields, message);
      }
    },
  };
  if (config.ssl !== false) options.ssl = { ...config.ssl };
  const sasl = config.sasl;
  if (sasl?.mechanism === 'oauthbearer') {
    options.sasl = { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: await sasl.token() }) };
  } else if (sasl !== undefined) options.sasl = { ...sasl } as SASLOptions;
  return new Kafka(options);
}

/**
 * The messages kafkajs logs at ERROR for broker answers it retries and gets past: on a fresh broker
 * "The coordinator is loading..." and "The group coordinator is not available" appear on every start.
 */
const RETRIED_STATES = [
  'The coordinator is loading',
  'The group coordinator is not available',
  'The coordinator is not available',
  'This is not the correct coordinator',
  'There is no leader for this topic-partition',
  'The group is rebalancing',
  'The broker is not available',
  // A member whose session ended (its heartbeats refused while it could not sign in) re-joins the group by itself.
  'The coordinator is not aware of this member',
  // kafkajs's in-band OAUTHBEARER re-authentication refused while requests were in flight: it reconnects and signs
  // in afresh (src/adapters/kafka/kafkajs-reauth.ts). The broker's answer, then kafkajs's lines for that error only.
  'Request is not valid given the current SASL state',
  'Failed to connect to broker, reconnecting',
  'Failed to connect to seed broker, trying another broker from the list: Request is not valid given the current SASL state',
  // A request written to a socket kafkajs itself ended (the broker closed it on a refused sign-in): the request is
  // rejected as a retriable connection error and sent again on a new connection.
  'Connection error: write after end',
];

/** kafkajs's "Crash: KafkaJSNoBrokerAvailableError: ..." and "Restarting the consumer in 300ms". */
const CRASH_LINES = /^(?:Crash: |Restarting the consumer in \d+ms$)/;

export function isRetriedState(error: unknown): boolean {
  return typeof error === 'string' && RETRIED_STATES.some((state) => error.startsWith(state));
}

/** kafkajs log payloads can carry broker config; never let a credential-looking field through. */
function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = /pass|secret|token|credential|sasl/i.test(key) ? '[redacted]' : value;
  }
  return out;
}
