/**
 * `schemas push` and ToolSchemaSource against the real Apicurio Registry of the local stack
 * (`npm run stack:up`, then export what `bash scripts/stack.sh env` prints). Without SCHEMA_REGISTRY_URL these
 * tests fail, on purpose: an integration test that skips proves nothing.
 *
 * Each run uses its own subject template, so reruns against the same registry never collide.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REGISTRY_CONFIG, ToolSchemaSource } from '../../src/adapters/registry/client.js';
import { loadSchemaDir } from '../../src/adapters/files/schema-dir.js';
import { pushToolSchemas, schemasMain, type PushedTool } from '../../src/app/commands/schemas-command.js';
import { captureOutput as capture } from '../unit/app/commands/capture.js';
import { UsageError } from '../../src/app/commands/usage.js';
import { isJsonObject, type JsonObject } from '../../src/core/shared/json.js';
import { fromRegistryDocument, subjectFor, toRegistryDocument } from '../../src/core/schema/registry-document.js';
import type { ToolDefinition } from '../../src/core/schema/tool-definition.js';
import { createSchemaCompiler } from '../../src/core/validation/validate.js';

const EXAMPLES = 'examples/tools';
const TEMPLATE = `it-${Date.now()}-{tool}`;
const compiler = createSchemaCompiler();

function registryUrl(): string {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (url === undefined || url === '') {
    throw new Error(
      'SCHEMA_REGISTRY_URL is not set: start the local stack with `npm run stack:up` (bash scripts/stack.sh up) and run ' +
        `eval "$(bash scripts/stack.sh env | sed 's/^/export /')" before these tests`,
    );
  }
  return url;
}

function newSource(): ToolSchemaSource {
  return new ToolSchemaSource({ ...DEFAULT_REGISTRY_CONFIG, url: registryUrl(), subjectTemplate: TEMPLATE }, compiler);
}

async function versionsOf(subject: string): Promise<unknown> {
  const response = await fetch(`${registryUrl()}/subjects/${encodeURIComponent(subject)}/versions`);
  return response.json();
}

const PUSH_LINE = /^subject=(\S+) version=(\d+) id=(\d+)$/;

describe('schemas push and ToolSchemaSource against the real registry', () => {
  let examples: { file: string; definition: ToolDefinition }[] = [];
  let firstPush: PushedTool[] = [];
  let scratch = '';

  beforeAll(async () => {
    examples = [...(await loadSchemaDir(EXAMPLES, compiler)).definitions];
    scratch = await mkdtemp(join(tmpdir(), 'registry-it-'));
  });

  afterAll(async () => {
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  it('pushes every example definition through the CLI command (exit 0, one line per tool)', async () => {
    const url = registryUrl();
    expect(examples.length).toBe(5);
    const output = capture();
    const code = await schemasMain(['push', '--registry', url, '--subject-template', TEMPLATE, EXAMPLES], output);
    expect(output.errors).toEqual([]);
    expect(code).toBe(0);
    expect(output.lines()).toHaveLength(examples.length);
    firstPush = output.lines().map((line, index) => {
      const match = PUSH_LINE.exec(line);
      if (match === null) throw new Error(`unexpected output line: ${line}`);
      const example = examples[index];
      if (example === undefined) throw new Error('more lines than examples');
      return {
        file: example.file,
        tool: example.definition.name,
        subject: match[1] ?? '',
        version: Number(match[2]),
        id: Number(match[3]),
      };
    });
    for (const pushed of firstPush) {
      expect(pushed.subject).toBe(subjectFor(pushed.tool, TEMPLATE));
      expect(pushed.version).toBe(1);
      expect(pushed.id).toBeGreaterThanOrEqual(0);
    }
  });

  it('fetches each tool back with its identity, name, description and schema', async () => {
    expect(firstPush).toHaveLength(5);
    const tools = newSource();
    for (const { definition } of examples) {
      const pushed = firstPush.find((p) => p.tool === definition.name);
      const tool = await tools.get(definition.name);
      expect(tool?.usable, definition.name).toBe(true);
      if (tool?.usable !== true) continue;
      expect(tool.identity).toEqual({ subject: pushed?.subject, version: pushed?.version, id: pushed?.id });
      const expected = fromRegistryDocument(toRegistryDocument(definition), 'unused');
      expect(expected.ok && tool.definition).toEqual(expected.ok && expected.definition);
      expect(tool.definition.name).toBe(definition.name);
      expect(tool.definition.description).toBe(definition.description);
      // The registered document is exactly what push sent.
      const registered = (await (
        await fetch(`${registryUrl()}/subjects/${encodeURIComponent(pushed?.subject ?? '')}/versions/1`)
      ).json()) as JsonObject;
      expect(typeof registered.schema === 'string' && JSON.parse(registered.schema)).toEqual(toRegistryDocument(definition));
      expect(registered.schemaType).toBe('JSON');
    }
    // The registry-backed tool validates like the file-backed one.
    const createEvent = await tools.get('create_event');
    expect(createEvent?.usable === true && createEvent.validate({}).map((d) => d.code)).toEqual(['missing_required', 'missing_required']);
    // One request per tool: the second lookup of each is a hit.
    for (const { definition } of examples) expect(tools.peek(definition.name)).not.toBe('miss');
    expect(tools.stats().requests).toEqual({ ok: 5, not_found: 0, error: 0 });
  });

  it('is idempotent: pushing unchanged definitions again gives the same versions and ids', async () => {
    const output = capture();
    const report = await pushToolSchemas({ registry: registryUrl(), dir: EXAMPLES, subjectTemplate: TEMPLATE }, output);
    expect(report.failed).toEqual([]);
    expect(report.pushed).toEqual(firstPush);
    for (const pushed of firstPush) expect(await versionsOf(pushed.subject)).toEqual([1]);
  });

  it('registers a changed definition as a new version, and both versions can be pinned', async () => {
    const original = JSON.parse(await readFile(join(EXAMPLES, 'write_file.json'), 'utf8')) as JsonObject;
    const inputSchema = original.inputSchema;
    if (!isJsonObject(inputSchema) || !isJsonObject(inputSchema.properties)) throw new Error('unexpected write_file.json');
    const changed = {
      ...original,
      inputSchema: { ...inputSchema, properties: { ...inputSchema.properties, mode: { type: 'string', enum: ['overwrite', 'append'] } } },
    };
    const dir = join(scratch, 'changed');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    await writeFile(join(dir, 'write_file.json'), JSON.stringify(changed));

    const report = await pushToolSchemas({ registry: registryUrl(), dir, subjectTemplate: TEMPLATE }, capture());
    expect(report.failed).toEqual([]);
    const v1 = firstPush.find((p) => p.tool === 'write_file');
    const v2 = report.pushed[0];
    expect(v2?.subject).toBe(v1?.subject);
    expect(v2?.version).toBe(2);
    expect(v2?.id).not.toBe(v1?.id);

    const tools = newSource();
    const pinned1 = await tools.get('write_file', 1);
    const pinned2 = await tools.get('write_file', 2);
    const latest = await tools.get('write_file');
    expect(pinned1?.identity).toEqual({ subject: v1?.subject, version: 1, id: v1?.id });
    expect(pinned2?.identity).toEqual({ subject: v1?.subject, version: 2, id: v2?.id });
    expect(latest?.identity).toEqual(pinned2?.identity);
    const hasMode = (tool: typeof latest) =>
      tool?.usable === true && isJsonObject(tool.definition.inputSchema.properties) && 'mode' in tool.definition.inputSchema.properties;
    expect(hasMode(pinned1)).toBe(false);
    expect(hasMode(pinned2)).toBe(true);
    // Version 1 rejects the new parameter (additionalProperties: false), version 2 accepts it.
    const args = { path: 'a.txt', content: 'x', mode: 'append' };
    expect(pinned1?.usable === true && pinned1.validate(args).map((d) => d.code)).toEqual(['unknown_property']);
    expect(pinned2?.usable === true && pinned2.validate(args)).toEqual([]);
    expect(await versionsOf(v1?.subject ?? '')).toEqual([1, 2]);
  });

  it('answers undefined for an unknown subject and an unknown version', async () => {
    const tools = newSource();
    expect(await tools.get('no_such_tool')).toBeUndefined();
    expect(await tools.get('write_file', 99)).toBeUndefined();
    expect(await tools.get('no_such_tool')).toBeUndefined();
    expect(tools.stats().requests).toEqual({ ok: 0, not_found: 2, error: 0 });
    expect(await tools.ping()).toBe(true);
  });

  it('reports a definition with problems, does not push it, pushes the others, exits 1', async () => {
    const dir = join(scratch, 'mixed');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    await writeFile(join(dir, 'broken.json'), '{ not json');
    await writeFile(
      join(dir, 'bad_schema.json'),
      JSON.stringify({ name: 'bad_schema', inputSchema: { type: 'object', properties: { q: { type: 12 } } } }),
    );
    await writeFile(join(dir, 'fine.json'), JSON.stringify({ name: 'fine', description: 'Fine.', inputSchema: { type: 'object' } }));
    const output = capture();
    const code = await schemasMain(['push', '--registry', registryUrl(), '--subject-template', TEMPLATE, dir], output);
    expect(code).toBe(1);
    expect(output.lines()).toEqual([expect.stringMatching(new RegExp(`^subject=${subjectFor('fine', TEMPLATE)} version=1 id=\\d+$`))]);
    expect(output.errors).toHaveLength(2);
    expect(output.errors.join('\n')).toMatch(/bad_schema\.json: not pushed: .*not a valid JSON Schema/);
    expect(output.errors.join('\n')).toMatch(/broken\.json: not pushed: not JSON/);
    const missing = await fetch(`${registryUrl()}/subjects/${encodeURIComponent(subjectFor('bad_schema', TEMPLATE))}/versions`);
    expect(missing.status).toBe(404);
  });

  it('refuses bad command lines with usage errors (exit 2)', async () => {
    const url = registryUrl();
    const usage = (args: string[]) => expect(schemasMain(args, capture())).rejects.toBeInstanceOf(UsageError);
    await usage(['push', EXAMPLES]);
    await usage(['push', '--registry', url]);
    await usage(['push', '--registry', 'ftp://x', EXAMPLES]);
    await usage(['push', '--registry', url, '--subject-template', 'fixed', EXAMPLES]);
    await usage(['push', '--registry', url, '--username', 'u', EXAMPLES]);
    await usage(['push', '--registry', url, '--username', 'u', '--password-env', 'IT_SURELY_UNSET_VARIABLE', EXAMPLES]);
    await usage(['push', '--registry', url, join(scratch, 'no-such-dir')]);
    await usage(['pull']);
  });
});
