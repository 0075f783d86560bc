/**
 * The worker's container image, run as the Helm chart runs it, against the real stack (KAFKA_BROKERS and
 * SCHEMA_REGISTRY_URL, as for test/integration). The image is WORKER_IMAGE when set (CI exports what
 * `npm run images` prints), else built or reused by `scripts/images.sh`.
 *
 * The hardening comes from helm/toolcall-normalizer/values.yaml (numeric user and group, read-only root
 * filesystem with a tmpfs /tmp of the chart's size, every capability dropped, no privilege escalation) and is
 * checked on the running container. Containers use the host network; every one started here is removed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeClients,
  committedOffsets,
  createTopics,
  endOffsets,
  eventually,
  expectedTopic,
  freePort,
  numberedCalls,
  produce,
  pushExampleSchemas,
  readOutputs,
  REPO_ROOT,
  RUN_ID,
  stackEnv,
  sumOffsets,
  topicEnv,
  uniqueSubjectTemplate,
  uniqueTopics,
  misplacedCalls,
  numberedIds,
  tally,
} from '../integration/harness.js';
import { docker, dockerOk, engineOrSkip, offlineImages } from './docker.js';

const FILE = 'test/image/worker-image.test.ts';
const withEngine = engineOrSkip(FILE);

interface Hardening {
  readonly user: string;
  readonly tmpSize: string;
}

/** The chart's security settings, read from its values; throws when one the docker flags stand for is gone. */
function chartHardening(): Hardening {
  const values = readFileSync(join(REPO_ROOT, 'helm', 'toolcall-normalizer', 'values.yaml'), 'utf8');
  const block = (name: string): string => {
    const match = new RegExp(`^${name}:\\n((?:[ ]+.*\\n|\\n)+)`, 'm').exec(values);
    if (match?.[1] === undefined) throw new Error(`values.yaml has no ${name} block`);
    return match[1];
  };
  const pod = block('podSecurityContext');
  const container = block('securityContext');
  const setting = (text: string, key: string): string => {
    const match = new RegExp(`^\\s+${key}:\\s*(\\S+)`, 'm').exec(text);
    if (match?.[1] === undefined) throw new Error(`values.yaml sets no ${key}`);
    return match[1];
  };
  const expectations: [string, string, string][] = [
    [container, 'readOnlyRootFilesystem', 'true'],
    [container, 'allowPrivilegeEscalation', 'false'],
    [container, 'runAsNonRoot', 'true'],
    [pod, 'runAsNonRoot', 'true'],
  ];
  for (const [text, key, wanted] of expectations) {
    if (setting(text, key) !== wanted) throw new Error(`values.yaml: ${key} is no longer ${wanted}; the docker flags here stand for it`);
  }
  if (!/capabilities:\s*\n\s+drop:\s*\n\s+- ALL/.test(container))
    throw new Error('values.yaml: securityContext no longer drops ALL capabilities');
  const user = setting(pod, 'runAsUser');
  const group = setting(pod, 'runAsGroup');
  if (!/^[1-9]\d*$/.test(user) || !/^\d+$/.test(group))
    throw new Error(`values.yaml: runAsUser/runAsGroup ${user}/${group} are not a numeric non-root user`);
  const size = /^tmpSizeLimit:\s*(\d+)Mi\s*$/m.exec(values)?.[1];
  if (size === undefined) throw new Error('values.yaml sets no tmpSizeLimit in Mi');
  return { user: `${user}:${group}`, tmpSize: `${size}m` };
}

/** `docker run` flags for the chart's pod: host network, the numeric user, read-only root, tmpfs /tmp, no capabilities. */
function hardenedFlags(h: Hardening): string[] {
  return [
    '--network',
    'host',
    '--user',
    h.user,
    '--read-only',
    '--tmpfs',
    `/tmp:rw,nosuid,nodev,size=${h.tmpSize}`,
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
  ];
}

function envFlags(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
}

const containers = new Set<string>();

async function startContainer(image: string, h: Hardening, env: Readonly<Record<string, string>>, name: string): Promise<string> {
  const id = (await dockerOk(['run', '-d', '--name', name, ...hardenedFlags(h), ...envFlags(env), image, 'run'])).trim();
  containers.add(id);
  return id;
}

async function inspect(id: string, format: string): Promise<string> {
  return (await dockerOk(['inspect', '--format', format, id])).trim();
}

async function logsOf(id: string): Promise<string> {
  const result = await docker(['logs', '--tail', '60', id]);
  return `${result.stdout}${result.stderr}`;
}

async function httpStatus(port: number, path: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(3_000) });
  await response.text();
  return response.status;
}

