/**
 * The worker's HTTP endpoints (/metrics, /livez, /readyz) expose no payload data and no configuration secret.
 *
 * A worker with a SASL/SCRAM password (a Kafka of this file's own, `scripts/stack.sh up-kafka` with
 * KAFKA_SECURITY=sasl-scram, taken down in afterAll) and a registry password (a basic-auth proxy in front of the
 * shared Apicurio, see own-broker.ts), both unique to this run, processes calls that carry a unique marker
 * string everywhere a payload can: arguments, call ids, tool names (a tool the registry lacks), keys, headers,
 * text that matches no envelope. Then every endpoint, and a few paths that are not endpoints, are fetched: none
 * may contain the marker, either password (or its Basic encoding), or the usernames. The same again for a
 * worker whose registry password is wrong (/readyz 503 with its reasons).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  freshTopics,
  metricValue,
  produce,
  readOutputs,
  stackEnv,
  startReadyWorker,
  startWorker,
  type TestTopics,
  type WorkerHandle,
} from './harness.js';
import {
  basicAuthRegistryEnv,
  pointHarnessAt,
  scramWorkerEnv,
  startBasicAuthProxy,
  startOwnBroker,
  type BasicAuthProxy,
  type OwnBroker,
} from './own-broker.js';
import { workerSuite } from './worker-suite.js';

const MARKER = `MARKER${randomBytes(10).toString('hex')}`;
const SASL_USER = `sasluser${randomBytes(4).toString('hex')}`;
const SASL_PASSWORD = `saslpw${randomBytes(12).toString('hex')}`;
const REGISTRY_USER = `reguser${randomBytes(4).toString('hex')}`;
const REGISTRY_PASSWORD = `regpw${randomBytes(12).toString('hex')}`;
const WRONG_REGISTRY_PASSWORD = `regwrong${randomBytes(12).toString('hex')}`;
const FORBIDDEN = [
  MARKER,
  SASL_USER,
  SASL_PASSWORD,
  REGISTRY_USER,
  REGISTRY_PASSWORD,
  WRONG_REGISTRY_PASSWORD,
  Buffer.from(`${REGISTRY_USER}:${REGISTRY_PASSWORD}`).toString('base64'),
  Buffer.from(`${REGISTRY_USER}:${WRONG_REGISTRY_PASSWORD}`).toString('base64'),
];
const PATHS = ['/metrics', '/livez', '/readyz', '/', '/metrics?debug=1', '/readyz?verbose=1', '/env', '/config', '/debug/vars'];

let broker: OwnBroker | undefined;
let restoreSharedBrokers: (() => void) | undefined;
let proxy: BasicAuthProxy | undefined;

const suite = workerSuite('itep', {
  setUp: async () => {
    const registryUrl = stackEnv().registryUrl;
    broker = await startOwnBroker({ security: 'sasl-scram', scramUsers: `${SASL_USER}:${SASL_PASSWORD}` });
    restoreSharedBrokers = pointHarnessAt(broker);
    proxy = await startBasicAuthProxy(registryUrl, REGISTRY_USER, REGISTRY_PASSWORD);
  },
  tearDown: async () => {
    await proxy?.close();
    await broker?.down();
    restoreSharedBrokers?.();
  },
});

function workerEnv(topics: TestTopics, registryPassword: string): Record<string, string | undefined> {
  if (broker?.sasl === undefined || proxy === undefined) throw new Error('the test broker or proxy did not start (see beforeAll)');
  // NODE_ENV=test of vitest is never passed on by the harness: the worker runs with production retries.
  return suite.env(topics, {
    ...scramWorkerEnv(broker.sasl, 'scram-sha-256', SASL_USER, SASL_PASSWORD),
    ...basicAuthRegistryEnv(proxy, REGISTRY_USER, registryPassword),
  });
}

/** Every endpoint and non-endpoint path: status and the forbidden strings found in the answer. */
async function scan(worker: WorkerHandle): Promise<{ path: string; status: number; bytes: number; found: string[] }[]> {
  const results = [];
  for (const path of PATHS) {
    const { status, body } = await worker.get(path);
    results.push({ path, status, bytes: body.length, found: FORBIDDEN.filter((s) => body.includes(s)) });
  }
  return results;
}

