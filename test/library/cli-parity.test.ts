/**
 * The library and the command line give the same records: the built CLI (`normalize`, dist/cli.js, built by
 * `npm test`) against createNormalizer over the same definitions, on examples/calls.jsonl and a seeded corpus of
 * generated calls in every envelope (mutated fields, character references, prototype keys, edge numbers), each
 * line handed to the library as text, as bytes and, where JSON can carry it, as the parsed object.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNormalizer, type OutputRecord } from '../../src/library/index.js';
import { ROOT, runCli } from '../cli/run-cli.js';
import { carriedByJson, corpus } from './corpus.js';
import { EXTRA_SCHEMAS } from '../fuzz/tools.js';

/** examples/tools plus the fuzz campaign's stress schemas, as one schema directory. */
function schemaDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'library-parity-'));
  const examples = join(ROOT, 'examples', 'tools');
  for (const file of readdirSync(examples)) copyFileSync(join(examples, file), join(dir, file));
  for (const [name, schema] of Object.entries(EXTRA_SCHEMAS)) writeFileSync(join(dir, `${name}.json`), JSON.stringify(schema));
  return dir;
}

/** The definitions of a directory in the object form: file stem -> parsed definition. */
function definitionsOf(dir: string): Record<string, object> {
  return Object.fromEntries(
    readdirSync(dir).map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, file), 'utf8')) as object]),
  );
}

describe('createNormalizer gives the records the normalize command prints', () => {
  it('on examples/calls.jsonl and a seeded corpus, as text, bytes and objects', () => {
    const dir = schemaDir();
    const lines = corpus();
    expect(lines.length).toBeGreaterThan(400);
    const cli = runCli(['normalize', '--schemas', dir], `${lines.join('\n')}\n`);
    expect(cli.status).toBe(0);
    // One printed record per call: a line that is a whole message fans out, each record naming its input line.
    const printed: OutputRecord[][] = lines.map(() => []);
    for (const text of cli.stdout.split('\n')) {
      if (text === '') continue;
      const record = JSON.parse(text) as Partial<OutputRecord & { line: number }>;
      const at = (record.line ?? 0) - 1;
      delete record.line;
      printed[at]?.push(record as OutputRecord);
    }
    expect(printed.every((records) => records.length > 0)).toBe(true);

    const normalizer = createNormalizer({ tools: definitionsOf(dir) });
    // The directory's problems, file by file, are the normalizer's (the CLI prints them on stderr).
    for (const problem of normalizer.problems) expect(cli.stderr).toContain(`${problem.tool}.json: ${problem.message}`);
    expect(normalizer.problems.length).toBeGreaterThan(0);

    let objects = 0;
    const outcomes = new Set<string>();
    lines.forEach((line, index) => {
      const expected = printed[index] ?? [];
      // Compared as JSON text: that is what the CLI prints, and -0 or a prototype key compare as they are written.
      const asText = JSON.stringify(normalizer.normalize(line));
      expect(asText, `line ${index + 1}: ${line.slice(0, 200)}`).toBe(JSON.stringify(expected));
      expect(JSON.stringify(normalizer.normalize(Buffer.from(line)))).toBe(asText);
      const value = carriedByJson(line);
      if (value !== undefined && expected[0]?.errors[0]?.code !== 'record_too_large') {
        objects++;
        expect(JSON.stringify(normalizer.normalize(value)), `line ${index + 1} as an object`).toBe(asText);
      }
      for (const record of expected) outcomes.add(record.disposition);
    });
    expect(objects).toBeGreaterThan(300);
    expect([...outcomes].sort()).toEqual(['dead_letter', 'normalized', 'rejected']);
  });
});
