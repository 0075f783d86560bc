/**
 * The worker's configuration: read from the environment once, validated as a whole (every bad setting is
 * reported, not just the first), then frozen. This is the only module that reads `process.env` for the
 * worker; everything else receives a {@link WorkerConfig}.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { DEFAULT_NORMALIZE_OPTIONS } from '../core/rule/normalize.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../core/records/output.js';
import { parseEntityExemptions, type PipelineOptions } from '../core/pipeline.js';
import { DEFAULT_RECORD_LIMITS } from '../core/records/bytes.js';
import { parseRegistryUrl, subjectTemplateProblem, TOOL_PLACEHOLDER } from '../core/schema/registry-document.js';
import { redactUserinfo } from './secrets.js';

export type Delivery = 'exactly-once' | 'at-least-once';
export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

export interface WorkerConfig {
  readonly kafka: {
    /** Which Kafka client carries the worker (README "Delivery guarantees"): kafkajs or @platformatic/kafka. */
    readonly client: 'kafkajs' | 'platformatic';
    /** Static group membership (KIP-345), @platformatic/kafka only: a restarted member keeps its partitions. */
    readonly groupInstanceId: string | undefined;
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly ssl: false | { readonly ca?: string; readonly cert?: string; readonly key?: string; readonly rejectUnauthorized: boolean };
    readonly sasl: { readonly mechanism: SaslMechanism; readonly username: string; readonly password: string } | undefined;
    readonly connectionTimeoutMs: number;
    /** Consumer group session timeout: how long a dead worker keeps its partitions before the group moves them. */
    readonly sessionTimeoutMs: number;
    /** Longest a fetch waits for data; also how soon a resumed (paused) partition is fetched again. */
    readonly fetchMaxWaitMs: number;
  };
  readonly topics: { readonly input: string; readonly output: string; readonly rejected: string; readonly dlq: string };
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
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Tool-name label values kept as they are in metrics; others are reported as `other`. */
  readonly metricsToolLabels: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and validates the configuration; throws {@link ConfigError} listing every problem. */
