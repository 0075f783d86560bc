/**
 * The worker binary against an authenticated broker and an authenticated registry, for real:
 *
 * - a Kafka of this file's own (`scripts/stack.sh up-kafka` with KAFKA_SECURITY=sasl-scram,tls,sasl-tls on free
 *   ports and a private state dir; taken down in afterAll) with a SASL_PLAINTEXT (SCRAM-SHA-256/512), an SSL and
 *   a SASL_SSL listener, the StandardAuthorizer on, and the test's SCRAM user made a super user in the broker
 *   configuration (KAFKA_SUPER_USERS), so the worker may create topics and run transactions without ACLs. Its
 *   TLS material (CA, broker certificate for 127.0.0.1, PKCS12 keystore) is made with openssl by the script; a
 *   second, unrelated CA is made here with openssl for the wrong-CA case.
 * - Apicurio Registry's own authentication needs an OIDC server, which cannot run here: a basic-auth reverse
 *   proxy (node:http, own-broker.ts) stands in front of the shared local Apicurio.
 *
 * Right credentials: calls go end to end. Wrong ones: the worker is refused with a clear error, exits non-zero
 * promptly with a bounded number of attempts (the broker's own log counts the failed authentications), and no
 * secret appears in its stdout or stderr. A registry refusing the credentials makes records wait (never
 * dead-lettered) and /readyz say why.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  freshTopics,
  metricValue,
  misplacedCalls,
  numberedCalls,
  numberedIds,
  produce,
  readOutputs,
  sleep,
  stackEnv,
  startReadyWorker,
  startWorker,
  tally,
  uniqueTopics,
  type TestTopics,
  type WorkerHandle,
} from './harness.js';
import {
  basicAuthRegistryEnv,
  pointHarnessAt,
  scramWorkerEnv,
  startBasicAuthProxy,
  startCountingProxy,
  startOwnBroker,
  type BasicAuthProxy,
  type OwnBroker,
} from './own-broker.js';
import { workerSuite } from './worker-suite.js';

const USER = 'worker';
/** Unique per run, so finding it anywhere proves a leak. */
const PASSWORD = `scram-${randomBytes(12).toString('hex')}`;
const WRONG_PASSWORD = `wrong-${randomBytes(12).toString('hex')}`;
const REGISTRY_USER = 'registry-user';
const REGISTRY_PASSWORD = `reg-${randomBytes(12).toString('hex')}`;
const REGISTRY_WRONG_PASSWORD = `regwrong-${randomBytes(12).toString('hex')}`;
const SECRETS = [PASSWORD, WRONG_PASSWORD, REGISTRY_PASSWORD, REGISTRY_WRONG_PASSWORD];

let broker: OwnBroker | undefined;
let restoreSharedBrokers: (() => void) | undefined;
let proxy: BasicAuthProxy | undefined;
let scratch = '';
let rogueCa = '';
/** The registry as the shared stack serves it (the proxy's upstream). */
let registryUrl = '';

function ownBroker(): OwnBroker {
  if (broker === undefined) throw new Error('the test broker did not start (see beforeAll)');
  return broker;
}

function listener(which: 'sasl' | 'tls' | 'saslTls'): string {
  const address = ownBroker()[which];
  if (address === undefined) throw new Error(`the test broker has no ${which} listener`);
  return address;
}

const suite = workerSuite('itsec', {
  setUp: async () => {
    registryUrl = stackEnv().registryUrl;
    broker = await startOwnBroker({ security: 'sasl-scram,tls,sasl-tls', scramUsers: `${USER}:${PASSWORD}`, superUsers: USER });
    // The harness's own admin, producer and readers use the PLAINTEXT listener of this broker (loopback only).
    restoreSharedBrokers = pointHarnessAt(broker);
    scratch = mkdtempSync(join(tmpdir(), 'toolcall-sec-'));
    rogueCa = join(scratch, 'rogue-ca.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(scratch, 'rogue-ca.key'),
        '-out',
        rogueCa,
        '-days',
        '2',
        '-subj',
        '/CN=not the broker CA',
      ],
      { stdio: 'ignore' },
    );
  },
  tearDown: async () => {
    await proxy?.close();
    await broker?.down();
    restoreSharedBrokers?.();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  },
});

