/**
 * The worker's schema source: each tool's input schema from a Confluent-compatible schema registry (Apicurio's
 * `/apis/ccompat/v7`, Confluent Schema Registry), compiled once and cached.
 *
 * Native `fetch` rather than `@kafkajs/confluent-schema-registry` here: that client (mappersmith underneath)
 * wraps every failure in its own ResponseError, retries any 5xx on its own schedule, has no per-request timeout
 * and caches schemas by id forever. The hot path needs the opposite: each status classified by us (404 with
 * 40401/40402 = unknown tool, 401/403 = configuration, 408/425/429/5xx/network/timeout = transient), an
 * AbortSignal timeout on every attempt, and a TTL cache of *compiled tools* that keeps serving while the registry
 * is down. That is two GET endpoints: little code, all of it visible. Registration (`schemas push`) does use the
 * library, where its register flow is what we want.
 *
 * Secrets: the password only ever goes into the Authorization header. URLs are stripped of userinfo before they
 * are used or shown, and no message echoes a header.
 */
import { LRUCache } from 'lru-cache';
import { BACKOFF_POLICIES, retry, type BackoffPolicy } from '../shared/retry.js';
import { isJsonObject, tryParseJson, type JsonValue } from '../../core/shared/json.js';
import { truncate } from '../../core/shared/text.js';
import {
  DEFAULT_SUBJECT_TEMPLATE,
  fromRegistryDocument,
  MAX_SUBJECT_CHARS,
  parseRegistryUrl,
  subjectFor,
  subjectProblem,
  subjectTemplateProblem,
} from '../../core/schema/registry-document.js';
import { compileTool, unusableTool, type CompiledTool, type SchemaIdentity } from '../../core/schema/tool.js';
import type { SchemaCompiler } from '../../core/validation/validate.js';

export interface RegistryConfig {
  /** Base URL of the Confluent-compatible API, e.g. `http://registry:8080/apis/ccompat/v7`. */
  url: string;
  username?: string;
  password?: string;
  /** Timeout of one HTTP attempt, in ms (default 5 s). */
  timeoutMs: number;
  /** Subject name of a tool: `{tool}` is replaced by the tool name (default `{tool}`). */
  subjectTemplate: string;
  /** How long a fetched tool is served before it is fetched again (default 5 min). */
  cacheTtlMs: number;
  /** How long "no such subject/version" is remembered (default 30 s). */
  negativeTtlMs: number;
  /** Retries of a transient failure after the first attempt (default 2). */
  maxRetries: number;
  /** Most tools kept in the cache, oldest written evicted first (default 10 000). */
  maxEntries?: number;
  /**
   * Most "no such subject/version" entries kept, oldest written evicted first (default 10 000). Their own bound,
   * apart from `maxEntries`: tool names come from models, and invented names must never evict real tools.
   */
  maxNegativeEntries?: number;
  /** First retry delay in ms, doubled per retry, jittered, capped at 5 s (default 200). */
  retryBackoffMs?: number;
  /** After a failed refresh, how long the stale entry is served without asking the registry again (default 5 s). */
  staleRetryMs?: number;
}

export const DEFAULT_REGISTRY_CONFIG = Object.freeze({
  timeoutMs: 5_000,
  subjectTemplate: DEFAULT_SUBJECT_TEMPLATE,
  cacheTtlMs: 5 * 60_000,
  negativeTtlMs: 30_000,
  maxRetries: 2,
  maxEntries: 10_000,
  maxNegativeEntries: 10_000,
  retryBackoffMs: BACKOFF_POLICIES.registryHttp.firstMs,
  staleRetryMs: 5_000,
});

/** How much of a registry error message we quote: enough to diagnose, never a whole HTML page. */
const MAX_DETAIL_CHARS = 200;

/** Statuses that, answered for one subject's URL, mean no registry can hold that subject (not an outage). */
const UNADDRESSABLE_SUBJECT_STATUSES: ReadonlySet<number> = new Set([400, 414, 431]);

