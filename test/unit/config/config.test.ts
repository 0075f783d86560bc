/**
 * loadConfig refuses, at start-up and naming the variable, every configuration the worker would otherwise fail
 * on later (exit 1 instead of 2) or silently misread; and no refusal quotes a secret.
 */
import { describe, expect, it } from 'vitest';
import { toolSchemaSource } from '../../../src/app/worker/run-command.js';
import { ConfigError, loadConfig, type WorkerConfig } from '../../../src/config/config.js';
import { BASE, problemsOf } from './config-problems.js';

describe('loadConfig', () => {
  it('accepts the defaults (only the two required variables set)', () => {
    const config = loadConfig({ ...BASE });
    expect(config.kafka.brokers).toEqual(['localhost:9092']);
    expect(config.kafka.sasl).toBeUndefined();
    expect(config.registry.username).toBeUndefined();
    expect(() => toolSchemaSource(config)).not.toThrow();
  });

  it('quotes a value with control characters escaped, one line per problem', () => {
    const hostile = 'x\u001b[2J\nforged: line\u202e';
    try {
      loadConfig({ ...BASE, KAFKA_BROKERS: hostile, WORKER_CONCURRENCY: hostile });
      expect.fail('loadConfig accepted a hostile value');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { message, problems } = error as ConfigError;
      expect(problems.length).toBeGreaterThan(0);
      expect(message.split('\n')).toHaveLength(problems.length + 1);
      const codes = Array.from({ length: message.length }, (_, k) => message.charCodeAt(k));
      expect(codes.filter((code) => code !== 10 && (code < 32 || code === 0x7f || code === 0x202e))).toEqual([]);
      expect(message).toContain('\\x1b[2J\\nforged');
    }
  });

  describe('registry settings the schema source would refuse later are refused here, naming the variable', () => {
    it.each([
      ['a query', 'http://registry:8080/apis/ccompat/v7?x=1'],
      ['a fragment', 'http://registry:8080/apis/ccompat/v7#top'],
      ['an empty query', 'http://registry:8080/apis/ccompat/v7?'],
      ['an empty fragment', 'http://registry:8080/apis/ccompat/v7/#'],
    ])('SCHEMA_REGISTRY_URL with %s', (_what, url) => {
      const problems = problemsOf({ SCHEMA_REGISTRY_URL: url });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^SCHEMA_REGISTRY_URL: .*query or fragment/);
    });

    it.each(['{tool}-{tool}', 'fixed', '{tool}{tool}{tool}', 'x-{TOOL}'])('SUBJECT_TEMPLATE=%s', (template) => {
      const problems = problemsOf({ SUBJECT_TEMPLATE: template });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^SUBJECT_TEMPLATE: must contain "\{tool\}" exactly once/);
    });

    it('whatever URL and template loadConfig accepts, the schema source accepts too', () => {
      const urls = [
        'http://registry:8080/apis/ccompat/v7',
        'https://registry.example/apis/ccompat/v7/',
        'http://registry:8080/apis/ccompat/v7?',
        'http://registry:8080/apis/ccompat/v7#',
        'http://registry:8080/a?b#c',
        'ftp://registry/x',
        'registry:8080',
        'not a url',
        'http://[::1]:8081',
      ];
      const templates = ['{tool}', 'pre-{tool}-post', '{tool}{tool}', '', ' ', 'x', '{tool}-value'];
      let accepted = 0;
      for (const url of urls) {
        for (const template of templates) {
          let config: WorkerConfig;
          try {
            config = loadConfig({ ...BASE, SCHEMA_REGISTRY_URL: url, SUBJECT_TEMPLATE: template });
          } catch (error) {
            expect(error, `${url} ${template}`).toBeInstanceOf(ConfigError);
            continue;
          }
          accepted++;
          expect(() => toolSchemaSource(config), `${url} ${template}`).not.toThrow();
          // Request paths are appended to the URL: a "?" or "#" left in it would swallow them.
          expect(config.registry.url, `${url} ${template}`).not.toMatch(/[?#]/);
        }
      }
      expect(accepted).toBeGreaterThan(0);
    });
  });

  describe('credentials that would be silently ignored are refused, naming the variables', () => {
    it('SCHEMA_REGISTRY_PASSWORD without SCHEMA_REGISTRY_USERNAME', () => {
      const problems = problemsOf({ SCHEMA_REGISTRY_PASSWORD: 'reg-S3cret-a1' });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^SCHEMA_REGISTRY_USERNAME: required when SCHEMA_REGISTRY_PASSWORD is set/);
      expect(problems.join('\n')).not.toContain('reg-S3cret-a1');
    });

    it('SCHEMA_REGISTRY_USERNAME without SCHEMA_REGISTRY_PASSWORD (still refused)', () => {
      expect(problemsOf({ SCHEMA_REGISTRY_USERNAME: 'reader' })).toEqual([
        'SCHEMA_REGISTRY_PASSWORD: required when SCHEMA_REGISTRY_USERNAME is set',
      ]);
    });

    it('both registry credentials: accepted and passed on', () => {
      const config = loadConfig({ ...BASE, SCHEMA_REGISTRY_USERNAME: 'reader', SCHEMA_REGISTRY_PASSWORD: 'pw' });
      expect(config.registry).toMatchObject({ username: 'reader', password: 'pw' });
    });

    it.each([
      [{ KAFKA_SASL_USERNAME: 'svc' }, 'KAFKA_SASL_USERNAME'],
      [{ KAFKA_SASL_PASSWORD: 'sasl-S3cret-b2' }, 'KAFKA_SASL_PASSWORD'],
      [{ KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'sasl-S3cret-b2' }, 'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD'],
    ])('SASL credentials without KAFKA_SASL_MECHANISM: %j', (env, named) => {
      const problems = problemsOf(env);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${named}: set without KAFKA_SASL_MECHANISM`));
      expect(problems.join('\n')).not.toContain('sasl-S3cret-b2');
    });

    it.each([
      [{ KAFKA_SASL_MECHANISM: 'plain' }, ['KAFKA_SASL_USERNAME: required', 'KAFKA_SASL_PASSWORD: required']],
      [{ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'svc' }, ['KAFKA_SASL_PASSWORD: required']],
      [{ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_PASSWORD: 'pw' }, ['KAFKA_SASL_USERNAME: required']],
    ])('KAFKA_SASL_MECHANISM without its credentials (still refused): %j', (env, expected) => {
      expect(problemsOf(env)).toEqual(expected);
    });

    it('a mechanism with both credentials: accepted', () => {
      const config = loadConfig({ ...BASE, KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'pw' });
      expect(config.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'svc', password: 'pw' });
    });
  });

  describe('KAFKA_BROKERS', () => {
    it.each([' , ', ',', ',,,'])('with no broker (%j) is refused', (brokers) => {
      const problems = problemsOf({ KAFKA_BROKERS: brokers });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^KAFKA_BROKERS: /);
      expect(problems[0]).toMatch(/empty/);
    });

    it.each(['a:9092,,b:9092', 'a:9092, ,b:9092', 'a:9092,', ',a:9092'])('with an empty entry (%j) is refused', (brokers) => {
      const problems = problemsOf({ KAFKA_BROKERS: brokers });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^KAFKA_BROKERS: .*empty entry/);
    });

    it('unset or blank is required', () => {
      expect(problemsOf({ KAFKA_BROKERS: undefined })).toEqual(['KAFKA_BROKERS: required']);
      expect(problemsOf({ KAFKA_BROKERS: '   ' })).toEqual(['KAFKA_BROKERS: required']);
    });

    it('a list of brokers, spaces around the commas: accepted', () => {
      expect(loadConfig({ ...BASE, KAFKA_BROKERS: ' a:9092 , b.example:9093 ' }).kafka.brokers).toEqual(['a:9092', 'b.example:9093']);
    });

    it.each([
      ['user:s3cret-c3@k:9092', '"***@k:9092"'],
      ['s3cret-c3@k', '"***@k"'],
      ['u@s3cret-c3@k:x', '"***@k:x"'],
      ['sasl://user:s3cret-c3@k:9092', '"***@k:9092"'],
    ])('an entry with userinfo (%j) is refused without quoting what comes before the last "@"', (broker, shown) => {
      const problems = problemsOf({ KAFKA_BROKERS: `ok:9092,${broker}` });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^KAFKA_BROKERS: /);
      expect(problems[0]).toContain(shown);
      expect(problems[0]).not.toContain('s3cret-c3');
      expect(problems[0]).not.toContain('user');
    });

    it('an entry that is not host:port is still quoted (nothing secret in it)', () => {
      expect(problemsOf({ KAFKA_BROKERS: 'k9092' })).toEqual(['KAFKA_BROKERS: "k9092" is not host:port']);
    });
  });

  it('no refusal quotes a password from SCHEMA_REGISTRY_URL, whatever else is wrong with the URL', () => {
    for (const url of [
      'http://u:url-S3cret-d4@registry/x?q=1',
      'ftp://u:url-S3cret-d4@registry/x',
      'http://u:url-S3cret-d4@registry/x#f',
    ]) {
      const problems = problemsOf({ SCHEMA_REGISTRY_URL: url });
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.every((p) => p.startsWith('SCHEMA_REGISTRY_URL: '))).toBe(true);
      expect(problems.join('\n')).not.toMatch(/url-S3cret-d4|url-S3cret|u:/);
    }
  });

  it('values quoted in other refusals show nothing before the last "@"', () => {
    const problems = problemsOf({
      KAFKA_SASL_MECHANISM: 'u:pw-S3cret-e5@plain',
      METRICS_PORT: 'pw-S3cret-e5@1',
      CREATE_TOPICS: 'pw-S3cret-e5@yes',
      DELIVERY: 'pw-S3cret-e5@x',
      INPUT_TOPIC: 'pw-S3cret-e5@t',
    });
    expect(problems.map((p) => p.slice(0, p.indexOf(':'))).sort()).toEqual([
      'CREATE_TOPICS',
      'DELIVERY',
      'INPUT_TOPIC',
      'KAFKA_SASL_MECHANISM',
      'METRICS_PORT',
    ]);
    for (const problem of problems) {
      expect(problem).not.toContain('S3cret');
      expect(problem).toContain('***@');
    }
  });

  describe('one registry lookup must not outlast the consumer session (no heartbeat while it waits)', () => {
    it('the defaults pass: 5000 ms × (2 + 1) < 30000 ms', () => {
      const config = loadConfig({ ...BASE });
      expect(config.registry.timeoutMs * (config.registry.maxRetries + 1)).toBeLessThan(config.kafka.sessionTimeoutMs);
    });

    it.each([
      [{ REGISTRY_TIMEOUT_MS: '10000' }, '30000'],
      [{ KAFKA_SESSION_TIMEOUT_MS: '15000' }, '15000'],
      [{ KAFKA_SESSION_TIMEOUT_MS: '10000' }, '10000'],
      [{ REGISTRY_MAX_RETRIES: '5' }, '30000'],
      [{ REGISTRY_TIMEOUT_MS: '120000', REGISTRY_MAX_RETRIES: '0', KAFKA_SESSION_TIMEOUT_MS: '120000' }, '120000'],
    ])('refused when REGISTRY_TIMEOUT_MS × (REGISTRY_MAX_RETRIES + 1) ≥ KAFKA_SESSION_TIMEOUT_MS: %j', (env, session) => {
      const problems = problemsOf(env);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^REGISTRY_TIMEOUT_MS, REGISTRY_MAX_RETRIES and KAFKA_SESSION_TIMEOUT_MS: /);
      expect(problems[0]).toContain(`KAFKA_SESSION_TIMEOUT_MS (${session} ms)`);
      expect(problems[0]).toMatch(/outlast the consumer session/);
    });

    it.each([
      { REGISTRY_TIMEOUT_MS: '9999', KAFKA_SESSION_TIMEOUT_MS: '30000' },
      { REGISTRY_TIMEOUT_MS: '1000', REGISTRY_MAX_RETRIES: '0', KAFKA_SESSION_TIMEOUT_MS: '10000' },
      { REGISTRY_TIMEOUT_MS: '3000', KAFKA_SESSION_TIMEOUT_MS: '10000' },
      { REGISTRY_TIMEOUT_MS: '100', REGISTRY_MAX_RETRIES: '10', KAFKA_SESSION_TIMEOUT_MS: '6000' },
    ])('accepted just below: %j', (env) => {
      expect(() => loadConfig({ ...BASE, ...env })).not.toThrow();
    });
  });
});
