/**
 * The package as a new user meets it: `npm pack` of the built tree (`npm test` builds first), the tarball installed
 * in a fresh directory beside `ai`, `zod` and the MCP SDK (the versions this repository tests, so npm's cache
 * serves them), each entry imported by name, a strict TypeScript consumer and the examples compiled against the
 * shipped types, the examples run, and the installed library checked against the installed CLI on a corpus.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';
import { corpus } from './corpus.js';

interface PackageJson {
  name: string;
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
  main?: string;
  types?: string;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** npm as the running Node.js ships it, else the one on PATH. */
function npm(args: string[], cwd: string): string {
  const cli = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  const [command, prefix] = existsSync(cli) ? [process.execPath, [cli]] : ['npm', []];
  return run(command, [...prefix, ...args], cwd);
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 540_000 });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${String(result.status)}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A strict consumer: every entry, the exported types, and what must not compile. */
const CONSUMER = `
import { createNormalizer, normalizeToolArguments } from 'toolcall-normalizer';
import type { ArgumentsResult, Diagnostic, ErrorCode, Normalizer, NormalizerOptions, OutputRecord, PassThrough, Repair, ToolProblem } from 'toolcall-normalizer';
import { toolcallMiddleware, type ToolcallMiddlewareOptions } from 'toolcall-normalizer/ai-sdk';
import { normalizeMcpServer, type NormalizeMcpServerOptions } from 'toolcall-normalizer/mcp';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const options: NormalizerOptions = { tools: [{ name: 'a', inputSchema: { type: 'object' } }], deep: true, entityExempt: ['a/b'], maxDepth: 32 };
const normalizer: Normalizer = createNormalizer(options);
const records: OutputRecord[] = normalizer.normalize('{"tool": "a", "arguments": {}}');
const first: OutputRecord | undefined = records[0];
const code: ErrorCode | undefined = first?.errors[0]?.code;
const diagnostics: Diagnostic[] = first?.errors ?? [];
const repairs: readonly Repair[] = first?.repairs ?? [];
const passThroughs: readonly PassThrough[] = first?.passThroughs ?? [];
const problems: readonly ToolProblem[] = normalizer.problems;
const result: ArgumentsResult = normalizeToolArguments({ type: 'object' }, { a: 1 }, { toolName: 'a' });
const valid: boolean = result.valid;

const aiOptions: ToolcallMiddlewareOptions = { onRecord: (record: OutputRecord) => void record.valid };
const model = wrapLanguageModel({ model: new MockLanguageModelV4(), middleware: toolcallMiddleware(aiOptions) });

const server = new McpServer({ name: 's', version: '1.0.0' });
server.registerTool('t', { inputSchema: { tags: z.array(z.string()) } }, () => ({ content: [] }));
const mcpOptions: NormalizeMcpServerOptions = { maxEntityPasses: 3 };
const same: McpServer = normalizeMcpServer(server, mcpOptions);

/** What must not compile; never run. */
export async function refused(): Promise<void> {
  // @ts-expect-error: an unknown option is refused by the types too
  createNormalizer({ tools: [], maxdepth: 3 });
  // @ts-expect-error: the tools are required
  createNormalizer({});
  // @ts-expect-error: internals are not exported
  await import('toolcall-normalizer/dist/core/pipeline.js');
}

console.log(JSON.stringify({ code, diagnostics: diagnostics.length, repairs: repairs.length, passThroughs: passThroughs.length, problems, valid, model: model.modelId, same: same === server }));
`;

