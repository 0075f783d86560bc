/**
 * The worker (src/app/worker/worker.ts) against an in-memory port and schema source (fake-port.ts): the outputs
 * of a batch and where it stops, the schema wait and its backoff, a batch that stops being live, and the tally
 * each batch's result carries, counted only once the adapter reports that batch delivered, batches in hand at
 * the same time included.
 */
import { describe, expect, it } from 'vitest';
import { RegistryUnavailableError } from '../../../../src/adapters/registry/client.js';
import type { CompiledTool } from '../../../../src/core/schema/tool.js';
import { searchTool as sharedSearchTool } from '../../search-tool.js';
import { HEADER } from '../../../../src/core/records/output.js';
import { batchOf, counterValues, fakeWorker, FakeSchemas } from './fake-port.js';

function searchTool(): CompiledTool {
  return sharedSearchTool({ subject: 'search_issues', version: 1, id: 42 });
}

const tools = new Map([['search_issues', searchTool()]]);
const call = (id: string, args: unknown): string => JSON.stringify({ id, tool: 'search_issues', arguments: args });
const repaired = call('c1', { query: 'a &amp; b', labels: '["x"]' });
const rejected = call('c2', { labels: [] });
const unreadable = '{not json';

describe('Worker.process: one partition batch', () => {
  it('gives each record its outputs in order, to the topic of its disposition, and stops after the last', async () => {
    const { stream, config } = await fakeWorker(new FakeSchemas(tools, { cached: true }));
    const result = await stream.process(batchOf([repaired, rejected, unreadable, null], { first: 10 }));
    expect(result.lastOffset).toBe('13');
    expect(result.holdMs).toBeUndefined();
    const { output, rejected: rejectedTopic, dlq } = config.topics;
    expect(result.outputs.map((m) => m.topic)).toEqual([output, rejectedTopic, dlq, dlq]);
    const first = JSON.parse(result.outputs[0]?.value as string) as Record<string, unknown>;
    expect(first).toMatchObject({
      id: 'c1',
      arguments: { query: 'a & b', labels: ['x'] },
      schemaId: 42,
      source: { partition: 0, offset: '10' },
    });
    expect(result.outputs[2]?.value?.toString()).toBe(unreadable);
    expect(result.outputs[3]).toMatchObject({ value: null, headers: { [HEADER.errorCode]: 'record_not_json' } });
    // Incoming headers travel on; the key is the input's.
    expect(result.outputs[0]?.headers.traceparent).toBeDefined();
    expect(result.outputs[1]?.key?.toString()).toBe('k1');
  });

  it('unwraps the wire format and fans a whole message out, as the core does', async () => {
    const { stream } = await fakeWorker(new FakeSchemas(tools, { cached: true }));
    const message = JSON.stringify({
      role: 'assistant',
      tool_calls: [
        { id: 't1', type: 'function', function: { name: 'search_issues', arguments: '{"query":"q"}' } },
        { id: 't2', type: 'function', function: { name: 'nope', arguments: '{}' } },
      ],
    });
    const wire = Buffer.concat([Buffer.from([0, 0, 0, 0, 9]), Buffer.from(message)]);
    const result = await stream.process(batchOf([wire]));
    expect(result.outputs.map((m) => (JSON.parse(m.value as string) as { id: string }).id)).toEqual(['t1', 't2']);
  });

  it('fetches a schema on a miss, heartbeating after the fetch, and then serves it from the cache', async () => {
    const schemas = new FakeSchemas(tools);
    const { stream } = await fakeWorker(schemas);
    const result = await stream.process(batchOf([repaired, repaired]));
    expect(result.lastOffset).toBe('1');
    expect(schemas.fetches).toBe(1);
    expect(stream.heartbeats).toBe(1);
  });

  it('says why a tool cannot exist when the schema source knows', async () => {
    const schemas = new FakeSchemas(tools, { cached: true });
    schemas.reasons.set('..', 'no registry subject can be ".."');
    const { stream } = await fakeWorker(schemas);
    const result = await stream.process(batchOf([JSON.stringify({ id: 'x', tool: '..', arguments: {} })]));
    const value = JSON.parse(result.outputs[0]?.value as string) as { errors: { code: string; message: string }[] };
    expect(value.errors[0]).toMatchObject({
      code: 'tool_unknown',
      message: 'No tool named ".." can be known: no registry subject can be "..".',
    });
  });

  it('a lookup that throws on the name (not the registry) rejects the call as an unknown tool; the batch goes on', async () => {
    const schemas = new FakeSchemas(tools);
    schemas.failure = new TypeError('Invalid URL');
    const { stream } = await fakeWorker(schemas);
    const result = await stream.process(batchOf([repaired, unreadable]));
    expect(result.lastOffset).toBe('1');
    expect(result.holdMs).toBeUndefined();
    expect((JSON.parse(result.outputs[0]?.value as string) as { errors: { code: string }[] }).errors[0]?.code).toBe('tool_unknown');
  });

  it('stops before a record whose schema cannot be fetched: the records before it go, the partition is held', async () => {
    const schemas = new FakeSchemas(new Map());
    const { stream, metrics } = await fakeWorker(schemas, { maxBackoffMs: 3_000 });
    // The first record needs no schema (unreadable); the second waits, and so does everything after it.
    schemas.failure = new RegistryUnavailableError('registry down', 503);
    const result = await stream.process(batchOf([unreadable, repaired, rejected], { first: 5 }));
    expect(result).toMatchObject({ lastOffset: '5', holdMs: 500 });
    expect(result.outputs).toHaveLength(1);
    // Doubling per consecutive wait, up to the bound; progress resets it.
    const holds: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) holds.push((await stream.process(batchOf([repaired], { first: 6 }))).holdMs);
    expect(holds).toEqual([1_000, 2_000, 3_000, 3_000]);
    expect(await counterValues(metrics, 'toolcall_schema_waits_total')).toEqual({ '': 5 });
    schemas.failure = undefined;
    const resumed = await stream.process(batchOf([repaired], { first: 6 }));
    expect(resumed).toMatchObject({ lastOffset: '6', holdMs: undefined });
    schemas.failure = new RegistryUnavailableError('registry down again', 503);
    const again = await stream.process(batchOf([JSON.stringify({ id: 'n', tool: 'other_tool', arguments: {} })], { first: 7 }));
    expect(again.holdMs).toBe(500);
  });

  it('stops at the first record once the batch is no longer live', async () => {
    const { stream } = await fakeWorker(new FakeSchemas(tools, { cached: true }));
    let checks = 0;
    const result = await stream.process(batchOf([repaired, rejected, repaired]), () => ++checks <= 2);
    expect(result.lastOffset).toBe('1');
    expect(result.outputs).toHaveLength(2);
  });
});

