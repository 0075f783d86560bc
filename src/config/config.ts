/**
 * The worker's configuration: read from the environment once, validated as a whole (every bad setting is
 * reported, not just the first), then frozen. This is the only module that reads `process.env` for the
 * worker; everything else receives a {@link WorkerConfig}.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { pipelineOptions, type PipelineOptions } from '../core/pipeline.js';
import { intWithin, settingViolation } from '../core/records/settings.js';
import type {
  Compression,
  Delivery,
  GroupProtocol,
  GroupRemoteAssignor,
  KafkaClientName,
  OAuthClientSettings,
  StreamTopics,
} from '../core/shared/stream.js';
import { forTerminal } from '../core/shared/text.js';
import { parseRegistryUrl, subjectTemplateProblem, TOOL_PLACEHOLDER } from '../core/schema/registry-document.js';
import type { TracingConfig } from '../core/shared/tracing.js';
import { redactUserinfo } from './secrets.js';
import { LOG_LEVELS, PIPELINE_ENV, SASL_MECHANISMS, SETTINGS, type SettingName, type SettingOfKind, type SettingSpec } from './settings.js';

export type { Delivery };
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];
export type PasswordSasl = {
  readonly mechanism: Exclude<SaslMechanism, 'oauthbearer'>;
  readonly username: string;
  readonly password: string;
};
export type OAuthSasl = { readonly mechanism: 'oauthbearer'; readonly oauth: OAuthClientSettings };

export interface WorkerConfig {
  readonly kafka: {
    /** Which Kafka client carries the worker (docs/worker.md "Delivery guarantees"): kafkajs or @platformatic/kafka. */
    readonly client: KafkaClientName;
    /** Static group membership (KIP-345), @platformatic/kafka only: a restarted member keeps its partitions. */
    readonly groupInstanceId: string | undefined;
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly ssl: false | { readonly ca?: string; readonly cert?: string; readonly key?: string; readonly rejectUnauthorized: boolean };
    readonly sasl: PasswordSasl | OAuthSasl | undefined;
    readonly connectionTimeoutMs: number;
    /** Consumer group session timeout: how long a dead worker keeps its partitions before the group moves them. */
    readonly sessionTimeoutMs: number;
    /** Longest a fetch waits for data; also how soon a resumed (paused) partition is fetched again. */
    readonly fetchMaxWaitMs: number;
    /** Codec of every output batch. */
    readonly compression: Compression;
    /** The consumer group protocol; `consumer` (KIP-848) on @platformatic/kafka only. */
    readonly groupProtocol: GroupProtocol;
    readonly groupRemoteAssignor: GroupRemoteAssignor | undefined;
  };
  readonly topics: StreamTopics;
  readonly groupId: string;
  readonly delivery: Delivery;
  /**
   * Prefix of the transactional ids: one per input partition on kafkajs (`<prefix>-<topic>-<partition>`), one per
   * worker on @platformatic/kafka (`<prefix>-<workerId>`).
   */
  readonly transactionalIdPrefix: string;
  /** This worker's slot: stable across its restarts (a StatefulSet pod name), unique among live workers. */
  readonly workerId: string;
  /** Create missing input/output topics at start (needs the Create ACL). */
  readonly createTopics: boolean;
  readonly registry: {
    readonly url: string;
    readonly username: string | undefined;
    readonly password: string | undefined;
    readonly subjectTemplate: string;
    readonly timeoutMs: number;
    readonly cacheTtlMs: number;
    readonly negativeTtlMs: number;
    readonly maxRetries: number;
  };
  readonly pipeline: PipelineOptions;
  /** Port of the HTTP server for /metrics, /livez and /readyz. */
  readonly httpPort: number;
  readonly shutdownTimeoutMs: number;
  /** Longest wait before retrying records whose schema could not be fetched (exponential backoff up to it). */
  readonly maxBackoffMs: number;
  /** Largest output value in UTF-8 bytes; larger outputs are dead-lettered (`output_too_large`). */
  readonly maxOutputBytes: number;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Tool-name label values kept as they are in metrics; others are reported as `other`. */
  readonly metricsToolLabels: readonly string[];
  /** Spans (docs/tracing.md), from the standard `OTEL_*` variables; undefined when no exporter is configured. */
  readonly tracing: TracingConfig | undefined;
}

