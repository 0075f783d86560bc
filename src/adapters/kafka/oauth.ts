/**
 * SASL/OAUTHBEARER tokens for both Kafka clients: fetched from an OIDC token endpoint by the client credentials grant
 * (RFC 6749 section 4.4, client_secret_basic), kept in memory, refreshed before they expire. Neither the token nor the
 * secret is ever logged or put in an error message.
 *
 * The first token is retried with backoff (a provider that is down at start is reported on each attempt); a refresh
 * that fails keeps the current token in use while it is valid and tries again, so a provider that goes away
 * mid-stream stops nothing until the token expires; after that, sign-ins wait for the next token.
 */
import type { Logger } from 'pino';
import type { OAuthClientSettings } from '../../core/shared/stream.js';
import { BACKOFF_POLICIES, backoffDelay, retry, type AttemptOutcome } from '../shared/retry.js';

export interface AccessToken {
  readonly value: string;
  /** Epoch ms at which the token stops being valid. */
  readonly expiresAt: number;
}

/** A token request that cannot succeed by trying again (wrong credentials, a scope the client may not have, a bad answer). */
export class OAuthTokenError extends Error {
  constructor(
    message: string,
    readonly canRetry: boolean,
  ) {
    super(message);
    this.name = 'OAuthTokenError';
  }
}

/** Share of a token's lifetime after which it is refreshed (the Java client's sasl.login.refresh.window.factor). */
export const REFRESH_AT = 0.8;

type Failure = { readonly reason: string; readonly retryAfterMs?: number | undefined };

export interface TokenSourceDependencies {
  readonly logger: Logger;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<unknown>;
}

export class OAuthTokenSource {
  readonly #settings: OAuthClientSettings;
  readonly #logger: Logger;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #sleep: ((ms: number) => Promise<unknown>) | undefined;
  #current: AccessToken | undefined;
  #timer: NodeJS.Timeout | undefined;
  #refreshFailures = 0;
  #expiredReported = false;
  #stopped = false;
  #waiting: { resolve: (token: string) => void; reject: (error: Error) => void }[] = [];

  constructor(settings: OAuthClientSettings, deps: TokenSourceDependencies) {
    this.#settings = settings;
    this.#logger = deps.logger.child({ component: 'oauth', tokenUrl: settings.tokenUrl, clientId: settings.clientId });
    this.#fetch = deps.fetch ?? fetch;
    this.#now = deps.now ?? Date.now;
    this.#sleep = deps.sleep;
  }

  /** Gets the first token, retrying transient failures with backoff; throws {@link OAuthTokenError} when it cannot. */
  async start(): Promise<void> {
    const token = await retry((index) => this.#attempt(index), {
      policy: BACKOFF_POLICIES.oauthToken,
      maxRetries: this.#settings.maxRetries,
      giveUp: (failure, attempts) =>
        new OAuthTokenError(
          `OAUTHBEARER: no token from the OIDC token endpoint after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${failure.reason}`,
          true,
        ),
      ...(this.#sleep === undefined ? {} : { sleep: this.#sleep }),
    });
    this.#install(token);
  }

  /**
   * The token to present: the current one while it is valid, else the next one the refresh gets. A sign-in after
   * expiry waits for the provider to answer again (the refresh keeps retrying with backoff), so a client never
   * gives up on a sign-in, and so on its partitions, for an outage of the provider; {@link stop} ends the wait.
   */
  async token(): Promise<string> {
    const current = this.#current;
    if (current !== undefined && this.#now() < current.expiresAt) return current.value;
    if (this.#stopped) throw new OAuthTokenError('OAUTHBEARER: the token source is stopped', false);
    return new Promise<string>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
    });
  }

  /** When the current token expires (epoch ms), for health and tests. */
  expiresAt(): number | undefined {
    return this.#current?.expiresAt;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const waiter of this.#waiting.splice(0)) waiter.reject(new OAuthTokenError('OAUTHBEARER: the token source is stopped', false));
  }

