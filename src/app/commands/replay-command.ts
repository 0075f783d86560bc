/**
 * `toolcall-normalizer replay`: golden calls without a live model. Each case of a JSON Lines file is a raw model
 * call recorded earlier (any envelope) with what it should become; the call goes through the same core as the
 * worker (record reading, envelope decoding, RT-TOOL-8, validation) and the result is compared with the
 * expectation. A failure is reported with the raw call beside the rule it broke.
 */
import { readFile } from 'node:fs/promises';
import { loadSchemaDir } from '../../adapters/files/schema-dir.js';
import { isJsonObject, tryParseJson, type JsonObject, type JsonValue } from '../../core/shared/json.js';
import { pipelineOptions, processRecord, type PipelineOptions } from '../../core/pipeline.js';
import type { CompiledTool } from '../../core/schema/tool.js';
import { forTerminal, truncate } from '../../core/shared/text.js';
import { REPAIR_KINDS, type OutputRecord } from '../../core/shared/types.js';
import { createSchemaCompiler } from '../../core/validation/validate.js';
import { stdioOutput, type CommandOutput } from './output.js';
import { pipelineFlags } from '../../config/flags.js';
import { isDirectory, parseCommandArgs, UsageError } from './usage.js';

const FLAGS = pipelineFlags(['deep', 'entityExempt']);

export const REPLAY_USAGE = `Usage: toolcall-normalizer replay --schemas DIR --golden FILE [options]

Replays recorded model calls (golden cases) through the normalizer and validator, and checks each result against
its expectation. FILE is JSON Lines, one case per line (blank lines and lines starting with # are skipped):

  {"name": "...", "call": <the raw call: an object in any envelope, or the raw line as a string>,
   "expect": {"valid": true, "arguments": ["name", ...] | {exact object},
              "repairs": ["json_decoded" | {"pointer": "/p", "kind": "entities_decoded"}, ...],
              "errors": ["missing_required" | {"code": "not_in_enum", "path": "/currency"}, ...]}}

  A call that is a whole assistant message takes "expect" as a list: one expectation per tool call it holds,
  in order (the count must match).

  valid      the call must be valid (or not); default true, false when "errors" is given
  arguments  a list: these names must be present in the normalized arguments; an object: the normalized
             arguments must equal it exactly
  repairs    exactly these repairs, in any order (a kind alone matches any pointer)
  errors     each of these errors must be reported (others may be too)

Options:
  --schemas DIR              Directory of tool definitions, one <tool>.json per tool (required)
  --golden FILE              The golden cases (required)
  --json                     Print {"cases": [...], "passed": n, "failed": n} instead of text
${FLAGS.usage}

Exit status: 0 when every case passes; 1 when a case fails (or the file holds none); 2 on a usage error.`;

const STDIO = stdioOutput('replay');

/** One expected error: a code, and the JSON Pointer it must be reported at when given. */
interface ExpectedError {
  readonly code: string;
  readonly path?: string;
}

/** One expected repair: a kind, and the pointer when given. */
interface ExpectedRepair {
  readonly kind: string;
  readonly pointer?: string;
}

export interface GoldenExpectation {
  readonly valid: boolean;
  readonly arguments?: readonly string[] | JsonObject;
  readonly repairs?: readonly ExpectedRepair[];
  readonly errors?: readonly ExpectedError[];
}

export interface GoldenCase {
  readonly line: number;
  readonly name: string | null;
  /** The call as written in the file (an object, or the raw line text). */
  readonly call: JsonValue;
  /** One expectation for a record that is one call; a list, one per call in order, for a whole message. */
  readonly expect: GoldenExpectation | readonly GoldenExpectation[];
}

/** What became of one case. */
export interface CaseResult {
  readonly line: number;
  /** The case's name, or null when it has none. */
  readonly name: string | null;
  readonly passed: boolean;
  /** Each unmet expectation, in plain words. */
  readonly failures: string[];
  /** The raw call, as recorded. */
  readonly call: JsonValue | null;
  /** The (first) output record the worker would have produced (null when the case itself could not be read). */
  readonly result: OutputRecord | null;
  /** Every output record, one per call (a whole message holds several). */
  readonly results: readonly OutputRecord[];
}

