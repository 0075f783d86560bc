/**
 * `schemas push` runs the audit's validity layer first: a definition with validity errors is refused (and the
 * registry never asked) unless --force. The registry side is covered by test/integration/registry.test.ts.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushToolSchemas } from '../../../../src/app/commands/schemas-command.js';
import { captureOutput as capture } from './capture.js';

const SEEDED = fileURLToPath(new URL('../../../fixtures/audit/seeded', import.meta.url));
// Nothing listens on port 1: any registry request fails at once.
const NO_REGISTRY = 'http://127.0.0.1:1/apis/ccompat/v7';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-push-'));
  await mkdir(join(dir, 'tools'));
  await copyFile(join(SEEDED, 'broken_required.json'), join(dir, 'tools', 'broken_required.json'));
  await copyFile(join(SEEDED, 'broken_values.json'), join(dir, 'tools', 'broken_values.json'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('schemas push: validity gate', () => {
  it('refuses definitions with validity errors without contacting the registry', async () => {
    const output = capture();
    const report = await pushToolSchemas(
      { registry: NO_REGISTRY, dir: join(dir, 'tools'), subjectTemplate: '{tool}', timeoutMs: 200 },
      output,
    );
    expect(report.pushed).toEqual([]);
    expect(report.failed.map((f) => f.file)).toEqual(['broken_required.json', 'broken_values.json']);
    expect(output.errors[0]).toMatch(
      /^broken_required\.json: not pushed: 1 validity error \(fix, or push with --force\): currency: required: "required" names "currency"/,
    );
    expect(output.errors[1]).toMatch(/^broken_values\.json: not pushed: 4 validity errors/);
    expect(output.errors).toHaveLength(2);
  });

  it('with force, reports the errors and goes on to push (here: to a registry that is not there)', async () => {
    const output = capture();
    const report = await pushToolSchemas(
      { registry: NO_REGISTRY, dir: join(dir, 'tools'), subjectTemplate: '{tool}', timeoutMs: 200, force: true },
      output,
    );
    expect(output.errors[0]).toMatch(/^broken_required\.json: pushed despite 1 validity error \(--force\)/);
    expect(report.failed.every((f) => !/validity error/.test(f.message))).toBe(true);
    expect(report.failed).toHaveLength(2);
  });

  it('names a tool name no registry subject can carry instead of failing on the URL (a lone surrogate)', async () => {
    const tools = join(dir, 'surrogate');
    await mkdir(tools);
    const definition = {
      name: 'lookup\ud800',
      description: 'Looks a record up by its id.',
      inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'The record id.' } } },
    };
    await writeFile(join(tools, 'lookup.json'), JSON.stringify(definition));
    const output = capture();
    const report = await pushToolSchemas(
      { registry: NO_REGISTRY, dir: tools, subjectTemplate: '{tool}', timeoutMs: 200, force: true },
      output,
    );
    expect(report.pushed).toEqual([]);
    expect(report.failed).toEqual([
      { file: 'lookup.json', message: expect.stringMatching(/not well-formed Unicode \(it holds a lone surrogate\)/) as unknown },
    ]);
    expect(output.errors.join('\n')).not.toMatch(/URI malformed/);
  });
});