export function loadConfig(env: Env = process.env, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): WorkerConfig {
  const problems: string[] = [];
  const read = new Reader(env, problems);

  const brokers = read.list('KAFKA_BROKERS', undefined, { emptyEntries: 'refuse' });
  for (const broker of brokers) {
    // An entry may carry userinfo (`user:password@host:port`): never quote what comes before the last `@`.
    if (!/^[^\s:/]+:\d{1,5}$/.test(broker)) problems.push(`KAFKA_BROKERS: "${redactUserinfo(broker)}" is not host:port`);
  }
  const registryUrl = read.url('SCHEMA_REGISTRY_URL');

  const sslEnabled = read.bool('KAFKA_SSL', false);
  const file = (name: string): string | undefined => {
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
        rejectUnauthorized: read.bool('KAFKA_SSL_REJECT_UNAUTHORIZED', true),
      }
    : false;

  const mechanism = read.optional('KAFKA_SASL_MECHANISM')?.toLowerCase();
  let sasl: WorkerConfig['kafka']['sasl'];
  if (mechanism !== undefined) {
    if (mechanism !== 'plain' && mechanism !== 'scram-sha-256' && mechanism !== 'scram-sha-512') {
      problems.push(`KAFKA_SASL_MECHANISM: must be plain, scram-sha-256 or scram-sha-512, got "${redactUserinfo(mechanism)}"`);
    } else {
      const username = read.required('KAFKA_SASL_USERNAME');
      const password = read.required('KAFKA_SASL_PASSWORD');
      sasl = { mechanism, username, password };
    }
  } else {
    // Credentials without a mechanism would be ignored: the worker would connect without authenticating.
    const orphans = ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'].filter((name) => read.optional(name) !== undefined);
    if (orphans.length > 0) {
      problems.push(`${orphans.join(' and ')}: set without KAFKA_SASL_MECHANISM (plain, scram-sha-256 or scram-sha-512), so ${orphans.length === 1 ? 'it' : 'they'} would be ignored`);
    }
  }

  const delivery = read.oneOf('DELIVERY', ['exactly-once', 'at-least-once'] as const, 'exactly-once');
  const groupId = read.string('GROUP_ID', 'toolcall-normalizer');
  // At most 1000: JSON.stringify and the recursive walks overflow the stack a little above 4000 levels, and a
  // record the worker cannot serialize would be retried forever.
  const maxDepth = read.int('MAX_DEPTH', DEFAULT_RECORD_LIMITS.maxDepth, 1, 1_000);
  const pipeline: PipelineOptions = {
    limits: { maxRecordBytes: read.int('MAX_RECORD_BYTES', DEFAULT_RECORD_LIMITS.maxRecordBytes, 1, 256 * 1024 * 1024), maxDepth },
    normalize: {
      ...DEFAULT_NORMALIZE_OPTIONS,
      deep: read.bool('NORMALIZE_DEEP', false),
      maxDepth,
      maxEntityPasses: read.int('MAX_ENTITY_PASSES', DEFAULT_NORMALIZE_OPTIONS.maxEntityPasses, 1, 1000),
    },
    entityExemptions: parseEntityExemptions(read.list('ENTITY_EXEMPT', [])),
  };
  const shutdownTimeoutMs = read.int('SHUTDOWN_TIMEOUT_MS', 25_000, 1000, 600_000);

  const client = read.oneOf('KAFKA_CLIENT', ['kafkajs', 'platformatic'] as const, 'kafkajs');
  const groupInstanceId = read.optional('KAFKA_GROUP_INSTANCE_ID');
  // kafkajs joins without an instance id: the setting would be silently ignored.
  if (groupInstanceId !== undefined && client === 'kafkajs') {
    problems.push('KAFKA_GROUP_INSTANCE_ID: static membership needs KAFKA_CLIENT=platformatic (kafkajs has none)');
  }
  const workerId = read.string('WORKER_ID', `${hostname()}-${process.pid}`);
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(workerId)) problems.push(`WORKER_ID: "${redactUserinfo(workerId)}" must be 1-200 letters, digits, ".", "_" or "-"`);
  if (groupInstanceId !== undefined && !/^[A-Za-z0-9._-]{1,200}$/.test(groupInstanceId)) {
    problems.push(`KAFKA_GROUP_INSTANCE_ID: "${redactUserinfo(groupInstanceId)}" must be 1-200 letters, digits, ".", "_" or "-"`);
  }

  const config: WorkerConfig = {
    kafka: {
      client,
      groupInstanceId,
      brokers,
      clientId: read.string('KAFKA_CLIENT_ID', 'toolcall-normalizer'),
      ssl,
      sasl,
      connectionTimeoutMs: read.int('KAFKA_CONNECTION_TIMEOUT_MS', 10_000, 100, 300_000),
      // 6 s is the broker's default group.min.session.timeout.ms.
      sessionTimeoutMs: read.int('KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000, 300_000),
      fetchMaxWaitMs: read.int('KAFKA_FETCH_MAX_WAIT_MS', 1_000, 10, 30_000),
    },
    topics: {
      input: read.topic('INPUT_TOPIC', 'tool-calls.raw'),
      output: read.topic('OUTPUT_TOPIC', 'tool-calls.normalized'),
      rejected: read.topic('REJECTED_TOPIC', 'tool-calls.rejected'),
      dlq: read.topic('DLQ_TOPIC', 'tool-calls.dlq'),
    },
    groupId,
    delivery,
    transactionalIdPrefix: read.string('TRANSACTIONAL_ID_PREFIX', groupId),
    workerId,
    createTopics: read.bool('CREATE_TOPICS', true),
    registry: {
      url: registryUrl,
      username: read.optional('SCHEMA_REGISTRY_USERNAME'),
      password: read.optional('SCHEMA_REGISTRY_PASSWORD'),
      subjectTemplate: read.string('SUBJECT_TEMPLATE', '{tool}'),
      timeoutMs: read.int('REGISTRY_TIMEOUT_MS', 5000, 100, 120_000),
      cacheTtlMs: read.int('REGISTRY_CACHE_TTL_MS', 300_000, 0, 86_400_000),
      negativeTtlMs: read.int('REGISTRY_NEGATIVE_TTL_MS', 30_000, 0, 86_400_000),
      maxRetries: read.int('REGISTRY_MAX_RETRIES', 2, 0, 10),
    },
    pipeline,
    httpPort: read.int('METRICS_PORT', 9464, 0, 65_535),
    shutdownTimeoutMs,
    maxBackoffMs: read.int('MAX_BACKOFF_MS', 30_000, 10, 600_000),
    maxOutputBytes: read.int('MAX_OUTPUT_BYTES', DEFAULT_MAX_OUTPUT_BYTES, 1024, 256 * 1024 * 1024),
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    metricsToolLabels: read.list('METRICS_TOOL_LABELS', []),
  };
  if (config.registry.username !== undefined && config.registry.password === undefined) {
    problems.push('SCHEMA_REGISTRY_PASSWORD: required when SCHEMA_REGISTRY_USERNAME is set');
  }
  if (config.registry.username === undefined && config.registry.password !== undefined) {
    problems.push('SCHEMA_REGISTRY_USERNAME: required when SCHEMA_REGISTRY_PASSWORD is set (without it no credentials are sent)');
  }
  // The schema source's own rule (src/core/schema/registry-document.ts), so a template it would refuse is refused here.
  if (subjectTemplateProblem(config.registry.subjectTemplate) !== undefined) {
    problems.push(`SUBJECT_TEMPLATE: must contain "${TOOL_PLACEHOLDER}" exactly once, got "${redactUserinfo(config.registry.subjectTemplate)}"`);
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
  if (new Set(topicNames).size !== topicNames.length) problems.push('INPUT_TOPIC, OUTPUT_TOPIC, REJECTED_TOPIC and DLQ_TOPIC must all differ');
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

/** Reads typed settings, collecting problems instead of stopping at the first. Never echoes secret values. */
class Reader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) this.problems.push(`${name}: required`);
    return value ?? '';
  }

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  /**
   * A registry URL, checked by the schema source's own parser (src/adapters/registry/client.ts), so a URL it would refuse
   * at start-up is refused here. Its messages never quote the URL (it may hold a password); neither do ours.
   */
  url(name: string): string {
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

  topic(name: string, fallback: string): string {
    const value = this.string(name, fallback);
    // Kafka's own rule for topic names.
    if (!/^[a-zA-Z0-9._-]{1,249}$/.test(value) || value === '.' || value === '..') {
      this.problems.push(`${name}: "${redactUserinfo(value)}" is not a valid topic name (letters, digits, ".", "_", "-"; at most 249)`);
    }
    return value;
  }

  /**
   * A comma-separated list. Empty entries (`a,,b`, a trailing comma) are dropped, or with `emptyEntries: 'refuse'`
   * refused: then a list of nothing but commas and spaces is refused as empty.
   */
  list(name: string, fallback: readonly string[] | undefined, options: { emptyEntries?: 'drop' | 'refuse' } = {}): string[] {
    const value = this.optional(name);
    if (value === undefined) {
      if (fallback === undefined) this.problems.push(`${name}: required`);
      return [...(fallback ?? [])];
    }
    const entries = value.split(',').map((s) => s.trim());
    const kept = entries.filter((s) => s !== '');
    if (options.emptyEntries === 'refuse') {
      if (kept.length === 0) this.problems.push(`${name}: the list is empty (only commas and spaces)`);
      else if (kept.length < entries.length) this.problems.push(`${name}: has an empty entry (two commas in a row, or a comma at the start or end)`);
    }
    return kept;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.optional(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name}: must be true or false, got "${redactUserinfo(value)}"`);
    return fallback;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      this.problems.push(`${name}: must be an integer from ${min} to ${max}, got "${redactUserinfo(value)}"`);
      return fallback;
    }
    return n;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name}: must be one of ${allowed.join(', ')}, got "${redactUserinfo(value)}"`);
    return fallback;
  }
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
