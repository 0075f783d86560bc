/**
 * The worker binary when its output topic becomes unavailable mid-run, on a Kafka of this file's own
 * (`scripts/stack.sh up-kafka` on free ports, KAFKA_AUTO_CREATE_TOPICS=false so that a deleted topic stays
 * deleted, KAFKA_SECURITY=sasl-scram with the StandardAuthorizer for the not-authorised case; taken down in
 * afterAll). The shared stack's broker auto-creates topics, which would hide the fault.
 *
 * - Deleted: the output topic is deleted while calls keep arriving.
 * - Not authorised: a SCRAM user without super-user rights, with ACLs for everything it needs except WRITE on
 *   the output topic (an explicit DENY).
 *
 * Either way the worker must stop consuming and say why (one fatal log line naming the topic, exit 1), commit
 * nothing it could not deliver, and not spin (bounded CPU and log lines per second until it exits). After the
 * topic is recreated (or the ACL fixed) and the worker restarted, every input record is accounted for exactly
 * once (read_committed).
 *
 * Left to kafkajs, the worker would crash, restart its consumer and fail on the same batch for ever, /livez
 * green (RELIABILITY.md "Output topic unavailable"): the output guard (src/adapters/kafka/delivery.ts) stops it.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes, type Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  callId,
  committedInputRecords,
  committedOffsets,
  createTopics,
  endOffsets,
  eventually,
  freshTopics,
  misplacedCalls,
  numberedCalls,
  numberedIds,
  produce,
  readOutputs,
  sleep,
  startWorker as startHarnessWorker,
  steadyStream,
  untilCommitted,
  type ReadMessage,
  type WorkerHandle,
} from './harness.js';
import { workerSuite } from './worker-suite.js';
import { pointHarnessAt, scramWorkerEnv, startOwnBroker, type OwnBroker } from './own-broker.js';

const LIMITED_PASSWORD = `limited-${randomBytes(12).toString('hex')}`;
let broker: OwnBroker | undefined;
let restoreSharedBrokers: (() => void) | undefined;
let admin: Admin | undefined;

function ownBroker(): OwnBroker {
  if (broker === undefined) throw new Error('the test broker did not start (see beforeAll)');
  return broker;
}

function theAdmin(): Admin {
  if (admin === undefined) throw new Error('no admin client (see beforeAll)');
  return admin;
}

/**
 * A worker that never creates topics itself (a deleted output topic must stay deleted); the harness runs it as
 * production does (vitest's NODE_ENV=test is not passed on).
 */
function startWorker(env: Readonly<Record<string, string | undefined>>): Promise<WorkerHandle> {
  return startHarnessWorker({ CREATE_TOPICS: 'false', ...env });
}

