/**
 * Numbers a double cannot carry (`number_out_of_range`): found where the text is parsed (the record, the
 * arguments text, a JSON-decoded parameter), reported at their path in the arguments, on every path a record takes
 * (text and bytes: the CLI, the library and the worker run the same chain), never passed on as another number.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNormalizer } from '../../../../src/library/index.js';
import { processRecord } from '../../../../src/core/pipeline.js';
import { decodeRecordBytes, parseRecordText } from '../../../../src/core/records/bytes.js';
import { parseArguments } from '../../../../src/core/records/envelopes/arguments.js';
import { compileTool } from '../../../../src/core/schema/tool.js';
import { parseToolDefinition } from '../../../../src/core/schema/tool-definition.js';
import { numberProblem, unrepresentableNumbers, type JsonValue } from '../../../../src/core/shared/json.js';
import type { OutputRecord } from '../../../../src/core/shared/types.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

describe('numberProblem: what a literal becomes as a double', () => {
  it.each([
    ['1e400', 'overflow'],
    ['-1e400', 'overflow'],
    ['1.8e308', 'overflow'],
    ['1E+309', 'overflow'],
    ['9'.repeat(400), 'overflow'],
    ['1e-400', 'underflow'],
    ['-2.5e-325', 'underflow'],
    [`0.${'0'.repeat(400)}1`, 'underflow'],
    ['12345678901234567890', 'integer_precision'],
    ['-9007199254740993', 'integer_precision'],
    ['12345678901234567168', 'integer_precision'], // the double's exact value, but written on as ...7000
  ])('%s: %s', (literal, problem) => {
    expect(numberProblem(literal)).toBe(problem);
  });

  it.each([
    '0',
    '-0',
    '0e-400',
    '0.0e5000',
    '5e-324',
    '1.7976931348623157e308',
    '1e308',
    '9007199254740991',
    '9007199254740992',
    '-9007199254740992',
    '100000000000000000000000',
    '12345678901234567000',
    '3.14159265358979323846264338327950288', // rounded, as every reader with doubles rounds it
    '1234567890123456789.5',
    '1e-300',
    'e400', // no literal at all
  ])('%s travels as written (or is rounded as any double reader rounds it)', (literal) => {
    expect(numberProblem(literal)).toBeUndefined();
  });

  it('what JSON.stringify writes of any double is always readable', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(numberProblem(JSON.stringify(value))).toBeUndefined();
      }),
    );
  });

  it('an integer literal has a problem exactly when the double would be written on as another integer', () => {
    // The oracle: the integer the written text names, expanded digit by digit.
    const integerOfText = (text: string): bigint => {
      const [mantissa = '', exponent = '0'] = text.split('e');
      const [whole = '', fraction = ''] = mantissa.split('.');
      return BigInt(whole + fraction + '0'.repeat(Number(exponent) - fraction.length));
    };
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 300n), max: 10n ** 300n }), (n) => {
        const literal = String(n);
        const written = integerOfText(JSON.stringify(Number(literal)));
        expect(numberProblem(literal)).toBe(written === n ? undefined : 'integer_precision');
      }),
    );
  });
});

describe('parsing notes the numbers, by the containers that hold them', () => {
  it('finds each problem number in document order with its path and literal, numbers inside strings not', () => {
    const parsed = parseRecordText('{"a":{"x":1e400,"s":"b:1e400"},"b":[1,-1e999,{"c":12345678901234567890}],"d":1e-400}');
    if (!parsed.ok) throw new Error('expected a parse');
    expect(unrepresentableNumbers(parsed.value)).toEqual([
      { tokens: ['a', 'x'], literal: '1e400', problem: 'overflow' },
      { tokens: ['b', 1], literal: '-1e999', problem: 'overflow' },
      { tokens: ['b', 2, 'c'], literal: '12345678901234567890', problem: 'integer_precision' },
      { tokens: ['d'], literal: '1e-400', problem: 'underflow' },
    ]);
    const inner = (parsed.value as { b: JsonValue[] }).b;
    expect(unrepresentableNumbers(inner)).toEqual([
      { tokens: [1], literal: '-1e999', problem: 'overflow' },
      { tokens: [2, 'c'], literal: '12345678901234567890', problem: 'integer_precision' },
    ]);
  });

  it('bytes as text; a duplicate key keeps its last value, and so its last literal', () => {
    const decoded = decodeRecordBytes(new TextEncoder().encode('{"x":1e400,"x":1,"y":{"z":1e400}}'));
    if (!decoded.ok) throw new Error('expected a parse');
    expect(unrepresentableNumbers(decoded.value)).toEqual([{ tokens: ['y', 'z'], literal: '1e400', problem: 'overflow' }]);
  });

  it('texts that only look suspicious keep the value JSON.parse gave, and note nothing', () => {
    const text = '{"sha":"3e1004a9e2345","n":1e300,"id":"1234567890123456789","m":[9007199254740992]}';
    const parsed = parseRecordText(text);
    if (!parsed.ok) throw new Error('expected a parse');
    expect(parsed.value).toEqual(JSON.parse(text));
    expect(unrepresentableNumbers(parsed.value)).toEqual([]);
  });

  it('bounds the list', () => {
    const parsed = parseRecordText(`[${Array.from({ length: 50 }, () => '1e400').join(',')}]`);
    if (!parsed.ok) throw new Error('expected a parse');
    expect(unrepresentableNumbers(parsed.value, 5)).toHaveLength(5);
  });
});

describe('parseArguments: number_out_of_range, at the number', () => {
  it('for arguments sent as text', () => {
    const result = parseArguments('{"order": {"amount": 1e400}, "ok": 2}');
    expect(result).toMatchObject({
      ok: false,
      diagnostic: { code: 'number_out_of_range', path: '/order/amount', details: { literal: '1e400', problem: 'overflow' } },
    });
    if (result.ok) return;
    expect(result.diagnostic.message).toBe(
      'The number 1e400 in "order.amount" is beyond the range of a double (about ±1.8e308): it would be read as Infinity, ' +
        'which JSON cannot carry (it would be written null).',
    );
    expect(result.diagnostic.hint).toContain('1.7976931348623157e308');
  });

  it('for arguments sent as an object inside the record, listing every number', () => {
    const parsed = parseRecordText('{"arguments": {"ids": [12345678901234567890, 3], "tiny": 1e-400}}');
    if (!parsed.ok) throw new Error('expected a parse');
    const result = parseArguments((parsed.value as { arguments: JsonValue }).arguments);
    expect(result).toMatchObject({
      ok: false,
      diagnostic: {
        code: 'number_out_of_range',
        path: '/ids/0',
        details: {
          numbers: [
            { path: '/ids/0', literal: '12345678901234567890', problem: 'integer_precision' },
            { path: '/tiny', literal: '1e-400', problem: 'underflow' },
          ],
        },
      },
    });
    if (result.ok) return;
    expect(result.diagnostic.message).toContain('would be passed on as 12345678901234567000');
    expect(result.diagnostic.message).toContain('1 other number in the arguments also cannot be carried');
  });

  it('accepts what a double carries', () => {
    expect(parseArguments('{"a": 1e308, "b": 5e-324, "c": 9007199254740991, "d": 0e-999, "e": 0.1}')).toMatchObject({ ok: true });
  });
});

describe('the whole chain: a number beyond a double is never valid, on text and bytes alike', () => {
  const compiler = createSchemaCompiler();
  const definition = parseToolDefinition(
    {
      name: 'pay',
      inputSchema: {
        type: 'object',
        properties: { amount: { type: 'number' }, items: { type: 'array', items: { type: 'number' } }, note: { type: 'string' } },
      },
    },
    'pay',
  );
  if (!definition.ok) throw new Error(definition.reason);
  const tool = compileTool(definition.definition, compiler);
  const lookup = (name: string) => (name === 'pay' ? tool : undefined);
  const both = (text: string): OutputRecord[][] => [processRecord(text, lookup), processRecord(new TextEncoder().encode(text), lookup)];

  it.each([
    ['canonical, an object', '{"id":"1","tool":"pay","arguments":{"amount":1e400}}'],
    ['canonical, text', '{"id":"1","tool":"pay","arguments":"{\\"amount\\":1e400}"}'],
    ['OpenAI Chat Completions', '{"id":"1","type":"function","function":{"name":"pay","arguments":"{\\"amount\\": 1e400}"}}'],
    ['Anthropic', '{"type":"tool_use","id":"1","name":"pay","input":{"amount":1e400}}'],
    ['MCP', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"amount":1e400}}}'],
    ['Gemini', '{"functionCall":{"name":"pay","args":{"amount":1e400}}}'],
    [
      'a whole message',
      '{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"pay","arguments":"{\\"amount\\":1e400}"}}]}',
    ],
  ])('%s', (_name, text) => {
    for (const out of both(text)) {
      expect(out).toHaveLength(1);
      expect(out[0]).toMatchObject({ valid: false, disposition: 'rejected' });
      expect(out[0]?.errors.map((e) => [e.code, e.path])).toEqual([['number_out_of_range', '/amount']]);
    }
  });

  it('a parameter sent as JSON text holding one is not decoded: the text stays as sent, and the call is not valid', () => {
    for (const out of both('{"tool":"pay","arguments":{"items":"[1, 1e400]"}}')) {
      expect(out[0]).toMatchObject({ valid: false, arguments: { items: '[1, 1e400]' }, repairs: [] });
      expect(out[0]?.passThroughs).toEqual([{ pointer: '/items', reason: 'number_out_of_range' }]);
      expect(out[0]?.errors.map((e) => e.code)).toEqual(['wrong_type']);
    }
  });

  it('the same text with numbers a double carries is decoded and valid; a literal inside a string is only text', () => {
    for (const out of both('{"tool":"pay","arguments":{"items":"[1, 1e300]","note":"max 1e400","amount":12345678901234567000}}')) {
      expect(out[0]).toMatchObject({ valid: true, arguments: { items: [1, 1e300], note: 'max 1e400' } });
    }
  });
});

describe('the library: text and bytes as the chain reads them, objects as JSON can carry them', () => {
  const normalizer = createNormalizer({ tools: { pay: { type: 'object', properties: { amount: { type: 'number' } } } } });

  it('number_out_of_range for a literal in text or bytes, whether the arguments are an object or text', () => {
    for (const input of [
      '{"tool":"pay","arguments":{"amount":-1e400}}',
      new TextEncoder().encode('{"tool":"pay","arguments":{"amount":12345678901234567890}}'),
    ]) {
      expect(normalizer.normalize(input)[0]?.errors.map((e) => [e.code, e.path])).toEqual([['number_out_of_range', '/amount']]);
    }
    expect(normalizer.normalizeArguments('pay', '{"amount": 1e-400}').errors.map((e) => e.code)).toEqual(['number_out_of_range']);
  });

  it('a JavaScript object holding Infinity is never valid: JSON cannot carry it, so the record is not JSON data', () => {
    for (const result of [
      normalizer.normalizeArguments('pay', { amount: Infinity }),
      normalizer.normalize({ tool: 'pay', arguments: { amount: -Infinity } })[0],
    ]) {
      expect(result).toMatchObject({ valid: false, disposition: 'dead_letter' });
      expect(result?.errors[0]?.code).toBe('record_not_json');
    }
  });
});
