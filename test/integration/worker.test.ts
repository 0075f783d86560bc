/**
 * The worker binary (`node dist/cli.js run`) end to end against the real local stack: Kafka 4.x and Apicurio
 * (`npm run stack:up`, then export what `bash scripts/stack.sh env` prints). Without KAFKA_BROKERS and
 * SCHEMA_REGISTRY_URL every test FAILS on purpose.
 *
 * The first suite produces one record per case (each under its own key) to one input topic, runs one worker
 * over it, reads the three output topics once, and checks each case in its own test. Topics, groups and subjects
 * are unique per run, so reruns never collide.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PushedTool } from '../../src/app/commands/schemas-command.js';
import {
  callId,
  committedOffsets,
  createTopics,
  endOffsets,
  EXAMPLE_TOOLS,
  eventually,
  expectedTopic,
  json,
  killAllWorkers,
  metricValue,
  numberedCall,
  outputTopics,
  produce,
  pushExampleSchemas,
  pushSchemaDir,
  readAll,
  stackEnv,
  startReadyWorker,
  startWorker,
  step,
  stopWorkersAndCloseClients,
  sumOffsets,
  text,
  topicEnv,
  uniqueSubjectTemplate,
  uniqueTopics,
  type ProduceMessage,
  type ReadMessage,
  type WorkerHandle,
} from './harness.js';

const TEMPLATE = uniqueSubjectTemplate('itw');
const MAX_RECORD_BYTES = 2048;
/** Smaller than some outputs of records under MAX_RECORD_BYTES (a rejected output carries the raw call too). */
const MAX_OUTPUT_BYTES = 3000;
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

afterAll(async () => {
  await stopWorkersAndCloseClients();
});

/** Identity of a pushed tool, as the worker puts it in `schema`. */
function identity(pushed: readonly PushedTool[], tool: string, version?: number): { subject: string; version: number; id: number } {
  const found = pushed
    .filter((p) => p.tool === tool && (version === undefined || p.version === version))
    .sort((a, b) => b.version - a.version)[0];
  if (found === undefined) throw new Error(`${tool} v${String(version)} was not pushed`);
  return { subject: found.subject, version: found.version, id: found.id };
}

const wire = (schemaId: number, payload: string): Buffer => {
  const header = Buffer.alloc(5);
  header.writeUInt8(0, 0);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, Buffer.from(payload, 'utf8')]);
};

/** The worker's idempotency key of a record without a call id, computed independently. */
function expectedHash(key: string, value: string): string {
  return `sha256:${createHash('sha256').update(key).update('\u0000').update(value).digest('hex').slice(0, 32)}`;
}