// The workers run as production runs them: vitest sets NODE_ENV=test, which would switch kafkajs to its test-mode
// retry defaults (15 retries from 50 ms, capped at 1 s, instead of 5 from 300 ms up to 30 s), and the harness's
// startWorker never passes it on. The attempt counts below are those of production.

/** Every secret of this file that shows up in the worker's stdout or stderr (must be none). */
function leakedSecrets(worker: WorkerHandle): string[] {
  const output = worker.stdout() + worker.stderr();
  const basic = SECRETS.map((s) => Buffer.from(`${REGISTRY_USER}:${s}`).toString('base64'));
  return [...SECRETS, ...basic].filter((s) => output.includes(s));
}

/** Produces `n` numbered calls, runs `worker` until all come out, checks every id once on its topic. */
async function endToEnd(topics: TestTopics, prefix: string, n: number, worker: WorkerHandle): Promise<void> {
  await produce(topics.input, numberedCalls(prefix, 0, n, 7));
  const out = await readOutputs(topics, { until: n, timeoutMs: 60_000, settleMs: 1500 });
  const result = tally(out, numberedIds(prefix, n));
  expect(result.missing, worker.tail()).toEqual([]);
  expect(result.duplicates).toBe(0);
  expect(misplacedCalls(out, topics, prefix)).toEqual([]);
}

interface Refusal {
  readonly code: number | null;
  readonly ms: number;
  readonly errorLines: number;
}

/** Starts a worker that must be refused; waits (bounded) for it to exit. */
async function refused(env: Record<string, string>, boundMs: number): Promise<{ worker: WorkerHandle; refusal: Refusal }> {
  const started = Date.now();
  const worker = await startWorker(env);
  const code = await Promise.race([worker.exited, sleep(boundMs).then(() => 'still running' as const)]);
  if (code === 'still running')
    throw new Error(`the worker was still running ${boundMs} ms after start: it should have given up\n${worker.tail()}`);
  const errorLines = worker.logs().filter((l) => (l.level ?? 0) >= 50).length;
  return { worker, refusal: { code, ms: Date.now() - started, errorLines } };
}

