/**
 * What the worker writes for one record: topic, key, value and headers (src/core/records/output.ts). The integration
 * tests check the same through a real broker; these pin the header rules without one.
 */
import { describe, expect, it } from 'vitest';
import {
  buildBoundedOutput,
  buildOutputMessage,
  HEADER,
  MAX_IDEMPOTENCY_ID_CHARS,
  recordHash,
  DEFAULT_MAX_OUTPUT_BYTES,
  type InputMessage,
  type OutputTarget,
} from '../../../../src/core/records/output.js';
import type { OutputRecord } from '../../../../src/core/shared/types.js';

const topics = { output: 'calls.normalized', rejected: 'calls.rejected', dlq: 'calls.dlq' };
const target: OutputTarget = { topics, maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES, topic: 'calls.raw', partition: 2 };
const schema = { subject: 'tools.write_file', version: 2, id: 7 };

function input(headers: InputMessage['headers'] = {}): InputMessage {
  return {
    key: Buffer.from('k1'),
    value: Buffer.from('{"id":"call-1"}'),
    headers,
    offset: '41',
  };
}

function record(disposition: OutputRecord['disposition'], id: string | null = 'call-1'): OutputRecord {
  const errors =
    disposition === 'normalized'
      ? []
      : [
          {
            code: disposition === 'rejected' ? ('not_in_enum' as const) : ('record_not_json' as const),
            path: '',
            message: 'bad',
            hint: 'fix it',
          },
        ];
  return {
    id,
    tool: 'write_file',
    format: 'canonical',
    arguments: { path: 'a' },
    valid: disposition === 'normalized',
    disposition,
    errors,
    repairs: [],
    passThroughs: [],
  };
}

describe('buildOutputMessage values: what an executor and an auditor need, nothing the topic says', () => {
  it('writes a clean normalized call as its id, tool, format, arguments, schema id and source, nothing empty', () => {
    const message = buildOutputMessage(input(), record('normalized'), schema, { id: 'call-1' }, target);
    expect(message.value).toBe(
      '{"id":"call-1","tool":"write_file","format":"canonical",' +
        '"arguments":{"path":"a"},"schemaId":7,"source":{"partition":2,"offset":"41"}}',
    );
  });

  it('writes repairs and pass-throughs where there are some, and no raw call on the normalized topic', () => {
    const repaired: OutputRecord = {
      ...record('normalized'),
      repairs: [{ pointer: '/path', kind: 'entities_decoded' }],
      passThroughs: [{ pointer: '/mode', reason: 'string_declared' }],
    };
    const value = JSON.parse(buildOutputMessage(input(), repaired, schema, { id: 'call-1' }, target).value as string) as Record<
      string,
      unknown
    >;
    expect(Object.keys(value)).toEqual(['id', 'tool', 'format', 'arguments', 'repairs', 'passThroughs', 'schemaId', 'source']);
    expect(value.repairs).toEqual(repaired.repairs);
    expect(value.passThroughs).toEqual(repaired.passThroughs);
  });

  it('leaves the schema id out where no schema exists (an unknown tool), and keeps a null id and a null raw', () => {
    const unknown: OutputRecord = {
      ...record('rejected', null),
      errors: [{ code: 'tool_unknown', path: '', message: 'no such tool', hint: 'call a known one' }],
    };
    const value = JSON.parse(buildOutputMessage(input(), unknown, undefined, undefined, target).value as string) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['id', 'tool', 'format', 'arguments', 'errors', 'source', 'raw']);
    expect(value.id).toBeNull();
    expect(value.raw).toBeNull();
  });
});