/** Parses one line of a golden file. */
export function parseGoldenCase(text: string, line: number): { ok: true; golden: GoldenCase } | { ok: false; reason: string } {
  const parsed = tryParseJson(text);
  if (!parsed.ok) return { ok: false, reason: `not JSON: ${parsed.reason}` };
  const value = parsed.value;
  if (!isJsonObject(value)) return { ok: false, reason: 'a golden case must be a JSON object' };
  if (!Object.hasOwn(value, 'call')) return { ok: false, reason: 'missing "call" (the raw model call)' };
  const call = value.call ?? null;
  if (!isJsonObject(call) && typeof call !== 'string') return { ok: false, reason: '"call" must be an object or the raw call as a string' };
  const name = value.name;
  if (name !== undefined && typeof name !== 'string') return { ok: false, reason: '"name" must be a string' };
  const expect = value.expect ?? {};
  if (Array.isArray(expect)) {
    if (expect.length === 0) return { ok: false, reason: '"expect" as a list needs one expectation per call' };
    const list: GoldenExpectation[] = [];
    for (const [i, entry] of expect.entries()) {
      if (!isJsonObject(entry)) return { ok: false, reason: `"expect[${i}]" must be an object` };
      const read = parseExpectation(entry);
      if (!read.ok) return { ok: false, reason: `"expect[${i}]": ${read.reason}` };
      list.push(read.expectation);
    }
    return { ok: true, golden: { line, name: name ?? null, call, expect: list } };
  }
  if (!isJsonObject(expect)) return { ok: false, reason: '"expect" must be an object (or, for a whole message, a list of objects)' };
  const read = parseExpectation(expect);
  if (!read.ok) return read;
  return { ok: true, golden: { line, name: name ?? null, call, expect: read.expectation } };
}

function parseExpectation(expect: JsonObject): { ok: true; expectation: GoldenExpectation } | { ok: false; reason: string } {
  const known = new Set(['valid', 'arguments', 'repairs', 'errors']);
  const unknown = Object.keys(expect).filter((key) => !known.has(key));
  if (unknown.length > 0)
    return {
      ok: false,
      reason:
        `unknown "expect" key${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')} ` +
        '(expected valid, arguments, repairs, errors)',
    };

  let errors: ExpectedError[] | undefined;
  if (expect.errors !== undefined) {
    if (!Array.isArray(expect.errors)) return { ok: false, reason: '"expect.errors" must be a list' };
    errors = [];
    for (const entry of expect.errors) {
      if (typeof entry === 'string') errors.push({ code: entry });
      else if (isJsonObject(entry) && typeof entry.code === 'string' && (entry.path === undefined || typeof entry.path === 'string')) {
        errors.push(typeof entry.path === 'string' ? { code: entry.code, path: entry.path } : { code: entry.code });
      } else return { ok: false, reason: '"expect.errors" entries must be codes or {"code", "path"?}' };
    }
  }
  let repairs: ExpectedRepair[] | undefined;
  if (expect.repairs !== undefined) {
    if (!Array.isArray(expect.repairs)) return { ok: false, reason: '"expect.repairs" must be a list' };
    repairs = [];
    for (const entry of expect.repairs) {
      const kind = typeof entry === 'string' ? entry : isJsonObject(entry) ? entry.kind : undefined;
      const pointer = isJsonObject(entry) ? entry.pointer : undefined;
      if (
        typeof kind !== 'string' ||
        !(REPAIR_KINDS as readonly string[]).includes(kind) ||
        (pointer !== undefined && typeof pointer !== 'string')
      ) {
        return { ok: false, reason: `"expect.repairs" entries must be ${REPAIR_KINDS.join(' or ')}, or {"pointer", "kind"}` };
      }
      repairs.push(typeof pointer === 'string' ? { kind, pointer } : { kind });
    }
  }
  let args: readonly string[] | JsonObject | undefined;
  if (expect.arguments !== undefined) {
    if (Array.isArray(expect.arguments) && expect.arguments.every((a) => typeof a === 'string')) args = expect.arguments;
    else if (isJsonObject(expect.arguments)) args = expect.arguments;
    else return { ok: false, reason: '"expect.arguments" must be a list of names or the exact arguments object' };
  }
  if (expect.valid !== undefined && typeof expect.valid !== 'boolean') return { ok: false, reason: '"expect.valid" must be true or false' };
  const valid = typeof expect.valid === 'boolean' ? expect.valid : errors === undefined || errors.length === 0;

  const expectation: GoldenExpectation = {
    valid,
    ...(args === undefined ? {} : { arguments: args }),
    ...(repairs === undefined ? {} : { repairs }),
    ...(errors === undefined ? {} : { errors }),
  };
  return { ok: true, expectation };
}

