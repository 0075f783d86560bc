/**
 * Whole messages through the worker binary against the real local stack (see worker.test.ts): one input record
 * holding several calls yields one output per call, in order, each on the topic of its own disposition, under
 * the input key, with its own idempotency key, exactly once (read committed, nothing more after a restart over
 * the same input), and the metrics count calls and records apart.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  committedInputRecords,
  createTopics,
  json,
  metricValue,
  outputTopics,
  produce,
  pushExampleSchemas,
  readAll,
  stackEnv,
  startWorker,
  stopWorkersAndCloseClients,
  text,
  topicEnv,
  uniqueSubjectTemplate,
  uniqueTopics,
  type ReadMessage,
  type WorkerHandle,
} from './harness.js';

const TEMPLATE = uniqueSubjectTemplate('itf');

afterAll(async () => {
  await stopWorkersAndCloseClients();
});

function recordHash(key: string, value: string): string {
  return `sha256:${createHash('sha256').update(key).update('\u0000').update(value).digest('hex').slice(0, 32)}`;
}

const chat = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

/** Three calls: valid (with a repair), rejected (currency not in the enum), unreadable (no tool name). */
const OPENAI_MESSAGE = JSON.stringify({
  role: 'assistant',
  content: null,
  tool_calls: [
    chat('fan-a', 'search_issues', { query: 'fan out', labels: '["x"]' }),
    chat('fan-b', 'transfer_funds', { from_account: 'AB12345678', to_account: 'CD12345678', amount: 1, currency: 'JPY' }),
    { id: 'fan-c', type: 'function', function: { arguments: '{}' } },
  ],
});
const openAiCalls = (JSON.parse(OPENAI_MESSAGE) as { tool_calls: unknown[] }).tool_calls;
/** Two calls without ids (Gemini), in a response. */
const GEMINI_RESPONSE = JSON.stringify({
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: 'ok' },
          { functionCall: { name: 'write_file', args: { path: 'a.txt', content: 'A &amp; B' } } },
          { functionCall: { name: 'write_file', args: { path: 'b.txt' } } },
        ],
      },
    },
  ],
});
const TEXT_ONLY = JSON.stringify({ role: 'assistant', content: 'Nothing to do.' });
const SINGLE = JSON.stringify({ type: 'tool_use', id: 'fan-single', name: 'search_issues', input: { query: 'one' } });