export type { TracingConfig };

/** Every problem found, one per line; a problem quotes the value it found, escaped for a terminal ({@link forTerminal}). */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${forTerminal(p)}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * {@link loadConfig} for a command that talks to Kafka only (redrive): SCHEMA_REGISTRY_URL may be unset, every other
 * setting is read and checked as the worker reads it.
 */
export function loadKafkaConfig(env: Env = process.env): WorkerConfig {
  const placeholder = (env.SCHEMA_REGISTRY_URL ?? '').trim() === '' ? { SCHEMA_REGISTRY_URL: 'http://registry.invalid' } : {};
  return loadConfig({ ...env, ...placeholder });
}

/** Reads and validates the configuration; throws {@link ConfigError} listing every problem. */
export function loadConfig(env: Env = process.env, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): WorkerConfig {
  const problems: string[] = [];
  const read = new Reader(env, problems);

  const brokers = read.list('KAFKA_BROKERS', { emptyEntries: 'refuse' });
  for (const broker of brokers) {
    // An entry may carry userinfo (`user:password@host:port`): never quote what comes before the last `@`.
    if (!/^[^\s:/]+:\d{1,5}$/.test(broker)) problems.push(`KAFKA_BROKERS: "${redactUserinfo(broker)}" is not host:port`);
  }
  const registryUrl = read.url('SCHEMA_REGISTRY_URL');

  const sslEnabled = read.bool('KAFKA_SSL');
  const file = (name: SettingOfKind<'file'>): string | undefined => {
    const path = read.optional(name);
    if (path === undefined) return undefined;
    try {
      return readFile(path);
    } catch (error) {
      problems.push(`${name}: cannot read "${path}" (${error instanceof Error ? error.message : String(error)})`);
      return undefined;
    }
  };
  const ssl: WorkerConfig['kafka']['ssl'] = sslEnabled
    ? {
        ...optionalField('ca', file('KAFKA_SSL_CA_FILE')),
        ...optionalField('cert', file('KAFKA_SSL_CERT_FILE')),
        ...optionalField('key', file('KAFKA_SSL_KEY_FILE')),
        rejectUnauthorized: read.bool('KAFKA_SSL_REJECT_UNAUTHORIZED'),
      }
    : false;

  const mechanismText = read.optional('KAFKA_SASL_MECHANISM');
  const mechanism = read.oneOf('KAFKA_SASL_MECHANISM', { caseInsensitive: true });
  let sasl: WorkerConfig['kafka']['sasl'];
  const oauthNames = [
    'KAFKA_OAUTH_TOKEN_URL',
    'KAFKA_OAUTH_CLIENT_ID',
    'KAFKA_OAUTH_CLIENT_SECRET_FILE',
    'KAFKA_OAUTH_SCOPE',
    'KAFKA_OAUTH_AUDIENCE',
  ] as const;
  // Read whatever the mechanism, so a bad value is refused even before oauthbearer is chosen.
  const oauthTimeoutMs = read.int('KAFKA_OAUTH_TIMEOUT_MS');
  const oauthMaxRetries = read.int('KAFKA_OAUTH_MAX_RETRIES');
  if (mechanism === 'oauthbearer') {
    const tokenUrl = read.required('KAFKA_OAUTH_TOKEN_URL');
    if (tokenUrl !== '') {
      const problem = tokenUrlProblem(tokenUrl);
      if (problem !== undefined) problems.push(`KAFKA_OAUTH_TOKEN_URL: ${problem}`);
    }
    const clientId = read.required('KAFKA_OAUTH_CLIENT_ID');
    if (read.optional('KAFKA_OAUTH_CLIENT_SECRET_FILE') === undefined) problems.push('KAFKA_OAUTH_CLIENT_SECRET_FILE: required');
    const clientSecret = file('KAFKA_OAUTH_CLIENT_SECRET_FILE')?.replace(/\r?\n$/, '');
    if (clientSecret === '') problems.push('KAFKA_OAUTH_CLIENT_SECRET_FILE: the file is empty');
    const orphans = (['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const).filter((name) => read.optional(name) !== undefined);
    if (orphans.length > 0)
      problems.push(`${orphans.join(' and ')}: not used by KAFKA_SASL_MECHANISM=oauthbearer (it signs in with KAFKA_OAUTH_*)`);
    sasl = {
      mechanism,
      oauth: {
        tokenUrl,
        clientId,
        clientSecret: clientSecret ?? '',
        scope: read.optional('KAFKA_OAUTH_SCOPE'),
        audience: read.optional('KAFKA_OAUTH_AUDIENCE'),
        timeoutMs: oauthTimeoutMs,
        maxRetries: oauthMaxRetries,
      },
    };
  } else if (mechanism !== undefined) {
    const username = read.required('KAFKA_SASL_USERNAME');
    const password = read.required('KAFKA_SASL_PASSWORD');
    sasl = { mechanism, username, password };
  }
  if (mechanism !== 'oauthbearer') {
    const unused = oauthNames.filter((name) => read.optional(name) !== undefined);
    if (unused.length > 0) problems.push(`${unused.join(', ')}: set without KAFKA_SASL_MECHANISM=oauthbearer, so they would be ignored`);
  }
  if (mechanism === undefined && mechanismText === undefined) {
    // Credentials without a mechanism would be ignored: the worker would connect without authenticating.
    const orphans = (['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const).filter((name) => read.optional(name) !== undefined);
    if (orphans.length > 0) {
      problems.push(
        `${orphans.join(' and ')}: set without KAFKA_SASL_MECHANISM (plain, scram-sha-256 ` +
          `or scram-sha-512), so ${orphans.length === 1 ? 'it' : 'they'} would be ignored`,
      );
    }
  }

  const delivery = read.oneOf('DELIVERY');
  const groupId = read.string('GROUP_ID');
  const pipeline = pipelineOptions({
    maxRecordBytes: read.int(PIPELINE_ENV.maxRecordBytes),
    maxDepth: read.int(PIPELINE_ENV.maxDepth),
    maxEntityPasses: read.int(PIPELINE_ENV.maxEntityPasses),
    deep: read.bool(PIPELINE_ENV.deep),
    entityExempt: read.list(PIPELINE_ENV.entityExempt),
  });

  const client = read.oneOf('KAFKA_CLIENT');
  const groupInstanceId = read.optional('KAFKA_GROUP_INSTANCE_ID');
  // kafkajs joins without an instance id: the setting would be silently ignored.
  if (groupInstanceId !== undefined && client === 'kafkajs') {
    problems.push('KAFKA_GROUP_INSTANCE_ID: static membership needs KAFKA_CLIENT=platformatic (kafkajs has none)');
  }
  const groupProtocol = read.oneOf('KAFKA_GROUP_PROTOCOL');
  if (groupProtocol === 'consumer' && client === 'kafkajs') {
    problems.push('KAFKA_GROUP_PROTOCOL: consumer (KIP-848) needs KAFKA_CLIENT=platformatic (kafkajs has only the classic protocol)');
  }
  const groupRemoteAssignor = read.oneOf('KAFKA_GROUP_REMOTE_ASSIGNOR');
  // The classic protocol assigns on the client: a broker-side assignor would be silently ignored.
  if (groupRemoteAssignor !== undefined && groupProtocol !== 'consumer') {
    problems.push('KAFKA_GROUP_REMOTE_ASSIGNOR: needs KAFKA_GROUP_PROTOCOL=consumer (the classic protocol assigns on the client)');
  }
  const workerId = read.optional('WORKER_ID') ?? `${hostname()}-${process.pid}`;
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(workerId))
    problems.push(`WORKER_ID: "${redactUserinfo(workerId)}" must be 1-200 letters, digits, ".", "_" or "-"`);
  if (groupInstanceId !== undefined && !/^[A-Za-z0-9._-]{1,200}$/.test(groupInstanceId)) {
    problems.push(`KAFKA_GROUP_INSTANCE_ID: "${redactUserinfo(groupInstanceId)}" must be 1-200 letters, digits, ".", "_" or "-"`);
  }

  const config: WorkerConfig = {
    kafka: {
      client,
      groupInstanceId,
      brokers,
      clientId: read.string('KAFKA_CLIENT_ID'),
      ssl,
      sasl,
      connectionTimeoutMs: read.int('KAFKA_CONNECTION_TIMEOUT_MS'),
      sessionTimeoutMs: read.int('KAFKA_SESSION_TIMEOUT_MS'),
      fetchMaxWaitMs: read.int('KAFKA_FETCH_MAX_WAIT_MS'),
      compression: read.oneOf('KAFKA_COMPRESSION', { caseInsensitive: true }),
      groupProtocol,
      groupRemoteAssignor,
    },
    topics: {
      input: read.topic('INPUT_TOPIC'),
      output: read.topic('OUTPUT_TOPIC'),
      rejected: read.topic('REJECTED_TOPIC'),
      dlq: read.topic('DLQ_TOPIC'),
    },
    groupId,
    delivery,
    transactionalIdPrefix: read.optional('TRANSACTIONAL_ID_PREFIX') ?? groupId,
    workerId,
    createTopics: read.bool('CREATE_TOPICS'),
    registry: {
      url: registryUrl,
      username: read.optional('SCHEMA_REGISTRY_USERNAME'),
      password: read.optional('SCHEMA_REGISTRY_PASSWORD'),
      subjectTemplate: read.string('SUBJECT_TEMPLATE'),
      timeoutMs: read.int('REGISTRY_TIMEOUT_MS'),
      cacheTtlMs: read.int('REGISTRY_CACHE_TTL_MS'),
      negativeTtlMs: read.int('REGISTRY_NEGATIVE_TTL_MS'),
      maxRetries: read.int('REGISTRY_MAX_RETRIES'),
    },
    pipeline,
    httpPort: read.int('METRICS_PORT'),
    shutdownTimeoutMs: read.int('SHUTDOWN_TIMEOUT_MS'),
    maxBackoffMs: read.int('MAX_BACKOFF_MS'),
    maxOutputBytes: read.int('MAX_OUTPUT_BYTES'),
    logLevel: read.oneOf('LOG_LEVEL'),
    metricsToolLabels: read.list('METRICS_TOOL_LABELS'),
    tracing: tracingConfig(read, problems),
  };
  if (config.registry.username !== undefined && config.registry.password === undefined) {
    problems.push('SCHEMA_REGISTRY_PASSWORD: required when SCHEMA_REGISTRY_USERNAME is set');
  }
  if (config.registry.username === undefined && config.registry.password !== undefined) {
    problems.push('SCHEMA_REGISTRY_USERNAME: required when SCHEMA_REGISTRY_PASSWORD is set (without it no credentials are sent)');
  }
  // The schema source's own rule (src/core/schema/registry-document.ts), so a template it would refuse is refused here.
  if (subjectTemplateProblem(config.registry.subjectTemplate) !== undefined) {
    problems.push(
      `SUBJECT_TEMPLATE: must contain "${TOOL_PLACEHOLDER}" exactly once, got "${redactUserinfo(config.registry.subjectTemplate)}"`,
    );
  }
  // The worker does not heartbeat while it waits for a registry lookup (every attempt timing out, then retried).
  const { timeoutMs, maxRetries } = config.registry;
  const lookupMs = timeoutMs * (maxRetries + 1);
  if (lookupMs >= config.kafka.sessionTimeoutMs) {
    problems.push(
      `REGISTRY_TIMEOUT_MS, REGISTRY_MAX_RETRIES and KAFKA_SESSION_TIMEOUT_MS: one registry lookup can take ` +
        `REGISTRY_TIMEOUT_MS × (REGISTRY_MAX_RETRIES + 1) = ${timeoutMs} ms × ${maxRetries + 1} = ${lookupMs} ms, not below ` +
        `KAFKA_SESSION_TIMEOUT_MS (${config.kafka.sessionTimeoutMs} ms): the worker sends no heartbeat while it waits, so one ` +
        `lookup could outlast the consumer session and the group would take the worker's partitions away; lower ` +
        `REGISTRY_TIMEOUT_MS or REGISTRY_MAX_RETRIES, or raise KAFKA_SESSION_TIMEOUT_MS`,
    );
  }
  const topicNames = Object.values(config.topics);
  if (new Set(topicNames).size !== topicNames.length)
    problems.push('INPUT_TOPIC, OUTPUT_TOPIC, REJECTED_TOPIC and DLQ_TOPIC must all differ');
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

/** Tracing alone (the MCP proxy's), from the same `OTEL_*` variables; throws {@link ConfigError} on a bad one. */
export function loadTracingConfig(env: Env = process.env): TracingConfig | undefined {
  const problems: string[] = [];
  const tracing = tracingConfig(new Reader(env, problems), problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return tracing;
}

/**
 * Tracing from OpenTelemetry's standard variables: on with `OTEL_TRACES_EXPORTER=otlp` (or `console`), or with an
 * OTLP endpoint and no exporter named; off with `none`, `OTEL_SDK_DISABLED=true`, or nothing set.
 */
function tracingConfig(read: Reader, problems: string[]): TracingConfig | undefined {
  const exporter = read.oneOf('OTEL_TRACES_EXPORTER', { caseInsensitive: true });
  const tracesEndpoint = read.optional('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = read.optional('OTEL_EXPORTER_OTLP_ENDPOINT');
  // Bounds are checked whether tracing is on or not: a bad value is a mistake either way.
  const timeoutMs = read.int('OTEL_EXPORTER_OTLP_TIMEOUT');
  const maxQueueSize = read.int('OTEL_BSP_MAX_QUEUE_SIZE');
  const maxExportBatchSize = read.int('OTEL_BSP_MAX_EXPORT_BATCH_SIZE');
  const scheduleDelayMs = read.int('OTEL_BSP_SCHEDULE_DELAY');
  const exportTimeoutMs = read.int('OTEL_BSP_EXPORT_TIMEOUT');
  const protocol = read.oneOf('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? read.oneOf('OTEL_EXPORTER_OTLP_PROTOCOL');
  if (read.bool('OTEL_SDK_DISABLED') || exporter === 'none') return undefined;
  if (exporter === undefined && tracesEndpoint === undefined && endpoint === undefined) return undefined;
  // gRPC takes the endpoint as it is (the service names the path) and listens on 4317; OTLP/HTTP on 4318, at /v1/traces.
  const grpc = protocol === 'grpc';
  let base = endpoint ?? (grpc ? 'http://localhost:4317' : 'http://localhost:4318');
  while (base.endsWith('/')) base = base.slice(0, -1);
  let url = tracesEndpoint ?? (grpc ? base : `${base}/v1/traces`);
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError('not http');
  } catch {
    problems.push(
      `${tracesEndpoint === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'}: must be an http(s) URL`,
    );
    url = 'http://localhost:4318/v1/traces';
  }
  const ratioText = read.optional('OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioText === undefined ? 1 : Number(ratioText);
  if (!(ratio >= 0 && ratio <= 1))
    problems.push(`OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1, got "${redactUserinfo(ratioText ?? '')}"`);
  if (maxExportBatchSize > maxQueueSize) problems.push('OTEL_BSP_MAX_EXPORT_BATCH_SIZE: must not exceed OTEL_BSP_MAX_QUEUE_SIZE');
  const resourceAttributes = keyValues(read, 'OTEL_RESOURCE_ATTRIBUTES', problems, false);
  const headers = {
    ...keyValues(read, 'OTEL_EXPORTER_OTLP_HEADERS', problems, true),
    ...keyValues(read, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', problems, true),
  };
  // gRPC metadata keys are a narrower alphabet, and a "-bin" key would take bytes, not text.
  for (const key of grpc ? Object.keys(headers) : []) {
    if (!/^[0-9a-z_.-]+$/i.test(key) || key.toLowerCase().endsWith('-bin'))
      problems.push(
        `OTEL_EXPORTER_OTLP_HEADERS: "${key.slice(0, 64)}" is not a gRPC metadata key (letters, digits, _ . -, not ending in -bin)`,
      );
  }
  return {
    exporter: exporter ?? 'otlp',
    url,
    protocol,
    headers,
    timeoutMs,
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES, which wins over the default.
    serviceName: read.optional('OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? read.string('OTEL_SERVICE_NAME'),
    resourceAttributes,
    sampler: read.oneOf('OTEL_TRACES_SAMPLER', { caseInsensitive: true }),
    ratio: ratio >= 0 && ratio <= 1 ? ratio : 1,
    maxQueueSize,
    maxExportBatchSize,
    scheduleDelayMs,
    exportTimeoutMs,
  };
}

/** An HTTP field name (RFC 9110's token); gRPC metadata keys are the lower-case subset, which grpc-js lowers itself. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Control characters other than tab, which no HTTP field value or gRPC ASCII metadata value may hold. */
// eslint-disable-next-line no-control-regex
const HEADER_VALUE_FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * OpenTelemetry's `key=value,key=value` lists (values percent-encoded). Header lists hold secrets, never quoted in a
 * problem, and must be valid HTTP fields.
 */
function keyValues(
  read: Reader,
  name: 'OTEL_EXPORTER_OTLP_HEADERS' | 'OTEL_EXPORTER_OTLP_TRACES_HEADERS' | 'OTEL_RESOURCE_ATTRIBUTES',
  problems: string[],
  headers: boolean,
): Record<string, string> {
  const pairs: Record<string, string> = Object.create(null) as Record<string, string>;
  const text = read.optional(name);
  if (text === undefined) return pairs;
  for (const [i, entry] of text.split(',').entries()) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const key = at < 0 ? '' : entry.slice(0, at).trim();
    let value: string | undefined;
    try {
      value = at < 0 ? undefined : decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      value = undefined;
    }
    if (key === '' || value === undefined) {
      problems.push(`${name}: entry ${i + 1} is not key=value (value percent-encoded)${headers ? '' : `: "${redactUserinfo(entry)}"`}`);
      continue;
    }
    // Headers go on HTTP requests and gRPC metadata as they are: refused here rather than failing every export.
    if (headers && !HEADER_NAME.test(key)) {
      problems.push(`${name}: entry ${i + 1}: "${key.slice(0, 64)}" is not a header name (letters, digits and !#$%&'*+-.^_\`|~)`);
      continue;
    }
    if (headers && HEADER_VALUE_FORBIDDEN.test(value)) {
      problems.push(`${name}: entry ${i + 1} (${key}): the value holds a control character (a line break?)`);
      continue;
    }
    pairs[key] = value;
  }
  return pairs;
}

type EnumValue<N extends SettingOfKind<'enum'>> = (typeof SETTINGS)[N]['values'][number];
/** An enum setting with a default always yields a value; one without may yield none. */
type EnumResult<N extends SettingOfKind<'enum'>> = (typeof SETTINGS)[N]['default'] extends string ? EnumValue<N> : EnumValue<N> | undefined;

/**
 * Reads typed settings by name, with the default and bounds of {@link SETTINGS}, collecting problems instead of
 * stopping at the first. Never echoes secret values.
 */
class Reader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  optional(name: SettingName): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  required(name: SettingName): string {
    const value = this.optional(name);
    if (value === undefined) this.problems.push(`${name}: required`);
    return value ?? '';
  }

  string(name: SettingOfKind<'string'>): string {
    const spec: SettingSpec = SETTINGS[name];
    return this.optional(name) ?? (typeof spec.default === 'string' ? spec.default : '');
  }

  /**
   * A registry URL, checked by the schema source's own parser (src/core/schema/registry-document.ts), so a URL it
   * would refuse at start-up is refused here. Its messages never quote the URL (it may hold a password); neither do ours.
   */
  url(name: SettingOfKind<'url'>): string {
    const value = this.required(name);
    if (value === '') return value;
    let parsed: ReturnType<typeof parseRegistryUrl>;
    try {
      parsed = parseRegistryUrl(value);
    } catch (error) {
      this.problems.push(`${name}: ${error instanceof RangeError ? error.message : 'not a URL'}`);
      return value;
    }
    if (parsed.username !== undefined || parsed.password !== undefined) {
      this.problems.push(`${name}: put credentials in SCHEMA_REGISTRY_USERNAME/PASSWORD, not in the URL`);
    }
    // A bare "?" or "#" has an empty search/hash, so the parser lets it through, yet it stays in the base URL and
    // would swallow every request path appended to it.
    if (/[?#]/.test(parsed.baseUrl)) this.problems.push(`${name}: the schema registry URL must not have a query or fragment`);
    return value.replace(/(?<!\/)\/+$/, '');
  }

  topic(name: SettingOfKind<'topic'>): string {
    const value = this.optional(name) ?? SETTINGS[name].default;
    // Kafka's own rule for topic names.
    if (!/^[a-zA-Z0-9._-]{1,249}$/.test(value) || value === '.' || value === '..') {
      this.problems.push(`${name}: "${redactUserinfo(value)}" is not a valid topic name (letters, digits, ".", "_", "-"; at most 249)`);
    }
    return value;
  }

  /**
   * A comma-separated list; required when its setting has no default. Empty entries (`a,,b`, a trailing comma) are
   * dropped, or with `emptyEntries: 'refuse'` refused: then a list of nothing but commas and spaces is refused as empty.
   */
  list(name: SettingOfKind<'list'>, options: { emptyEntries?: 'drop' | 'refuse' } = {}): string[] {
    const fallback: readonly string[] | undefined = SETTINGS[name].default;
    const value = this.optional(name);
    if (value === undefined) {
      if (fallback === undefined) this.problems.push(`${name}: required`);
      return [...(fallback ?? [])];
    }
    const entries = value.split(',').map((s) => s.trim());
    const kept = entries.filter((s) => s !== '');
    if (options.emptyEntries === 'refuse') {
      if (kept.length === 0) this.problems.push(`${name}: the list is empty (only commas and spaces)`);
      else if (kept.length < entries.length)
        this.problems.push(`${name}: has an empty entry (two commas in a row, or a comma at the start or end)`);
    }
    return kept;
  }

  bool(name: SettingOfKind<'bool'>): boolean {
    const fallback = SETTINGS[name].default;
    const value = this.optional(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.problems.push(settingViolation(name, SETTINGS[name], `"${redactUserinfo(value)}"`));
    return fallback;
  }

  int(name: SettingOfKind<'int'>): number {
    const spec = SETTINGS[name];
    const value = this.optional(name);
    if (value === undefined) return spec.default;
    const n = Number(value);
    if (!intWithin(spec, n)) {
      this.problems.push(settingViolation(name, spec, `"${redactUserinfo(value)}"`));
      return spec.default;
    }
    return n;
  }

  /** One of the setting's values, else its default (none when it has none). */
  oneOf<N extends SettingOfKind<'enum'>>(name: N, options: { caseInsensitive?: boolean } = {}): EnumResult<N> {
    const spec: SettingSpec & { kind: 'enum' } = SETTINGS[name];
    const raw = this.optional(name);
    const value = options.caseInsensitive === true ? raw?.toLowerCase() : raw;
    if (value !== undefined && !spec.values.includes(value)) {
      this.problems.push(`${name}: must be one of ${spec.values.join(', ')}, got "${redactUserinfo(value)}"`);
    }
    return (value !== undefined && spec.values.includes(value) ? value : spec.default) as EnumResult<N>;
  }
}

/**
 * Why a token endpoint URL is refused: the client secret travels in it, so only HTTPS, or plain HTTP to this host.
 * Messages never quote the URL (it could carry credentials).
 */
export function tokenUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (the secret goes in KAFKA_OAUTH_CLIENT_SECRET_FILE)';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `must be an https:// URL, not ${url.protocol}`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
  return loopback ? undefined : `must be https:// outside loopback (http:// sends the client secret in clear text to ${url.hostname})`;
}

function optionalField<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof Set) && !(value instanceof Map)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