/** Runs one case through the worker's core and compares. */
export function runCase(golden: GoldenCase, tools: ReadonlyMap<string, CompiledTool>, options: PipelineOptions): CaseResult {
  const text = typeof golden.call === 'string' ? golden.call : JSON.stringify(golden.call);
  const results = processRecord(text, (name) => tools.get(name), options);
  const failures: string[] = [];
  const { expect } = golden;
  if (isExpectationList(expect)) {
    if (results.length !== expect.length)
      failures.push(`expected ${expect.length} call${expect.length === 1 ? '' : 's'}, the record holds ${results.length}`);
    expect.forEach((wanted, i) => {
      const result = results[i];
      if (result !== undefined) failures.push(...compare(wanted, result).map((failure) => `call ${i + 1}: ${failure}`));
    });
  } else if (results.length !== 1) {
    failures.push(
      `the call is a whole message holding ${results.length} calls: give ` +
        `"expect" as a list of ${results.length} expectations, one per call in order`,
    );
  } else {
    failures.push(...compare(expect, results[0] as OutputRecord));
  }
  return {
    line: golden.line,
    name: golden.name,
    passed: failures.length === 0,
    failures,
    call: golden.call,
    result: results[0] ?? null,
    results,
  };
}

function isExpectationList(expect: GoldenExpectation | readonly GoldenExpectation[]): expect is readonly GoldenExpectation[] {
  return Array.isArray(expect);
}

function compare(expect: GoldenExpectation, result: OutputRecord): string[] {
  const failures: string[] = [];
  if (result.valid !== expect.valid) {
    failures.push(
      expect.valid
        ? `expected a valid call, got ${result.disposition === 'dead_letter' ? 'an unreadable record (dead letter)' : 'a rejected one'}`
        : 'expected the call to be rejected, but it is valid',
    );
  }
  const args = result.arguments;
  const wanted = expect.arguments;
  if (wanted !== undefined) {
    if (isNameList(wanted)) {
      const missing = wanted.filter((name) => !isJsonObject(args) || !Object.hasOwn(args, name));
      if (missing.length > 0)
        failures.push(`missing argument${missing.length === 1 ? '' : 's'} ${missing.map((n) => `"${n}"`).join(', ')}`);
    } else if (canonical(args ?? null) !== canonical(wanted)) {
      failures.push(`arguments differ: expected ${preview(wanted)}, got ${preview(args ?? null)}`);
    }
  }
  if (expect.repairs !== undefined) {
    const remaining = [...result.repairs];
    const unmatched: ExpectedRepair[] = [];
    // Exact entries first, so a bare kind cannot take the repair an exact entry needs.
    const ordered = [...expect.repairs].sort((a, b) => Number(a.pointer === undefined) - Number(b.pointer === undefined));
    for (const wanted of ordered) {
      const index = remaining.findIndex((r) => r.kind === wanted.kind && (wanted.pointer === undefined || r.pointer === wanted.pointer));
      if (index === -1) unmatched.push(wanted);
      else remaining.splice(index, 1);
    }
    if (unmatched.length > 0)
      failures.push(`expected repair${unmatched.length === 1 ? '' : 's'} not made: ${unmatched.map(describeRepair).join(', ')}`);
    if (remaining.length > 0)
      failures.push(`unexpected repair${remaining.length === 1 ? '' : 's'}: ${remaining.map(describeRepair).join(', ')}`);
  }
  if (expect.errors !== undefined) {
    const absent = expect.errors.filter(
      (wanted) => !result.errors.some((e) => e.code === wanted.code && (wanted.path === undefined || e.path === wanted.path)),
    );
    if (absent.length > 0)
      failures.push(
        `expected error${absent.length === 1 ? '' : 's'} not reported: ` +
          absent.map((e) => (e.path === undefined ? e.code : `${e.code} at ${e.path === '' ? '""' : e.path}`)).join(', '),
      );
  }
  return failures;
}