/** Installed library against installed CLI: the records of every line, compared in the consumer's process. */
const CORPUS_CHECK = `
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createNormalizer } from 'toolcall-normalizer';
const [schemas, input] = process.argv.slice(2);
const tools = Object.fromEntries(readdirSync(schemas).map((f) => [f.replace(/\\.json$/, ''), JSON.parse(readFileSync(join(schemas, f), 'utf8'))]));
const normalizer = createNormalizer({ tools });
const cli = join(createRequire(import.meta.url).resolve('toolcall-normalizer/package.json'), '..', 'dist', 'cli.js');
const printed = spawnSync(process.execPath, [cli, 'normalize', '--schemas', schemas, '--input', input], { encoding: 'utf8' });
const lines = readFileSync(input, 'utf8').split('\\n').filter((l) => l !== '');
const out = printed.stdout.split('\\n').filter((l) => l !== '').map((l) => JSON.parse(l));
// One printed record per call: a whole message fans out, each record naming its input line.
const byLine = lines.map(() => []);
for (const { line: n, ...record } of out) byLine[n - 1]?.push(record);
let same = 0;
const differ = [];
lines.forEach((line, i) => {
  const expected = byLine[i];
  const got = normalizer.normalize(line);
  let parsed;
  try { parsed = JSON.parse(line.replace(/^\ufeff/, '')); } catch { parsed = undefined; }
  const finite = (node) => typeof node === 'number' ? Number.isFinite(node) : typeof node !== 'object' || node === null || Object.values(node).every(finite);
  // A string is JSON text to normalize, never a value: a record that is a JSON string has no object form.
  if (!finite(parsed) || typeof parsed === 'string') parsed = undefined;
  const fromObject = parsed === undefined ? expected : normalizer.normalize(parsed);
  const key = (records) => JSON.stringify(records.map((r) => [r.arguments, r.valid]));
  if (key(got) === key(expected) && key(fromObject) === key(expected) && JSON.stringify(got) === JSON.stringify(expected)) same += expected.length;
  else differ.push(i + 1);
});
console.log(JSON.stringify({ lines: lines.length, printed: out.length, same, differ, valid: out.filter((r) => r.valid).length }));
`;

