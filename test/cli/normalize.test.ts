/**
 * The `normalize` command as a user runs it: the built CLI (dist/cli.js, built by `npm test`) in a child
 * process, over JSON Lines, against the example tool definitions.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli as run } from './run-cli.js';

const tools = join(ROOT, 'examples', 'tools');

interface Out {
  line: number;
  id: string | null;
  tool: string | null;
  format: string | null;
  arguments: unknown;
  valid: boolean;
  disposition: string;
  errors: { code: string; path: string; message: string; hint: string }[];
  repairs: { pointer: string; kind: string }[];
  passThroughs: { pointer: string; reason: string }[];
}

function records(stdout: string): Out[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Out);
}

const lines = [
  // 1 clean OpenAI chat call
  JSON.stringify({ id: 'c1', type: 'function', function: { name: 'search_issues', arguments: '{"query":"flaky tests","limit":5}' } }),
  // 2 repairable: stringified array and object, doubly escaped text (Anthropic)
  JSON.stringify({
    type: 'tool_use',
    id: 'c2',
    name: 'search_issues',
    input: { query: 'Tom &amp;amp; Jerry', labels: '["bug","ci"]', filters: '{"state":"open"}' },
  }),
  // 3 invalid: enum and bound (MCP)
  JSON.stringify({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: {
      name: 'transfer_funds',
      arguments: { from_account: 'GB12345678', to_account: 'GB87654321', amount: 900000, currency: 'YEN' },
    },
  }),
  // 4 not JSON
  '{"id": "c4", "tool": ',
  // 5 unknown tool (Gemini)
  JSON.stringify({ functionCall: { name: 'launch_rockets', args: {} } }),
  // 6 arguments JSON-encoded twice (Responses)
  JSON.stringify({
    type: 'function_call',
    call_id: 'c6',
    name: 'write_file',
    arguments: JSON.stringify(JSON.stringify({ path: 'a', content: 'b' })),
  }),
  // 7 empty line
  '',
  // 8 canonical, object literal where an array is declared: passed through, then rejected by validation
  JSON.stringify({ id: 'c8', tool: 'update_records', arguments: { table: 't', ops: '{"op":"add"}' } }),
];

describe('toolcall-normalizer normalize', () => {
  it('writes one record per input line, in order, and exits 0 when calls are invalid', () => {
    const { status, stdout, stderr } = run(['normalize', '--schemas', tools], `${lines.join('\n')}\n`);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const out = records(stdout);
    expect(out.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(out.map((r) => [r.format, r.valid, r.disposition])).toEqual([
      ['openai_chat', true, 'normalized'],
      ['anthropic', true, 'normalized'],
      ['mcp', false, 'rejected'],
      [null, false, 'dead_letter'],
      ['gemini', false, 'rejected'],
      ['openai_responses', false, 'rejected'],
      [null, false, 'dead_letter'],
      ['canonical', false, 'rejected'],
    ]);
    const [clean, repaired, invalid, notJson, unknown, twice, , mismatch] = out as [Out, Out, Out, Out, Out, Out, Out, Out];
    expect(clean.arguments).toEqual({ query: 'flaky tests', limit: 5 });
    expect(repaired.arguments).toEqual({ query: 'Tom & Jerry', labels: ['bug', 'ci'], filters: { state: 'open' } });
    expect(repaired.repairs).toEqual([
      { pointer: '/query', kind: 'entities_decoded' },
      { pointer: '/labels', kind: 'json_decoded' },
      { pointer: '/filters', kind: 'json_decoded' },
    ]);
    expect(invalid.id).toBe('3');
    expect(invalid.errors.map((e) => [e.code, e.path])).toEqual([
      ['above_maximum', '/amount'],
      ['not_in_enum', '/currency'],
    ]);
    expect(invalid.errors[1]?.hint).toContain('USD');
    expect(notJson.errors[0]?.code).toBe('record_not_json');
    expect(unknown.errors[0]?.code).toBe('tool_unknown');
    expect(twice.errors[0]?.code).toBe('arguments_not_object');
    expect(mismatch.arguments).toEqual({ table: 't', ops: '{"op":"add"}' });
    // "t" in the string parameter `table` is no pass-through: no repair was conceivable there.
    expect(mismatch.passThroughs).toEqual([{ pointer: '/ops', reason: 'shape_mismatch' }]);
    expect(mismatch.errors[0]?.code).toBe('wrong_type');
  });

  it('fans a whole message out: one line per call, in order, each with the input line', () => {
    const message = JSON.stringify({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'm1', type: 'function', function: { name: 'search_issues', arguments: '{"query":"a","labels":"[\\"x\\"]"}' } },
        {
          id: 'm2',
          type: 'function',
          function: {
            name: 'transfer_funds',
            arguments: '{"from_account":"GB12345678","to_account":"GB87654321","amount":5,"currency":"JPY"}',
          },
        },
        { id: 'm3', type: 'function', function: { arguments: '{}' } },
      ],
    });
    const bedrock = JSON.stringify({
      output: {
        message: {
          role: 'assistant',
          content: [{ text: 'x' }, { toolUse: { toolUseId: 'b1', name: 'search_issues', input: { query: 'b' } } }],
        },
      },
    });
    const input = [lines[0], message, JSON.stringify({ role: 'assistant', content: 'only text' }), bedrock].join('\n');
    const { status, stdout, stderr } = run(['normalize', '--schemas', tools, '--summary'], `${input}\n`);
    expect(status).toBe(0);
    expect(stderr).toBe('lines=4 calls=6 normalized=3 rejected=1 dead_lettered=2 repairs=1 pass_throughs=0\n');
    expect(records(stdout).map((r) => [r.line, r.id, r.format, r.disposition, r.errors[0]?.code ?? null])).toEqual([
      [1, 'c1', 'openai_chat', 'normalized', null],
      [2, 'm1', 'openai_chat', 'normalized', null],
      [2, 'm2', 'openai_chat', 'rejected', 'not_in_enum'],
      [2, null, null, 'dead_letter', 'record_missing_tool_name'],
      [3, null, null, 'dead_letter', 'record_no_tool_calls'],
      [4, 'b1', 'bedrock', 'normalized', null],
    ]);
    expect(records(stdout)[1]?.arguments).toEqual({ query: 'a', labels: ['x'] });
  });

  it('reads --input and writes --output', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tcn-'));
    writeFileSync(join(dir, 'in.jsonl'), `${lines[0] ?? ''}\n`);
    const { status } = run(['normalize', '--schemas', tools, '--input', join(dir, 'in.jsonl'), '--output', join(dir, 'out.jsonl')]);
    expect(status).toBe(0);
    expect(records(readFileSync(join(dir, 'out.jsonl'), 'utf8'))).toHaveLength(1);
  });

  it('refuses a line over the size limit and goes on', () => {
    const big = JSON.stringify({ id: 'big', tool: 'write_file', arguments: { path: 'a', content: 'x'.repeat(3 << 20) } });
    const { status, stdout } = run(['normalize', '--schemas', tools], `${big}\n${lines[0] ?? ''}\n`);
    expect(status).toBe(0);
    const out = records(stdout);
    expect(out.map((r) => r.errors[0]?.code ?? 'ok')).toEqual(['record_too_large', 'ok']);
  });

  it('reports a broken definition by name and rejects calls to that tool only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tcn-'));
    writeFileSync(join(dir, 'good.json'), JSON.stringify({ type: 'object', properties: { a: { type: 'array' } } }));
    writeFileSync(join(dir, 'broken.json'), '{ not json');
    writeFileSync(join(dir, 'dangling.json'), JSON.stringify({ type: 'object', properties: { a: { $ref: '#/$defs/nowhere' } } }));
    const input = ['good', 'broken', 'dangling'].map((tool) => JSON.stringify({ tool, arguments: { a: '[1]' } })).join('\n');
    const { status, stdout, stderr } = run(['normalize', '--schemas', dir], input);
    expect(status).toBe(0);
    expect(stderr).toContain('broken.json');
    expect(stderr).toContain('dangling.json');
    expect(records(stdout).map((r) => [r.valid, r.errors[0]?.code ?? null, r.arguments])).toEqual([
      [true, null, { a: [1] }],
      [false, 'tool_schema_unusable', { a: '[1]' }],
      [false, 'tool_schema_unusable', { a: '[1]' }],
    ]);
  });

  it.each([
    [['normalize'], '--schemas DIR is required'],
    [['normalize', '--schemas', '/nonexistent'], 'not a readable directory'],
    [['normalize', '--schemas', tools, '--bogus'], "Unknown option '--bogus'"],
    [['normalize', '--schemas', tools, '--max-depth', '0'], '--max-depth: must be an integer from 1 to 1000, got "0"'],
    [['frobnicate'], 'unknown command "frobnicate"'],
  ])('exits 2 on a usage error: %j', (args, message) => {
    const { status, stderr } = run(args);
    expect(status).toBe(2);
    expect(stderr).toContain(message);
  });

  it('offers the beyond-the-rule options', () => {
    const call = JSON.stringify({ tool: 'write_file', arguments: { path: 'a.html', content: 'Tom &amp; Jerry' } });
    const { stdout } = run(['normalize', '--schemas', tools, '--entity-exempt', 'write_file/content'], call);
    expect(records(stdout)[0]?.arguments).toEqual({ path: 'a.html', content: 'Tom &amp; Jerry' });
  });
});
