/**
 * KAFKA_SASL_MECHANISM=oauthbearer and its KAFKA_OAUTH_* settings: refused at start, naming the variable, when they
 * would fail later or send the client secret in clear text; the secret is read from its file and never quoted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaConnection } from '../../../src/adapters/kafka/connection.js';
import { ConfigError, loadConfig, tokenUrlProblem } from '../../../src/config/config.js';

const BASE = { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7' } as const;
const SECRET = 'oauth-S3cret-q7';
const dir = mkdtempSync(join(tmpdir(), 'tcn-oauth-config-'));
const secretFile = join(dir, 'client-secret');
writeFileSync(secretFile, `${SECRET}\n`);
const emptyFile = join(dir, 'empty');
writeFileSync(emptyFile, '');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const OAUTH = {
  KAFKA_SASL_MECHANISM: 'oauthbearer',
  KAFKA_OAUTH_TOKEN_URL: 'https://idp.example.com/oauth2/token',
  KAFKA_OAUTH_CLIENT_ID: 'tcn-worker',
  KAFKA_OAUTH_CLIENT_SECRET_FILE: secretFile,
} as const;

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig({ ...BASE, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.join('\n')).not.toContain(SECRET);
    return problems;
  }
  expect.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('OAUTHBEARER configuration', () => {
  it('accepted with its settings: the secret read from its file without the trailing newline, defaults for the rest', () => {
    const config = loadConfig({ ...BASE, ...OAUTH, KAFKA_SASL_MECHANISM: 'OAUTHBEARER', KAFKA_OAUTH_SCOPE: 'kafka' });
    expect(config.kafka.sasl).toEqual({
      mechanism: 'oauthbearer',
      oauth: {
        tokenUrl: OAUTH.KAFKA_OAUTH_TOKEN_URL,
        clientId: 'tcn-worker',
        clientSecret: SECRET,
        scope: 'kafka',
        audience: undefined,
        timeoutMs: 10_000,
        maxRetries: 10,
      },
    });
  });

  it('each missing setting is named', () => {
    expect(problemsOf({ KAFKA_SASL_MECHANISM: 'oauthbearer' })).toEqual([
      'KAFKA_OAUTH_TOKEN_URL: required',
      'KAFKA_OAUTH_CLIENT_ID: required',
      'KAFKA_OAUTH_CLIENT_SECRET_FILE: required',
    ]);
  });

  it('a secret file that cannot be read, or is empty, is refused', () => {
    expect(problemsOf({ ...OAUTH, KAFKA_OAUTH_CLIENT_SECRET_FILE: join(dir, 'missing') })).toEqual([
      expect.stringMatching(/^KAFKA_OAUTH_CLIENT_SECRET_FILE: cannot read ".*missing" \(ENOENT/),
    ]);
    expect(problemsOf({ ...OAUTH, KAFKA_OAUTH_CLIENT_SECRET_FILE: emptyFile })).toEqual([
      'KAFKA_OAUTH_CLIENT_SECRET_FILE: the file is empty',
    ]);
  });

  it.each([
    ['http://idp.example.com/token', /must be https:\/\/ outside loopback/],
    ['http://10.0.0.8:8080/token', /must be https:\/\/ outside loopback/],
    ['ftp://idp.example.com/token', /must be an https:\/\/ URL, not ftp:/],
    ['https://user:pw@idp.example.com/token', /must not carry credentials/],
    ['idp.example.com/token', /not a URL/],
  ])('token URL %s is refused', (url, message) => {
    const problems = problemsOf({ ...OAUTH, KAFKA_OAUTH_TOKEN_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^KAFKA_OAUTH_TOKEN_URL: /);
    expect(problems[0]).toMatch(message);
    expect(problems[0]).not.toContain(':pw@');
  });

  it.each(['http://127.0.0.1:4000/token', 'http://localhost:4000/token', 'http://[::1]:4000/token', 'https://idp.example.com/token'])(
    'token URL %s is accepted (HTTPS, or HTTP to loopback)',
    (url) => {
      expect(tokenUrlProblem(url)).toBeUndefined();
    },
  );

  it('KAFKA_OAUTH_* without the mechanism, and SASL user/password with it, are refused as ignored', () => {
    expect(problemsOf({ KAFKA_OAUTH_TOKEN_URL: OAUTH.KAFKA_OAUTH_TOKEN_URL, KAFKA_OAUTH_CLIENT_ID: 'x' })).toEqual([
      'KAFKA_OAUTH_TOKEN_URL, KAFKA_OAUTH_CLIENT_ID: set without KAFKA_SASL_MECHANISM=oauthbearer, so they would be ignored',
    ]);
    expect(problemsOf({ ...OAUTH, KAFKA_SASL_PASSWORD: 'pw' })).toEqual([
      'KAFKA_SASL_PASSWORD: not used by KAFKA_SASL_MECHANISM=oauthbearer (it signs in with KAFKA_OAUTH_*)',
    ]);
  });

  it("the clients' connection asks the token source on each sign-in and carries no OAuth setting", async () => {
    const config = loadConfig({ ...BASE, ...OAUTH });
    let asked = 0;
    const tokens = { token: () => Promise.resolve(`token-${++asked}`) } as unknown as Parameters<typeof kafkaConnection>[1];
    const connection = kafkaConnection(config.kafka, tokens);
    expect(connection.sasl?.mechanism).toBe('oauthbearer');
    const sasl = connection.sasl as { token: () => Promise<string> };
    expect([await sasl.token(), await sasl.token()]).toEqual(['token-1', 'token-2']);
    expect(JSON.stringify(connection)).not.toContain(SECRET);
    expect(() => kafkaConnection(config.kafka)).toThrow(/needs a token source/);
  });
});