function isNameList(value: readonly string[] | JsonObject): value is readonly string[] {
  return Array.isArray(value);
}

function describeRepair(repair: { kind: string; pointer?: string }): string {
  return repair.pointer === undefined ? repair.kind : `${repair.kind} at ${repair.pointer === '' ? '""' : repair.pointer}`;
}

/** JSON with object keys sorted: equal values give equal text whatever their key order. */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function preview(value: JsonValue, max = 300): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return truncate(text, max);
}

/** The human-readable report of every case, then a summary line. */
export function renderResults(results: readonly CaseResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(`${r.passed ? 'PASS' : 'FAIL'}  ${r.name === null ? '' : `${r.name} `}(line ${r.line})`);
    if (r.passed) continue;
    out.push(`  call:     ${r.call === null ? '(unreadable)' : preview(r.call)}`);
    for (const failure of r.failures) out.push(`  failed:   ${failure}`);
    for (const result of r.results) {
      out.push(
        `  got:      ${result.disposition}${result.tool === null ? '' : ` call of "${result.tool}"`}` +
          `${result.format === null ? '' : ` (${result.format})`}, arguments ${preview(result.arguments ?? null, 200)}`,
      );
      for (const error of result.errors) {
        out.push(`  broke:    ${error.code} at ${error.path === '' ? '""' : error.path}: ${error.message}`);
        out.push(`            hint: ${error.hint}`);
      }
      if (result.repairs.length > 0) out.push(`  repairs:  ${result.repairs.map(describeRepair).join(', ')}`);
    }
  }
  const failed = results.filter((r) => !r.passed).length;
  out.push('', `${results.length} case${results.length === 1 ? '' : 's'}: ${results.length - failed} passed, ${failed} failed`);
  // Each line quotes names, calls and messages from the golden file and the model: escaped, so a newline in a
  // tool name cannot forge a PASS line, nor an escape sequence reach the terminal.
  return `${out.map(forTerminal).join('\n')}\n`;
}

export async function replayMain(args: string[], output: CommandOutput = STDIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      schemas: { type: 'string' },
      golden: { type: 'string' },
      json: { type: 'boolean' },
      ...FLAGS.options,
      help: { type: 'boolean', short: 'h' },
    },
    REPLAY_USAGE,
  );
  if (values.help === true) {
    output.out(`${REPLAY_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`, REPLAY_USAGE);
  const schemas = values.schemas;
  const goldenFile = values.golden;
  if (schemas === undefined) throw new UsageError('--schemas DIR is required', REPLAY_USAGE);
  if (goldenFile === undefined) throw new UsageError('--golden FILE is required', REPLAY_USAGE);
  if (!(await isDirectory(schemas))) throw new UsageError(`--schemas: "${schemas}" is not a readable directory`, REPLAY_USAGE);
  let text: string;
  try {
    text = await readFile(goldenFile, 'utf8');
  } catch {
    throw new UsageError(`--golden: "${goldenFile}" is not a readable file`, REPLAY_USAGE);
  }

  const flags = FLAGS.read(values);
  if (!flags.ok) throw new UsageError(flags.message, REPLAY_USAGE);
  const options = pipelineOptions(flags.settings);
  const loaded = await loadSchemaDir(schemas, createSchemaCompiler());
  for (const problem of loaded.problems) output.err(`schemas: ${problem.file}: ${problem.message}`);

  const results: CaseResult[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const parsed = parseGoldenCase(trimmed, line);
    if (!parsed.ok) {
      results.push({
        line,
        name: null,
        passed: false,
        failures: [`a readable golden case: ${parsed.reason}`],
        call: null,
        result: null,
        results: [],
      });
      return;
    }
    results.push(runCase(parsed.golden, loaded.tools, options));
  });

  const failed = results.filter((r) => !r.passed).length;
  if (values.json === true) {
    output.out(`${JSON.stringify({ cases: results, passed: results.length - failed, failed }, null, 2)}\n`);
  } else {
    output.out(renderResults(results));
  }
  if (results.length === 0) {
    output.err(`no golden cases in ${goldenFile}`);
    return 1;
  }
  return failed === 0 ? 0 : 1;
}