/** Codes of the error classes, stable for logs and alerts. */
export const REGISTRY_ERROR_CODES = ['REGISTRY_REQUEST', 'REGISTRY_AUTH', 'REGISTRY_UNAVAILABLE'] as const;
export type RegistryErrorCode = (typeof REGISTRY_ERROR_CODES)[number];

/** A registry failure that retrying will not fix (a 4xx other than 404-not-found and 408/425/429). */
export class RegistryError extends Error {
  readonly code: RegistryErrorCode = 'REGISTRY_REQUEST';
  readonly canRetry: boolean = false;
  constructor(
    message: string,
    /** The HTTP status, when the registry answered. */
    readonly status: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'RegistryError';
  }
}

/** 401/403: the credentials are wrong or lack rights. Not retried: only an operator can fix it. */
export class RegistryAuthError extends RegistryError {
  override readonly code = 'REGISTRY_AUTH';
  constructor(message: string, status: number) {
    super(message, status);
    this.name = 'RegistryAuthError';
  }
}

/**
 * Transient: network error, timeout, 408/425/429/5xx (after the retries), or an answer that is not a registry's.
 * The caller may retry later; {@link ToolSchemaSource} serves stale entries instead when it has them.
 */
export class RegistryUnavailableError extends RegistryError {
  override readonly code = 'REGISTRY_UNAVAILABLE';
  override readonly canRetry = true;
  constructor(message: string, status: number | undefined, options?: ErrorOptions) {
    super(message, status, options);
    this.name = 'RegistryUnavailableError';
  }
}

/** Statuses worth another attempt: timeouts, "too early", throttling, and the server side failing. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status <= 599);
}

/** One version of a subject, as `GET /subjects/{subject}/versions/{version}` returns it. */
export interface RegisteredSchema {
  readonly subject: string;
  readonly version: number;
  readonly id: number;
  readonly schema: string;
  /** `JSON`, `PROTOBUF`, or `AVRO` (which Confluent expresses by omitting the field). */
  readonly schemaType: string;
}

export type RegistryConnection = Pick<RegistryConfig, 'url' | 'username' | 'password' | 'timeoutMs' | 'maxRetries' | 'retryBackoffMs'>;

export interface RegistryDeps {
  fetch?: typeof fetch;
  now?: () => number;
}

type Outcome = 'ok' | 'not_found' | 'error';
type Answer = { kind: 'ok'; body: JsonValue } | { kind: 'not_found'; errorCode: number };
type Attempt = Answer | { kind: 'retry'; reason: string; status: number | undefined; retryAfterMs: number | undefined };

/**
 * The HTTP half: requests with a timeout per attempt, classification of every answer, retries of transient
 * failures with exponential backoff and jitter. Exported for the commands: `schemas push` needs two lookups the
 * registration library does not return (the version of a registered schema, a subject's compatibility level),
 * and `audit --registry` reads every subject.
 */
export class RegistryClient {
  /** Attempts by outcome (each retry counts), for metrics. */
  readonly requests: Record<Outcome, number> = { ok: 0, not_found: 0, error: 0 };
  readonly #baseUrl: string;
  readonly #authorization: string | undefined;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #policy: BackoffPolicy;
  readonly #fetch: typeof fetch;

