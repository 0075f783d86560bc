/**
 * No ReDoS: every regular expression that sees untrusted text does bounded work on pathological input (long runs of
 * a repeating character or pair, then a mismatch; 100 000 characters). The bound is CPU time of this thread in
 * reference passes (test/budget.ts), not wall clock, so a loaded machine does not fail it.
 *
 * Two layers:
 * 1. A sweep over every regex literal in src/ (found with the TypeScript parser, so a regex added later is
 *    swept too), each run on runs built from its own characters. `src/audit/` is left out: it reads tool
 *    descriptions for the `audit` command, never records, and has its own tests.
 * 2. Targeted tests through the code paths that feed untrusted text to a regex: the envelope decoder's parser
 *    message, JSON Pointer escaping, validation hints, every ajv format (`url` through `isUrl`, since the
 *    ajv-formats regex is quadratic), patterns of the example tools, entity decoding, and the registry URL.
 *
 * Schema `pattern`s, `patternProperties` and `propertyNames` patterns are operator-supplied regexes run on
 * untrusted values and keys: they run on a linear-time engine (src/core/shared/patterns.ts), so nested and
 * overlapping quantifiers (`^(a+)+$`, `(a|a)*`) are bounded here like every other regex.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { leastPassesOf } from '../../budget.js';
import { parseRegistryUrl } from '../../../src/core/schema/registry-document.js';
import { parseArguments } from '../../../src/core/records/envelope.js';
import type { JsonObject } from '../../../src/core/shared/json.js';
import { childPointer } from '../../../src/core/shared/json-pointer.js';
import { decodeReferences } from '../../../src/core/rule/normalize.js';
import { compileSchemaPlan } from '../../../src/core/rule/plan.js';
import { createSchemaCompiler } from '../../../src/core/validation/validate.js';
import { isUrl } from '../../../src/core/validation/url-format.js';

/** Length of every pathological input. */
const N = 100_000;
/**
 * Budget of one regex run over one input, in reference passes (about 250 ms of CPU on the development machine).
 * A linear regex costs under a few passes here; a quadratic one, hundreds to thousands.
 */
const BUDGET = 80;

const SRC = fileURLToPath(new URL('../../../src', import.meta.url));
const EXCLUDED = ['audit/'];