  async #attempt(index: number): Promise<AttemptOutcome<AccessToken, Failure>> {
    const outcome = await this.#request();
    if (!outcome.done)
      this.#logger.warn(
        { attempt: index + 1, of: this.#settings.maxRetries + 1, reason: outcome.failure.reason },
        'OAUTHBEARER: the OIDC token endpoint did not give a token; retrying with backoff',
      );
    return outcome;
  }

  #install(token: AccessToken): void {
    const lifetimeMs = Math.max(0, token.expiresAt - this.#now());
    this.#current = token;
    this.#refreshFailures = 0;
    this.#expiredReported = false;
    this.#logger.info({ expiresInS: Math.round(lifetimeMs / 1000) }, 'OAUTHBEARER: access token obtained');
    this.#schedule(Math.max(1_000, lifetimeMs * REFRESH_AT));
    for (const waiter of this.#waiting.splice(0)) waiter.resolve(token.value);
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#refresh(), delayMs);
    this.#timer.unref();
  }

  async #refresh(): Promise<void> {
    let outcome: AttemptOutcome<AccessToken, Failure>;
    try {
      outcome = await this.#request();
    } catch (error) {
      outcome = { done: false, failure: { reason: error instanceof Error ? error.message : String(error) } };
    }
    if (this.#stopped) return;
    if (outcome.done) {
      this.#install(outcome.value);
      return;
    }
    const backoffMs = backoffDelay(BACKOFF_POLICIES.oauthToken, this.#refreshFailures++, outcome.failure.retryAfterMs ?? 0);
    const validMs = (this.#current?.expiresAt ?? 0) - this.#now();
    // While the token is valid a retry always lands before it expires, however far the backoff has grown.
    const retryMs = validMs > 0 ? Math.min(backoffMs, Math.max(500, validMs / 2)) : backoffMs;
    if (validMs > 0) {
      this.#logger.warn(
        { reason: outcome.failure.reason, validForS: Math.round(validMs / 1000), retryInMs: Math.round(retryMs) },
        'OAUTHBEARER: token refresh failed; the current token stays in use while it is valid',
      );
    } else if (!this.#expiredReported) {
      this.#expiredReported = true;
      this.#logger.error(
        { reason: outcome.failure.reason },
        'OAUTHBEARER: the access token expired and the OIDC token endpoint gives no new one; ' +
          'the brokers refuse re-authentication until it does',
      );
    }
    this.#schedule(retryMs);
  }

  /** One token request: a token, a transient failure, or (thrown) a refusal that retrying cannot change. */
  async #request(): Promise<AttemptOutcome<AccessToken, Failure>> {
    const s = this.#settings;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (s.scope !== undefined) form.set('scope', s.scope);
    if (s.audience !== undefined) form.set('audience', s.audience);
    // RFC 6749 section 2.3.1: both parts form-urlencoded before the Basic encoding.
    const basic = Buffer.from(`${formEncode(s.clientId)}:${formEncode(s.clientSecret)}`).toString('base64');
    const sentAt = this.#now();
    let response: Response;
    try {
      response = await this.#fetch(s.tokenUrl, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(s.timeoutMs),
      });
    } catch (error) {
      return { done: false, failure: { reason: networkReason(error, s.timeoutMs) } };
    }
    const text = await response.text().catch(() => '');
    if (response.status === 408 || response.status === 425 || response.status === 429 || response.status >= 500) {
      return {
        done: false,
        failure: { reason: `HTTP ${response.status}`, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) },
      };
    }
    const body = parseJson(text);
    if (!response.ok) {
      const code = typeof body?.error === 'string' ? body.error.slice(0, 100) : undefined;
      const description = typeof body?.error_description === 'string' ? ` (${body.error_description.slice(0, 200)})` : '';
      const credentials = code === 'invalid_client' || code === 'unauthorized_client' || response.status === 401;
      throw new OAuthTokenError(
        credentials
          ? `OAUTHBEARER: the OIDC token endpoint refused the client credentials of KAFKA_OAUTH_CLIENT_ID "${s.clientId}": ` +
              `HTTP ${response.status} ${code ?? ''}${description}; check KAFKA_OAUTH_CLIENT_SECRET_FILE`
          : `OAUTHBEARER: the OIDC token endpoint refused the request: HTTP ${response.status} ${code ?? ''}${description}`,
        false,
      );
    }
    const value = body?.access_token;
    if (typeof value !== 'string' || value === '')
      throw new OAuthTokenError('OAUTHBEARER: the OIDC token endpoint answered without an access_token', false);
    const expiresIn = body?.expires_in;
    const lifetimeS =
      typeof expiresIn === 'number' ? expiresIn : typeof expiresIn === 'string' ? Number(expiresIn) : jwtLifetimeS(value, sentAt);
    if (lifetimeS === undefined || !Number.isFinite(lifetimeS) || lifetimeS <= 0)
      throw new OAuthTokenError('OAUTHBEARER: the OIDC token endpoint gave a token without a usable expires_in (nor a JWT exp)', false);
    // Counted from when the request was sent, so a slow answer never makes the token look longer-lived than it is.
    return { done: true, value: { value, expiresAt: sentAt + lifetimeS * 1000 } };
  }
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A JWT's `exp` as seconds from `nowMs`; undefined when the token is not a JWT with a numeric exp. */
function jwtLifetimeS(token: string, nowMs: number): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  const claims = parseJson(Buffer.from(payload, 'base64url').toString('utf8'));
  return typeof claims?.exp === 'number' ? claims.exp - nowMs / 1000 : undefined;
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