describe('Kafka SASL/SCRAM and TLS', () => {
  it('SASL/SCRAM-SHA-512 with the right credentials: calls go end to end', async () => {
    const topics = await freshTopics('itsec-sasl', 3);
    const worker = await startReadyWorker(suite.env(topics, scramWorkerEnv(listener('sasl'), 'scram-sha-512', USER, PASSWORD)));
    await endToEnd(topics, 'sasl', 200, worker);
    expect(await worker.stop(), worker.tail()).toBe(0);
    expect(leakedSecrets(worker)).toEqual([]);
    console.log(`SASL/SCRAM-SHA-512: 200 calls end to end over ${listener('sasl')}; worker exit 0; secrets in its output: 0`);
  }, 120_000);

  it('SASL/SCRAM with a wrong password: refused with a clear error, exit 1 at once, no retry storm, no secret in the output', async () => {
    const topics = await freshTopics('itsec-badpw', 1);
    const before = ownBroker().failedAuthentications();
    const { worker, refusal } = await refused(
      suite.env(topics, scramWorkerEnv(listener('sasl'), 'scram-sha-512', USER, WRONG_PASSWORD)),
      30_000,
    );
    // Observe a while longer: a process that is gone makes no more attempts, which the broker's log confirms.
    await sleep(3000);
    const attempts = ownBroker().failedAuthentications() - before;
    console.log(
      `SASL/SCRAM wrong password: exit ${String(refusal.code)} after ${refusal.ms} ms; ` +
        `failed authentications in the broker log: ${attempts}; ` +
        `worker error lines: ${refusal.errorLines}; secrets in its output: ${leakedSecrets(worker).length}`,
    );
    expect(refusal.code).toBe(1);
    expect(refusal.ms).toBeLessThan(20_000);
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(3);
    expect(refusal.errorLines).toBeLessThanOrEqual(10);
    const fatal = worker.logs().find((l) => l.msg === 'fatal error, shutting down');
    expect(JSON.stringify(fatal?.err), worker.tail()).toMatch(/authentication failed.*invalid credentials/i);
    expect(leakedSecrets(worker)).toEqual([]);
    expect(worker.stdout() + worker.stderr()).not.toContain(PASSWORD);
  }, 60_000);

  it('TLS with the broker CA: calls go end to end; SASL_SSL (SCRAM-SHA-256 over TLS) too', async () => {
    const topics = await freshTopics('itsec-tls', 3);
    const tlsEnv = { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: ownBroker().caFile ?? '' };
    const worker = await startReadyWorker(suite.env(topics, { KAFKA_BROKERS: listener('tls'), ...tlsEnv }));
    await endToEnd(topics, 'tls', 150, worker);
    expect(await worker.stop(), worker.tail()).toBe(0);

    const topics2 = await freshTopics('itsec-sasltls', 3);
    const worker2 = await startReadyWorker(
      suite.env(topics2, { ...tlsEnv, ...scramWorkerEnv(listener('saslTls'), 'scram-sha-256', USER, PASSWORD) }),
    );
    await endToEnd(topics2, 'sasltls', 150, worker2);
    expect(await worker2.stop(), worker2.tail()).toBe(0);
    expect(leakedSecrets(worker2)).toEqual([]);
    console.log(
      `TLS: 150 calls end to end over SSL ${listener('tls')} and 150 over SASL_SSL ${listener('saslTls')} (SCRAM-SHA-256), both exit 0`,
    );
  }, 150_000);

  for (const variant of ['a wrong CA', 'no CA (the system trust store)'] as const) {
    it(`TLS with ${variant}: refused with a clear TLS error, exit 1 within a bounded number of attempts`, async () => {
      const topics = uniqueTopics('itsec-badca');
      const env = suite.env(topics, { KAFKA_BROKERS: listener('tls'), KAFKA_SSL: 'true' });
      if (variant === 'a wrong CA') env.KAFKA_SSL_CA_FILE = rogueCa;
      // Attempts counted on the wire: the broker logs nothing for a handshake the client gives up.
      const relay = await startCountingProxy(listener('tls'));
      env.KAFKA_BROKERS = relay.address;
      const { refusal, worker } = await refused(env, 60_000).finally(() => relay.close());
      const attempts = relay.connections();
      console.log(
        `TLS with ${variant}: exit ${String(refusal.code)} after ${refusal.ms} ms; ` +
          `TLS connections made (counted by a relay): ${attempts}; worker error lines: ${refusal.errorLines}`,
      );
      expect(refusal.code).toBe(1);
      const fatal = worker.logs().find((l) => l.msg === 'fatal error, shutting down');
      expect(JSON.stringify(fatal?.err), worker.tail()).toMatch(/self[- ]signed certificate|unable to verify|certificate/i);
      expect(attempts).toBeGreaterThanOrEqual(1);
      // kafkajs retries a failed connection 5 times with a growing backoff (300 ms doubling, jittered): at most 6
      // attempts, then it gives up; on @platformatic/kafka the first refused handshake stops the worker.
      expect(attempts).toBeLessThanOrEqual(6);
      expect(refusal.errorLines).toBeLessThanOrEqual(20);
    }, 90_000);
  }
});

