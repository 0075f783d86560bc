/**
 * `toolcall-normalizer redrive`, against the real local stack: a worker sets dead letters and rejected calls aside;
 * the redrive sends them to a target topic, run twice (and once more after a dry run), and every call arrives there
 * exactly once, with its key, its carried headers and the idempotency key it had; a record in the source that holds
 * no original is reported by offset and skipped; the source topic is left as it was. Redriven to the input, the
 * worker keeps each call's idempotency key.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  createTopics,
  endOffsets,
  freshTopics,
  json,
  numberedCalls,
  produce,
  readAll,
  stackEnv,
  startReadyWorker,
  text,
  untilCommitted,
  type ReadMessage,
} from './harness.js';
import { workerSuite } from './worker-suite.js';

const suite = workerSuite('itrd');
const run = promisify(execFile);
const N = 300;

interface RedriveSummary {
  readonly group: string;
  readonly read: number;
  readonly selected: number;
  readonly redriven: number;
  readonly byCodeAndTool: readonly { code: string; tool: string; count: number }[];
  readonly unreadable: readonly { partition: number; offset: string; reason: string }[];
}

async function redrive(args: readonly string[]): Promise<RedriveSummary> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', KAFKA_BROKERS: stackEnv().kafkaBrokers };
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'redrive', ...args, '--json'], {
    cwd: REPO_ROOT,
    env,
    timeout: 120_000,
  });
  return JSON.parse(stdout) as RedriveSummary;
}

function byId(messages: readonly ReadMessage[]): Map<string, ReadMessage[]> {
  const out = new Map<string, ReadMessage[]>();
  for (const m of messages) {
    const id = String(json(m).id);
    out.set(id, [...(out.get(id) ?? []), m]);
  }
  return out;
}

describe('redrive', () => {
  it('sends each dead letter and rejected call once however often it runs, keeping key, headers and idempotency key', async () => {
    const topics = await freshTopics('itrd', 3);
    const calls = numberedCalls('rd', 0, N, 12).map((m, i) => ({ ...m, headers: { traceparent: `00-${i}-01` } }));
    await produce(topics.input, calls);
    const worker = await startReadyWorker(suite.env(topics));
    await untilCommitted(topics, N, 'every input record committed', 120_000, () => worker.tail());
    expect(await worker.stop(), worker.tail()).toBe(0);
    const dead = await readAll([topics.dlq], { until: N / 25, timeoutMs: 30_000, settleMs: 500 });
    const rejected = await readAll([topics.rejected], { until: N / 10 - N / 50, timeoutMs: 30_000, settleMs: 500 });
    expect(dead).toHaveLength(N / 25);
    expect(rejected).toHaveLength(N / 10 - N / 50);
    // A record no worker wrote: no dead-letter headers, not a rejected call.
    await produce(topics.dlq, [{ key: 'junk', value: 'not a dead letter', partition: 0 }]);
    const dlqEnds = await endOffsets(topics.dlq);

    const target = `${topics.input}-redriven`;
    await createTopics([target], 3);
    const dry = await redrive(['--from', topics.dlq, '--to', target, '--dry-run']);
    expect(dry.redriven).toBe(0);
    expect(dry.byCodeAndTool.reduce((sum, e) => sum + e.count, 0)).toBe(dead.length);
    expect(dry.unreadable.map((u) => u.partition)).toEqual([0]);

    const first = await redrive(['--from', topics.dlq, '--to', target]);
    const second = await redrive(['--from', topics.dlq, '--to', target]);
    expect(first.redriven).toBe(dead.length);
    expect(first.unreadable).toHaveLength(1);
    expect(first.unreadable[0]?.reason).toMatch(/not JSON/);
    expect(second.redriven).toBe(0);
    expect(second.group).toBe(first.group);

    // Rejected calls of one tool, to the same target: another selection, redriven once too.
    const tool = await redrive(['--from', topics.rejected, '--to', target, '--tool', 'transfer_funds', '--code', 'not_in_enum']);
    const again = await redrive(['--from', topics.rejected, '--to', target, '--code', 'not_in_enum', '--tool', 'transfer_funds']);
    expect(tool.redriven).toBe(rejected.length);
    expect(again.redriven).toBe(0);

    const arrived = await readAll([target], { until: dead.length + rejected.length, timeoutMs: 30_000, settleMs: 1_000 });
    console.log(
      `redrive: dead letters ${dead.length}, rejected ${rejected.length}; runs sent ${first.redriven}+${second.redriven} and ` +
        `${tool.redriven}+${again.redriven}; arrived ${arrived.length}; skipped ${first.unreadable.length}`,
    );
    expect(arrived).toHaveLength(dead.length + rejected.length);
    const arrivedById = byId(arrived);
    const sources = [...dead, ...rejected];
    for (const source of sources) {
      const id = String(json(source).id);
      const copies = arrivedById.get(id) ?? [];
      expect(copies, id).toHaveLength(1);
      const copy = copies[0];
      if (copy === undefined) continue;
      expect(copy.key).toBe(source.key);
      expect(copy.headers['idempotency-key']).toBe(source.headers['idempotency-key']);
      expect(copy.headers.traceparent).toBe(source.headers.traceparent);
      expect(copy.headers['toolcall-redriven-from']).toBe(`${source.topic}/${source.partition}@${source.offset}`);
      expect(copy.headers['toolcall-error-code']).toBeUndefined();
      expect(copy.headers['__connect.errors.topic']).toBeUndefined();
      const original = source.topic === topics.dlq ? text(source) : JSON.stringify(json(source).raw);
      expect(text(copy)).toBe(original);
    }
    expect(await endOffsets(topics.dlq)).toEqual(dlqEnds);
  }, 300_000);
});
