/** The schema half of the core path for calls to tools without a schema (src/core/pipeline.ts). */
import { describe, expect, it } from 'vitest';
import { processCall } from '../../../src/core/pipeline.js';
import type { DecodedCall } from '../../../src/core/shared/types.js';

const call = (tool: string): DecodedCall => ({ format: 'canonical', id: 'c1', tool, rawArguments: { a: 1 } });

describe('processCall for an unknown tool', () => {
  it('rejects the call with tool_unknown, its arguments kept, and a hint not to invent names', () => {
    const record = processCall(call('no_such_tool'), undefined);
    expect(record).toMatchObject({ valid: false, disposition: 'rejected', arguments: { a: 1 } });
    expect(record.errors).toEqual([
      {
        code: 'tool_unknown',
        path: '',
        message: 'No tool named "no_such_tool" is known.',
        hint: 'Call one of the tools you were given, with its exact name; do not invent tool names.',
        details: { tool: 'no_such_tool' },
      },
    ]);
  });

  it('says why no schema can exist when the schema source knows (a name no registry subject can have)', () => {
    const record = processCall(call('..'), undefined, undefined, 'the registry subject of this tool name is "..", which cannot be addressed in a registry URL');
    expect(record.errors[0]?.message).toBe('No tool named ".." can be known: the registry subject of this tool name is "..", which cannot be addressed in a registry URL.');
  });

  it('quotes at most 80 code units of a long name, never half of a surrogate pair', () => {
    const emojiAtTheCut = `${'a'.repeat(79)}😀${'b'.repeat(20)}`; // the emoji takes code units 80 and 81
    const message = processCall(call(emojiAtTheCut), undefined).errors[0]?.message ?? '';
    expect(message).toBe(`No tool named "${'a'.repeat(79)}…" is known.`);
    // No lone surrogate left anywhere in the message.
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(message)).toBe(false);
    const plain = processCall(call('x'.repeat(200)), undefined).errors[0]?.message ?? '';
    expect(plain).toBe(`No tool named "${'x'.repeat(80)}…" is known.`);
  });
});
