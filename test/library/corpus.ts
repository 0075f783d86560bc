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
 * The parsed line when an object caller could hold it: numbers JSON text writes but JavaScript cannot hold finite
 * (1e400) become Infinity, which no JSON value is; a string is JSON text to `normalize`, so a record that is a
 * JSON string has no object form.
 */
export function carriedByJson(line: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(line.replace(/^\ufeff/, ''));
  } catch {
    return undefined;
  }
  const finite = (node: unknown): boolean =>
    typeof node === 'number' ? Number.isFinite(node) : typeof node !== 'object' || node === null || Object.values(node).every(finite);
  return finite(value) && typeof value !== 'string' ? value : undefined;
}