describe('worker end to end: every envelope, every bad record, headers, schema identity, order (exactly-once)', () => {
  const topics = uniqueTopics('itw-main');
  let pushed: PushedTool[] = [];
  let worker: WorkerHandle | undefined;
  let inputs: ReadMessage[] = [];
  let outputs: ReadMessage[] = [];
  const cases: (ProduceMessage & { key: string })[] = [];
  const ORDER_KEYS = 5;
  const ORDER_PER_KEY = 40;

  const inputOf = (key: string): ReadMessage => {
    const found = inputs.find((m) => m.key === key);
    if (found === undefined) throw new Error(`no input record with key ${key}`);
    return found;
  };
  const outputsOf = (key: string): ReadMessage[] => outputs.filter((m) => m.key === key);
  const onlyOutput = (key: string): ReadMessage => {
    const found = outputsOf(key);
    expect(found, `outputs for key ${key}`).toHaveLength(1);
    const first = found[0];
    if (first === undefined) throw new Error(`no output for key ${key}`);
    return first;
  };

  beforeAll(async () => {
    stackEnv();
    await step('create the topics', 30_000, () => createTopics(topics, 3));
    pushed = await step('push the schemas', 30_000, () => pushExampleSchemas(TEMPLATE));
    // Version 2 of write_file adds an optional `mode`; version 1 refuses it (additionalProperties: false).
    const original = JSON.parse(await readFile(join(EXAMPLE_TOOLS, 'write_file.json'), 'utf8')) as {
      inputSchema: { properties: Record<string, unknown> };
    };
    original.inputSchema.properties.mode = { type: 'string', enum: ['overwrite', 'append'] };
    const dir = await mkdtemp(join(tmpdir(), 'itw-v2-'));
    try {
      await writeFile(join(dir, 'write_file.json'), JSON.stringify(original));
      pushed.push(...(await pushSchemaDir(dir, TEMPLATE)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(identity(pushed, 'write_file').version).toBe(2);

    const add = (key: string, value: string | Buffer | null, headers?: Record<string, string>): void => {
      cases.push(headers === undefined ? { key, value } : { key, value, headers });
    };
    const call = (value: unknown): string => JSON.stringify(value);
    // Envelopes.
    add(
      'env-openai_chat',
      call({
        id: 'call-chat',
        type: 'function',
        function: { name: 'search_issues', arguments: call({ query: 'Tom &amp;amp; Jerry', labels: '["bug","ui"]' }) },
      }),
    );
    add(
      'env-openai_responses',
      call({
        type: 'function_call',
        call_id: 'call-resp',
        name: 'search_issues',
        arguments: call({ query: 'x', filters: '{"state":"open"}', limit: 5 }),
      }),
    );
    add(
      'env-anthropic',
      call({
        type: 'tool_use',
        id: 'call-anth',
        name: 'update_records',
        input: { table: 't', ops: '[{"op":"add","path":"/a","value":1}]' },
      }),
    );
    add(
      'env-mcp',
      call({
        jsonrpc: '2.0',
        id: 'call-mcp',
        method: 'tools/call',
        params: { name: 'write_file', arguments: { path: 'a.html', content: '&lt;b&gt;hi&lt;/b&gt;' } },
      }),
    );
    add(
      'env-gemini',
      call({
        functionCall: {
          id: 'call-gem',
          name: 'create_event',
          args: { title: 'Ember &amp;amp; Oak', start: '2025-01-01T10:00:00Z', attendees: '["a@example.com"]' },
        },
      }),
    );
    add(
      'env-canonical',
      call({
        id: 'call-can',
        tool: 'transfer_funds',
        arguments: call({ from_account: 'AB12345678', to_account: 'CD12345678', amount: 10, currency: 'EUR', memo: 'Rent &amp; bills' }),
      }),
    );
    // Records that cannot be processed at all.
    add('dlq-not-json', 'this is not JSON {');
    add('dlq-not-object', '[1,2,3]');
    add('dlq-unknown-envelope', call({ foo: 1, bar: 'baz' }));
    add('dlq-no-tool-name', call({ id: 'call-noname', type: 'function', function: { arguments: '{}' } }));
    add(
      'dlq-oversize',
      call({ id: 'call-big', tool: 'write_file', arguments: { path: 'big.txt', content: 'x'.repeat(MAX_RECORD_BYTES) } }),
    );
    add('dlq-invalid-utf8', Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]));
    add('dlq-wire-truncated', Buffer.from([0x00, 0x00, 0x01]));
    add('dlq-tombstone', null);
    // Outputs over MAX_OUTPUT_BYTES, which an output topic could refuse (a crash loop on the same record): dead-lettered.
    add('dlq-output-rejected', call({ id: 'call-big-rej', tool: 'no_such_tool', arguments: { blob: 'y'.repeat(1400) } }));
    // `&#1;` (4 bytes) decodes to U+0001, which JSON writes as `\u0001` (6 bytes): the output outgrows the input.
    add(
      'dlq-output-normalized',
      call({ id: 'call-big-norm', tool: 'write_file', arguments: { path: 'c.txt', content: '&#1;'.repeat(480) } }),
    );
    // Over MAX_RECORD_BYTES and over MAX_OUTPUT_BYTES: dead-lettered without its value, the headers saying where it is.
    add(
      'dlq-oversize-omitted',
      call({ id: 'call-huge', tool: 'write_file', arguments: { path: 'h.txt', content: 'x'.repeat(MAX_OUTPUT_BYTES) } }),
    );
    // Understood but invalid calls.
    add(
      'rej-enum',
      call({
        id: 'call-enum',
        tool: 'transfer_funds',
        arguments: { from_account: 'AB12345678', to_account: 'CD12345678', amount: 10, currency: 'JPY' },
      }),
    );
    add('rej-missing', call({ id: 'call-missing', tool: 'create_event', arguments: { start: '2025-01-01T10:00:00Z' } }));
    add('rej-unknown-tool', call({ id: 'call-unknown', tool: 'no_such_tool', arguments: { a: 1 } }));
    // A name no registry URL can carry (it failed the batch on every retry, for ever): rejected at once.
    add('rej-lone-surrogate', call({ id: 'call-lone', tool: '\ud800x', arguments: { a: 1 } }));
    add('rej-double-encoded', call({ id: 'call-double', tool: 'write_file', arguments: call(call({ path: 'a', content: 'b' })) }));
    // Registry wire format: magic byte, 4-byte schema id, then the same JSON.
    add(
      'wire-format',
      wire(
        identity(pushed, 'search_issues').id,
        call({
          id: 'call-wire',
          type: 'function',
          function: { name: 'search_issues', arguments: call({ query: 'a &amp; b', labels: '["x"]' }) },
        }),
      ),
    );
    // Headers and idempotency keys.
    add('trace', call({ id: 'call-trace', tool: 'write_file', arguments: { path: 't.txt', content: 'x' } }), {
      traceparent: TRACEPARENT,
      'x-tenant': 'acme',
    });
    add('own-headers', call({ id: 'call-own', tool: 'write_file', arguments: { path: 'o.txt', content: 'x' } }), {
      'idempotency-key': 'spoofed',
      'toolcall-disposition': 'spoofed',
    });
    const noId = call({ functionCall: { name: 'write_file', args: { path: 'n.txt', content: 'x' } } });
    add('no-id', noId);
    add('no-id', noId);
    // Schema version pinning (write_file has v1 and v2; latest is v2).
    add(
      'pin-v1-mode',
      call({ id: 'call-pin1', tool: 'write_file', schemaVersion: 1, arguments: { path: 'p.txt', content: 'x', mode: 'append' } }),
    );
    add('pin-v1-plain', call({ id: 'call-pin1b', tool: 'write_file', schemaVersion: 1, arguments: { path: 'p.txt', content: 'x' } }));
    add('pin-latest-mode', call({ id: 'call-pin2', tool: 'write_file', arguments: { path: 'p.txt', content: 'x', mode: 'append' } }));
    // Order per key: interleaved keys, each key's calls numbered.
    for (let seq = 0; seq < ORDER_PER_KEY; seq++) {
      for (let k = 0; k < ORDER_KEYS; k++)
        add(`order-${k}`, call({ id: `ord-${k}-${seq}`, tool: 'search_issues', arguments: { query: `q${seq}`, limit: 1 + (seq % 100) } }));
    }

    await step('produce the inputs', 30_000, () => produce(topics.input, cases));
    const started = await startWorker({
      ...topicEnv(topics),
      SUBJECT_TEMPLATE: TEMPLATE,
      MAX_RECORD_BYTES: String(MAX_RECORD_BYTES),
      MAX_OUTPUT_BYTES: String(MAX_OUTPUT_BYTES),
    });
    worker = started;
    // ready() and readAll() bound themselves (readAll once it has joined its group); step() names the one that held
    // the setup up, with the worker's log.
    await step(
      'worker ready',
      65_000,
      () => started.ready(60_000),
      () => started.tail(),
    );
    inputs = await step('read the inputs', 60_000, () => readAll([topics.input], { until: cases.length, timeoutMs: 30_000 }));
    outputs = await step(
      'read the outputs',
      90_000,
      () => readAll(outputTopics(topics), { until: cases.length, timeoutMs: 60_000, settleMs: 1500 }),
      () => started.tail(),
    );
    if (outputs.length !== cases.length) throw new Error(`read ${outputs.length} outputs for ${cases.length} inputs\n${started.tail()}`);
  }, 330_000);

  it('produces exactly one output per input, each under the input key', () => {
    expect(inputs).toHaveLength(cases.length);
    expect(outputs).toHaveLength(cases.length);
    const count = (list: readonly { key: string | null }[]): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const m of list) out[m.key ?? '<null>'] = (out[m.key ?? '<null>'] ?? 0) + 1;
      return out;
    };
    expect(count(outputs)).toEqual(count(cases));
  });

  it.each([
    [
      'env-openai_chat',
      'openai_chat',
      'call-chat',
      'search_issues',
      { query: 'Tom & Jerry', labels: ['bug', 'ui'] },
      [
        { pointer: '/query', kind: 'entities_decoded' },
        { pointer: '/labels', kind: 'json_decoded' },
      ],
    ],
    [
      'env-openai_responses',
      'openai_responses',
      'call-resp',
      'search_issues',
      { query: 'x', filters: { state: 'open' }, limit: 5 },
      [{ pointer: '/filters', kind: 'json_decoded' }],
    ],
    [
      'env-anthropic',
      'anthropic',
      'call-anth',
      'update_records',
      { table: 't', ops: [{ op: 'add', path: '/a', value: 1 }] },
      [{ pointer: '/ops', kind: 'json_decoded' }],
    ],
    [
      'env-mcp',
      'mcp',
      'call-mcp',
      'write_file',
      { path: 'a.html', content: '<b>hi</b>' },
      [{ pointer: '/content', kind: 'entities_decoded' }],
    ],
    [
      'env-gemini',
      'gemini',
      'call-gem',
      'create_event',
      { title: 'Ember & Oak', start: '2025-01-01T10:00:00Z', attendees: ['a@example.com'] },
      [
        { pointer: '/title', kind: 'entities_decoded' },
        { pointer: '/attendees', kind: 'json_decoded' },
      ],
    ],
    [
      'env-canonical',
      'canonical',
      'call-can',
      'transfer_funds',
      { from_account: 'AB12345678', to_account: 'CD12345678', amount: 10, currency: 'EUR', memo: 'Rent & bills' },
      [{ pointer: '/memo', kind: 'entities_decoded' }],
    ],
  ] as const)('normalizes the %s envelope end to end', (key, format, id, tool, args, repairs) => {
    const message = onlyOutput(key);
    expect(message.topic).toBe(topics.output);
    const value = json(message);
    expect(value).toMatchObject({ id, tool, format });
    // The topic is the disposition: the value does not repeat it.
    for (const field of ['valid', 'disposition', 'errors']) expect(value).not.toHaveProperty(field);
    expect(value.arguments).toEqual(args);
    expect(value.repairs).toEqual(repairs);
    expect(value.schemaId).toBe(identity(pushed, tool).id);
    const input = inputOf(key);
    expect(value.source).toEqual({ partition: input.partition, offset: input.offset });
    expect(value).not.toHaveProperty('raw');
    expect(message.headers['idempotency-key']).toBe(id);
    // The topic says the disposition; no header repeats it.
    expect(message.headers).not.toHaveProperty('toolcall-disposition');
    expect(message.headers).not.toHaveProperty('toolcall-error-code');
  });

  it.each([
    ['dlq-not-json', 'record_not_json'],
    ['dlq-not-object', 'record_not_object'],
    ['dlq-unknown-envelope', 'record_unknown_envelope'],
    ['dlq-no-tool-name', 'record_missing_tool_name'],
    ['dlq-oversize', 'record_too_large'],
    ['dlq-invalid-utf8', 'record_invalid_encoding'],
    ['dlq-wire-truncated', 'record_invalid_encoding'],
    ['dlq-tombstone', 'record_not_json'],
  ] as const)('dead-letters %s with code %s, the input bytes unchanged and the Kafka Connect headers', (key, code) => {
    const message = onlyOutput(key);
    const input = inputOf(key);
    expect(message.topic).toBe(topics.dlq);
    // Byte for byte what was consumed (a tombstone stays a tombstone).
    expect(message.value === null ? null : message.value.toString('hex')).toBe(input.value === null ? null : input.value.toString('hex'));
    expect(message.headers).not.toHaveProperty('toolcall-disposition');
    expect(message.headers).toMatchObject({
      'toolcall-error-code': code,
      '__connect.errors.topic': topics.input,
      '__connect.errors.partition': String(input.partition),
      '__connect.errors.offset': input.offset,
      '__connect.errors.exception.class.name': code,
    });
    expect(message.headers['__connect.errors.exception.message']?.length).toBeGreaterThan(0);
    expect(message.headers['idempotency-key']).toMatch(/^sha256:[0-9a-f]{32}$/);
  });

  it('dead-letters a call whose output would exceed MAX_OUTPUT_BYTES (output_too_large), the input unchanged', () => {
    for (const [key, id] of [
      ['dlq-output-rejected', 'call-big-rej'],
      ['dlq-output-normalized', 'call-big-norm'],
    ] as const) {
      const message = onlyOutput(key);
      const input = inputOf(key);
      expect(input.value?.length, key).toBeLessThanOrEqual(MAX_RECORD_BYTES);
      expect(message.topic, key).toBe(topics.dlq);
      expect(message.value?.toString('hex'), key).toBe(input.value?.toString('hex'));
      expect(message.headers, key).toMatchObject({
        'idempotency-key': id,
        'toolcall-error-code': 'output_too_large',
        '__connect.errors.exception.class.name': 'output_too_large',
        '__connect.errors.offset': input.offset,
      });
      expect(message.headers['__connect.errors.exception.message'], key).toMatch(/over the 3000-byte bound \(MAX_OUTPUT_BYTES\)/);
    }
    const omitted = onlyOutput('dlq-oversize-omitted');
    const input = inputOf('dlq-oversize-omitted');
    expect(input.value?.length).toBeGreaterThan(MAX_OUTPUT_BYTES);
    expect(omitted.topic).toBe(topics.dlq);
    expect(omitted.value).toBeNull();
    expect(omitted.headers).toMatchObject({ 'toolcall-error-code': 'record_too_large', '__connect.errors.offset': input.offset });
    expect(omitted.headers['__connect.errors.exception.message']).toMatch(
      new RegExp(`is not copied: read it at ${topics.input}/${String(input.partition)}@${input.offset}`),
    );
  });

  it('rejects invalid calls to the rejected topic with actionable errors and the raw call', () => {
    const expectations: [string, string, string, RegExp][] = [
      ['rej-enum', 'not_in_enum', '/currency', /"USD", "EUR", "GBP"/],
      ['rej-missing', 'missing_required', '/title', /Add "title" \(Event title, 1 to 200 characters\)/],
      ['rej-unknown-tool', 'tool_unknown', '', /do not invent tool names/],
      ['rej-double-encoded', 'arguments_not_object', '', /Encode the arguments once/],
    ];
    for (const [key, code, path, hint] of expectations) {
      const message = onlyOutput(key);
      expect(message.topic, key).toBe(topics.rejected);
      const value = json(message);
      expect(value, key).not.toHaveProperty('disposition');
      const errors = value.errors as { code: string; path: string; message: string; hint: string }[];
      expect(errors[0], key).toMatchObject({ code, path });
      expect(errors[0]?.message.length, key).toBeGreaterThan(0);
      expect(errors[0]?.hint, key).toMatch(hint);
      expect(value.raw, key).toEqual(JSON.parse(text(inputOf(key)) ?? 'null'));
      expect(message.headers, key).not.toHaveProperty('toolcall-disposition');
      expect(message.headers['toolcall-error-code'], key).toBe(code);
      expect(message.headers['idempotency-key'], key).toBe(String((JSON.parse(text(inputOf(key)) ?? '{}') as { id: unknown }).id));
    }
    const lone = onlyOutput('rej-lone-surrogate');
    expect(lone.topic).toBe(topics.rejected);
    expect((json(lone).errors as { code: string; message: string }[])[0]).toMatchObject({
      code: 'tool_unknown',
      message: expect.stringMatching(/can be known: the tool name is not well-formed Unicode/) as unknown,
    });
    // A known tool carries its schema identity; an unknown one has none.
    expect(json(onlyOutput('rej-enum')).schemaId).toBe(identity(pushed, 'transfer_funds').id);
    expect(json(onlyOutput('rej-unknown-tool'))).not.toHaveProperty('schemaId');
  });

  it('processes a registry wire-format value (magic byte + schema id + JSON) like plain JSON', () => {
    const value = json(onlyOutput('wire-format'));
    expect(onlyOutput('wire-format').topic).toBe(topics.output);
    expect(value).toMatchObject({ id: 'call-wire', format: 'openai_chat', arguments: { query: 'a & b', labels: ['x'] } });
    expect(value.repairs).toEqual([
      { pointer: '/query', kind: 'entities_decoded' },
      { pointer: '/labels', kind: 'json_decoded' },
    ]);
  });

  it('carries incoming headers (traceparent) and replaces ours rather than duplicating them', () => {
    const traced = onlyOutput('trace');
    expect(traced.headers).toMatchObject({ traceparent: TRACEPARENT, 'x-tenant': 'acme', 'idempotency-key': 'call-trace' });
    const own = onlyOutput('own-headers');
    expect(own.headers['idempotency-key']).toBe('call-own');
    // A retired header: an incoming one (a replayed output) is dropped, never carried on stale.
    expect(own.headers).not.toHaveProperty('toolcall-disposition');
  });

  it('uses a stable sha256 idempotency key when the call has no id', () => {
    const both = outputsOf('no-id');
    expect(both).toHaveLength(2);
    const noId = cases.find((c) => c.key === 'no-id');
    const expected = expectedHash('no-id', String(noId?.value));
    for (const message of both) {
      expect(message.topic).toBe(topics.output);
      expect(json(message).id).toBeNull();
      expect(message.headers['idempotency-key']).toBe(expected);
    }
    // Dead letters without an id get the hash of their own bytes.
    expect(onlyOutput('dlq-not-json').headers['idempotency-key']).toBe(expectedHash('dlq-not-json', 'this is not JSON {'));
  });

  it('validates a call pinning schemaVersion 1 against version 1 although version 2 is the latest', () => {
    const v1 = identity(pushed, 'write_file', 1);
    const v2 = identity(pushed, 'write_file', 2);
    const pinnedMode = onlyOutput('pin-v1-mode');
    expect(pinnedMode.topic).toBe(topics.rejected);
    expect(json(pinnedMode).schemaId).toBe(v1.id);
    expect((json(pinnedMode).errors as { code: string; path: string }[]).map((e) => e.code)).toEqual(['unknown_property']);
    const pinnedPlain = onlyOutput('pin-v1-plain');
    expect(pinnedPlain.topic).toBe(topics.output);
    expect(json(pinnedPlain).schemaId).toBe(v1.id);
    const latest = onlyOutput('pin-latest-mode');
    expect(latest.topic).toBe(topics.output);
    expect(json(latest).schemaId).toBe(v2.id);
    expect(json(latest).arguments).toEqual({ path: 'p.txt', content: 'x', mode: 'append' });
  });

  it('keeps the order of each key: records of one key come out in input order, in one partition', () => {
    for (let k = 0; k < ORDER_KEYS; k++) {
      const key = `order-${k}`;
      const out = outputsOf(key);
      expect(out).toHaveLength(ORDER_PER_KEY);
      expect(new Set(out.map((m) => `${m.topic}/${m.partition}`)).size).toBe(1);
      const byOffset = [...out].sort((a, b) => Number(BigInt(a.offset) - BigInt(b.offset)));
      expect(byOffset.map((m) => json(m).id)).toEqual(Array.from({ length: ORDER_PER_KEY }, (_, seq) => `ord-${k}-${seq}`));
      // And the source offsets of consecutive outputs increase too.
      const sources = byOffset.map((m) => Number((json(m).source as { offset: string }).offset));
      expect(sources).toEqual([...sources].sort((a, b) => a - b));
    }
  });

  it('answers /livez and /readyz with 200 and counts calls in /metrics', async () => {
    if (worker === undefined) throw new Error('worker not started');
    expect((await worker.get('/livez')).status).toBe(200);
    const ready = await worker.get('/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ ok: true, checks: { broker: true, registry: true } });
    const metrics = await worker.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('toolcall_calls_total');
    const count = (topic: string): number => outputs.filter((m) => m.topic === topic).length;
    expect(await metricValue(worker, 'toolcall_calls_total', { outcome: 'normalized' })).toBe(count(topics.output));
    expect(await metricValue(worker, 'toolcall_calls_total', { outcome: 'rejected' })).toBe(count(topics.rejected));
    expect(await metricValue(worker, 'toolcall_calls_total', { outcome: 'dead_lettered' })).toBe(count(topics.dlq));
    expect((await worker.get('/nope')).status).toBe(404);
  });

  it('shuts down on SIGTERM with exit 0, every consumed offset committed', async () => {
    if (worker === undefined) throw new Error('worker not started');
    const started = Date.now();
    const code = await worker.stop(30_000);
    expect(code, worker.tail()).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(worker.logs().some((l) => l.msg === 'stopped')).toBe(true);
    const end = await endOffsets(topics.input);
    expect(sumOffsets(end)).toBe(cases.length);
    expect(await committedOffsets(topics.groupId, topics.input)).toEqual(end);
  }, 40_000);
});

