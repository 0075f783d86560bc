/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, its server scenarios) against
 * `@modelcontextprotocol/server-everything` over Streamable HTTP, directly and through the proxy (`--listen`) with
 * the upstream over HTTP and over stdio: every scenario the server passes directly passes through the proxy.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';
import { freePort, listeningProxy, serverScript, startUntil, stopStarted, tempDir } from './harness.js';

const CONFORMANCE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

afterEach(() => {
  stopStarted();
});

/** Runs the server scenarios against `url`: each scenario's name, and whether none of its checks failed. */
async function conformance(url: string): Promise<Map<string, boolean>> {
  const out = tempDir('conformance');
  await new Promise<void>((resolve, reject) => {
    // Exit 1 when a scenario fails, which the server's own failures make it do: the checks are read from the files.
    execFile(process.execPath, [CONFORMANCE, 'server', '--url', url, '-o', out], { timeout: 120_000 }, (error) => {
      if (error !== null && typeof error.code !== 'number') reject(new Error(`the conformance suite did not run: ${error.message}`));
      else resolve();
    });
  });
  const results = new Map<string, boolean>();
  for (const dir of readdirSync(out)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir)?.[1];
    if (scenario === undefined) continue;
    const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as { status: string }[];
    results.set(scenario, checks.length > 0 && checks.every((check) => check.status !== 'FAILURE'));
  }
  return results;
}

const passed = (results: Map<string, boolean>): string[] =>
  [...results]
    .filter(([, ok]) => ok)
    .map(([name]) => name)
    .sort();

async function everythingOverHttp(): Promise<string> {
  const port = await freePort();
  await startUntil([serverScript('everything'), 'streamableHttp'], /listening on port \d+/, { ...process.env, PORT: String(port) });
  return `http://127.0.0.1:${String(port)}/mcp`;
}

describe('the MCP conformance suite (server scenarios) through the proxy', () => {
  it('every scenario server-everything passes directly passes through the proxy, upstream over HTTP and over stdio', async () => {
    const upstream = await everythingOverHttp();
    const direct = passed(await conformance(upstream));
    // The suite ran and the server passes a good part of it: a comparison against nothing would prove nothing.
    expect(direct).toEqual(expect.arrayContaining(['server-initialize', 'tools-list', 'tools-call-simple-text', 'ping']));

    const overHttp = passed(await conformance(await listeningProxy(['--upstream-url', upstream])));
    expect(overHttp).toEqual(expect.arrayContaining(direct));
    const overStdio = passed(await conformance(await listeningProxy(['--', process.execPath, serverScript('everything'), 'stdio'])));
    expect(overStdio).toEqual(expect.arrayContaining(direct));
    // The proxy's own --listen refuses foreign Host headers, which the server alone does not.
    expect(overHttp).toContain('dns-rebinding-protection');
  }, 120_000);
});
