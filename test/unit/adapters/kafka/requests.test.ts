/**
 * How a delivery's outputs become produce requests on each client: in order, grouped by topic (kafkajs), values
 * and header names as bytes, each request at most the byte bound (a larger output alone).
 */
import { describe, expect, it } from 'vitest';
import { splitRequests } from '../../../../src/adapters/kafka/delivery.js';
import { produceRequests } from '../../../../src/adapters/kafka/kafkajs.js';
import { messageBytes, outMessage } from '../../../../src/adapters/kafka/platformatic-delivery.js';
import type { OutputMessage } from '../../../../src/core/records/output.js';

function output(i: number, topic = 'out', value: string | null = `{"n":${String(i)},"text":"é"}`): OutputMessage {
  return { topic, key: Buffer.from(`k${String(i)}`), value, headers: { 'idempotency-key': `call_${String(i)}`, trace: Buffer.from('t') } };
}

describe('splitRequests', () => {
  it('keeps the order and cuts before the message that would pass the bound; a larger message goes alone', () => {
    expect(splitRequests([3, 4, 2, 9, 1, 1], (n) => n, 6)).toEqual([[3], [4, 2], [9], [1, 1]]);
    expect(splitRequests([], (n: number) => n, 6)).toEqual([]);
  });
});

describe('produceRequests (kafkajs)', () => {
  it('hands values over as their UTF-8 bytes and sizes requests by keys, values and headers', () => {
    const outputs = Array.from({ length: 10 }, (_, i) => output(i, i % 3 === 0 ? 'rejected' : 'out'));
    const one =
      (output(0).key?.length ?? 0) + Buffer.byteLength(output(0).value as string) + 'idempotency-key'.length + 6 + 'trace'.length + 1;
    const requests = produceRequests(outputs, one * 4);
    expect(requests).toHaveLength(3);
    const flat = requests.flatMap((request) => request.flatMap((t) => t.messages.map((m) => ({ topic: t.topic, m }))));
    expect(flat.map(({ m }) => String(m.key))).toEqual(expect.arrayContaining(outputs.map((o) => String(o.key))));
    for (const request of requests) expect(new Set(request.map((t) => t.topic)).size).toBe(request.length);
    // Within a topic, the order of the outputs.
    const outKeys = flat.filter(({ topic }) => topic === 'out').map(({ m }) => String(m.key));
    expect(outKeys).toEqual(outputs.filter((o) => o.topic === 'out').map((o) => String(o.key)));
    for (const { m } of flat) {
      expect(Buffer.isBuffer(m.value)).toBe(true);
      expect((m.value as Buffer).toString('utf8')).toMatch(/^\{"n":\d,"text":"é"\}$/);
    }
  });

  it('keeps a dead letter without a value (a tombstone) as null', () => {
    const requests = produceRequests([output(1, 'dlq', null)]);
    expect(requests[0]?.[0]?.messages[0]?.value).toBeNull();
  });
});

describe('outMessage and messageBytes (@platformatic/kafka)', () => {
  it('gives bytes only, header names too, and every value of a repeated header its own name', () => {
    const message = outMessage({ ...output(1), headers: { a: 'x', many: ['1', Buffer.from('22')], gone: undefined } });
    const headers = [...(message.headers as Map<Buffer, Buffer>)].map(([name, value]) => [name.toString(), value.toString()]);
    expect(headers).toEqual([
      ['a', 'x'],
      ['many', '1'],
      ['many', '22'],
    ]);
    expect(Buffer.isBuffer(message.value)).toBe(true);
    expect(messageBytes(message)).toBe(2 + Buffer.byteLength('{"n":1,"text":"é"}') + 2 + 5 + 6);
  });

  it('leaves out a missing value and key', () => {
    const message = outMessage({ topic: 'dlq', key: null, value: null, headers: {} });
    expect('value' in message || 'key' in message).toBe(false);
    expect(messageBytes(message)).toBe(0);
  });
});