describe.skipIf(!withEngine)('worker image, hardened as the chart runs it, against the stack', () => {
  const hardening = chartHardening();
  const topics = uniqueTopics('itimg');
  const template = uniqueSubjectTemplate('itimg');
  const SHUTDOWN_TIMEOUT_MS = 10_000;
  // The chart's terminationGracePeriodSeconds: ceil(SHUTDOWN_TIMEOUT_MS / 1000) + its 10 s margin.
  const GRACE_S = Math.ceil(SHUTDOWN_TIMEOUT_MS / 1000) + 10;
  const FIRST = 200;
  const SECOND = 3_000;
  let image = '';
  let port = 0;
  let env: Record<string, string> = {};
  let first = '';

  beforeAll(async () => {
    image = (await offlineImages(['WORKER_IMAGE'], 'worker')).WORKER_IMAGE ?? '';
    const stack = stackEnv();
    await createTopics(topics, 3);
    await pushExampleSchemas(template);
    port = await freePort();
    env = {
      ...topicEnv(topics),
      KAFKA_BROKERS: stack.kafkaBrokers,
      SCHEMA_REGISTRY_URL: stack.registryUrl,
      SUBJECT_TEMPLATE: template,
      METRICS_PORT: String(port),
      LOG_LEVEL: 'info',
      KAFKA_SESSION_TIMEOUT_MS: '10000',
      REGISTRY_TIMEOUT_MS: '3000',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    };
    first = await startContainer(image, hardening, env, `tcn-worker-${RUN_ID}-1`);
    await eventually(async () => (await httpStatus(port, '/readyz')) === 200, 'the container to answer /readyz with 200', 60_000).catch(
      async (error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\n${await logsOf(first)}`);
      },
    );
  }, 900_000);

  afterAll(async () => {
    for (const id of containers) await docker(['rm', '-f', id]);
    await closeClients();
  });

  it('runs with the chart hardening: numeric non-root user, read-only root, tmpfs /tmp, no capabilities, no-new-privileges', async () => {
    expect(
      await inspect(
        first,
        '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}} {{json .HostConfig.CapDrop}} ' +
          '{{json .HostConfig.SecurityOpt}} {{.HostConfig.NetworkMode}}',
      ),
    ).toBe(`${hardening.user} true ["ALL"] ["no-new-privileges"] host`);
    const status = await dockerOk(['exec', first, 'cat', '/proc/1/status']);
    const [uid, gid] = hardening.user.split(':');
    expect(status).toMatch(new RegExp(`^Uid:\\s+${uid}\\s+${uid}\\s+${uid}\\s+${uid}$`, 'm'));
    expect(status).toMatch(new RegExp(`^Gid:\\s+${gid}\\s+${gid}\\s+${gid}\\s+${gid}$`, 'm'));
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    const write = await docker(['exec', first, 'node', '-e', 'require("fs").writeFileSync("/app/probe", "x")']);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/EROFS/);
    expect((await docker(['exec', first, 'node', '-e', 'require("fs").writeFileSync("/tmp/probe", "x")'])).code).toBe(0);
  });

  it('carries no site CA: the build stages trust it, the final image does not', async () => {
    expect(await inspect(image, '{{json .Config.Env}}')).not.toMatch(/NODE_EXTRA_CA_CERTS|SSL_CERT_FILE/);
    const probe = await docker([
      'run',
      '--rm',
      '--network',
      'host',
      '--entrypoint',
      'node',
      image,
      '-p',
      'require("fs").existsSync("/usr/local/share/site-ca")',
    ]);
    expect(probe.stdout.trim()).toBe('false');
  });

  it('answers /livez and /readyz', async () => {
    expect(await httpStatus(port, '/livez')).toBe(200);
    expect(await httpStatus(port, '/readyz')).toBe(200);
  });

  it('puts calls of every disposition on their topics: normalized, rejected, dead letters', async () => {
    await produce(topics.input, numberedCalls('img', 0, FIRST, 7));
    await eventually(
      async () => sumOffsets(await committedOffsets(topics.groupId, topics.input)) === FIRST,
      `${FIRST} committed input records`,
      120_000,
    );
    const outputs = await readOutputs(topics, { until: FIRST, timeoutMs: 60_000, settleMs: 500 });
    expect(tally(outputs, numberedIds('img', FIRST))).toMatchObject({ records: FIRST, duplicates: 0, missing: [], unexpected: [] });
    expect(misplacedCalls(outputs, topics, 'img')).toEqual([]);
    for (const topic of [topics.output, topics.rejected, topics.dlq]) {
      expect(outputs.filter((m) => m.topic === topic).length, `records on ${topic}`).toBe(
        numberedIds('img', FIRST).filter((_, i) => expectedTopic(topics, i) === topic).length,
      );
    }
  });

  it('docker stop (SIGTERM) mid-stream: exit 0 inside the drain timeout, every output it wrote has its input offset committed', async () => {
    await produce(topics.input, numberedCalls('img', FIRST, FIRST + SECOND, 7));
    await eventually(
      async () => sumOffsets(await committedOffsets(topics.groupId, topics.input)) > FIRST,
      'the second batch to be under way',
      120_000,
    );
    const started = Date.now();
    const stop = await docker(['stop', '-t', String(GRACE_S), first], { timeoutMs: (GRACE_S + 30) * 1000 });
    const stopMs = Date.now() - started;
    expect(stop.code, stop.stderr).toBe(0);
    const [exitCode, oomKilled] = (await inspect(first, '{{.State.ExitCode}} {{.State.OOMKilled}}')).split(' ');
    expect(exitCode, await logsOf(first)).toBe('0');
    expect(oomKilled).toBe('false');
    // Exit 0 after a SIGKILL cannot happen; the bound is the worker's own drain timeout, plus docker's overhead.
    expect(stopMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 5_000);
    const logs = await logsOf(first);
    expect(logs).toMatch(/"msg":"shutting down: finishing the batch in hand"/);
    expect(logs).toMatch(/"exitCode":0,"msg":"stopped"/);
    // Exactly-once: what a read_committed reader sees is exactly what the group committed, nothing more or less.
    const committed = sumOffsets(await committedOffsets(topics.groupId, topics.input));
    const outputs = await readOutputs(topics, { until: committed, timeoutMs: 60_000, settleMs: 1_000 });
    expect(outputs).toHaveLength(committed);
  }, 180_000);

  it('a second container of the same group takes over: every input offset committed, every call once on its topic', async () => {
    const second = await startContainer(image, hardening, env, `tcn-worker-${RUN_ID}-2`);
    const total = FIRST + SECOND;
    const ends = await endOffsets(topics.input);
    expect(sumOffsets(ends)).toBe(total);
    await eventually(
      async () => {
        const committed = await committedOffsets(topics.groupId, topics.input);
        return Object.entries(ends).every(([partition, end]) => committed[Number(partition)] === end);
      },
      'every input offset committed',
      180_000,
    );
    const outputs = await readOutputs(topics, { until: total, timeoutMs: 60_000, settleMs: 1_000 });
    expect(tally(outputs, numberedIds('img', total))).toMatchObject({ records: total, duplicates: 0, missing: [], unexpected: [] });
    expect(misplacedCalls(outputs, topics, 'img')).toEqual([]);
    const stop = await docker(['stop', '-t', String(GRACE_S), second], { timeoutMs: (GRACE_S + 30) * 1000 });
    expect(stop.code).toBe(0);
    expect(await inspect(second, '{{.State.ExitCode}}')).toBe('0');
  }, 300_000);

  it('SIGTERM at any moment of its start, node still loading included: exit 0 within seconds', async () => {
    // A broker that accepts connections and never answers holds the start-up where each signal finds it.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const brokerPort = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      for (const delayMs of [0, 100, 300, 1_000, 3_000]) {
        const startEnv = {
          KAFKA_BROKERS: `127.0.0.1:${String(brokerPort)}`,
          SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
          METRICS_PORT: String(await freePort()),
        };
        const id = (await dockerOk(['run', '-d', ...hardenedFlags(hardening), ...envFlags(startEnv), image, 'run'])).trim();
        containers.add(id);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const sent = Date.now();
        await dockerOk(['kill', '--signal', 'TERM', id]);
        // Without an answer here the signal was lost (node as PID 1 without a handler yet): killed at the timeout.
        const waited = await docker(['wait', id], { timeoutMs: 20_000 });
        const took = Date.now() - sent;
        const outcome = { delayMs, exitCode: waited.stdout.trim(), withinSeconds: took < 10_000 };
        expect(outcome, await logsOf(id)).toEqual({ delayMs, exitCode: '0', withinSeconds: true });
      }
    } finally {
      silent.close();
    }
  }, 300_000);

  it('a bad configuration: exits non-zero with the same message as `node dist/cli.js run`', async () => {
    const cases: Record<string, string>[] = [
      { KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: stackEnv().registryUrl },
      { KAFKA_BROKERS: stackEnv().kafkaBrokers, SCHEMA_REGISTRY_URL: stackEnv().registryUrl, DELIVERY: 'maybe', MAX_RECORD_BYTES: 'lots' },
    ];
    for (const bad of cases) {
      const container = await docker(['run', '--rm', ...hardenedFlags(hardening), ...envFlags(bad), image, 'run'], { timeoutMs: 60_000 });
      const cli = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'run'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', ...bad },
        timeout: 30_000,
      });
      expect(cli.status, cli.stderr).not.toBe(0);
      expect(container.code).toBe(cli.status);
      expect(container.stderr).toBe(cli.stderr);
      expect(container.stderr).toMatch(/invalid configuration/);
    }
  }, 120_000);
});