describe('registry basic auth (a basic-auth proxy in front of the real Apicurio)', () => {
  it('right credentials: schemas are fetched through the proxy; wrong ones: records wait, /readyz says why, nothing is dead-lettered', async () => {
    proxy = await startBasicAuthProxy(registryUrl, REGISTRY_USER, REGISTRY_PASSWORD);
    // Without credentials the proxy refuses: it really guards the registry.
    expect((await fetch(`${proxy.url}/subjects`)).status).toBe(401);

    // Right credentials, over SASL too: both secrets in the environment, neither in the output.
    const good = await freshTopics('itsec-reg', 3);
    const saslEnv = scramWorkerEnv(listener('sasl'), 'scram-sha-512', USER, PASSWORD);
    const worker = await startReadyWorker(
      suite.env(good, { ...saslEnv, ...basicAuthRegistryEnv(proxy, REGISTRY_USER, REGISTRY_PASSWORD) }),
    );
    await endToEnd(good, 'reg', 100, worker);
    expect(proxy.forwarded()).toBeGreaterThan(0);
    expect(await worker.stop(), worker.tail()).toBe(0);
    expect(leakedSecrets(worker)).toEqual([]);

    // Wrong credentials: the registry refuses every lookup.
    const topics = await freshTopics('itsec-regbad', 2);
    const N = 60;
    // Calls 1..N: each partition starts with a valid call, so a partition waits from its first record on.
    await produce(topics.input, numberedCalls('regbad', 1, N + 1, 5));
    const refusedBefore = proxy.refused();
    const badEnv = suite.env(topics, { ...saslEnv, MAX_BACKOFF_MS: '4000' });
    const bad = await startWorker({ ...badEnv, ...basicAuthRegistryEnv(proxy, REGISTRY_USER, REGISTRY_WRONG_PASSWORD) });
    const waitStart = Date.now();
    let readyz = { status: 0, body: '' };
    await eventually(
      async () => (readyz = await bad.get('/readyz')).status === 503 && readyz.body.includes('registry'),
      '/readyz 503 naming the registry',
      30_000,
    );
    await eventually(async () => (await metricValue(bad, 'toolcall_schema_waits_total')) >= 2, 'two schema waits', 30_000, 500);
    await sleep(5000);
    const waitedMs = Date.now() - waitStart;
    const during = await readOutputs(topics, { until: 1, timeoutMs: 3000 });
    const waits = await metricValue(bad, 'toolcall_schema_waits_total');
    const refusedRequests = proxy.refused() - refusedBefore;
    const deadLettered = await metricValue(bad, 'toolcall_calls_total', { outcome: 'dead_lettered' });
    const rejected = await metricValue(bad, 'toolcall_calls_total', { outcome: 'rejected' });
    expect((await bad.get('/livez')).status).toBe(200);
    expect(bad.running()).toBe(true);
    expect(await bad.stop(), bad.tail()).toBe(0);
    console.log(
      `registry wrong password: ${(waitedMs / 1000).toFixed(1)}s waiting; outputs meanwhile=${during.length}; schema waits=${waits}; ` +
        `requests refused by the proxy=${refusedRequests}; /readyz ${readyz.status} ${readyz.body}; ` +
        `secrets in the output: ${leakedSecrets(bad).length}`,
    );
    // Records whose lookup the registry refused wait: nothing came out, nothing was dead-lettered or rejected
    // (a partition stops at its first waiting record, and each starts with a call needing a schema).
    expect(during).toEqual([]);
    expect(deadLettered).toBe(0);
    expect(rejected).toBe(0);
    expect(readyz.status).toBe(503);
    expect(JSON.parse(readyz.body)).toMatchObject({
      ok: false,
      checks: { registry: expect.stringMatching(/refuses the credentials \(HTTP 401\)/) as unknown },
    });
    expect(
      bad
        .logs()
        .some((l) => l.msg === 'schema lookup failed' && JSON.stringify(l.err).includes('check the registry username and password')),
    ).toBe(true);
    // Backoff, not a storm: refused requests stay in the order of the partition pauses.
    expect(refusedRequests).toBeLessThanOrEqual(4 * (waits + 2) + Math.ceil(waitedMs / 5000) + 4);
    expect(leakedSecrets(bad)).toEqual([]);

    // With the right password the same records all come out, exactly once, none dead-lettered for the outage.
    const fixed = await startWorker({ ...badEnv, ...basicAuthRegistryEnv(proxy, REGISTRY_USER, REGISTRY_PASSWORD) });
    const all = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 1500 });
    const result = tally(all, numberedIds('regbad', N, 1));
    expect(result.missing, fixed.tail()).toEqual([]);
    expect(result.duplicates).toBe(0);
    expect(misplacedCalls(all, topics, 'regbad')).toEqual([]);
    expect(await fixed.stop(), fixed.tail()).toBe(0);
    expect(leakedSecrets(fixed)).toEqual([]);
    console.log(
      `registry right password after the wrong one: ${result.records} outputs for ${N} calls, ` +
        `missing=${result.missing.length} duplicates=${result.duplicates}`,
    );
  }, 240_000);
});