describe('worker lifecycle and delivery modes', () => {
  let template = '';

  beforeAll(async () => {
    stackEnv();
    template = uniqueSubjectTemplate('itw-life');
    await pushExampleSchemas(template);
  });

  afterEach(async () => {
    await killAllWorkers();
  });

  // At-least-once too: the batch in hand when SIGTERM arrives is published and committed, so a rolling restart
  // replays nothing (kafkajs's consumer.commitOffsets does nothing once stop() began; the batch's own commit does).
  it.each(['exactly-once', 'at-least-once'] as const)(
    'SIGTERM mid-stream (%s): exit 0, what was committed is exactly what was published; a restart finishes exactly once',
    async (delivery) => {
      const topics = uniqueTopics(`itw-term-${delivery === 'exactly-once' ? 'eos' : 'alo'}`);
      await createTopics(topics, 3);
      const N = 3000;
      await produce(
        topics.input,
        Array.from({ length: N }, (_, i) => ({ key: `k${i % 30}`, value: numberedCall('term', i) })),
      );
      const env = { ...topicEnv(topics), SUBJECT_TEMPLATE: template, DELIVERY: delivery };
      const first = await startWorker(env);
      await eventually(async () => sumOffsets(await committedOffsets(topics.groupId, topics.input)) > 0, 'first commit', 60_000, 20);
      first.kill('SIGTERM');
      expect(await first.exited, first.tail()).toBe(0);
      const committed = sumOffsets(await committedOffsets(topics.groupId, topics.input));
      const published = await readAll(outputTopics(topics), { until: committed, timeoutMs: 30_000, settleMs: 1500 });
      console.log(
        `SIGTERM mid-stream (${delivery}): ${committed} of ${N} input records committed at shutdown, ${published.length} outputs published`,
      );
      expect(published.length).toBe(committed);

      // Ready before it is stopped: the first worker may have committed everything already (one transaction on
      // @platformatic/kafka can carry a whole read), and a SIGTERM during start-up would find no handler yet.
      const second = await startReadyWorker(env);
      await eventually(async () => sumOffsets(await committedOffsets(topics.groupId, topics.input)) === N, 'all records committed', 60_000);
      expect(await second.stop(), second.tail()).toBe(0);
      const all = await readAll(outputTopics(topics), { until: N, timeoutMs: 30_000, settleMs: 1500 });
      const ids = all.map(callId);
      expect(new Set(ids).size).toBe(N);
      expect(ids).toHaveLength(N);
    },
    120_000,
  );

  it('DELIVERY=at-least-once delivers every record to the right topic and commits everything', async () => {
    const topics = uniqueTopics('itw-alo');
    await createTopics(topics, 3);
    const N = 500;
    await produce(
      topics.input,
      Array.from({ length: N }, (_, i) => ({ key: `k${i % 7}`, value: numberedCall('alo', i) })),
    );
    const worker = await startWorker({ ...topicEnv(topics), SUBJECT_TEMPLATE: template, DELIVERY: 'at-least-once' });
    await worker.ready();
    const all = await readAll(outputTopics(topics), { until: N, timeoutMs: 60_000, settleMs: 1000 });
    const ids = new Set(all.map(callId));
    const missing = Array.from({ length: N }, (_, i) => `alo-${i}`).filter((id) => !ids.has(id));
    expect(missing).toEqual([]);
    for (const message of all) {
      const i = Number(callId(message).slice('alo-'.length));
      expect(message.topic, callId(message)).toBe(expectedTopic(topics, i));
    }
    expect(worker.logs().some((l) => l.msg === 'worker started' && l.delivery === 'at-least-once')).toBe(true);
    expect(await worker.stop(), worker.tail()).toBe(0);
    expect(await committedOffsets(topics.groupId, topics.input)).toEqual(await endOffsets(topics.input));
  }, 90_000);

  it('exits 2 on bad configuration, naming every bad variable', async () => {
    const worker = await startWorker({ DELIVERY: 'maybe', KAFKA_BROKERS: undefined, MAX_RECORD_BYTES: 'lots', SUBJECT_TEMPLATE: 'fixed' });
    expect(await worker.exited).toBe(2);
    const stderr = worker.stderr();
    expect(stderr).toMatch(/invalid configuration/);
    expect(stderr).toMatch(/DELIVERY: must be one of exactly-once, at-least-once, got "maybe"/);
    expect(stderr).toMatch(/KAFKA_BROKERS: required/);
    expect(stderr).toMatch(/MAX_RECORD_BYTES: must be an integer/);
    expect(stderr).toMatch(/SUBJECT_TEMPLATE: must contain "\{tool\}"/);
    // Nothing started: no worker log line, no listening port.
    expect(worker.stdout()).toBe('');
    await expect(worker.get('/livez')).rejects.toThrow();
  }, 30_000);
});
