/**
 * Every environment variable the worker reads, once: its kind, default, bounds and meaning. The loader
 * (config.ts), README's configuration table (`npm run docs:settings`) and the chart's check
 * (scripts/check-deploy.sh) all read this table, so a default or a bound is written in one place.
 */
import { DEFAULT_MAX_OUTPUT_BYTES } from '../core/records/output.js';
import { DEFAULT_RECORD_LIMITS, MAX_CONFIGURABLE_DEPTH, MAX_CONFIGURABLE_RECORD_BYTES } from '../core/records/bytes.js';
import { DEFAULT_NORMALIZE_OPTIONS, MAX_CONFIGURABLE_ENTITY_PASSES } from '../core/rule/normalize.js';
import { DEFAULT_SUBJECT_TEMPLATE } from '../core/schema/registry-document.js';

interface Described {
  /** One line for README's table (Markdown). */
  readonly description: string;
}

export type SettingSpec = Described &
  (
    | { readonly kind: 'int'; readonly default: number; readonly min: number; readonly max: number }
    | { readonly kind: 'bool'; readonly default: boolean }
    | { readonly kind: 'string'; readonly default: string | undefined; readonly defaultText?: string }
    | { readonly kind: 'topic'; readonly default: string }
    | { readonly kind: 'list'; readonly default: readonly string[] | undefined }
    | { readonly kind: 'enum'; readonly values: readonly string[]; readonly default: string | undefined }
    | { readonly kind: 'url'; readonly default: undefined }
    | { readonly kind: 'file'; readonly default: undefined }
    | { readonly kind: 'secret'; readonly default: undefined }
  );

const int = (value: number, min: number, max: number, description: string) =>
  ({ kind: 'int', default: value, min, max, description }) as const;
const bool = (value: boolean, description: string) => ({ kind: 'bool', default: value, description }) as const;
const topic = (value: string, description: string) => ({ kind: 'topic', default: value, description }) as const;
const secret = (description: string) => ({ kind: 'secret', default: undefined, description }) as const;
const file = (description: string) => ({ kind: 'file', default: undefined, description }) as const;

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export const DELIVERIES = ['exactly-once', 'at-least-once'] as const;
export const KAFKA_CLIENTS = ['kafkajs', 'platformatic'] as const;
/** The client a worker runs on without KAFKA_CLIENT; the tests' default too, so flipping it is this one line. */
export const DEFAULT_KAFKA_CLIENT: (typeof KAFKA_CLIENTS)[number] = 'kafkajs';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MIB = 1024 * 1024;
const DAY_MS = 86_400_000;