describe('worker end to end: whole messages fan out (exactly-once)', () => {
  const topics = uniqueTopics('itw-fanout');
  let worker: WorkerHandle | undefined;
  let outputs: ReadMessage[] = [];
  const EXPECTED = 3 + 2 + 1 + 1;
  const of = (key: string): ReadMessage[] => outputs.filter((m) => m.key === key);

  beforeAll(async () => {
    stackEnv();
    await createTopics(topics, 2);
    await pushExampleSchemas(TEMPLATE);
    await produce(topics.input, [
      { key: 'openai', value: OPENAI_MESSAGE, headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } },
      { key: 'gemini', value: GEMINI_RESPONSE },
      { key: 'text', value: TEXT_ONLY },
      { key: 'single', value: SINGLE },
    ]);
    worker = await startWorker({ ...topicEnv(topics), SUBJECT_TEMPLATE: TEMPLATE });
    await worker.ready(60_000);
    outputs = await readAll(outputTopics(topics), { until: EXPECTED, timeoutMs: 60_000, settleMs: 1500, isolation: 'read_committed' });
    if (outputs.length !== EXPECTED) throw new Error(`read ${outputs.length} outputs, expected ${EXPECTED}\n${worker.tail()}`);
  }, 150_000);

  it('one message of three calls: three outputs in order, each on its own topic, under the input key', () => {
    const out = of('openai');
    // Different topics: each call on the topic of its own disposition (order holds within a topic, per key).
    expect(out.map((m) => m.topic).sort()).toEqual([topics.output, topics.rejected, topics.dlq].sort());
    const normalized = out.find((m) => m.topic === topics.output);
    const rejected = out.find((m) => m.topic === topics.rejected);
    const dead = out.find((m) => m.topic === topics.dlq);
    if (normalized === undefined || rejected === undefined || dead === undefined) throw new Error('an output is missing');
    expect(json(normalized)).toMatchObject({
      id: 'fan-a',
      tool: 'search_issues',
      format: 'openai_chat',
      arguments: { query: 'fan out', labels: ['x'] },
    });
    // The topic says the disposition: values carry neither `valid` nor `disposition`.
    expect(json(normalized)).not.toHaveProperty('valid');
    expect(json(rejected)).toMatchObject({ id: 'fan-b', errors: [{ code: 'not_in_enum', path: '/currency' }] });
    expect(json(rejected)).not.toHaveProperty('disposition');
    // A rejected call carries its own element as raw, not the whole message.
    expect(json(rejected).raw).toEqual(openAiCalls[1]);
    // The dead letter is that call's JSON text, its place named in the message.
    expect(text(dead)).toBe(JSON.stringify(openAiCalls[2]));
    expect(dead.headers['toolcall-error-code']).toBe('record_missing_tool_name');
    expect(dead.headers['__connect.errors.exception.message']).toMatch(/^tool_calls\[2\]: /);
    expect(dead.headers['idempotency-key']).toBe(`${recordHash('openai', OPENAI_MESSAGE)}#2`);
    expect([normalized, rejected].map((m) => m.headers['idempotency-key'])).toEqual(['fan-a', 'fan-b']);
    for (const m of out) expect(m.headers.traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  });

  it('calls without ids are keyed by the record hash and their position', () => {
    const out = of('gemini');
    expect(out).toHaveLength(2);
    expect(out.map((m) => m.headers['idempotency-key']).sort()).toEqual([
      `${recordHash('gemini', GEMINI_RESPONSE)}#0`,
      `${recordHash('gemini', GEMINI_RESPONSE)}#1`,
    ]);
    const valid = out.find((m) => m.topic === topics.output);
    expect(valid === undefined ? null : json(valid)).toMatchObject({
      id: null,
      format: 'gemini',
      arguments: { path: 'a.txt', content: 'A & B' },
    });
    expect(out.find((m) => m.topic === topics.rejected)).toBeDefined();
  });

  it('a message without a call is one dead letter, the input unchanged; a single call is one output as before', () => {
    expect(of('text').map((m) => [m.topic, text(m), m.headers['toolcall-error-code']])).toEqual([
      [topics.dlq, TEXT_ONLY, 'record_no_tool_calls'],
    ]);
    expect(of('single').map((m) => [m.topic, m.headers['idempotency-key']])).toEqual([[topics.output, 'fan-single']]);
  });

  it('every output exactly once: no key repeats, every input committed', async () => {
    const keys = outputs.map((m) => `${m.key ?? ''} ${m.headers['idempotency-key'] ?? ''}`);
    expect(new Set(keys).size).toBe(EXPECTED);
    expect(await committedInputRecords(topics)).toBe(4);
  });

  it('counts calls and records apart', async () => {
    if (worker === undefined) throw new Error('no worker');
    expect(await metricValue(worker, 'toolcall_records_total', { shape: 'message' })).toBe(2);
    expect(await metricValue(worker, 'toolcall_records_total', { shape: 'call' })).toBe(1);
    // A message without a call is one dead letter for the whole record.
    expect(await metricValue(worker, 'toolcall_records_total', { shape: 'unreadable' })).toBe(1);
    expect(await metricValue(worker, 'toolcall_records_total')).toBe(4);
    expect(await metricValue(worker, 'toolcall_calls_total')).toBe(EXPECTED);
    expect(await metricValue(worker, 'toolcall_dead_letters_total', { reason: 'record_no_tool_calls' })).toBe(1);
  });

  it('a restart over the same input produces nothing more', async () => {
    if (worker === undefined) throw new Error('no worker');
    expect(await worker.stop()).toBe(0);
    const again = await startWorker({ ...topicEnv(topics), SUBJECT_TEMPLATE: TEMPLATE });
    await again.ready(60_000);
    const after = await readAll(outputTopics(topics), { until: EXPECTED, timeoutMs: 30_000, settleMs: 3000, isolation: 'read_committed' });
    expect(after).toHaveLength(EXPECTED);
    await again.stop();
  }, 90_000);
});