// Child processes on a shared 2-core machine: generous bounds, never a measure of speed.
describe('the packed package, installed in a fresh project', { timeout: 600_000 }, () => {
  let project = '';
  let files: string[] = [];

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'library', 'index.js')))
      throw new Error('dist/ is missing: run "npm run build" first (npm test does)');
    const work = mkdtempSync(join(tmpdir(), 'library-pack-'));
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], ROOT)) as {
      filename: string;
      files: { path: string }[];
    }[];
    const tarball = join(work, packed[0]?.filename ?? '');
    files = (packed[0]?.files ?? []).map((file) => file.path);
    project = join(work, 'consumer');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const peers = ['ai', 'zod', '@modelcontextprotocol/sdk', 'typescript', '@types/node'].map(
      (name) => `${name}@${installedVersion(name)}`,
    );
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball, ...peers], project);
  }, 600_000);

  it('ships every entry it declares, no main or types pointing at nothing, no source maps or sources', () => {
    expect(pkg.main).toBeUndefined();
    expect(pkg.types).toBeUndefined();
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './ai-sdk', './mcp', './package.json']);
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      expect(files, entry).toContain(target.default.replace(/^\.\//, ''));
      expect(files, entry).toContain(target.types.replace(/^\.\//, ''));
    }
    for (const bin of Object.values(pkg.bin)) expect(files).toContain(bin);
    expect(files.filter((file) => file.endsWith('.map') || file.startsWith('src/') || file.startsWith('test/'))).toEqual([]);
    expect(pkg.peerDependenciesMeta.ai?.optional).toBe(true);
    // The mcp-proxy command runs on the MCP SDK: a dependency, where the AI SDK is the host's own.
    expect(pkg.dependencies['@modelcontextprotocol/sdk']).toBeDefined();
  });

  it('imports each entry by name, loads neither ai nor the MCP SDK for it, and exports no internals', () => {
    const script = `
      import { registerHooks } from 'node:module';
      const resolved = [];
      registerHooks({ resolve(specifier, context, next) { resolved.push(specifier); return next(specifier, context); } });
      const root = await import('toolcall-normalizer');
      const aiSdk = await import('toolcall-normalizer/ai-sdk');
      const mcp = await import('toolcall-normalizer/mcp');
      let internal = '';
      try { await import('toolcall-normalizer/dist/core/pipeline.js'); } catch (error) { internal = error.code; }
      const peers = resolved.filter((s) => s === 'ai' || s.startsWith('ai/') || s.startsWith('@modelcontextprotocol/') || s === 'zod');
      console.log(JSON.stringify({ root: Object.keys(root).sort(), aiSdk: Object.keys(aiSdk), mcp: Object.keys(mcp), internal, peers }));
    `;
    const out = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], project)) as Record<string, unknown>;
    expect(out).toEqual({
      root: ['createNormalizer', 'normalizeToolArguments'],
      aiSdk: ['toolcallMiddleware'],
      mcp: ['normalizeMcpServer'],
      internal: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
      peers: [],
    });
  });

  it('compiles a strict TypeScript consumer and the examples against the shipped types', () => {
    writeFileSync(join(project, 'consumer.ts'), CONSUMER);
    for (const file of readdirSync(join(ROOT, 'examples', 'library')))
      copyFileSync(join(ROOT, 'examples', 'library', file), join(project, file));
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noUnusedLocals: true,
      noEmit: true,
    };
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    // Every declaration file is checked (skipLibCheck off), ours included. `ai` 7's own declarations do not compile
    // without DOM types and under their own constraints, so only errors in our package or in the consumer count.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, skipLibCheck: false }, include: ['*.ts'] }),
    );
    const compiled = spawnSync(process.execPath, [tsc, '-p', project], { cwd: project, encoding: 'utf8', timeout: 540_000 });
    expect(compiled.error).toBeUndefined();
    const errors = compiled.stdout.split('\n').filter((line) => /error TS/.test(line));
    expect(errors.filter((line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/toolcall-normalizer/'))).toEqual([]);
    // The consumer's checks ran: its @ts-expect-error lines would be errors themselves if nothing were refused.
    expect(compiled.stdout).not.toContain('consumer.ts');
    const out = JSON.parse(run(process.execPath, ['consumer.ts'], project)) as Record<string, unknown>;
    expect(out).toMatchObject({ valid: true, same: true, problems: [] });
    expect(out).not.toHaveProperty('code');
  });

  it('runs the examples as a user would', () => {
    const core = run(process.execPath, ['core.ts'], project);
    expect(core).toContain('"arguments":{"title":"Design review & planning","attendees":["ana@example.com","bo@example.com"]}');
    expect(core).toContain('missing_required at /title');
    const ai = run(process.execPath, ['ai-sdk.ts'], project);
    expect(ai).toContain('execute received: {"title":"Design review & planning","attendees":["ana@example.com"]}');
    const mcp = run(process.execPath, ['mcp.ts'], project);
    expect(mcp).toContain('issue 7 labelled bug, p1');
    expect(mcp).toMatch(
      /isError: true\nInvalid arguments for tool "label_issue"[^\n]*\n- \/issue \(missing_required\): .*Hint: Add "issue"/,
    );
  });

  it('gives the records, so the arguments and validity, of the installed CLI on a corpus (calls, golden calls, seeded calls)', () => {
    const golden = readFileSync(join(ROOT, 'examples', 'golden.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.stringify((JSON.parse(line) as { call: unknown }).call));
    const input = join(project, 'corpus.jsonl');
    writeFileSync(input, `${[...corpus(), ...golden].join('\n')}\n`);
    writeFileSync(join(project, 'corpus.mjs'), CORPUS_CHECK);
    const out = JSON.parse(run(process.execPath, ['corpus.mjs', join(ROOT, 'examples', 'tools'), input], project)) as {
      lines: number;
      printed: number;
      same: number;
      differ: number[];
      valid: number;
    };
    expect(out.lines).toBeGreaterThan(500);
    expect(out.printed).toBeGreaterThanOrEqual(out.lines);
    expect(out).toMatchObject({ same: out.printed, differ: [] });
    expect(out.valid).toBeGreaterThan(0);
    expect(out.valid).toBeLessThan(out.printed);
  });
});