describe('metrics and health endpoints', () => {
  it('expose no payload data and no configuration secret, after calls carrying a marker everywhere', async () => {
    const topics = await freshTopics('itep', 2);
    const worker = await startReadyWorker(workerEnv(topics, REGISTRY_PASSWORD));
    const headers = { traceparent: `00-${MARKER}-01`, [`x-${MARKER}`]: MARKER };
    const calls = [
      // valid (repaired), with the marker in arguments, id and key
      {
        key: `key-${MARKER}`,
        value: JSON.stringify({
          id: `id-${MARKER}-1`,
          tool: 'search_issues',
          arguments: { query: `find ${MARKER} &amp; more`, labels: `["${MARKER}"]` },
        }),
        headers,
      },
      // rejected: an enum value and an unknown property carrying the marker
      {
        key: `key-${MARKER}`,
        value: JSON.stringify({
          id: `id-${MARKER}-2`,
          tool: 'transfer_funds',
          arguments: { from_account: 'AB12345678', to_account: 'CD12345678', amount: 1, currency: MARKER, [MARKER]: MARKER },
        }),
        headers,
      },
      // a tool the registry lacks, named with the marker
      { key: `key-${MARKER}`, value: JSON.stringify({ id: `id-${MARKER}-3`, tool: `tool_${MARKER}`, arguments: { q: MARKER } }), headers },
      // dead letters: no envelope, not JSON
      { key: `key-${MARKER}`, value: JSON.stringify({ id: `id-${MARKER}-4`, [MARKER]: MARKER }), headers },
      { key: `key-${MARKER}`, value: `not json ${MARKER}`, headers },
      // OpenAI chat envelope with arguments as text
      {
        key: `key-${MARKER}`,
        value: JSON.stringify({
          id: `id-${MARKER}-6`,
          type: 'function',
          function: { name: 'search_issues', arguments: JSON.stringify({ query: MARKER }) },
        }),
        headers,
      },
    ];
    await produce(topics.input, calls);
    const out = await readOutputs(topics, { until: calls.length, timeoutMs: 60_000, settleMs: 1000 });
    expect(out, worker.tail()).toHaveLength(calls.length);
    // The marker really went through the worker (it is in the outputs, where it belongs).
    expect(out.every((m) => (m.value?.toString('utf8') ?? '').includes(MARKER))).toBe(true);
    await eventually(
      async () => (await metricValue(worker, 'toolcall_calls_total')) >= calls.length,
      'the calls counted in /metrics',
      10_000,
    );
    expect(await metricValue(worker, 'toolcall_calls_total', { outcome: 'dead_lettered' })).toBe(2);

    const results = await scan(worker);
    console.log(
      `endpoints after ${calls.length} calls carrying the marker: ` +
        `${results.map((r) => `${r.path} ${r.status} (${r.bytes} bytes, ${r.found.length} found)`).join('; ')}; ` +
        `forbidden strings checked: ${FORBIDDEN.length} (marker, SASL and registry usernames and passwords, Basic encodings)`,
    );
    expect(results.find((r) => r.path === '/metrics')?.status).toBe(200);
    expect(results.find((r) => r.path === '/livez')?.status).toBe(200);
    expect(results.find((r) => r.path === '/readyz')?.status).toBe(200);
    expect(results.filter((r) => r.found.length > 0)).toEqual([]);
    // Non-endpoints answer 404, with nothing of the configuration.
    expect(results.filter((r) => ['/', '/env', '/config', '/debug/vars'].includes(r.path)).map((r) => r.status)).toEqual([
      404, 404, 404, 404,
    ]);
    expect(await worker.stop(), worker.tail()).toBe(0);
  }, 120_000);

  it('a worker whose registry password is wrong: /readyz 503 with reasons, still nothing secret in any endpoint', async () => {
    const topics = await freshTopics('itep-bad', 1);
    await produce(topics.input, [
      { key: MARKER, value: JSON.stringify({ id: `id-${MARKER}`, tool: 'search_issues', arguments: { query: MARKER } }) },
    ]);
    const worker = await startWorker(workerEnv(topics, WRONG_REGISTRY_PASSWORD));
    await eventually(async () => (await metricValue(worker, 'toolcall_schema_waits_total')) >= 1, 'a schema wait', 30_000, 250);
    let readyz = { status: 0, body: '' };
    await eventually(
      async () => (readyz = await worker.get('/readyz')).status === 503 && readyz.body.includes('credentials'),
      '/readyz 503 naming the credentials',
      30_000,
    );
    const results = await scan(worker);
    console.log(
      'endpoints of a worker refused by the registry: ' +
        `/readyz ${readyz.status} ${readyz.body}; ${results.map((r) => `${r.path} ${r.status} (${r.found.length} found)`).join('; ')}`,
    );
    expect(results.filter((r) => r.found.length > 0)).toEqual([]);
    expect(await worker.stop(), worker.tail()).toBe(0);
  }, 90_000);
});
