/** The corpus both parity tests run: the example calls and a seeded sample from the fuzz campaign's generators. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ROOT } from '../cli/run-cli.js';
import { envelopeRecord, layout } from '../fuzz/arbitraries.js';

/** examples/calls.jsonl, then a seeded sample of generated calls in every envelope, one per line. */
export function corpus(): string[] {
  const examples = readFileSync(join(ROOT, 'examples', 'calls.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  const generated = fc
    .sample(fc.tuple(envelopeRecord, layout), { seed: 14, numRuns: 1000 })
    .map(([record, write]) => write(record.value))
    .filter((line) => !line.includes('\n'));
  return [...examples, ...generated];
}

/**
 * The parsed line when an object caller could hold it: a number JSON text writes but a double cannot hold (1e400
 * becomes Infinity, 1e-400 zero, 9007199254740993 another integer) leaves no such object; a string is JSON text to `normalize`, so a record that is a
 * JSON string has no object form.
 */
export function carriedByJson(line: string): unknown {
  let value: unknown;
  const lost: string[] = [];
  try {
    // A number whose literal a double does not hold (beyond the range, below it, an integer past 2^53 that changes)
    // is lost once parsed: the text is `number_out_of_range`, the object cannot say so.
    value = JSON.parse(line.replace(/^\ufeff/, ''), (_key, node: unknown, context?: { source?: string }) => {
      if (typeof node === 'number' && !survives(node, context?.source ?? String(node))) lost.push(String(node));
      return node;
    });
  } catch {
    return undefined;
  }
  return lost.length === 0 && typeof value !== 'string' ? value : undefined;
}

/** Whether a parsed number still says what its literal said, as far as a double can. */
function survives(value: number, literal: string): boolean {
  if (!Number.isFinite(value)) return false;
  if (value === 0) return !/[1-9]/.test(literal.split(/[eE]/)[0] ?? '');
  return !/^-?\d+$/.test(literal) || BigInt(literal) === BigInt(value);
}