describe('buildOutputMessage headers', () => {
  it('writes the idempotency key and no disposition header: the topic is the disposition', () => {
    const message = buildOutputMessage(input(), record('normalized'), schema, undefined, target);
    expect(message.topic).toBe(topics.output);
    expect(message.key?.toString()).toBe('k1');
    expect(message.headers).toEqual({ [HEADER.idempotencyKey]: 'call-1' });
  });

  it('carries incoming headers and drops incoming ones with our names, retired ones included', () => {
    const incoming = {
      traceparent: '00-abc-def-01',
      [HEADER.idempotencyKey]: 'spoofed',
      'toolcall-disposition': 'rejected',
      [HEADER.errorCode]: 'spoofed',
    };
    const message = buildOutputMessage(input(incoming), record('normalized'), schema, undefined, target);
    expect(message.headers).toEqual({ traceparent: '00-abc-def-01', [HEADER.idempotencyKey]: 'call-1' });
  });

  it('carries header names that Object.prototype has as own keys, in a map that inherits nothing', () => {
    const incoming = Object.create(null) as InputMessage['headers'];
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) incoming[name] = `${name}-value`;
    const check = (headers: InputMessage['headers']) => {
      for (const name of ['valueOf', 'isPrototypeOf']) expect(name in headers).toBe(false);
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        expect(Object.hasOwn(headers, name)).toBe(true);
        expect(headers[name]).toBe(`${name}-value`);
      }
    };
    check(buildOutputMessage(input(incoming), record('normalized'), schema, undefined, target).headers);
    // The bounded dead letter copies the headers once more, to lengthen its message.
    const huge = { ...input(incoming), value: Buffer.alloc(2_000, 'x') };
    const bounded = buildBoundedOutput(huge, record('dead_letter', null), undefined, undefined, { ...target, maxOutputBytes: 1_000 });
    expect(bounded.message.value).toBeNull();
    check(bounded.message.headers);
  });

  it('names the first error of a rejected call in a header and sends it to the rejected topic', () => {
    const message = buildOutputMessage(input(), record('rejected'), schema, { id: 'call-1' }, target);
    expect(message.topic).toBe(topics.rejected);
    expect(message.headers).toEqual({ [HEADER.idempotencyKey]: 'call-1', [HEADER.errorCode]: 'not_in_enum' });
    expect(JSON.parse(message.value as string)).toEqual({
      id: 'call-1',
      tool: 'write_file',
      format: 'canonical',
      arguments: { path: 'a' },
      errors: [{ code: 'not_in_enum', path: '', message: 'bad', hint: 'fix it' }],
      schemaId: 7,
      source: { partition: 2, offset: '41' },
      raw: { id: 'call-1' },
    });
  });

  it('dead-letters the input bytes with the Kafka Connect headers and a hash for a key when there is no id', () => {
    const source = input();
    const message = buildOutputMessage(source, record('dead_letter', null), undefined, undefined, target);
    expect(message.topic).toBe(topics.dlq);
    expect(message.value).toBe(source.value);
    expect(message.headers).toEqual({
      [HEADER.idempotencyKey]: recordHash(source),
      [HEADER.errorCode]: 'record_not_json',
      [HEADER.dlqTopic]: 'calls.raw',
      [HEADER.dlqPartition]: '2',
      [HEADER.dlqOffset]: '41',
      [HEADER.dlqClass]: 'record_not_json',
      [HEADER.dlqMessage]: 'bad',
    });
    expect(recordHash(source)).toMatch(/^sha256:[0-9a-f]{32}$/);
  });

  it('keys a call with an empty id by its record, not by the empty id every such call would share', () => {
    const source = input();
    expect(buildOutputMessage(source, record('normalized', ''), schema, undefined, target).headers[HEADER.idempotencyKey]).toBe(
      recordHash(source),
    );
  });

  it('hashes an id too long to carry as a header, so headers stay small whatever the id (the value bound counts only the value)', () => {
    const longId = 'x'.repeat(900_000);
    const bounded = buildBoundedOutput(input(), record('normalized', longId), schema, undefined, target);
    const key = bounded.message.headers[HEADER.idempotencyKey];
    expect(key).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(
      buildOutputMessage(input(), record('normalized', `${longId}y`), schema, undefined, target).headers[HEADER.idempotencyKey],
    ).not.toBe(key);
    expect(buildOutputMessage(input(), record('normalized', longId), schema, undefined, target).headers[HEADER.idempotencyKey]).toBe(key);
    const atLimit = 'y'.repeat(MAX_IDEMPOTENCY_ID_CHARS);
    expect(buildOutputMessage(input(), record('normalized', atLimit), schema, undefined, target).headers[HEADER.idempotencyKey]).toBe(
      atLimit,
    );
  });
});

describe('the outputs of a whole message (fan-out)', () => {
  const element = { type: 'tool_use', id: 'toolu_2', name: 'write_file' };

  it('keys a call without an id by the record hash and its position, distinct per call and stable', () => {
    const keys = [0, 1, 2].map(
      (index) =>
        buildOutputMessage(input(), record('normalized', null), schema, element, target, { index, sharedId: false }).headers[
          HEADER.idempotencyKey
        ],
    );
    expect(keys).toEqual([`${recordHash(input())}#0`, `${recordHash(input())}#1`, `${recordHash(input())}#2`]);
    expect(
      buildOutputMessage(input(), record('normalized', null), schema, element, target, { index: 1, sharedId: false }).headers[
        HEADER.idempotencyKey
      ],
    ).toBe(keys[1]);
  });

  it('keys a call by its id, unless another call of the message shares it', () => {
    expect(
      buildOutputMessage(input(), record('normalized', 'toolu_2'), schema, element, target, { index: 1, sharedId: false }).headers[
        HEADER.idempotencyKey
      ],
    ).toBe('toolu_2');
    expect(
      buildOutputMessage(input(), record('normalized', 'dup'), schema, element, target, { index: 1, sharedId: true }).headers[
        HEADER.idempotencyKey
      ],
    ).toBe(`${recordHash(input())}#1`);
  });

  it("leaves a single call's key as it was (no position)", () => {
    expect(buildOutputMessage(input(), record('normalized', null), schema, undefined, target).headers[HEADER.idempotencyKey]).toBe(
      recordHash(input()),
    );
  });

  it("dead-letters one call of a message as that call's JSON text, not the whole message", () => {
    const message = buildOutputMessage(input(), record('dead_letter', null), undefined, element, target, { index: 1, sharedId: false });
    expect(message.topic).toBe(topics.dlq);
    expect(message.value).toBe(JSON.stringify(element));
    expect(message.key?.toString()).toBe('k1');
    expect(message.headers[HEADER.dlqOffset]).toBe('41');
  });

  it('a rejected call carries its own element as raw', () => {
    const message = buildOutputMessage(input(), record('rejected'), schema, element, target, { index: 0, sharedId: false });
    expect(JSON.parse(String(message.value))).toMatchObject({ raw: element });
  });

  it('an output over the bound is dead-lettered as its call, still with its position in the key', () => {
    const big = { ...record('normalized', null), arguments: { content: 'x'.repeat(2_000) } };
    const bounded = buildBoundedOutput(input(), big, schema, element, { ...target, maxOutputBytes: 1_000 }, { index: 3, sharedId: false });
    expect(bounded.record.errors[0]?.code).toBe('output_too_large');
    expect(bounded.message.value).toBe(JSON.stringify(element));
    expect(bounded.message.headers[HEADER.idempotencyKey]).toBe(`${recordHash(input())}#3`);
  });
});
