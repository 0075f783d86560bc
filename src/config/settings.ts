/**
 * Every environment variable the worker reads, once: its kind, default, bounds and meaning. The loader
 * (config.ts), the configuration table (docs/configuration.md) (`npm run docs:settings`) and the chart's check
 * (scripts/check-deploy.sh) all read this table, so a default or a bound is written in one place. The pipeline's
 * settings come from the core's table (src/core/records/settings.ts), which the CLI's flags and the library's
 * options share: here they get their environment variable, and {@link settingFlag} names their flag.
 */
import { DEFAULT_MAX_OUTPUT_BYTES } from '../core/records/output.js';
import { PIPELINE_SETTINGS, type PipelineSettingName } from '../core/records/settings.js';
import { DEFAULT_SUBJECT_TEMPLATE } from '../core/schema/registry-document.js';
import { OTEL_PROTOCOLS, OTEL_SAMPLERS, OTEL_TRACES_EXPORTERS } from '../core/shared/tracing.js';
import {
  COMPRESSIONS,
  DELIVERIES,
  GROUP_PROTOCOLS,
  GROUP_REMOTE_ASSIGNORS,
  KAFKA_CLIENTS,
  type KafkaClientName,
} from '../core/shared/stream.js';

interface Described {
  /** One line for the configuration table (Markdown). */
  readonly description: string;
  /** A pipeline setting's library option (its flag is {@link settingFlag} of it). */
  readonly option?: PipelineSettingName;
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

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'] as const;
export { DELIVERIES, KAFKA_CLIENTS };
/** The client a worker runs on without KAFKA_CLIENT; the tests' default too, so flipping it is this one line. */
export const DEFAULT_KAFKA_CLIENT: KafkaClientName = 'kafkajs';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MIB = 1024 * 1024;

/** The environment variable of each pipeline setting. */
export const PIPELINE_ENV = {
  maxRecordBytes: 'MAX_RECORD_BYTES',
  maxDepth: 'MAX_DEPTH',
  maxEntityPasses: 'MAX_ENTITY_PASSES',
  deep: 'NORMALIZE_DEEP',
  entityExempt: 'ENTITY_EXEMPT',
} as const satisfies Record<PipelineSettingName, string>;

/** The command-line flag of a pipeline setting: its name in kebab case (`maxRecordBytes` is `--max-record-bytes`). */
export function settingFlag(name: PipelineSettingName): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** A pipeline setting's row of the environment table, from the core's table. */
function pipeline<N extends PipelineSettingName>(name: N): (typeof PIPELINE_SETTINGS)[N] & { readonly option: N } {
  return { ...PIPELINE_SETTINGS[name], option: name };
}
const DAY_MS = 86_400_000;

/** In the configuration table's order. Settings without a default (`undefined`) are optional unless marked `(required)` by the loader. */
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
  KAFKA_COMPRESSION: {
    kind: 'enum',
    values: COMPRESSIONS,
    default: 'none',
    description: 'codec of every output batch, both clients (see [Compression](worker.md#compression)); input is read whatever its codec',
  },
  KAFKA_GROUP_PROTOCOL: {
    kind: 'enum',
    values: GROUP_PROTOCOLS,
    default: 'classic',
    description:
      '`consumer` is KIP-848 (broker-driven, incremental assignment; Kafka 4.0+), platformatic only (refused with kafkajs); ' +
      'see [Group protocol](worker.md#group-protocol)',
  },
  KAFKA_GROUP_REMOTE_ASSIGNOR: {
    kind: 'enum',
    values: GROUP_REMOTE_ASSIGNORS,
    default: undefined,
    description: "the broker-side assignor of the `consumer` protocol (default: the broker's first in `group.consumer.assignors`)",
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
    description:
      'SASL authentication: `plain` and `scram-*` with `KAFKA_SASL_USERNAME` and `KAFKA_SASL_PASSWORD` (credentials without a ' +
      'mechanism are refused); `oauthbearer` with the `KAFKA_OAUTH_*` settings (see [Security](security.md#oauthbearer))',
  },
  KAFKA_SASL_USERNAME: secret('SASL user (with `KAFKA_SASL_MECHANISM` `plain` or `scram-*`)'),
  KAFKA_SASL_PASSWORD: secret('SASL password (with `KAFKA_SASL_MECHANISM` `plain` or `scram-*`)'),
  KAFKA_OAUTH_TOKEN_URL: {
    kind: 'string',
    default: undefined,
    description:
      'OIDC token endpoint for `oauthbearer` (required with it): `https://`, or `http://` only to a loopback host; tokens by the ' +
      'client credentials grant, refreshed at 80% of their lifetime',
  },
  KAFKA_OAUTH_CLIENT_ID: { kind: 'string', default: undefined, description: 'OAuth client id (required with `oauthbearer`)' },
  KAFKA_OAUTH_CLIENT_SECRET_FILE: file(
    'file holding the OAuth client secret (required with `oauthbearer`; a trailing newline is dropped; the chart mounts it from a Secret)',
  ),
  KAFKA_OAUTH_SCOPE: { kind: 'string', default: undefined, description: 'space-separated scopes to ask for (with `oauthbearer`)' },
  KAFKA_OAUTH_AUDIENCE: {
    kind: 'string',
    default: undefined,
    description: '`audience` parameter of the token request, for providers that want one (with `oauthbearer`)',
  },
  KAFKA_OAUTH_TIMEOUT_MS: int(10_000, 100, 120_000, 'per token request (with `oauthbearer`)'),
  KAFKA_OAUTH_MAX_RETRIES: int(
    10,
    0,
    100,
    'retries of the first token at start (network errors, timeouts, 408/425/429/5xx; backoff 0.5 s doubling to 30 s); a refused ' +
      'secret is not retried',
  ),
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
  [PIPELINE_ENV.maxRecordBytes]: pipeline('maxRecordBytes'),
  [PIPELINE_ENV.maxDepth]: pipeline('maxDepth'),
  [PIPELINE_ENV.maxEntityPasses]: pipeline('maxEntityPasses'),
  MAX_OUTPUT_BYTES: int(
    DEFAULT_MAX_OUTPUT_BYTES,
    1024,
    256 * MIB,
    "largest output value; keep it under the output topics' `max.message.bytes` (see [Limits](rule.md#limits))",
  ),
  [PIPELINE_ENV.deep]: pipeline('deep'),
  [PIPELINE_ENV.entityExempt]: pipeline('entityExempt'),
  METRICS_PORT: int(9464, 0, 65_535, 'HTTP port of `/metrics`, `/livez`, `/readyz`'),
  METRICS_TOOL_LABELS: {
    kind: 'list',
    default: [],
    description: 'allow-list of tool label values (default: tools the registry knows, first 100, then `other`)',
  },
  SHUTDOWN_TIMEOUT_MS: int(25_000, 1_000, 600_000, 'bound on a graceful shutdown'),
  LOG_LEVEL: { kind: 'enum', values: LOG_LEVELS, default: 'info', description: 'JSON logs (pino) on stdout; secrets are never logged' },
  // OpenTelemetry's standard variables (docs/tracing.md); only those the worker honours are read.
  OTEL_SDK_DISABLED: bool(false, 'turns tracing off whatever else is set'),
  OTEL_TRACES_EXPORTER: {
    kind: 'enum',
    values: OTEL_TRACES_EXPORTERS,
    default: undefined,
    description: 'span exporter; unset: `otlp` when an OTLP endpoint is set, else tracing is off (no SDK is loaded)',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    kind: 'string',
    default: undefined,
    description: 'OTLP/HTTP base URL (`/v1/traces` is appended), e.g. `http://otel-collector:4318`; setting it turns tracing on',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    kind: 'string',
    default: undefined,
    description: 'OTLP/HTTP traces URL, used as is; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`',
  },
  OTEL_EXPORTER_OTLP_PROTOCOL: {
    kind: 'enum',
    values: OTEL_PROTOCOLS,
    default: 'http/protobuf',
    description: 'OTLP over HTTP with protobuf (port 4318), over HTTP with JSON, or `grpc` (port 4317)',
  },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: {
    kind: 'enum',
    values: OTEL_PROTOCOLS,
    default: undefined,
    description: 'as `OTEL_EXPORTER_OTLP_PROTOCOL` (its default), for traces only',
  },
  OTEL_EXPORTER_OTLP_HEADERS: secret('headers sent with each export, `key=value,key=value` (values URL-encoded), e.g. an API key'),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: secret('as `OTEL_EXPORTER_OTLP_HEADERS`, for traces only (added to them, winning on a name)'),
  OTEL_EXPORTER_OTLP_TIMEOUT: int(10_000, 100, 120_000, 'bound on one export request, in ms'),
  OTEL_SERVICE_NAME: { kind: 'string', default: 'toolcall-normalizer', description: 'the `service.name` resource attribute' },
  OTEL_RESOURCE_ATTRIBUTES: {
    kind: 'string',
    default: undefined,
    description: 'more resource attributes, `key=value,key=value` (values URL-encoded), e.g. `deployment.environment.name=prod`',
  },
  OTEL_TRACES_SAMPLER: {
    kind: 'enum',
    values: OTEL_SAMPLERS,
    default: 'parentbased_always_on',
    description: "which calls are traced; the `parentbased_` ones follow the incoming `traceparent`'s sampled flag",
  },
  OTEL_TRACES_SAMPLER_ARG: {
    kind: 'string',
    default: undefined,
    defaultText: '`1.0`',
    description: 'the ratio of the `traceidratio` samplers, from 0 to 1 (`0.01`: one trace in a hundred)',
  },
  OTEL_BSP_MAX_QUEUE_SIZE: int(2048, 1, 1_000_000, 'spans waiting for export; past it new spans are dropped and counted'),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: int(512, 1, 1_000_000, 'spans per export request; at most `OTEL_BSP_MAX_QUEUE_SIZE`'),
  OTEL_BSP_SCHEDULE_DELAY: int(5_000, 0, 600_000, 'ms between two exports'),
  OTEL_BSP_EXPORT_TIMEOUT: int(30_000, 100, 600_000, 'bound on one export, retries included, in ms'),
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
export type SettingOfKind<K extends SettingSpec['kind']> = {
  [N in SettingName]: (typeof SETTINGS)[N]['kind'] extends K ? N : never;
}[SettingName];

/** The default as the configuration table shows it. */
export function defaultText(spec: SettingSpec): string {
  if ('defaultText' in spec) return spec.defaultText;
  if (spec.default === undefined) return spec.kind === 'list' || spec.kind === 'url' ? '(required)' : '';
  if (Array.isArray(spec.default)) return spec.default.length === 0 ? '' : `\`${spec.default.join(',')}\``;
  return `\`${String(spec.default)}\``;
}

/** The values a setting accepts, as the configuration table shows them. */
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

/** the configuration table (docs/configuration.md), rendered from {@link SETTINGS}. */
export function settingsMarkdownTable(): string {
  const rows = Object.entries(SETTINGS).map(([name, spec]: [string, SettingSpec]) => {
    const elsewhere = spec.option === undefined ? '' : `; flag \`--${settingFlag(spec.option)}\`, library option \`${spec.option}\``;
    return `| \`${name}\` | ${defaultText(spec)} | ${rangeText(spec)} | ${spec.description}${elsewhere} |`;
  });
  return ['| variable | default | accepts | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
