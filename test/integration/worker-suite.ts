/**
 * What every integration file whose tests each start their own workers sets up alike: the example tool schemas
 * pushed under a subject template unique to the file (beforeAll), every worker a test started killed after it
 * (afterEach), the harness's clients closed at the end (afterAll); and the exactly-once check those tests share.
 * Files whose tests share one worker (worker.test.ts, fanout.test.ts) keep their own hooks.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { PushedTool } from '../../src/app/commands/schemas-command.js';
import {
  committedOffsets,
  endOffsets,
  killAllWorkers,
  misplacedCalls,
  orderViolations,
  pushExampleSchemas,
  stopWorkersAndCloseClients,
  topicEnv,
  uniqueSubjectTemplate,
  type ReadMessage,
  type Tally,
  type TestTopics,
} from './harness.js';

export interface WorkerSuiteOptions {
  /** Runs first in beforeAll, before the schemas are pushed: a broker or proxy of the file's own, say. */
  readonly setUp?: () => Promise<void>;
  /** Runs last in afterAll, once the workers are killed and the harness's clients closed. */
  readonly tearDown?: () => Promise<void>;
}

export interface WorkerSuite {
  /** This file's SUBJECT_TEMPLATE (`<prefix>-<run>-{tool}`). */
  readonly template: string;
  /** The schemas beforeAll pushed (none before it ran). */
  pushed(): readonly PushedTool[];
  /** The worker's environment for `topics`: INPUT_TOPIC ... GROUP_ID and SUBJECT_TEMPLATE, then `extra`. */
  env(topics: TestTopics, extra?: Readonly<Record<string, string>>): Record<string, string>;
}

/** Registers this file's hooks (see the file comment); call it once, at the top level of a test file. */
export function workerSuite(prefix: string, options: WorkerSuiteOptions = {}): WorkerSuite {
  const template = uniqueSubjectTemplate(prefix);
  let pushed: PushedTool[] = [];
  const { setUp, tearDown } = options;
  beforeAll(
    async () => {
      await setUp?.();
      pushed = await pushExampleSchemas(template);
    },
    setUp === undefined ? undefined : 300_000,
  );
  afterEach(async () => {
    await killAllWorkers();
  });
  afterAll(async () => {
    await stopWorkersAndCloseClients();
    await tearDown?.();
  });
  return {
    template,
    pushed: () => pushed,
    env: (topics, extra = {}) => ({ ...topicEnv(topics), SUBJECT_TEMPLATE: template, ...extra }),
  };
}

/**
 * Exactly once over {@link numberedCall}s of `prefix`: `result` (the {@link tally} of `out`, read_committed) has
 * every one of the `count` ids once and nothing else, each on its topic, in order per key, every input offset
 * committed.
 */
export async function expectExactlyOnce(
  topics: TestTopics,
  prefix: string,
  out: readonly ReadMessage[],
  result: Tally,
  count: number,
): Promise<void> {
  expect(result.missing).toEqual([]);
  expect(result.duplicates).toBe(0);
  expect(result.unexpected).toEqual([]);
  expect(out).toHaveLength(count);
  expect(misplacedCalls(out, topics, prefix)).toEqual([]);
  expect(orderViolations(out, prefix)).toEqual([]);
  expect(await committedOffsets(topics.groupId, topics.input)).toEqual(await endOffsets(topics.input));
}
