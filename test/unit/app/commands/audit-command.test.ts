/**
 * `audit` in process (src/app/commands/audit-command.ts): reading a directory or a registry (an in-process HTTP server
 * playing the Confluent API), exit statuses, the baseline workflow and usage errors. The built CLI is exercised
 * in test/cli/audit.test.ts.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditMain } from '../../../../src/app/commands/audit-command.js';
import type { Finding } from '../../../../src/audit/index.js';
import { UsageError } from '../../../../src/app/commands/usage.js';
import { toRegistryDocument } from '../../../../src/core/schema/registry-document.js';
import { captureOutput as capture } from './capture.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/audit', import.meta.url));

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'audit-cmd-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('audit DIR', () => {
  it('exits 0 with "No findings." on clean tools', async () => {
    const output = capture();
    expect(await auditMain([join(FIXTURES, 'clean')], output)).toBe(0);
    expect(output.text()).toBe('No findings.\n');
  });

  it('exits 1 and prints {"findings": [...]} with --json on seeded tools', async () => {
    const output = capture();
    expect(await auditMain([join(FIXTURES, 'seeded'), '--json'], output)).toBe(1);
    const body = JSON.parse(output.text()) as { findings: Finding[] };
    expect(Object.keys(body)).toEqual(['findings']);
    expect(body.findings.length).toBeGreaterThan(40);
    expect(body.findings.find((f) => f.id === 'prose-only:transfer_funds:currency:required')).toMatchObject({
      tool: 'transfer_funds',
      parameter: 'currency',
      layer: 'prose-only',
      keyword: 'required',
      evidence: expect.stringContaining('The currency is required') as unknown,
    });
  });

  it('reports files that are not definitions and exits 1, auditing the rest', async () => {
    const dir = join(scratch, 'mixed');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    await writeFile(join(dir, 'broken.json'), '{ not json');
    await writeFile(join(dir, 'ok.json'), JSON.stringify({ name: 'ok', description: 'Fine.', inputSchema: { type: 'object' } }));
    const output = capture();
    expect(await auditMain([dir], output)).toBe(1);
    expect(output.errors.join('\n')).toMatch(/broken\.json: not JSON/);
    expect(output.text()).toBe('No findings.\n');
  });

  it('gates on new findings only with --baseline, and --update-baseline writes a stable file', async () => {
    const file = join(scratch, 'baseline.json');
    const seeded = join(FIXTURES, 'seeded');
    const first = capture();
    expect(await auditMain([seeded, '--baseline', file, '--update-baseline'], first)).toBe(0);
    const written = await readFile(file, 'utf8');
    expect(await auditMain([seeded, '--baseline', file, '--update-baseline'], capture())).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(written);

    const known = capture();
    expect(await auditMain([seeded, '--baseline', file], known)).toBe(0);
    expect(known.errors.join('\n')).toMatch(/no new findings/);

    // Drop two entries: those findings are new again, and only they fail the run.
    const parsed = JSON.parse(written) as { version: number; findings: { id: string }[] };
    const dropped = ['prose-only:transfer_funds:currency:required', 'schema-only:book_flight:departure:format'];
    const trimmed = {
      ...parsed,
      findings: parsed.findings.filter((f) => !dropped.includes(f.id)).concat([{ id: 'validity:gone:x:type' }]),
    };
    await writeFile(file, JSON.stringify(trimmed));
    const gated = capture();
    expect(await auditMain([seeded, '--baseline', file], gated)).toBe(1);
    const errors = gated.errors.join('\n');
    expect(errors).toMatch(/2 new findings not in the baseline/);
    for (const id of dropped) expect(errors).toContain(id);
    expect(errors).toMatch(/1 baseline entry is no longer found \(fixed\): validity:gone:x:type/);
    expect(gated.text()).toContain('prose-only (new)');
  });

  it('refuses bad command lines with usage errors', async () => {
    const usage = (args: string[]) => expect(auditMain(args, capture())).rejects.toBeInstanceOf(UsageError);
    await usage([]);
    await usage([join(FIXTURES, 'clean'), '--registry', 'http://localhost:1']);
    await usage([join(scratch, 'nope')]);
    await usage([join(FIXTURES, 'clean'), '--update-baseline']);
    await usage([join(FIXTURES, 'clean'), '--baseline', join(scratch, 'missing.json')]);
    await usage([join(FIXTURES, 'clean'), '--subject-template', 'x-{tool}']);
    await usage(['--registry', 'ftp://x']);
    await usage(['--registry', 'http://localhost:1', '--subject-template', 'fixed']);
    await usage([join(FIXTURES, 'clean'), '--bogus']);
  });
});

describe('audit --registry', () => {
  let server: Server;
  let url = '';
  const documents = new Map<string, { schema: string; schemaType?: string }>();

  beforeAll(async () => {
    const bad = {
      name: 'bad_tool',
      description: 'Pays. The currency is required.',
      inputSchema: {
        type: 'object',
        properties: { amount: { type: 'number', description: 'Amount.' }, currency: { type: 'string', description: 'Currency code.' } },
      },
    };
    const good = {
      name: 'good_tool',
      description: 'Looks things up.',
      inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'Query text.' } }, required: ['q'] },
    };
    documents.set('tools.bad_tool', { schema: JSON.stringify(toRegistryDocument(bad)), schemaType: 'JSON' });
    documents.set('tools.good_tool', { schema: JSON.stringify(toRegistryDocument(good)), schemaType: 'JSON' });
    documents.set('tools.avro_thing', { schema: '{"type":"record","name":"x","fields":[]}' });
    documents.set('orders-value', { schema: '{"type":"object"}', schemaType: 'JSON' });
    server = createServer((req, res) => {
      const path = decodeURIComponent(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (path === '/api/subjects') {
        res.end(JSON.stringify([...documents.keys()]));
        return;
      }
      const match = /^\/api\/subjects\/(.+)\/versions\/latest$/.exec(path);
      const doc = match === null ? undefined : documents.get(match[1] ?? '');
      if (doc === undefined) {
        res.statusCode = 404;
        res.end(JSON.stringify({ error_code: 40401, message: 'Subject not found' }));
        return;
      }
      res.end(
        JSON.stringify({
          subject: match?.[1],
          version: 3,
          id: 7,
          schema: doc.schema,
          ...(doc.schemaType === undefined ? {} : { schemaType: doc.schemaType }),
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  });

  it('audits the latest version of every subject that follows the template', async () => {
    const output = capture();
    expect(await auditMain(['--registry', url, '--subject-template', 'tools.{tool}', '--json'], output)).toBe(1);
    const body = JSON.parse(output.text()) as { findings: { id: string }[] };
    expect(body.findings.map((f) => f.id)).toEqual(['prose-only:bad_tool:currency:required']);
    expect(output.errors.join('\n')).toMatch(/skipped 1 subject that holds no JSON Schema/);
  });

  it('exits 0 when the registry holds only clean tools, and fails on an unreachable registry', async () => {
    documents.delete('tools.bad_tool');
    const output = capture();
    expect(await auditMain(['--registry', url, '--subject-template', 'tools.{tool}'], output)).toBe(0);
    await expect(auditMain(['--registry', 'http://127.0.0.1:1/api', '--timeout-ms', '500'], capture())).rejects.toThrow(
      /GET \/subjects failed/,
    );
  });
});

describe('audit --fail-on', () => {
  const seeded = join(FIXTURES, 'seeded');

  it('carries confidence in the JSON output', async () => {
    const output = capture();
    await auditMain([seeded, '--json'], output);
    const body = JSON.parse(output.text()) as { findings: { confidence: string }[] };
    expect(new Set(body.findings.map((f) => f.confidence))).toEqual(new Set(['high', 'medium', 'low']));
  });

  it('fails only on findings at or above the level, still reporting the others', async () => {
    const dir = join(scratch, 'fail-on');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    // One low-confidence finding only: an undocumented pattern.
    await writeFile(
      join(dir, 'code.json'),
      JSON.stringify({
        name: 'code',
        description: 'Look up a code.',
        inputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{2}[0-9]{4}$' } } },
      }),
    );
    const low = capture();
    expect(await auditMain([dir], low)).toBe(1);
    const high = capture();
    expect(await auditMain([dir, '--fail-on', 'high'], high)).toBe(0);
    expect(high.text()).toContain('schema-only');
    expect(high.errors.join('\n')).toMatch(/1 finding below --fail-on high reported, not failing/);
    expect(await auditMain([seeded, '--fail-on', 'high'], capture())).toBe(1);
  });

  it('with a baseline, fails only on new findings at or above the level', async () => {
    const dir = join(scratch, 'fail-on-baseline');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    const baseline = join(dir, 'baseline.json');
    await writeFile(baseline, '{"version": 1, "findings": []}\n');
    await mkdir(join(dir, 'tools'));
    await writeFile(
      join(dir, 'tools', 'code.json'),
      JSON.stringify({
        name: 'code',
        description: 'Look up a code.',
        inputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{2}[0-9]{4}$' } } },
      }),
    );
    const output = capture();
    expect(await auditMain([join(dir, 'tools'), '--baseline', baseline, '--fail-on', 'medium'], output)).toBe(0);
    expect(output.errors.join('\n')).toMatch(/1 new finding below --fail-on medium, not failing/);
    expect(await auditMain([join(dir, 'tools'), '--baseline', baseline], capture())).toBe(1);
  });

  it('refuses an unknown level', async () => {
    await expect(auditMain([seeded, '--fail-on', 'severe'], capture())).rejects.toThrow(UsageError);
  });
});