describe('Worker: the tally each batch result carries', () => {
  it('counts nothing until the batch is reported delivered, and nothing for one that was not', async () => {
    const { stream, metrics } = await fakeWorker(new FakeSchemas(tools, { cached: true }));
    const result = await stream.process(batchOf([repaired, rejected, unreadable]));
    expect(await counterValues(metrics, 'toolcall_calls_total')).toEqual({});
    stream.settle([]);
    expect(await counterValues(metrics, 'toolcall_calls_total')).toEqual({});
    stream.settle([result]);
    expect(await counterValues(metrics, 'toolcall_calls_total')).toEqual({
      'outcome=normalized,tool=search_issues': 1,
      'outcome=rejected,tool=search_issues': 1,
      'outcome=dead_lettered,tool=none': 1,
    });
    expect(await counterValues(metrics, 'toolcall_repairs_total')).toEqual({
      'kind=json_decoded,tool=search_issues': 1,
      'kind=entities_decoded,tool=search_issues': 1,
    });
    expect(await counterValues(metrics, 'toolcall_validation_errors_total')).toEqual({ 'code=missing_required,tool=search_issues': 1 });
    expect(await counterValues(metrics, 'toolcall_dead_letters_total')).toEqual({ 'reason=record_not_json': 1 });
    expect(await counterValues(metrics, 'toolcall_records_total')).toEqual({ 'shape=call': 2, 'shape=unreadable': 1 });
  });

  it('keeps batches in hand at the same time apart: each is counted when, and only if, it is delivered', async () => {
    const schemas = new FakeSchemas(tools);
    const { stream, metrics } = await fakeWorker(schemas);
    let open = (): void => undefined;
    schemas.gate = new Promise((resolve) => (open = resolve));
    // Batch A has finished one record (an array: record_not_object) and waits on a schema fetch for the next,
    // while batch B (another partition, nothing to fetch) finishes and is delivered.
    const a = stream.process(batchOf(['[]', repaired], { partition: 0 }));
    const b = await stream.process(batchOf([unreadable, unreadable], { partition: 1 }));
    stream.settle([b]);
    expect(await counterValues(metrics, 'toolcall_dead_letters_total')).toEqual({ 'reason=record_not_json': 2 });
    expect(await counterValues(metrics, 'toolcall_calls_total')).toEqual({ 'outcome=dead_lettered,tool=none': 2 });
    open();
    const resultA = await a;
    expect(resultA.outputs).toHaveLength(2);
    // A's delivery fails: its counts are dropped with it; fetched again and delivered, it counts once.
    stream.settle([]);
    expect(await counterValues(metrics, 'toolcall_dead_letters_total')).toEqual({ 'reason=record_not_json': 2 });
    const retried = await stream.process(batchOf(['[]', repaired], { partition: 0 }));
    stream.settle([retried]);
    expect(await counterValues(metrics, 'toolcall_dead_letters_total')).toEqual({
      'reason=record_not_json': 2,
      'reason=record_not_object': 1,
    });
    expect(await counterValues(metrics, 'toolcall_calls_total')).toEqual({
      'outcome=dead_lettered,tool=none': 3,
      'outcome=normalized,tool=search_issues': 1,
    });
    // Results settled together (one delivery of several partitions, as platformatic delivers) count each once,
    // summed into one set of increments.
    const c = await stream.process(batchOf([rejected, repaired], { partition: 2 }));
    const d = await stream.process(batchOf([rejected, '[]'], { partition: 3 }));
    stream.settle([c, d]);
    expect(await counterValues(metrics, 'toolcall_calls_total')).toEqual({
      'outcome=dead_lettered,tool=none': 4,
      'outcome=normalized,tool=search_issues': 2,
      'outcome=rejected,tool=search_issues': 2,
    });
    expect(await counterValues(metrics, 'toolcall_dead_letters_total')).toEqual({
      'reason=record_not_json': 2,
      'reason=record_not_object': 2,
    });
    expect(await counterValues(metrics, 'toolcall_records_total')).toEqual({ 'shape=call': 4, 'shape=unreadable': 4 });
  });
});

describe('Worker lifecycle on the port', () => {
  it('is joined once started, stops the stream, and reports a fatal error unless it is stopping', async () => {
    const { worker, stream, fatal } = await fakeWorker(new FakeSchemas(tools));
    expect(worker.health().joined).toBe(true);
    worker.fatal(new Error('broker gone'), 'consumer crashed');
    expect(fatal.map((e) => e.message)).toEqual(['broker gone']);
    expect(worker.health().crashed).toBe('consumer crashed');
    await worker.stop();
    expect(stream.stopped).toBe(true);
    worker.fatal(new Error('after stop'), 'ignored');
    expect(fatal).toHaveLength(1);
  });
});
