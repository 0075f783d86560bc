/**
 * The worker binary signing in with SASL/OAUTHBEARER, for real: a Kafka of this file's own (`scripts/stack.sh
 * up-kafka` with KAFKA_SECURITY=oauth on free ports, taken down in afterAll) whose OAUTHBEARER listener checks
 * tokens with Kafka's OAuthBearerValidatorCallbackHandler against the JWKS, audience and issuer of a real OIDC
 * provider (npm's oidc-provider, scripts/oidc-provider.ts) issuing 30-second JWTs by client credentials.
 *
 * Sign-in, then refresh across several expiries while calls keep flowing (the broker makes the clients
 * re-authenticate when a token runs out): every call once on its topic, no secret or token in the output. A wrong
 * client secret: one fatal line that says so, exit 1, nothing consumed. The provider out of reach (a relay in front
 * of its token endpoint taken down, the provider itself and the broker's JWKS untouched): while the token is valid
 * the stream goes on and the refresh is retried and reported; past expiry one line says so; once the endpoint is
 * back the worker has a new token and every call arrives once. The harness's own clients use the broker's
 * PLAINTEXT listener. Runs on TEST_KAFKA_CLIENT (.ci/run runs it on both clients).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  committedOffsets,
  eventually,
  freshTopics,
  misplacedCalls,
  numberedCalls,
  numberedIds,
  produce,
  readOutputs,
  sleep,
  startReadyWorker,
  startWorker,
  sumOffsets,
  tally,
} from './harness.js';
import { pointHarnessAt, startCountingProxy, startOwnBroker, type CountingProxy, type OwnBroker, type OwnOAuth } from './own-broker.js';
import { workerSuite } from './worker-suite.js';

const TOKEN_TTL_S = 30;
let broker: OwnBroker | undefined;
let restoreSharedBrokers: (() => void) | undefined;
let scratch = '';

const suite = workerSuite('itoauth', {
  setUp: async () => {
    broker = await startOwnBroker({ security: 'oauth', oauthTokenTtlS: TOKEN_TTL_S });
    restoreSharedBrokers = pointHarnessAt(broker);
    scratch = mkdtempSync(join(tmpdir(), 'toolcall-oauth-'));
  },
  tearDown: async () => {
    await broker?.down();
    restoreSharedBrokers?.();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  },
});

function oauth(): OwnOAuth {
  if (broker?.oauth === undefined) throw new Error('the test broker has no OAUTHBEARER listener (see beforeAll)');
  return broker.oauth;
}

function oauthEnv(secretFile = oauth().clientSecretFile, tokenUrl = oauth().tokenUrl): Record<string, string> {
  return {
    KAFKA_BROKERS: oauth().brokers,
    KAFKA_SASL_MECHANISM: 'oauthbearer',
    KAFKA_OAUTH_TOKEN_URL: tokenUrl,
    KAFKA_OAUTH_CLIENT_ID: oauth().clientId,
    KAFKA_OAUTH_CLIENT_SECRET_FILE: secretFile,
    KAFKA_OAUTH_SCOPE: 'kafka',
  };
}

type LogLine = { msg?: string; level?: number; component?: string };
const obtained = (lines: readonly LogLine[]): number => lines.filter((l) => l.msg === 'OAUTHBEARER: access token obtained').length;
const REFRESH_FAILED = 'OAUTHBEARER: token refresh failed; the current token stays in use while it is valid';
const refreshFailures = (lines: readonly LogLine[]): number => lines.filter((l) => l.msg === REFRESH_FAILED).length;
const errorLines = (lines: readonly LogLine[]): LogLine[] => lines.filter((l) => (l.level ?? 0) >= 50);
/** The token source's own error lines (the client's lines about a broker it cannot reach are its own matter). */
const oauthErrors = (lines: readonly LogLine[]): LogLine[] => errorLines(lines).filter((l) => l.component === 'oauth');
const fatalLines = (lines: readonly LogLine[]): LogLine[] => lines.filter((l) => (l.level ?? 0) >= 60);