/** In README's order. Settings without a default (`undefined`) are optional unless marked `(required)` by the loader. */
export const SETTINGS = {
  KAFKA_BROKERS: {
    kind: 'list',
    default: undefined,
    description: '`host:port,host:port`, no empty entries (errors never show what comes before an `@`)',
  },
  SCHEMA_REGISTRY_URL: {
    kind: 'url',
    default: undefined,
    description: 'Confluent-compatible API base, e.g. `http://registry:8080/apis/ccompat/v7`, without a query or fragment',
  },
  SCHEMA_REGISTRY_USERNAME: secret('registry basic auth user; with `SCHEMA_REGISTRY_PASSWORD`: both or neither'),
  SCHEMA_REGISTRY_PASSWORD: secret('registry basic auth password; with `SCHEMA_REGISTRY_USERNAME`: both or neither'),
  INPUT_TOPIC: topic('tool-calls.raw', 'raw tool calls (plain JSON or registry wire format)'),
  OUTPUT_TOPIC: topic('tool-calls.normalized', 'valid calls'),
  REJECTED_TOPIC: topic('tool-calls.rejected', 'invalid calls with their errors and the raw call'),
  DLQ_TOPIC: topic('tool-calls.dlq', 'records that cannot be processed, unchanged'),
  GROUP_ID: { kind: 'string', default: 'toolcall-normalizer', description: 'consumer group; scale out by adding workers to it' },
  DELIVERY: {
    kind: 'enum',
    values: DELIVERIES,
    default: 'exactly-once',
    description: 'delivery guarantee (see [Delivery guarantees](worker.md#delivery-guarantees))',
  },
  TRANSACTIONAL_ID_PREFIX: {
    kind: 'string',
    default: undefined,
    defaultText: '`GROUP_ID`',
    description: 'transactional ids are `<prefix>-<topic>-<partition>` (kafkajs) or `<prefix>-<WORKER_ID>` (platformatic)',
  },
  WORKER_ID: {
    kind: 'string',
    default: undefined,
    defaultText: '`<hostname>-<pid>`',
    description:
      "this worker's slot: unique among live workers, stable across its restarts where the platform gives one (the chart sets " +
      'the pod name); on platformatic the transactional id is `<prefix>-<WORKER_ID>`, so two live workers must never share it',
  },
  CREATE_TOPICS: bool(true, 'create missing topics at start (broker defaults for partitions/replicas)'),
  KAFKA_CLIENT: {
    kind: 'enum',
    values: KAFKA_CLIENTS,
    default: DEFAULT_KAFKA_CLIENT,
    description: '`kafkajs` or `platformatic` (`@platformatic/kafka` 2.x); see [Delivery guarantees](worker.md#delivery-guarantees)',
  },
  KAFKA_GROUP_INSTANCE_ID: {
    kind: 'string',
    default: undefined,
    description:
      'static group membership (KIP-345), platformatic only (refused with kafkajs): a restarted member keeps its partitions ' +
      'without waiting out the session; only with identities that are stable and unique per slot',
  },
  KAFKA_CLIENT_ID: { kind: 'string', default: 'toolcall-normalizer', description: 'client id the brokers see' },
  KAFKA_SSL: bool(false, 'TLS to the brokers'),
  KAFKA_SSL_CA_FILE: file("PEM file of the CA that signed the brokers' certificates (with `KAFKA_SSL`)"),
  KAFKA_SSL_CERT_FILE: file('PEM client certificate, for mutual TLS (with `KAFKA_SSL`)'),
  KAFKA_SSL_KEY_FILE: file('PEM key of the client certificate (with `KAFKA_SSL`)'),
  KAFKA_SSL_REJECT_UNAUTHORIZED: bool(true, 'refuse brokers whose certificate does not verify (with `KAFKA_SSL`)'),
  KAFKA_SASL_MECHANISM: {
    kind: 'enum',
    values: SASL_MECHANISMS,
    default: undefined,
    description: 'SASL authentication, with `KAFKA_SASL_USERNAME` and `KAFKA_SASL_PASSWORD` (credentials without a mechanism are refused)',
  },
  KAFKA_SASL_USERNAME: secret('SASL user (with `KAFKA_SASL_MECHANISM`)'),
  KAFKA_SASL_PASSWORD: secret('SASL password (with `KAFKA_SASL_MECHANISM`)'),
  KAFKA_CONNECTION_TIMEOUT_MS: int(10_000, 100, 300_000, 'connecting to a broker'),
  // 6 s is the broker's default group.min.session.timeout.ms.
  KAFKA_SESSION_TIMEOUT_MS: int(30_000, 6_000, 300_000, 'consumer group session: how long a dead worker keeps its partitions'),
  KAFKA_FETCH_MAX_WAIT_MS: int(1_000, 10, 30_000, 'longest a fetch waits for data; also how soon a paused partition is fetched again'),
  SUBJECT_TEMPLATE: {
    kind: 'string',
    default: DEFAULT_SUBJECT_TEMPLATE,
    description: "registry subject of a tool's input schema; `{tool}` exactly once",
  },
  REGISTRY_TIMEOUT_MS: int(
    5_000,
    100,
    120_000,
    'per request; `REGISTRY_TIMEOUT_MS` x (`REGISTRY_MAX_RETRIES` + 1) must be below `KAFKA_SESSION_TIMEOUT_MS`, as the consumer ' +
      'cannot heartbeat in the middle of one lookup',
  ),
  REGISTRY_CACHE_TTL_MS: int(300_000, 0, DAY_MS, 'how long a fetched schema is used before it is fetched again'),
  REGISTRY_NEGATIVE_TTL_MS: int(30_000, 0, DAY_MS, 'how long "no such tool" is remembered'),
  REGISTRY_MAX_RETRIES: int(2, 0, 10, 'retries of transient failures (timeouts, network, 408/425/429/5xx)'),
  MAX_BACKOFF_MS: int(30_000, 10, 600_000, 'longest pause of a partition waiting for the registry'),
  MAX_RECORD_BYTES: int(
    DEFAULT_RECORD_LIMITS.maxRecordBytes,
    1,
    MAX_CONFIGURABLE_RECORD_BYTES,
    'largest input record (see [Limits](rule.md#limits))',
  ),
  MAX_DEPTH: int(
    DEFAULT_RECORD_LIMITS.maxDepth,
    1,
    MAX_CONFIGURABLE_DEPTH,
    'deepest nesting of arrays/objects (see [Limits](rule.md#limits))',
  ),
  MAX_ENTITY_PASSES: int(
    DEFAULT_NORMALIZE_OPTIONS.maxEntityPasses,
    1,
    MAX_CONFIGURABLE_ENTITY_PASSES,
    'bound on entity-decoding passes per string (see [Limits](rule.md#limits))',
  ),
  MAX_OUTPUT_BYTES: int(
    DEFAULT_MAX_OUTPUT_BYTES,
    1024,
    256 * MIB,
    "largest output value; keep it under the output topics' `max.message.bytes` (see [Limits](rule.md#limits))",
  ),
  NORMALIZE_DEEP: bool(false, 'beyond the rule: deep mode'),
  ENTITY_EXEMPT: { kind: 'list', default: [], description: 'beyond the rule: `tool` or `tool/parameter`, comma-separated' },
  METRICS_PORT: int(9464, 0, 65_535, 'HTTP port of `/metrics`, `/livez`, `/readyz`'),
  METRICS_TOOL_LABELS: {
    kind: 'list',
    default: [],
    description: 'allow-list of tool label values (default: tools the registry knows, first 100, then `other`)',
  },
  SHUTDOWN_TIMEOUT_MS: int(25_000, 1_000, 600_000, 'bound on a graceful shutdown'),
  LOG_LEVEL: { kind: 'enum', values: LOG_LEVELS, default: 'info', description: 'JSON logs (pino) on stdout; secrets are never logged' },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
export type SettingOfKind<K extends SettingSpec['kind']> = {
  [N in SettingName]: (typeof SETTINGS)[N]['kind'] extends K ? N : never;
}[SettingName];

/** The default as README shows it. */
export function defaultText(spec: SettingSpec): string {
  if ('defaultText' in spec) return spec.defaultText;
  if (spec.default === undefined) return spec.kind === 'list' || spec.kind === 'url' ? '(required)' : '';
  if (Array.isArray(spec.default)) return spec.default.length === 0 ? '' : `\`${spec.default.join(',')}\``;
  return `\`${String(spec.default)}\``;
}

/** The values a setting accepts, as README shows them. */
export function rangeText(spec: SettingSpec): string {
  switch (spec.kind) {
    case 'int':
      return `${spec.min} to ${spec.max}`;
    case 'bool':
      return '`true` or `false`';
    case 'enum':
      return spec.values.map((value) => `\`${value}\``).join(', ');
    case 'list':
      return 'comma-separated';
    case 'topic':
      return 'a topic name';
    case 'url':
      return 'an http(s) URL';
    case 'file':
      return 'a file path';
    case 'secret':
      return 'a secret (never logged)';
    case 'string':
      return '';
  }
}

/** README's configuration table, rendered from {@link SETTINGS}. */
export function settingsMarkdownTable(): string {
  const rows = Object.entries(SETTINGS).map(
    ([name, spec]: [string, SettingSpec]) => `| \`${name}\` | ${defaultText(spec)} | ${rangeText(spec)} | ${spec.description} |`,
  );
  return ['| variable | default | accepts | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