  constructor(connection: RegistryConnection, deps: RegistryDeps = {}) {
    const url = parseRegistryUrl(connection.url);
    this.#baseUrl = url.baseUrl;
    const username = connection.username ?? url.username;
    const password = connection.password ?? url.password;
    this.#authorization = username === undefined ? undefined : `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
    this.#timeoutMs = positive(connection.timeoutMs, 'timeoutMs');
    this.#maxRetries = nonNegativeInteger(connection.maxRetries, 'maxRetries');
    this.#policy = {
      ...BACKOFF_POLICIES.registryHttp,
      firstMs: nonNegative(connection.retryBackoffMs ?? DEFAULT_REGISTRY_CONFIG.retryBackoffMs, 'retryBackoffMs'),
    };
    this.#fetch = deps.fetch ?? fetch;
  }

  /** The base URL, without credentials. */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** One version of `subject` (`latest` when `version` is undefined); undefined when the subject or version does not exist. */
  async getSubjectVersion(subject: string, version?: number): Promise<RegisteredSchema | undefined> {
    const path = `/subjects/${encodeURIComponent(subject)}/versions/${version === undefined ? 'latest' : String(version)}`;
    const answer = await this.#request('GET', path);
    if (answer.kind === 'not_found') {
      // 40401 subject not found, 40402 version not found. Any other 404 code is not "this tool is unknown".
      if (answer.errorCode === 40401 || answer.errorCode === 40402) return undefined;
      throw new RegistryError(`schema registry ${this.#baseUrl}: GET ${path}: unexpected 404 error code ${answer.errorCode}`, 404);
    }
    const body = answer.body;
    if (!isJsonObject(body) || typeof body.schema !== 'string' || !isPositiveInteger(body.version) || !isNonNegativeInteger(body.id)) {
      throw this.#notARegistry('GET', path, 'a body without schema, version and id');
    }
    return {
      subject: typeof body.subject === 'string' ? body.subject : subject,
      version: body.version,
      id: body.id,
      schema: body.schema,
      schemaType: typeof body.schemaType === 'string' ? body.schemaType.toUpperCase() : 'AVRO',
    };
  }

  /**
   * The version and id under which `schema` (JSON Schema text) is registered in `subject`
   * (`POST /subjects/{subject}`), or undefined when it is not registered there.
   */
  async lookupSchema(subject: string, schema: string): Promise<{ version: number; id: number } | undefined> {
    const path = `/subjects/${encodeURIComponent(subject)}`;
    const answer = await this.#request('POST', path, JSON.stringify({ schemaType: 'JSON', schema }));
    if (answer.kind === 'not_found') {
      // 40401 subject not found, 40403 schema not found.
      if (answer.errorCode === 40401 || answer.errorCode === 40403) return undefined;
      throw new RegistryError(`schema registry ${this.#baseUrl}: POST ${path}: unexpected 404 error code ${answer.errorCode}`, 404);
    }
    const body = answer.body;
    if (!isJsonObject(body) || !isPositiveInteger(body.version) || !isNonNegativeInteger(body.id)) {
      throw this.#notARegistry('POST', path, 'a body without version and id');
    }
    return { version: body.version, id: body.id };
  }

  /** The compatibility level that applies to `subject`, or undefined when the subject does not exist yet. */
  async getCompatibility(subject: string): Promise<string | undefined> {
    const path = `/config/${encodeURIComponent(subject)}`;
    const answer = await this.#request('GET', path);
    // 40401: no such subject; 40408: Confluent's "no subject-level level configured".
    if (answer.kind === 'not_found') return undefined;
    const body = answer.body;
    const level = isJsonObject(body) ? (body.compatibilityLevel ?? body.compatibility) : undefined;
    if (typeof level !== 'string') throw this.#notARegistry('GET', path, 'a body without compatibilityLevel');
    return level.toUpperCase();
  }

  /** Every subject the registry holds (`GET /subjects`), sorted. */
  async listSubjects(): Promise<string[]> {
    const path = '/subjects';
    const answer = await this.#request('GET', path);
    if (answer.kind === 'not_found') {
      throw new RegistryError(`schema registry ${this.#baseUrl}: GET ${path}: unexpected 404 error code ${answer.errorCode}`, 404);
    }
    const body = answer.body;
    if (!Array.isArray(body) || !body.every((subject): subject is string => typeof subject === 'string')) {
      throw this.#notARegistry('GET', path, 'a body that is not a list of subjects');
    }
    return [...body].sort();
  }

  /** Readiness: `GET /subjects` answers 2xx within the timeout. One attempt, never throws, not counted. */
  async ping(): Promise<boolean> {
    return (await this.check()) === true;
  }

  /**
   * Readiness with a reason: true when `GET /subjects` answers 2xx within the timeout, else a short reason for
   * /readyz (never a credential or a URL). One attempt, never throws, not counted.
   */
  async check(): Promise<true | string> {
    try {
      const response = await this.#fetch(`${this.#baseUrl}/subjects`, this.#init('GET', undefined));
      await response.arrayBuffer();
      if (response.ok) return true;
      if (response.status === 401 || response.status === 403) {
        return `registry refuses the credentials (HTTP ${response.status}): check SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD`;
      }
      return `registry answers HTTP ${response.status}`;
    } catch {
      return 'registry not answering';
    }
  }

  #request(method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> {
    return retry(
      async () => {
        const result = await this.#attempt(method, path, body);
        return result.kind === 'retry'
          ? { done: false, failure: result, retryAfterMs: result.retryAfterMs }
          : { done: true, value: result };
      },
      {
        policy: this.#policy,
        maxRetries: this.#maxRetries,
        giveUp: (failure, attempts) =>
          new RegistryUnavailableError(
            `schema registry ${this.#baseUrl}: ${method} ${path} failed ` +
              `after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${failure.reason}`,
            failure.status,
          ),
      },
    );
  }

  async #attempt(method: 'GET' | 'POST', path: string, body: string | undefined): Promise<Attempt> {
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(`${this.#baseUrl}${path}`, this.#init(method, body));
      // The same signal bounds reading the body, so a registry that stalls mid-answer also times out.
      text = await response.text();
    } catch (error) {
      this.requests.error++;
      return { kind: 'retry', reason: describeFetchError(error, this.#timeoutMs), status: undefined, retryAfterMs: undefined };
    }
    const status = response.status;
    if (status >= 200 && status <= 299) {
      const parsed = tryParseJson(text);
      if (!parsed.ok) {
        this.requests.error++;
        throw this.#notARegistry(method, path, `HTTP ${status} with a body that is not JSON`);
      }
      this.requests.ok++;
      return { kind: 'ok', body: parsed.value };
    }
    const error = registryErrorBody(text);
    if (status === 404 && error.code !== undefined) {
      this.requests.not_found++;
      return { kind: 'not_found', errorCode: error.code };
    }
    this.requests.error++;
    const detail = error.message === undefined ? '' : `: ${error.message}`;
    if (status === 401 || status === 403) {
      throw new RegistryAuthError(
        `schema registry ${this.#baseUrl}: ${method} ${path} was refused ` +
          `(HTTP ${status}${detail}); check the registry username and password`,
        status,
      );
    }
    if (isRetryableStatus(status)) {
      return { kind: 'retry', reason: `HTTP ${status}${detail}`, status, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
    }
    const hint =
      status === 404 ? ' (a 404 without a registry error code: is the URL the Confluent-compatible API, e.g. .../apis/ccompat/v7?)' : '';
    throw new RegistryError(`schema registry ${this.#baseUrl}: ${method} ${path} failed with HTTP ${status}${detail}${hint}`, status);
  }

  #init(method: 'GET' | 'POST', body: string | undefined): RequestInit {
    const headers: Record<string, string> = { accept: 'application/vnd.schemaregistry.v1+json, application/json' };
    if (body !== undefined) headers['content-type'] = 'application/vnd.schemaregistry.v1+json';
    if (this.#authorization !== undefined) headers.authorization = this.#authorization;
    const init: RequestInit = { method, headers, signal: AbortSignal.timeout(this.#timeoutMs) };
    if (body !== undefined) init.body = body;
    return init;
  }

  /** A 2xx whose body is not what a registry sends (an HTML login page, a proxy's error): not our data to use. */
  #notARegistry(method: string, path: string, what: string): RegistryUnavailableError {
    return new RegistryUnavailableError(
      `schema registry ${this.#baseUrl}: ${method} ${path} answered ${what}; is this a schema registry?`,
      undefined,
    );
  }
}

interface Entry {
  /** The tool, or undefined for "no such subject/version". */
  readonly value: CompiledTool | undefined;
  /** Until when a stale entry is served without asking the registry (set after any failed refresh). */
  retryAt: number;
  /** The error of the last failed refresh; an entry is replaced when a refresh succeeds. */
  failure: Error | undefined;
  /** For "no such subject": why, when the registry refused the subject (HTTP 400/414/431) rather than not having it. */
  readonly reason?: string;
}

export interface ToolSchemaSourceStats {
  /**
   * Lookups answered without waiting for the registry: fresh entries, stale ones served at once, and names no
   * registry subject can have (see {@link ToolSchemaSource.unknownReason}).
   */
  hits: number;
  /** Lookups that had to ask the registry (or join a request in flight), or got the error of a refresh that just failed. */
  misses: number;
  /**
   * Expired entries served because the registry failed: their last refresh failed (any error), or the last
   * request to the registry found it unavailable. A stale-while-revalidate serve from a healthy registry is not one.
   */
  stale: number;
  /** Registry HTTP attempts by outcome (each retry counts; `ping` does not). */
  requests: Record<Outcome, number>;
}

/**
 * Compiled tools by (subject, version | latest), fetched from the registry on demand.
 *
 * - Entries live `cacheTtlMs`; "no such subject/version" lives `negativeTtlMs`, in a cache of its own
 *   (`maxNegativeEntries`), so invented tool names never evict real tools (`maxEntries`).
 * - Stale-while-error: an expired entry (positive or negative) is served while the registry is unavailable, and
 *   for `staleRetryMs` after each failed refresh, whatever the error, no request is made for it: one record
 *   does not wait out a full retry cycle per tool while the registry is down, and a refusing registry is not
 *   asked once per lookup. Only {@link RegistryUnavailableError}s fall back to the stale entry in {@link get}:
 *   auth and request errors need an operator and are thrown (within `staleRetryMs`, again without a request).
 * - A name no registry subject can have (not well-formed UTF-16, empty, `.` or `..`, over
 *   {@link MAX_SUBJECT_CHARS}) is an unknown tool at once, without a request; so is a subject the registry
 *   answers 400/414/431 for (remembered like "no such subject"). {@link unknownReason} says why.
 * - One request per key at a time: concurrent lookups share the promise in flight.
 * - A schema that is not JSON or not usable becomes an unusable tool, cached like any other answer (it is the
 *   registered data, not a transient failure).
 * - Fetching `latest` also fills the entry of the version it returned, so a call pinning that version is a hit.
 */
export class ToolSchemaSource {
  readonly #client: RegistryClient;
  readonly #compiler: SchemaCompiler;
  readonly #template: string;
  readonly #ttlMs: number;
  readonly #negativeTtlMs: number;
  readonly #staleRetryMs: number;
  readonly #maxEntries: number;
  readonly #maxNegativeEntries: number;
  readonly #now: () => number;
  /** Tools (positive entries), bounded by `maxEntries`, living `cacheTtlMs`. */
  readonly #cache: LRUCache<string, Entry>;
  /** "No such subject/version" (negative entries), bounded apart by `maxNegativeEntries`. A key is in one cache at most. */
  readonly #negatives: LRUCache<string, Entry>;
  readonly #inFlight = new Map<string, Promise<CompiledTool | undefined>>();
  /** Subject and cache key of each tool name's latest version, bounded by the two caches' bounds together. */
  readonly #latestKeys: LRUCache<string, { subject: string; key: string }>;
  /** The last registry request found it unavailable (until one gets an answer): stale serves are then counted. */
  #unavailable = false;
  #hits = 0;
  #misses = 0;
  #stale = 0;

  /** @throws RangeError on an invalid configuration (URL, subject template, negative durations). */
  constructor(config: RegistryConfig, compiler: SchemaCompiler, deps: RegistryDeps = {}) {
    const problem = subjectTemplateProblem(config.subjectTemplate);
    if (problem !== undefined) throw new RangeError(problem);
    this.#client = new RegistryClient(config, deps);
    this.#compiler = compiler;
    this.#template = config.subjectTemplate;
    this.#ttlMs = nonNegative(config.cacheTtlMs, 'cacheTtlMs');
    this.#negativeTtlMs = nonNegative(config.negativeTtlMs, 'negativeTtlMs');
    this.#staleRetryMs = nonNegative(config.staleRetryMs ?? DEFAULT_REGISTRY_CONFIG.staleRetryMs, 'staleRetryMs');
    this.#maxEntries = positive(config.maxEntries ?? DEFAULT_REGISTRY_CONFIG.maxEntries, 'maxEntries');
    this.#maxNegativeEntries = positive(config.maxNegativeEntries ?? DEFAULT_REGISTRY_CONFIG.maxNegativeEntries, 'maxNegativeEntries');
    this.#now = deps.now ?? Date.now;
    this.#cache = new LRUCache(this.#cacheOptions(this.#maxEntries, this.#ttlMs));
    this.#negatives = new LRUCache(this.#cacheOptions(this.#maxNegativeEntries, this.#negativeTtlMs));
    this.#latestKeys = new LRUCache({ max: this.#maxEntries + this.#maxNegativeEntries });
  }

  /**
   * Reads go through `peek`, so the oldest written entry is evicted first; an expired entry stays (stale) and is
   * served while the registry fails. The clock is ours (tests move it); lru-cache reads a start time of 0 as "no
   * TTL", so its clock runs one ms ahead, and it reads each time (no resolution).
   */
  #cacheOptions(max: number, ttl: number): LRUCache.Options<string, Entry, unknown> {
    return {
      max,
      ttl,
      allowStale: true,
      noDeleteOnStaleGet: true,
      updateAgeOnGet: false,
      ttlResolution: 0,
      perf: { now: () => this.#now() + 1 },
    };
  }

  /** True while the entry at `key` is within its TTL (a TTL of 0 keeps nothing fresh). */
  #fresh(key: string, entry: Entry): boolean {
    const [cache, ttl] = entry.value === undefined ? [this.#negatives, this.#negativeTtlMs] : [this.#cache, this.#ttlMs];
    return ttl > 0 && cache.getRemainingTTL(key) > 0;
  }

  /**
   * The compiled tool for `tool` (latest version, or `version` when the event pins one); undefined when the
   * registry has no such subject or version (404 with 40401/40402), cannot hold the subject (400/414/431), or
   * when no registry subject can have the name (see {@link unknownReason}; no request then).
   *
   * @throws RegistryUnavailableError on a transient failure when nothing (not even stale) is cached.
   * @throws RegistryAuthError / RegistryError on failures retrying cannot fix.
   * @throws RangeError when `version` is not a positive integer (the envelope decoder guarantees it is).
   */
  async get(tool: string, version?: number): Promise<CompiledTool | undefined> {
    if (version !== undefined && !isPositiveInteger(version))
      throw new RangeError(`a schema version must be a positive integer, got ${String(version)}`);
    const subject = subjectFor(tool, this.#template);
    if (subjectProblem(subject) !== undefined) {
      this.#hits++;
      return undefined;
    }
    const key = cacheKey(subject, version);
    const entry = this.#entry(key);
    const now = this.#now();
    if (entry !== undefined) {
      if (this.#fresh(key, entry)) {
        this.#hits++;
        return entry.value;
      }
      if (now < entry.retryAt) {
        // A refresh failed a moment ago: answer as it did, without asking again before retryAt.
        if (entry.failure !== undefined && !(entry.failure instanceof RegistryUnavailableError)) {
          this.#misses++;
          throw entry.failure;
        }
        this.#hits++;
        this.#stale++;
        return entry.value;
      }
    }
    this.#misses++;
    try {
      return await this.#load(key, subject, tool, version);
    } catch (error) {
      if (entry === undefined || !(error instanceof RegistryUnavailableError)) throw error;
      this.#stale++;
      return entry.value;
    }
  }

  /**
   * Synchronous cache peek, so the hot path avoids a promise when the tool is cached: the tool (or undefined
   * for a remembered "no such subject") when an entry is present, else `'miss'` (call {@link get}).
   * A stale tool is returned as is and refreshed in the background (stale-while-revalidate); a stale "no such
   * subject" is a `'miss'`, so the tool is looked up again. A name no registry subject can have is undefined
   * (see {@link unknownReason}).
   */
  peek(tool: string, version?: number): CompiledTool | undefined | 'miss' {
    // Latest-version keys are remembered by name: a lookup of a cached tool builds and hashes no new string.
    let known = version === undefined && tool.length <= MAX_SUBJECT_CHARS ? this.#latestKeys.get(tool) : undefined;
    if (known === undefined) {
      const subject = subjectFor(tool, this.#template);
      // The length first: a 100 KB name is not even hashed into a cache key.
      if (subject.length > MAX_SUBJECT_CHARS) {
        this.#hits++;
        return undefined;
      }
      known = { subject, key: cacheKey(subject, version) };
      if (version === undefined) this.#latestKeys.set(tool, known);
    }
    const { subject, key } = known;
    const entry = this.#entry(key);
    if (entry === undefined) {
      // Names that cannot be subjects are never cached, so they are checked here, off the hit path.
      if (subjectProblem(subject) === undefined) return 'miss';
      this.#hits++;
      return undefined;
    }
    if (this.#fresh(key, entry)) {
      this.#hits++;
      return entry.value;
    }
    if (entry.value === undefined) return 'miss';
    this.#hits++;
    // Served stale because the registry failed, not merely while a refresh from a healthy registry runs.
    if (entry.failure !== undefined || this.#unavailable) this.#stale++;
    if (this.#now() >= entry.retryAt && !this.#inFlight.has(key)) {
      // Failures are already recorded (retryAt, counters); a caller that needs the error uses get().
      this.#load(key, subject, tool, version).catch(() => undefined);
    }
    return entry.value;
  }

  /**
   * Why `tool` (at `version`) is unknown, when there is more to say than "the registry has no such subject": a
   * name no registry subject can have, or a subject the registry refused (HTTP 400/414/431) in a remembered
   * lookup. Undefined otherwise. No request, no counter: for the message of the caller that rejects the call.
   */
  unknownReason(tool: string, version?: number): string | undefined {
    const subject = subjectFor(tool, this.#template);
    return subjectProblem(subject) ?? this.#negatives.peek(cacheKey(subject, version))?.reason;
  }

  stats(): ToolSchemaSourceStats {
    return { hits: this.#hits, misses: this.#misses, stale: this.#stale, requests: { ...this.#client.requests } };
  }

  /** Readiness: the registry answers `GET /subjects` within the timeout. */
  ping(): Promise<boolean> {
    return this.#client.ping();
  }

  /** Readiness with a reason (see {@link RegistryClient.check}). */
  check(): Promise<true | string> {
    return this.#client.check();
  }

  #load(key: string, subject: string, tool: string, version: number | undefined): Promise<CompiledTool | undefined> {
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return pending;
    const promise = this.#fetchAndStore(key, subject, tool, version).finally(() => {
      this.#inFlight.delete(key);
    });
    this.#inFlight.set(key, promise);
    return promise;
  }

  async #fetchAndStore(key: string, subject: string, tool: string, version: number | undefined): Promise<CompiledTool | undefined> {
    let registered: RegisteredSchema | undefined;
    try {
      registered = await this.#client.getSubjectVersion(subject, version);
    } catch (error) {
      if (
        error instanceof RegistryError &&
        !error.canRetry &&
        error.status !== undefined &&
        UNADDRESSABLE_SUBJECT_STATUSES.has(error.status)
      ) {
        // The registry answered, about this subject's URL: it cannot hold such a subject. Not an outage.
        this.#unavailable = false;
        const reason =
          'the schema registry refuses the subject of this tool name ' + `(HTTP ${error.status}), so no schema can be registered for it`;
        this.#store(key, freshEntry(undefined, reason));
        return undefined;
      }
      if (error instanceof RegistryUnavailableError) this.#unavailable = true;
      // Whatever the error, the next request for this key waits staleRetryMs: a refusing registry is not asked
      // once per lookup of an expired entry.
      const entry = this.#entry(key);
      if (entry !== undefined) {
        entry.retryAt = this.#now() + this.#staleRetryMs;
        entry.failure = error instanceof Error ? error : new Error(String(error));
      }
      throw error;
    }
    this.#unavailable = false;
    if (registered === undefined) {
      this.#store(key, freshEntry(undefined));
      return undefined;
    }
    const compiled = this.#compile(tool, subject, registered);
    this.#store(key, freshEntry(compiled));
    // Versions are immutable, so `latest` also answers for the version it named.
    if (version === undefined) this.#store(cacheKey(subject, registered.version), freshEntry(compiled));
    return compiled;
  }

  #compile(tool: string, subject: string, registered: RegisteredSchema): CompiledTool {
    const identity: SchemaIdentity = { subject: registered.subject, version: registered.version, id: registered.id };
    const where = `registry subject "${subject}" version ${registered.version}`;
    if (registered.schemaType !== 'JSON') {
      return unusableTool(tool, `its ${where} holds a ${registered.schemaType} schema, not a JSON Schema`, identity);
    }
    const parsed = tryParseJson(registered.schema);
    if (!parsed.ok) return unusableTool(tool, `its ${where} holds a schema that is not JSON`, identity);
    const read = fromRegistryDocument(parsed.value, subject, this.#template);
    if (!read.ok) return unusableTool(tool, `its ${where} is not a usable tool schema (${read.reason})`, identity);
    return compileTool(read.definition, this.#compiler, identity);
  }

  #entry(key: string): Entry | undefined {
    return this.#cache.peek(key) ?? this.#negatives.peek(key);
  }

  /**
   * Insert into the tools or the negative cache (as its newest entry, with a new TTL, and out of the other); the
   * cache evicts its oldest written entries beyond its bound.
   */
  #store(key: string, entry: Entry): void {
    const [cache, other] = entry.value === undefined ? [this.#negatives, this.#cache] : [this.#cache, this.#negatives];
    other.delete(key);
    cache.delete(key);
    cache.set(key, entry);
  }
}

/** An answer just received from the registry: not stale, no failed refresh yet. */
function freshEntry(value: CompiledTool | undefined, reason?: string): Entry {
  return reason === undefined ? { value, retryAt: 0, failure: undefined } : { value, retryAt: 0, failure: undefined, reason };
}

/** Versions never contain NUL, so `version NUL subject` keys cannot collide whatever the subject holds. */
function cacheKey(subject: string, version: number | undefined): string {
  return `${version === undefined ? 'latest' : String(version)}\u0000${subject}`;
}

/** The registry's `{"error_code": n, "message": "..."}`, when the body is one; the message is truncated. */
function registryErrorBody(text: string): { code: number | undefined; message: string | undefined } {
  const parsed = tryParseJson(text);
  if (!parsed.ok || !isJsonObject(parsed.value)) return { code: undefined, message: undefined };
  const code = parsed.value.error_code;
  const message = parsed.value.message;
  return {
    code: typeof code === 'number' && Number.isInteger(code) ? code : undefined,
    message: typeof message === 'string' ? truncate(message, MAX_DETAIL_CHARS) : undefined,
  };
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `timed out after ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  // undici reports "fetch failed" and puts the reason (ECONNREFUSED, ENOTFOUND...) in the cause.
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code: unknown = cause instanceof Error ? (cause as Error & { code?: unknown }).code : undefined;
  const reason = typeof code === 'string' ? code : cause instanceof Error ? cause.message : undefined;
  return `network error: ${truncate(message, MAX_DETAIL_CHARS)}${reason === undefined ? '' : ` (${truncate(reason, MAX_DETAIL_CHARS)})`}`;
}

/** `Retry-After` in seconds (the form registries and proxies send); dates are ignored. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1000;
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a positive number, got ${String(value)}`);
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`${name} must be a non-negative number, got ${String(value)}`);
  return value;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!isNonNegativeInteger(value)) throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  return value;
}
