/**
 * The redrive's pure half (src/core/records/redrive.ts) and the worker's side of it (output.ts): what goes back for
 * a dead letter and for a rejected call, what a selection takes, that a selection's id ignores the order of its
 * filters, and that the worker keeps a redriven record's idempotency key (and only a redriven one's).
 */
import { describe, expect, it } from 'vitest';
import { buildOutputMessage, DEFAULT_MAX_OUTPUT_BYTES, HEADER, type Headers } from '../../../../src/core/records/output.js';
import {
  NONE,
  originalOf,
  redriveMessage,
  selectionId,
  selects,
  type Selection,
  type SourceRecord,
} from '../../../../src/core/records/redrive.js';
import type { OutputRecord } from '../../../../src/core/shared/types.js';

function headers(entries: Record<string, string>): Headers {
  return Object.assign(Object.create(null) as Headers, entries);
}

const call = '{"id":"c-1","tool":"search_issues","arguments":{"query":"x"}}';
const deadLetter: SourceRecord = {
  topic: 'calls.dlq',
  partition: 1,
  offset: 7n,
  timestamp: 1_000n,
  key: Buffer.from('k1'),
  value: Buffer.from(call),
  headers: headers({
    traceparent: '00-1-01',
    [HEADER.idempotencyKey]: 'c-1',
    [HEADER.errorCode]: 'record_unknown_tool',
    [HEADER.dlqTopic]: 'calls.raw',
    [HEADER.dlqPartition]: '1',
    [HEADER.dlqOffset]: '40',
    [HEADER.dlqClass]: 'record_unknown_tool',
    [HEADER.dlqMessage]: 'no such tool',
  }),
};
const rejected: SourceRecord = {
  ...deadLetter,
  topic: 'calls.rejected',
  value: Buffer.from(
    JSON.stringify({ id: 'c-2', tool: 'transfer_funds', errors: [{ code: 'not_in_enum' }], raw: { id: 'c-2', tool: 'transfer_funds' } }),
  ),
  headers: headers({ [HEADER.idempotencyKey]: 'c-2', [HEADER.errorCode]: 'not_in_enum' }),
};
const all: Selection = {
  source: 'calls.dlq',
  target: 'calls.raw',
  since: undefined,
  until: undefined,
  offsets: [],
  codes: [],
  tools: [],
  keys: [],
};

describe('originalOf', () => {
  it('a dead letter: its value unchanged, its code and the tool its call names', () => {
    const original = originalOf(deadLetter);
    expect(original).toMatchObject({ ok: true, kind: 'dead_letter', code: 'record_unknown_tool', tool: 'search_issues' });
    if (original.ok) expect(original.value.toString()).toBe(call);
  });

  it('a rejected call: the JSON text of its raw call', () => {
    const original = originalOf(rejected);
    expect(original).toMatchObject({ ok: true, kind: 'rejected', code: 'not_in_enum', tool: 'transfer_funds' });
    if (original.ok) expect(original.value.toString()).toBe('{"id":"c-2","tool":"transfer_funds"}');
  });

  it('no original: a dead letter without its value (naming where the input is), text no worker wrote', () => {
    const noValue = originalOf({ ...deadLetter, value: null });
    expect(noValue.ok).toBe(false);
    if (!noValue.ok) expect(noValue.reason).toContain('calls.raw/1@40');
    const junk = originalOf({ ...rejected, value: Buffer.from('junk') });
    expect(junk.ok).toBe(false);
    if (!junk.ok) expect(junk.reason).toMatch(/not JSON/);
    expect(originalOf({ ...rejected, value: Buffer.from('{"id":"x"}') })).toMatchObject({ ok: false });
    expect(originalOf({ ...deadLetter, value: Buffer.from('not json') })).toMatchObject({ ok: true, tool: NONE });
  });
});

describe('selects', () => {
  const original = originalOf(deadLetter);
  it('every filter given must hold', () => {
    expect(selects(all, deadLetter, original)).toBe(true);
    expect(selects({ ...all, since: 1_001n }, deadLetter, original)).toBe(false);
    expect(selects({ ...all, until: 1_000n }, deadLetter, original)).toBe(false);
    expect(selects({ ...all, offsets: [{ partition: 1, from: 7n, to: 8n }] }, deadLetter, original)).toBe(true);
    expect(selects({ ...all, offsets: [{ partition: 0, from: 0n, to: undefined }] }, deadLetter, original)).toBe(false);
    expect(selects({ ...all, codes: ['not_in_enum'] }, deadLetter, original)).toBe(false);
    expect(selects({ ...all, tools: ['search_issues'], keys: ['k1'] }, deadLetter, original)).toBe(true);
    expect(selects({ ...all, keys: ['k2'] }, deadLetter, original)).toBe(false);
  });
});

describe('selectionId', () => {
  it('is the same whatever the order of the filters, and differs with them', () => {
    const a = selectionId({ ...all, codes: ['a', 'b'], tools: ['t'] });
    expect(selectionId({ ...all, tools: ['t'], codes: ['b', 'a', 'a'] })).toBe(a);
    expect(selectionId({ ...all, codes: ['a'] })).not.toBe(a);
    expect(selectionId({ ...all, target: 'other' })).not.toBe(selectionId(all));
  });
});

describe('redriveMessage and the worker', () => {
  const original = originalOf(deadLetter);
  if (!original.ok) throw new Error('unreachable');
  const message = redriveMessage(deadLetter, original, 'calls.raw');

  it('carries the key, the input headers and the idempotency key; leaves the worker headers behind', () => {
    expect(message.key?.toString()).toBe('k1');
    expect(Object.keys(message.headers).sort()).toEqual([HEADER.idempotencyKey, HEADER.redrivenFrom, 'traceparent'].sort());
    expect(message.headers[HEADER.redrivenFrom]).toBe('calls.dlq/1@7');
  });

  const processed: OutputRecord = {
    id: null,
    tool: 'search_issues',
    format: 'canonical',
    arguments: {},
    valid: true,
    disposition: 'normalized',
    errors: [],
    repairs: [],
    passThroughs: [],
  };
  const target = {
    topics: { output: 'o', rejected: 'r', dlq: 'd' },
    maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
    topic: 'calls.raw',
    partition: 0,
  };

  it('the worker keeps a redriven record incoming idempotency key, not one it would compute', () => {
    const input = { key: message.key, value: message.value, headers: message.headers, offset: '3' };
    expect(buildOutputMessage(input, processed, undefined, undefined, target).headers[HEADER.idempotencyKey]).toBe('c-1');
    // Each call of a whole message has its own key.
    const fanned = buildOutputMessage(input, processed, undefined, undefined, target, { index: 1, sharedId: false });
    expect(fanned.headers[HEADER.idempotencyKey]).not.toBe('c-1');
  });

  it('an incoming idempotency key without the redrive header is replaced, as before', () => {
    const input = { key: message.key, value: message.value, headers: headers({ [HEADER.idempotencyKey]: 'forged' }), offset: '3' };
    expect(buildOutputMessage(input, processed, undefined, undefined, target).headers[HEADER.idempotencyKey]).not.toBe('forged');
  });
});
