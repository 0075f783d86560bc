/**
 * Header names are data (src/adapters/kafka/headers.ts): a record whose headers are named like `Object.prototype`'s
 * members reaches the worker with exactly its values, and goes out again through each client's own encoder. The
 * records are written and read with kafkajs 2.2.4's own record encoder and decoder; the end to end run on both
 * clients is test/integration/headers.test.ts.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { addHeader, headersFromPairs, kafkajsHeaders } from '../../../../src/adapters/kafka/headers.js';
import { produceRequests } from '../../../../src/adapters/kafka/kafkajs.js';
import { messageBytes, outMessage } from '../../../../src/adapters/kafka/platformatic-delivery.js';
import { buildBoundedOutput, headerMap, type Headers } from '../../../../src/core/records/output.js';
import type { OutputRecord } from '../../../../src/core/shared/types.js';

const require = createRequire(import.meta.url);
type Encoded = { buffer: Buffer };
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (record: object) => Encoded;
const decodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js') as (
  decoder: unknown,
  context: object,
) => {
  headers: Record<string, unknown>;
};
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => { readVarInt(): number };

const POISON = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf', '__defineGetter__'];

/** One record's headers, in record order, as (name, value) pairs: every poison name once, `constructor` twice. */
const pairs: [string, string][] = [
  ...POISON.map((name): [string, string] => [name, `v-${name}`]),
  ['traceparent', '00-abc-01'],
  ['constructor', 'v-constructor-2'],
];

/** The map the worker must see for {@link pairs}. */
function expected(): Headers {
  const headers = headerMap();
  for (const [name, value] of pairs) addHeader(headers, name, Buffer.from(value));
  return headers;
}

/** A record with those headers through kafkajs's encoder and decoder, as a consumer reads it. */
function kafkajsRoundTrip(headers: Headers): Record<string, unknown> {
  const { buffer } = encodeRecord({ key: Buffer.from('k'), value: Buffer.from('v'), headers });
  const decoder = new Decoder(buffer);
  decoder.readVarInt(); // the record's length
  return decodeRecord(decoder, { firstOffset: '0', firstTimestamp: '0', magicByte: 2 }).headers;
}

function entries(headers: Headers): [string, unknown][] {
  return Object.keys(headers).map((name) => [name, headers[name]]);
}

describe('header maps', () => {
  it('keep every poison name as an own key with its values, in order, and inherit nothing', () => {
    const headers = expected();
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) expect(name in headerMap()).toBe(false);
    expect(Object.keys(headers)).toEqual([...POISON, 'traceparent']);
    expect(headers.constructor).toEqual([Buffer.from('v-constructor'), Buffer.from('v-constructor-2')]);
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toEqual(Buffer.from('v-__proto__'));
  });

  it("repair kafkajs's decoded headers: the inherited value it puts first is gone, nothing else changes", () => {
    const decoded = kafkajsRoundTrip(expected());
    // What kafkajs 2.2.4 hands a consumer: the inherited member first (the bug the repair undoes).
    expect(Object.getOwnPropertyDescriptor(decoded, 'valueOf')?.value).toEqual([
      Reflect.get(Object.prototype, 'valueOf'),
      Buffer.from('v-valueOf'),
    ]);
    const repaired = kafkajsHeaders(decoded);
    expect(entries(repaired)).toEqual(entries(expected()));
    expect(kafkajsHeaders(undefined)).toEqual(headerMap());
  });

  it('leave kafkajs headers without poison names as they are (null values and repeats included)', () => {
    const decoded = { a: Buffer.from('1'), b: [Buffer.from('2'), Buffer.from('3')], n: null };
    expect(entries(kafkajsHeaders(decoded))).toEqual(Object.entries(decoded));
  });

  it("build @platformatic/kafka's header pairs into the same map", () => {
    const map = new Map<Buffer, Buffer>(pairs.map(([name, value]) => [Buffer.from(name), Buffer.from(value)]));
    expect(entries(headersFromPairs(map))).toEqual(entries(expected()));
  });

  it('go through the output record and out through both encoders exactly (names, values, order)', () => {
    const input = {
      key: Buffer.from('k'),
      value: Buffer.from('{}'),
      headers: expected(),
      offset: '5',
    };
    const record: OutputRecord = {
      id: 'c1',
      tool: 't',
      format: 'canonical',
      arguments: {},
      valid: true,
      disposition: 'normalized',
      errors: [],
      repairs: [],
      passThroughs: [],
    };
    const { message } = buildBoundedOutput(input, record, undefined, undefined, {
      topics: { output: 'o', rejected: 'r', dlq: 'd' },
      maxOutputBytes: 1_000_000,
      topic: 'in',
      partition: 0,
    });
    const carried = headerMap();
    for (const [name, value] of entries(message.headers)) if (name !== 'idempotency-key') carried[name] = value as Headers[string];
    expect(entries(carried)).toEqual(entries(expected()));

    // kafkajs: the produce request's headers encode, and decode (repaired) to the same map.
    const sent = produceRequests([message])[0]?.[0]?.messages[0];
    expect(sent).toBeDefined();
    const back = kafkajsHeaders(kafkajsRoundTrip(sent?.headers as Headers));
    const text = (headers: Headers): [string, unknown][] =>
      entries(headers).map(([n, v]) => [n, Array.isArray(v) ? v.map(String) : String(v)]);
    expect(text(back)).toEqual(text(message.headers));

    // @platformatic/kafka: one (name, value) pair per value, in order.
    const out = outMessage(message);
    const outPairs = [...(out.headers as Map<Buffer, Buffer>)].map(([n, v]) => [n.toString(), v.toString()]);
    expect(outPairs.filter(([n]) => n !== 'idempotency-key')).toEqual(
      [...POISON, 'traceparent'].flatMap((name) => pairs.filter(([n]) => n === name)),
    );
    expect(messageBytes(out)).toBeGreaterThan(0);
  });
});
