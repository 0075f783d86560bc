/**
 * A fixed, realistic corpus of tool calls for benchmarks: every envelope, clean and repairable calls (JSON
 * sent as strings, doubly escaped text), and some invalid ones. Deterministic: a seeded generator.
 */
import { decodeRecord, type EnvelopeResult } from '../src/core/records/envelope.js';
import type { JsonObject, JsonValue } from '../src/core/shared/json.js';

function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const words = [
  'flaky',
  'test',
  'kafka',
  'consumer',
  'lag',
  'timeout',
  'deploy',
  'helm',
  'schema',
  'registry',
  'retry',
  'Tom & Jerry',
  'R&D',
];

function argumentsFor(i: number, random: () => number): { tool: string; args: JsonObject } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const phrase = () => Array.from({ length: 3 + Math.floor(random() * 5) }, () => pick(words)).join(' ');
  const repair = random() < 0.5;
  switch (i % 4) {
    case 0: {
      const labels = [pick(words), pick(words)];
      return {
        tool: 'search_issues',
        args: {
          query: repair ? phrase().replace(/&/g, '&amp;amp;') : phrase(),
          labels: repair ? JSON.stringify(labels) : labels,
          filters: repair ? '{"state":"open"}' : { state: 'open' },
          limit: 1 + Math.floor(random() * 100),
        },
      };
    }
    case 1:
      return {
        tool: 'create_event',
        args: {
          title: repair ? 'Design review &amp; planning' : 'Design review and planning',
          start: '2026-12-01T10:00:00Z',
          duration_minutes: 30,
          attendees: repair ? '["ana@example.com","bo@example.com"]' : ['ana@example.com', 'bo@example.com'],
          location: null,
        },
      };
    case 2:
      return {
        tool: 'transfer_funds',
        args: {
          from_account: 'GB12345678',
          to_account: 'GB87654321',
          amount: Math.round(random() * 100000) / 100,
          currency: random() < 0.9 ? 'EUR' : 'YEN',
          memo: repair ? 'Rent &amp;amp; utilities' : 'Rent and utilities',
        },
      };
    default:
      return {
        tool: 'update_records',
        args: {
          table: 'customers',
          ops: repair ? '[{"op":"replace","path":"/name","value":"A &amp; B"}]' : [{ op: 'replace', path: '/name', value: 'A & B' }],
          dry_run: false,
        },
      };
  }
}

function envelope(i: number, tool: string, args: JsonObject): JsonObject {
  const id = `call_${i}`;
  switch (i % 6) {
    case 0:
      return { id, type: 'function', function: { name: tool, arguments: JSON.stringify(args) } };
    case 1:
      return { type: 'function_call', id: `fc_${i}`, call_id: id, name: tool, arguments: JSON.stringify(args) };
    case 2:
      return { type: 'tool_use', id, name: tool, input: args };
    case 3:
      return { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: tool, arguments: args } };
    case 4:
      return { functionCall: { id, name: tool, args } };
    default:
      return { id, tool, arguments: args };
  }
}

/** `count` JSON Lines (without newlines), the same for the same seed. */
export function makeCorpus(count: number, seed = 42): string[] {
  const random = lcg(seed);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const { tool, args } = argumentsFor(i, random);
    lines.push(JSON.stringify(envelope(i, tool, args)));
  }
  return lines;
}

/** The corpus holds one call per record: that call (`decodeRecord`'s first slot), or why the record is unreadable. */
export function readCall(value: JsonValue): EnvelopeResult {
  const read = decodeRecord(value);
  return !read.ok ? read : (read.calls[0]?.read ?? { ok: false, error: { code: 'record_no_tool_calls', message: '' } });
}