const suite = workerSuite('itout', {
  setUp: async () => {
    broker = await startOwnBroker({
      autoCreateTopics: false,
      security: 'sasl-scram',
      scramUsers: `admin:admin-${randomBytes(8).toString('hex')},limited:${LIMITED_PASSWORD}`,
      superUsers: 'admin',
    });
    restoreSharedBrokers = pointHarnessAt(broker);
    admin = new Kafka({ clientId: 'itout-admin', brokers: [broker.brokers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  },
  tearDown: async () => {
    await admin?.disconnect();
    await broker?.down();
    restoreSharedBrokers?.();
  },
});

/** CPU seconds (user + system) a running process has used, from /proc; undefined once it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

interface Stop {
  readonly code: number | null;
  /** From the fault to the exit. */
  readonly ms: number;
  readonly logLines: number;
  readonly cpuSeconds: number;
  readonly fatal: string;
}

/** Waits (bounded) for a worker to exit after a fault at `faultAt`; measures its log lines and CPU meanwhile. */
async function stopsAfterFault(worker: WorkerHandle, faultAt: number, cpuAtFault: number, boundMs: number): Promise<Stop> {
  let cpu = cpuAtFault;
  const deadline = faultAt + boundMs;
  while (worker.running() && Date.now() < deadline) {
    cpu = cpuSeconds(worker.pid) ?? cpu;
    await sleep(100);
  }
  if (worker.running()) throw new Error(`the worker still ran ${boundMs} ms after its output became unavailable\n${worker.tail()}`);
  const code = await worker.exited;
  const logs = worker.logs();
  const after = logs.filter((l) => typeof l.time === 'number' && l.time >= faultAt);
  const lastTime = Math.max(faultAt, ...after.map((l) => l.time as number));
  const fatal = logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('output topic unavailable'));
  return { code, ms: lastTime - faultAt, logLines: after.length, cpuSeconds: cpu - cpuAtFault, fatal: fatal?.msg ?? '' };
}

/** Where each id was read: `topic/partition/offset` (one place per id when nothing is duplicated). */
function places(messages: readonly ReadMessage[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of messages) {
    const id = callId(m);
    const set = out.get(id) ?? new Set<string>();
    set.add(`${m.topic}/${m.partition}/${m.offset}`);
    out.set(id, set);
  }
  return out;
}

const KEYS = 11;
const calls = (prefix: string, from: number, to: number) => numberedCalls(prefix, from, to, KEYS);

describe('output topic unavailable', () => {
  for (const delivery of ['exactly-once', 'at-least-once'] as const) {
    it(`${delivery}, deleted mid-run: the worker stops and says why, drops nothing, does not spin; all accounted for after recreate + restart`, async () => {
      const topics = await freshTopics(delivery === 'exactly-once' ? 'itout-del' : 'itout-delal', 2);
      const A = 300;
      const N = 900;
      const env = suite.env(topics, { DELIVERY: delivery });
      await produce(topics.input, calls('del', 0, A));
      const worker = await startWorker(env);
      await eventually(async () => (await committedInputRecords(topics)) === A, 'the first calls committed', 60_000, 200);
      const before = await readOutputs(topics, { until: A, timeoutMs: 30_000, settleMs: 1000 });
      expect(before).toHaveLength(A);

      await theAdmin().deleteTopics({ topics: [topics.output] });
      const faultAt = Date.now();
      const cpuAtFault = cpuSeconds(worker.pid) ?? 0;
      // Calls keep arriving while the output topic is gone.
      const stream = steadyStream(topics.input, 'del', { from: A, to: N }, { perSend: 50, pauseMs: 200, keys: KEYS });
      const stop = await stopsAfterFault(worker, faultAt, cpuAtFault, 90_000);
      await stream.done;
      const committedAtStop = await committedInputRecords(topics);
      console.log(
        `${delivery}, output topic deleted: the worker exited ${String(stop.code)} ${(stop.ms / 1000).toFixed(1)}s after the deletion; ` +
          `${stop.logLines} log lines ` +
          `(${(stop.logLines / Math.max(1, stop.ms / 1000)).toFixed(1)}/s), ${stop.cpuSeconds.toFixed(2)} CPU s meanwhile; ` +
          `input committed at the stop ${committedAtStop}/${N}; fatal line: "${stop.fatal}"`,
      );
      expect(stop.code, worker.tail()).toBe(1);
      expect(stop.fatal).toContain(topics.output);
      expect(stop.fatal).toContain('missing');
      // Not spinning: it gives up within a minute, having logged a few dozen lines and used little CPU (a crash
      // loop would go on forever; a hot loop would burn a core).
      expect(stop.ms).toBeLessThan(60_000);
      expect(stop.logLines).toBeLessThanOrEqual(60);
      expect(stop.cpuSeconds).toBeLessThan(3);
      expect(committedAtStop).toBeLessThan(N);

      // The operator recreates the topic; the worker is restarted (as Kubernetes would).
      await createTopics([topics.output], 2);
      const restarted = await startWorker(env);
      await untilCommitted(topics, N, 'every call committed after the restart', 90_000, () => restarted.tail());
      expect(await restarted.stop(), restarted.tail()).toBe(0);

      const after = await readOutputs(topics, {
        until: N - before.filter((m) => m.topic === topics.output).length,
        timeoutMs: 60_000,
        settleMs: 2000,
      });
      const where = places([...before, ...after]);
      const missing = numberedIds('del', N).filter((id) => !where.has(id));
      const duplicated = [...where].filter(([, at]) => at.size > 1).map(([id, at]) => `${id}: ${[...at].join(' ')}`);
      console.log(
        `${delivery}, output topic deleted, ` +
          `then recreated: ${N} calls, ${where.size} accounted for (before the deletion ${before.length}, ` +
          `after the restart ${after.length} read), missing=${missing.length} duplicated=${duplicated.length}`,
      );
      expect(missing).toEqual([]);
      // At-least-once may write a batch's rejected/dead-letter records again after the restart (it reports them).
      if (delivery === 'exactly-once') expect(duplicated).toEqual([]);
      expect(misplacedCalls(after, topics, 'del')).toEqual([]);
      expect(await committedOffsets(topics.groupId, topics.input)).toEqual(await endOffsets(topics.input));
    }, 300_000);
  }

  it('not authorised to write it: the worker stops and says why, commits nothing it could not deliver; all delivered once the ACL is fixed', async () => {
    const topics = await freshTopics('itout-acl', 2);
    const prefix = topics.input.slice(0, -'-in'.length); // topics, group and transactional ids all start with it
    const allow = (resourceType: AclResourceTypes) => ({
      resourceType,
      resourceName: prefix,
      resourcePatternType: ResourcePatternTypes.PREFIXED,
      principal: 'User:limited',
      host: '*',
      operation: AclOperationTypes.ALL,
      permissionType: AclPermissionTypes.ALLOW,
    });
    const deny = {
      resourceType: AclResourceTypes.TOPIC,
      resourceName: topics.output,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      principal: 'User:limited',
      host: '*',
      operation: AclOperationTypes.WRITE,
      permissionType: AclPermissionTypes.DENY,
    };
    await theAdmin().createAcls({
      acl: [allow(AclResourceTypes.TOPIC), allow(AclResourceTypes.GROUP), allow(AclResourceTypes.TRANSACTIONAL_ID), deny],
    });
    const N = 300;
    await produce(topics.input, calls('acl', 0, N));
    const env = suite.env(topics, scramWorkerEnv(ownBroker().sasl ?? '', 'scram-sha-512', 'limited', LIMITED_PASSWORD));
    const startedAt = Date.now();
    const worker = await startWorker(env);
    const stop = await stopsAfterFault(worker, startedAt, 0, 90_000);
    const committedAtStop = await committedInputRecords(topics);
    const during = await readOutputs(topics, { until: N, timeoutMs: 3000 });
    console.log(
      'output topic not authorised: ' +
        `the worker exited ${String(stop.code)} ${(stop.ms / 1000).toFixed(1)}s after start; ${stop.logLines} log lines; ` +
        `${stop.cpuSeconds.toFixed(2)} CPU s; input committed ${committedAtStop}/${N}, ` +
        `records delivered meanwhile ${during.length}; fatal line: "${stop.fatal}"`,
    );
    expect(stop.code, worker.tail()).toBe(1);
    expect(stop.fatal, worker.tail()).toContain('not authorised');
    expect(stop.fatal).toContain(topics.output);
    expect(stop.logLines).toBeLessThan(100);
    expect(worker.stdout() + worker.stderr()).not.toContain(LIMITED_PASSWORD);
    // Whatever was committed was delivered, in the same transactions: nothing committed is missing downstream.
    expect(committedAtStop).toBeLessThan(N);
    expect(during.length).toBeLessThan(N);

    await theAdmin().deleteAcls({ filters: [deny] });
    const fixed = await startWorker(env);
    await untilCommitted(topics, N, 'every call committed once the ACL is fixed', 90_000, () => fixed.tail());
    expect(await fixed.stop(), fixed.tail()).toBe(0);
    const all = await readOutputs(topics, { until: N, timeoutMs: 60_000, settleMs: 2000 });
    const where = places(all);
    const missing = numberedIds('acl', N).filter((id) => !where.has(id));
    const duplicates = all.length - where.size;
    console.log(`output topic authorised again: ${N} calls, ${all.length} outputs, missing=${missing.length} duplicates=${duplicates}`);
    expect(missing).toEqual([]);
    expect(duplicates).toBe(0);
    expect(misplacedCalls(all, topics, 'acl')).toEqual([]);
  }, 300_000);
});
