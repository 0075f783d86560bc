/**
 * server-filesystem and server-everything from npm through the proxy: a stringified paths array, HTML-escaped
 * file content with and without --entity-exempt, and everything that is not a tools/call passing through unchanged
 * (prompts, resources, ping, progress, sampling from the server).
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, resultText, serverScript, tempDir, type Connected } from './harness.js';

const opened: Connected[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

async function open(name: 'filesystem' | 'everything', args: readonly string[], proxy?: readonly string[]): Promise<Connected> {
  const capabilities = { capabilities: { sampling: {} } };
  const connected = await connect(process.execPath, [serverScript(name), ...args], { proxy, capabilities });
  opened.push(connected);
  return connected;
}

async function failure(call: Promise<unknown>): Promise<string> {
  return call.then(
    (result) => resultText(result),
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
}

describe('mcp-proxy in front of @modelcontextprotocol/server-filesystem', () => {
  it('read_multiple_files with a stringified paths array: rejected direct, read through the proxy', async () => {
    const dir = realpathSync(tempDir('fs'));
    writeFileSync(join(dir, 'a.txt'), 'alpha');
    writeFileSync(join(dir, 'b.txt'), 'beta');
    const paths = JSON.stringify([join(dir, 'a.txt'), join(dir, 'b.txt')]);
    const direct = await open('filesystem', [dir]);
    expect(await failure(direct.client.callTool({ name: 'read_multiple_files', arguments: { paths } }))).toMatch(/expected array/i);
    const proxied = await open('filesystem', [dir], []);
    const result = await proxied.client.callTool({ name: 'read_multiple_files', arguments: { paths } });
    expect(result.isError).not.toBe(true);
    expect(resultText(result)).toContain('alpha');
    expect(resultText(result)).toContain('beta');
  });

  it('write_file with HTML-escaped content: decoded by default, kept with --entity-exempt write_file/content', async () => {
    const dir = realpathSync(tempDir('fs'));
    const proxied = await open('filesystem', [dir], []);
    await proxied.client.callTool({ name: 'write_file', arguments: { path: join(dir, 'a.md'), content: 'Tom &amp; Jerry &lt;3' } });
    expect(readFileSync(join(dir, 'a.md'), 'utf8')).toBe('Tom & Jerry <3');
    const exempt = await open('filesystem', [dir], ['--entity-exempt', 'write_file/content']);
    await exempt.client.callTool({ name: 'write_file', arguments: { path: join(dir, 'b.md'), content: 'Tom &amp; Jerry &lt;3' } });
    expect(readFileSync(join(dir, 'b.md'), 'utf8')).toBe('Tom &amp; Jerry &lt;3');
  });
});

describe('mcp-proxy in front of @modelcontextprotocol/server-everything', () => {
  it('prompts, resources, ping and a clean call answer as they do direct', async () => {
    const direct = await open('everything', []);
    const proxied = await open('everything', [], []);
    for (const c of [direct, proxied]) await c.client.ping();
    expect(await proxied.client.listPrompts()).toEqual(await direct.client.listPrompts());
    expect(await proxied.client.getPrompt({ name: 'simple-prompt' })).toEqual(await direct.client.getPrompt({ name: 'simple-prompt' }));
    const resources = await direct.client.listResources();
    expect(await proxied.client.listResources()).toEqual(resources);
    const uri = resources.resources[0]?.uri ?? '';
    expect(await proxied.client.readResource({ uri })).toEqual(await direct.client.readResource({ uri }));
    expect(await proxied.client.listResourceTemplates()).toEqual(await direct.client.listResourceTemplates());
    const echo = { name: 'echo', arguments: { message: 'a &amp; b' } };
    // A string parameter is still a string leaf: its entity is decoded (the rule); the rest of the answer is the server's.
    expect(resultText(await proxied.client.callTool(echo))).toBe(
      resultText(await direct.client.callTool({ name: 'echo', arguments: { message: 'a & b' } })),
    );
  });

  it('progress notifications reach the client during a call', async () => {
    const proxied = await open('everything', [], []);
    const progress: number[] = [];
    const result = await proxied.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(result.isError).not.toBe(true);
    // The SDK's client runs notification handlers a microtask late and answers sync, so the last step, sent just
    // before the result, may arrive together with it and be dropped by the client (as it may direct).
    expect([
      [1, 2],
      [1, 2, 3],
    ]).toContainEqual(progress);
  });

  it('a sampling request from the server reaches the client, and its answer the server', async () => {
    const proxied = await open('everything', [], []);
    const prompts: string[] = [];
    proxied.client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const content = request.params.messages[0]?.content;
      prompts.push(content !== undefined && 'text' in content ? content.text : '');
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled reply' } };
    });
    const result = await proxied.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 10 } });
    expect(prompts[0]).toContain('hello');
    expect(resultText(result)).toContain('sampled reply');
  });

  it('an invalid call to a tool without outputSchema: the diagnostics also in structuredContent', async () => {
    const proxied = await open('everything', [], []);
    const result = await proxied.client.callTool({ name: 'get-sum', arguments: { a: 'one', b: 2 } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/\/a \(\w+\): /);
    const errors = (result.structuredContent as { errors: { path: string }[] }).errors;
    expect(errors[0]?.path).toBe('/a');
  });
});