/** A relay in front of the provider's token endpoint, and the token URL through it. */
async function tokenEndpointRelay(): Promise<{ relay: CountingProxy; tokenUrl: string }> {
  const url = new URL(oauth().tokenUrl);
  const relay = await startCountingProxy(url.host);
  return { relay, tokenUrl: `${url.protocol}//${relay.address}${url.pathname}` };
}

describe('Kafka SASL/OAUTHBEARER with a real OIDC provider', () => {
  it('signs in, refreshes across expiries while calls flow: every call once, no secret in the output', async () => {
    const topics = await freshTopics('itoauth-flow', 3);
    const secret = readFileSync(oauth().clientSecretFile, 'utf8').trim();
    const worker = await startReadyWorker(suite.env(topics, oauthEnv()));
    const batches = 3;
    const per = 100;
    for (let b = 0; b < batches; b++) {
      await produce(topics.input, numberedCalls('oa', b * per, (b + 1) * per, 7));
      // Each batch after a token's lifetime has (about) passed: the next batch needs the refreshed token.
      await eventually(() => obtained(worker.logs()) >= b + 1, `token ${b + 1} obtained`, (TOKEN_TTL_S + 20) * 1000);
    }
    const total = batches * per;
    const out = await readOutputs(topics, { until: total, timeoutMs: 90_000, settleMs: 1500 });
    const result = tally(out, numberedIds('oa', total));
    expect(result.missing, worker.tail()).toEqual([]);
    expect(result.duplicates).toBe(0);
    expect(misplacedCalls(out, topics, 'oa')).toEqual([]);
    expect(obtained(worker.logs())).toBeGreaterThanOrEqual(batches);
    expect(worker.running(), worker.tail()).toBe(true);
    expect(await worker.stop(), worker.tail()).toBe(0);
    const output = worker.stdout() + worker.stderr();
    expect(output).not.toContain(secret);
    expect(output).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}/); // no JWT
    console.log(
      `OAUTHBEARER: ${total} calls end to end over ${oauth().brokers} with ${obtained(worker.logs())} tokens of ${TOKEN_TTL_S} s; ` +
        `failed authentications in the broker log: ${broker?.failedAuthentications() ?? 0}`,
    );
  }, 240_000);

  it('a wrong client secret: one fatal line naming the refusal, exit 1, nothing consumed, no secret in the output', async () => {
    const topics = await freshTopics('itoauth-bad', 1);
    await produce(topics.input, numberedCalls('ob', 0, 10, 7));
    const wrong = join(scratch, 'wrong-secret');
    writeFileSync(wrong, 'not-the-secret-0123456789\n');
    const started = Date.now();
    const worker = await startWorker(suite.env(topics, oauthEnv(wrong)));
    const code = await Promise.race([worker.exited, sleep(30_000).then(() => 'still running' as const)]);
    expect(code, worker.tail()).toBe(1);
    const errors = worker.logs().filter((l) => (l.level ?? 0) >= 50);
    expect(errors, worker.tail()).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(
      /^OAUTHBEARER: the OIDC token endpoint refused the client credentials of KAFKA_OAUTH_CLIENT_ID "toolcall-worker": HTTP 401 invalid_client/,
    );
    expect(worker.stdout() + worker.stderr()).not.toContain('not-the-secret-0123456789');
    expect(sumOffsets(await committedOffsets(topics.groupId, topics.input))).toBe(0);
    console.log(`OAUTHBEARER, wrong secret: exit ${String(code)} after ${Date.now() - started} ms, ${errors.length} error line`);
  }, 120_000);

  it('the token endpoint goes down mid-stream: the stream goes on while the token is valid, refreshes are retried and reported, then a new token and every call once', async () => {
    const topics = await freshTopics('itoauth-down', 3);
    const { relay, tokenUrl } = await tokenEndpointRelay();
    try {
      const worker = await startReadyWorker(suite.env(topics, oauthEnv(undefined, tokenUrl)));
      await relay.down();
      const downAt = Date.now();
      const per = 100;
      // Sent and handled while the endpoint is unreachable: the current token carries the stream.
      await produce(topics.input, numberedCalls('od', 0, per, 7));
      const during = await readOutputs(topics, { until: per, timeoutMs: 60_000, settleMs: 500 });
      expect(tally(during, numberedIds('od', per)).missing, worker.tail()).toEqual([]);
      // The refresh (at 80 % of the lifetime) fails, is reported and retried with backoff before the token expires.
      await eventually(() => refreshFailures(worker.logs()) >= 2, 'two failed refreshes reported', (TOKEN_TTL_S + 10) * 1000);
      const failures = worker.logs().filter((l) => l.msg === REFRESH_FAILED) as { validForS?: number; retryInMs?: number }[];
      expect(
        failures.every((l) => (l.retryInMs ?? 0) > 0 && (l.validForS ?? 0) > 0),
        worker.tail(),
      ).toBe(true);
      await relay.up();
      const upAt = Date.now();
      await eventually(() => obtained(worker.logs()) >= 2, 'a new token once the endpoint is back', 60_000);
      await produce(topics.input, numberedCalls('od', per, 2 * per, 7));
      const out = await readOutputs(topics, { until: 2 * per, timeoutMs: 90_000, settleMs: 1500 });
      const result = tally(out, numberedIds('od', 2 * per));
      expect(result.missing, worker.tail()).toEqual([]);
      expect(result.duplicates).toBe(0);
      expect(misplacedCalls(out, topics, 'od')).toEqual([]);
      expect(oauthErrors(worker.logs()), worker.tail()).toEqual([]);
      expect(fatalLines(worker.logs()), worker.tail()).toEqual([]);
      expect(worker.running(), worker.tail()).toBe(true);
      expect(await worker.stop(), worker.tail()).toBe(0);
      console.log(
        `OAUTHBEARER, token endpoint down ${upAt - downAt} ms (token ${TOKEN_TTL_S} s): ${per} calls handled during the outage, ` +
          `${refreshFailures(worker.logs())} failed refreshes reported, ${2 * per} calls once, ${obtained(worker.logs())} tokens`,
      );
    } finally {
      await relay.close();
    }
  }, 240_000);

  it('an expired token (the endpoint gives none until after expiry): one clear line, then a new token and no call lost', async () => {
    const topics = await freshTopics('itoauth-expired', 3);
    const { relay, tokenUrl } = await tokenEndpointRelay();
    try {
      const worker = await startReadyWorker(suite.env(topics, oauthEnv(undefined, tokenUrl)));
      await relay.down();
      const per = 100;
      await produce(topics.input, numberedCalls('oe', 0, per, 7));
      await eventually(() => oauthErrors(worker.logs()).length >= 1, 'the expiry reported', (TOKEN_TTL_S + 20) * 1000);
      const expiredAt = Date.now();
      // Calls sent while the token is expired wait for the next one; none is lost.
      await produce(topics.input, numberedCalls('oe', per, 2 * per, 7));
      await sleep(10_000);
      expect(worker.running(), worker.tail()).toBe(true);
      await relay.up();
      await eventually(() => obtained(worker.logs()) >= 2, 'a new token once the endpoint is back', 60_000);
      const out = await readOutputs(topics, { until: 2 * per, timeoutMs: 120_000, settleMs: 1500 });
      const result = tally(out, numberedIds('oe', 2 * per));
      expect(result.missing, worker.tail()).toEqual([]);
      expect(result.duplicates).toBe(0);
      expect(misplacedCalls(out, topics, 'oe')).toEqual([]);
      expect(fatalLines(worker.logs()), worker.tail()).toEqual([]);
      // One clear line in all: the client's own lines about the refused sign-ins and the re-join are below error.
      const errors = errorLines(worker.logs());
      expect(
        errors.map((l) => l.msg),
        worker.tail(),
      ).toEqual([
        'OAUTHBEARER: the access token expired and the OIDC token endpoint gives no new one; ' +
          'the brokers refuse re-authentication until it does',
      ]);
      expect(worker.running(), worker.tail()).toBe(true);
      expect(await worker.stop(), worker.tail()).toBe(0);
      expect(worker.stdout() + worker.stderr()).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}/);
      console.log(
        `OAUTHBEARER, token expired for ${Date.now() - expiredAt} ms or more: ${2 * per} calls once after the endpoint came back, ` +
          `${errors.length} error line, ${obtained(worker.logs())} tokens`,
      );
    } finally {
      await relay.close();
    }
  }, 300_000);
});