interface FoundRegex {
  readonly where: string;
  readonly regex: RegExp;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every regex literal in src/ (outside {@link EXCLUDED}), with its file and line. */
function regexLiterals(): FoundRegex[] {
  const found: FoundRegex[] = [];
  for (const file of tsFiles(SRC)) {
    const rel = relative(SRC, file).split('\\').join('/');
    if (EXCLUDED.some((prefix) => rel.startsWith(prefix))) continue;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(source);
        const end = text.lastIndexOf('/');
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push({ where: `src/${rel}:${line} ${text}`, regex: new RegExp(text.slice(1, end), text.slice(end + 1)) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Characters a regex reacts to: its own literal characters, plus one of each class it may use. */
function seedsFor(regex: RegExp): string[] {
  const seeds = new Set(['a', 'Z', '0', ' ', '/', ':', '#', '~', '.', '-', '@', '\t']);
  for (const char of regex.source.replace(/\\[dswDSWbB]/g, '')) {
    if (!'()[]{}?*+|^$\\'.includes(char)) seeds.add(char);
  }
  return [...seeds];
}

/** The literal text a regex starts with (`at position `, `#`...), so runs start inside a potential match. */
function literalPrefix(regex: RegExp): string {
  const match = /^\^?((?:[^\\()[\]{}?*+|^$.]|\\[/.:~#-])*)/.exec(regex.source);
  return (match?.[1] ?? '').replace(/\\(.)/g, '$1');
}

/** One input at a time, so the heap stays small and a major collection does not land inside a measured run. */
function* pathologicalInputs(regex: RegExp): Generator<string> {
  const seeds = seedsFor(regex);
  const prefixes = [...new Set(['', literalPrefix(regex)])];
  for (const prefix of prefixes) {
    for (const seed of seeds) for (const end of ['', '!', '\n']) yield prefix + seed.repeat(N) + end;
    for (const a of seeds) for (const b of seeds) if (a !== b) yield prefix + (a + b).repeat(N / 2) + '!';
  }
}

/** Runs `regex` the ways src/ uses regexes (`exec`/`test`, and `replace` for global ones): its cost in passes. */
function runOnce(regex: RegExp, input: string): number {
  const single = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ''));
  return timed(() => {
    single.exec(input);
    if (regex.global) input.replace(regex, '');
  });
}

/** The cost of `action` in reference passes: the least of up to three runs (test/budget.ts). */
function timed(action: () => unknown): number {
  return leastPassesOf(action, BUDGET);
}

describe('no ReDoS: every regex literal in src/ (outside src/audit) is linear on pathological input', () => {
  const literals = regexLiterals();

  it('finds the regexes it sweeps (the parser walk works)', () => {
    const sources = literals.map((found) => found.regex.source);
    expect(literals.length).toBeGreaterThan(30);
    expect(sources).toContain('at position (\\d+)');
    expect(sources).toContain('~1');
  });

  // One test per distinct regex, named after its first occurrence.
  const distinct = new Map<string, FoundRegex>();
  for (const found of literals) {
    const key = `${found.regex.source}/${found.regex.flags}`;
    if (!distinct.has(key)) distinct.set(key, found);
  }
  for (const found of distinct.values()) {
    it(found.where, () => {
      let worst = { passes: 0, input: '' };
      for (const input of pathologicalInputs(found.regex)) {
        const passes = runOnce(found.regex, input);
        if (passes > worst.passes) worst = { passes, input };
      }
      expect(worst.passes, `costliest input: ${JSON.stringify(worst.input.slice(0, 40))}... (${worst.input.length} chars)`).toBeLessThan(
        BUDGET,
      );
    });
  }
});

describe('no ReDoS on the paths that feed untrusted text to a regex', () => {
  const compiler = createSchemaCompiler();

  it('envelope.ts: the parser-position regex over V8 messages for huge invalid arguments text', () => {
    for (const text of [
      `{"a":${'1'.repeat(N)}x`,
      `{"a":"${'\\'.repeat(N)}`,
      `${'['.repeat(N)}x`,
      `at position ${'9'.repeat(N)}`,
      '{'.repeat(N),
    ]) {
      let result: ReturnType<typeof parseArguments> | undefined;
      const passes = timed(() => (result = parseArguments(text, 10_000)));
      expect(result?.ok).toBe(false);
      expect(passes).toBeLessThan(BUDGET);
    }
  });

  it('json.ts: JSON Pointer escaping of huge keys made of ~ and /', () => {
    for (const key of ['~'.repeat(N), '/'.repeat(N), '~/'.repeat(N / 2), `${'~1'.repeat(N / 2)}x`]) {
      let pointer = '';
      const passes = timed(() => (pointer = childPointer('', key)));
      expect(pointer.length).toBeGreaterThan(key.length);
      expect(passes).toBeLessThan(BUDGET);
    }
  });

  it('validate.ts: hints for huge unknown keys, pointer tokens and descriptions', () => {
    const compiled = compiler.compile({
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 5, description: `${' '.repeat(N)}x${'.'.repeat(N)}x` },
        list: { type: 'array', items: { type: 'object', additionalProperties: false } },
      },
      additionalProperties: false,
    });
    if (!compiled.ok) throw new Error(compiled.diagnostic.message);
    const keys = ['~'.repeat(N), '/'.repeat(N), `${'9'.repeat(N)}x`, '~1'.repeat(N / 2), ' '.repeat(N)];
    for (const key of keys) {
      const args = JSON.parse(`{"n":1,${JSON.stringify(key)}:1,"list":[{${JSON.stringify(key)}:1}]}`) as JsonObject;
      let codes: string[] = [];
      const passes = timed(() => (codes = compiled.validate(args).map((d) => d.code)));
      expect(codes).toContain('unknown_property');
      expect(codes).toContain('below_minimum');
      expect(passes).toBeLessThan(BUDGET * 4);
    }
  });

  it('validate.ts: an unsupported $schema of 100 000 characters is refused quickly', () => {
    for (const uri of [`${'#'.repeat(N)}x`, `http:${'/'.repeat(N)}`, `${'http:'.repeat(N / 5)}#`]) {
      let ok = true;
      const passes = timed(() => (ok = compiler.compile({ $schema: uri, type: 'object' }).ok));
      expect(ok).toBe(false);
      expect(passes).toBeLessThan(BUDGET);
    }
  });

  it('validate.ts: the url format (ajv-formats regex was quadratic: 20 000 colons took 2.5 s) is linear', () => {
    const compiled = compiler.compile({ type: 'object', properties: { u: { type: 'string', format: 'url' } } });
    if (!compiled.ok) throw new Error(compiled.diagnostic.message);
    for (const seed of [':', '::', ':@', '@', '@a', 'a.', 'a-', '@a.co/', 'a.a@', '1.', '/']) {
      for (const end of ['', ' ', '!']) {
        const value = `http://${seed.repeat(N / seed.length)}${end}`;
        const passes = timed(() => compiled.validate({ u: value }));
        expect(passes, `http://${seed}...${end}`).toBeLessThan(BUDGET);
      }
    }
    expect(isUrl('http://user:pass@example.com:8080/a?b#c')).toBe(true);
    expect(isUrl(`http://${':'.repeat(N)}`)).toBe(false);
  });

  it('every ajv format on long runs of its own characters', () => {
    const formats = [
      'date',
      'time',
      'date-time',
      'iso-time',
      'iso-date-time',
      'duration',
      'uri',
      'uri-reference',
      'uri-template',
      'url',
      'email',
      'hostname',
      'ipv4',
      'ipv6',
      'regex',
      'uuid',
      'json-pointer',
      'json-pointer-uri-fragment',
      'relative-json-pointer',
      'byte',
      'int32',
      'int64',
      'float',
      'double',
      'password',
      'binary',
    ];
    const compiled = compiler.compile({
      type: 'object',
      properties: Object.fromEntries(formats.map((f) => [f, { type: 'string', format: f }])),
    });
    if (!compiled.ok) throw new Error(compiled.diagnostic.message);
    const seeds = ['a', '0', ':', '/', '.', '-', '@', '%2', '{a}', 'P1', 'T1', '1:', 'a.', ':@', '::', '~0', '\\', 'a@a.', '00:', '1.1'];
    const prefixes = ['', 'http://', 'a@', 'P', '2020-01-01T', '::', '/', 'mailto:', '0.'];
    let worst = { passes: 0, what: '' };
    for (const prefix of prefixes) {
      for (const seed of seeds) {
        const value = `${prefix}${seed.repeat(Math.ceil(N / 10 / seed.length))}!`;
        const args = Object.fromEntries(formats.map((f) => [f, value]));
        const passes = timed(() => compiled.validate(args));
        if (passes > worst.passes) worst = { passes, what: `${prefix}${seed}...` };
      }
    }
    // All 26 formats at once on 10 000 characters each: a quadratic format would take seconds here.
    expect(worst.passes, worst.what).toBeLessThan(BUDGET * 4);
  });

  it("schema patterns of the example tools and the plan's patternProperties are linear on huge values and keys", () => {
    const compiled = compiler.compile({
      type: 'object',
      properties: { account: { type: 'string', pattern: '^[A-Z]{2}[0-9]{8}$' }, slug: { type: 'string', pattern: '^([a-z]+-)*[a-z]+$' } },
      patternProperties: { '^x_[a-z]+$': { type: 'array' } },
    });
    if (!compiled.ok) throw new Error(compiled.diagnostic.message);
    const plan = compileSchemaPlan({ patternProperties: { '^x_[a-z]+$': { type: 'array' }, '^[a-z0-9_-]{1,64}$': { type: 'object' } } });
    for (const value of ['A'.repeat(N), `AB${'1'.repeat(N)}`, `${'a-'.repeat(N / 2)}!`, `${'a'.repeat(N)}-`, `x_${'a'.repeat(N)}!`]) {
      const passes = timed(() => {
        compiled.validate({ account: value, slug: value });
        plan.ruleForProperty(value);
      });
      expect(passes).toBeLessThan(BUDGET);
    }
  });

  it('schema patterns with nested or overlapping quantifiers are linear (V8 took 3.4 s on 26 characters of ^(a+)+$)', () => {
    const nested = ['^(a+)+$', '^(a|a)*$', '^(a|aa)+$', '^([a-z]+)*[0-9]$', '^(\\w+\\s?)*$', '(.*a){12}'];
    const compiled = compiler.compile({
      type: 'object',
      properties: Object.fromEntries(nested.map((pattern, i) => [`p${i}`, { type: 'string', pattern }])),
      patternProperties: { '^(x+x+)+y$': { type: 'string' } },
      propertyNames: { pattern: '^(a+)+$|^p\\d$' },
    });
    if (!compiled.ok) throw new Error(compiled.diagnostic.message);
    const plan = compileSchemaPlan({ patternProperties: { '^(x+x+)+y$': { type: 'array' } } });
    for (const value of [`${'a'.repeat(N)}!`, `${'a'.repeat(30)}!`, `${'word '.repeat(N / 5)}!`, 'x'.repeat(N)]) {
      const args = Object.fromEntries(nested.map((_, i) => [`p${i}`, value]));
      const passes = timed(() => {
        compiled.validate(args);
        compiled.validate({ [value]: 'v' });
        plan.ruleForProperty(value);
      });
      expect(passes, value.slice(0, 20)).toBeLessThan(BUDGET * 4);
    }
  });

  it('normalize.ts: entity decoding (no regex: a trie) is linear on reference runs', () => {
    for (const text of [
      '&'.repeat(N),
      '&amp'.repeat(N / 4),
      '&#'.repeat(N / 2),
      `&#${'9'.repeat(N)};`,
      `&${'a'.repeat(N)};`,
      '&lt;'.repeat(N / 4),
      `&${'amp;'.repeat(N / 4)}`,
    ]) {
      let out = '';
      const passes = timed(() => (out = decodeReferences(text, 10)));
      expect(out.length).toBeLessThanOrEqual(text.length);
      expect(passes).toBeLessThan(BUDGET * 2);
    }
  });

  it('registry.ts: trailing slashes of the registry URL are stripped in linear time (was quadratic: /\\/+$/)', () => {
    let base = '';
    const passes = timed(() => (base = parseRegistryUrl(`http://registry:8080/apis/ccompat/v7${'/'.repeat(N)}`).baseUrl));
    expect(base).toBe('http://registry:8080/apis/ccompat/v7');
    expect(passes).toBeLessThan(BUDGET);
    const slashesThenText = timed(() => parseRegistryUrl(`http://registry:8080/${'/'.repeat(N)}x`));
    expect(slashesThenText).toBeLessThan(BUDGET);
  });
});
