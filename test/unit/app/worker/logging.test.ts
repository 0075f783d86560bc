/**
 * No secret ever appears in a log line or an error message: the SASL password, the registry password (and its
 * Basic credentials), a password inside SCHEMA_REGISTRY_URL, and the TLS private key.
 *
 * Every path is exercised for real, with secrets that are also proven to have been *used* (the fake broker
 * receives the SASL password, the fake registry receives the Basic credentials), so their absence from the
 * output means something:
 * - configuration errors (loadConfig) with secrets set;
 * - the Kafka client built from that configuration (createKafka, logs routed into pino at trace level)
 *   authenticating against a fake broker that refuses the SASL credentials, and a TLS connection that fails;
 * - the schema source (ToolSchemaSource) refused by a registry (401) and failing on one that is down, logged
 *   the way the worker logs it;
 * - the whole worker (`node dist/cli.js run`): startup, readiness probe, and the fatal-error path, its stdout
 *   and stderr captured.
 * Logs go to an in-memory stream (pino's destination) and are searched for each secret, its base64 and its
 * URL encoding.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createKafka } from '../../../../src/adapters/kafka/client.js';
import { DEFAULT_REGISTRY_CONFIG, ToolSchemaSource } from '../../../../src/adapters/registry/client.js';
import { describeError } from '../../../../src/app/worker/worker.js';
import { kafkaConnection } from '../../../../src/adapters/kafka/connection.js';
import { ConfigError, loadConfig } from '../../../../src/config/config.js';
import { createSchemaCompiler } from '../../../../src/core/validation/validate.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

const SASL_USER = 'normalizer-svc';
const SASL_PASSWORD = 'sasl-S3cret-7f3a9c1e';
const REGISTRY_USER = 'registry-reader';
const REGISTRY_PASSWORD = 'registry-S3cret-b81d04aa';
const URL_PASSWORD = 'url-S3cret-5e2c77d0';
const TLS_KEY = '-----BEGIN PRIVATE KEY-----\ntls-key-S3cret-0c9d8e7f\n-----END PRIVATE KEY-----\n';

/** Every form in which a secret could leak. */
const FORBIDDEN = [SASL_PASSWORD, REGISTRY_PASSWORD, URL_PASSWORD, 'tls-key-S3cret-0c9d8e7f']
  .flatMap((secret) => [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')])
  .concat([
    Buffer.from(`${REGISTRY_USER}:${REGISTRY_PASSWORD}`).toString('base64'),
    Buffer.from(`${REGISTRY_USER}:${URL_PASSWORD}`).toString('base64'),
  ]);

function leaks(text: string): string[] {
  return FORBIDDEN.filter((secret) => text.includes(secret));
}

/** A pino logger writing JSON lines into memory, at `trace` so every line any path can produce is kept. */
function memoryLogger(): { logger: Logger; text: () => string; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  // No redaction configured on purpose: the code under test must not hand secrets to the logger at all.
  const logger = pino({ level: 'trace', base: { service: 'toolcall-normalizer' } }, stream);
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = (error as { cause?: unknown }).cause;
  return (
    `${error.name}: ${error.message}\n${error.stack ?? ''}\n${JSON.stringify(describeError(error))}` +
    (cause === undefined ? '' : `\ncaused by ${errorText(cause)}`)
  );
}

async function listen(server: Server | HttpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const servers: (Server | HttpServer)[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'logging-test-'));
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(scratch, { recursive: true, force: true });
});

// ----------------------------------------------------------------------------------------------- fakes

/**
 * A Kafka broker that speaks just enough of the protocol to refuse SASL/PLAIN credentials: ApiVersions (v2),
 * SaslHandshake (v0-1) offering PLAIN, SaslAuthenticate (v0) answering SASL_AUTHENTICATION_FAILED (58). It keeps
 * the authentication bytes it received, to prove the password really was sent. `authDelayMs` delays the refusal.
 */
async function fakeSaslBroker(authDelayMs = 0): Promise<{ port: number; received: Buffer[] }> {
  const received: Buffer[] = [];
  const int16 = (n: number): Buffer => {
    const b = Buffer.alloc(2);
    b.writeInt16BE(n);
    return b;
  };
  const int32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const string = (s: string): Buffer => Buffer.concat([int16(Buffer.byteLength(s)), Buffer.from(s)]);
  const answer = (apiKey: number, body: Buffer): Buffer | undefined => {
    if (apiKey === 18) {
      const apis = [
        [18, 0, 2],
        [17, 0, 1],
        [36, 0, 0],
        [3, 0, 6],
      ];
      return Buffer.concat([int16(0), int32(apis.length), ...apis.flatMap((api) => api.map(int16)), int32(0)]);
    }
    if (apiKey === 17) return Buffer.concat([int16(0), int32(1), string('PLAIN')]);
    if (apiKey === 36) {
      received.push(body.subarray(4, 4 + body.readInt32BE(0)));
      return Buffer.concat([int16(58), string('Authentication failed: Invalid username or password'), int32(0)]);
    }
    return undefined;
  };
  const server = createServer((socket: Socket) => {
    let pending = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const frame = pending.subarray(4, 4 + pending.readInt32BE(0));
        pending = pending.subarray(4 + frame.length);
        const apiKey = frame.readInt16BE(0);
        const correlationId = frame.readInt32BE(4);
        const clientIdLength = frame.readInt16BE(8);
        const reply = answer(apiKey, frame.subarray(10 + Math.max(0, clientIdLength)));
        if (reply === undefined) {
          socket.destroy();
          return;
        }
        const send = (): void => {
          socket.write(Buffer.concat([int32(4 + reply.length), int32(correlationId), reply]));
        };
        if (apiKey === 36 && authDelayMs > 0) setTimeout(send, authDelayMs);
        else send();
      }
    });
  });
  servers.push(server);
  return { port: await listen(server), received };
}

/** An HTTP server answering every request with `status`, keeping the Authorization headers it received. */
async function fakeRegistry(status: number): Promise<{ url: string; authorizations: string[] }> {
  const authorizations: string[] = [];
  const server = createHttpServer((req: IncomingMessage, res) => {
    authorizations.push(req.headers.authorization ?? '');
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error_code: status * 100 + 1, message: status === 401 ? 'Unauthorized' : 'Service Unavailable' }));
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${await listen(server)}/apis/ccompat/v7`, authorizations };
}

function secretEnv(overrides: Record<string, string>): Record<string, string> {
  return {
    KAFKA_BROKERS: '127.0.0.1:9',
    SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9/apis/ccompat/v7',
    KAFKA_SASL_MECHANISM: 'plain',
    KAFKA_SASL_USERNAME: SASL_USER,
    KAFKA_SASL_PASSWORD: SASL_PASSWORD,
    SCHEMA_REGISTRY_USERNAME: REGISTRY_USER,
    SCHEMA_REGISTRY_PASSWORD: REGISTRY_PASSWORD,
    ...overrides,
  };
}

// ----------------------------------------------------------------------------------------------- tests

describe('secrets never reach a log line or an error message', () => {
  it('configuration errors name the variables, never the secrets', () => {
    const keyFile = join(scratch, 'client.key');
    writeFileSync(keyFile, TLS_KEY);
    let caught: unknown;
    try {
      loadConfig(
        secretEnv({
          // Credentials in the URL are refused: the message must not quote the URL.
          SCHEMA_REGISTRY_URL: `https://${REGISTRY_USER}:${URL_PASSWORD}@registry.example/apis/ccompat/v7`,
          KAFKA_SASL_MECHANISM: 'gssapi',
          KAFKA_SSL: 'true',
          KAFKA_SSL_KEY_FILE: keyFile,
          KAFKA_SSL_CA_FILE: join(scratch, 'missing-ca.pem'),
          METRICS_PORT: 'not-a-port',
        }),
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    // The problems were found (so the secrets were read and looked at)...
    expect(problems.some((p) => p.startsWith('SCHEMA_REGISTRY_URL: put credentials'))).toBe(true);
    expect(problems.some((p) => p.startsWith('KAFKA_SASL_MECHANISM'))).toBe(true);
    expect(problems.some((p) => p.startsWith('KAFKA_SSL_CA_FILE: cannot read'))).toBe(true);
    // ...and neither the message nor a log line of it shows one.
    const { logger, text } = memoryLogger();
    logger.fatal({ err: describeError(caught) }, 'invalid configuration');
    expect(leaks(errorText(caught))).toEqual([]);
    expect(leaks(text())).toEqual([]);
    expect(text()).toContain('SCHEMA_REGISTRY_URL: put credentials');
  });

  it('the Kafka client refused by the broker: SASL password sent, never logged or in the error', async () => {
    const broker = await fakeSaslBroker();
    const config = loadConfig(secretEnv({ KAFKA_BROKERS: `127.0.0.1:${broker.port}`, KAFKA_CONNECTION_TIMEOUT_MS: '2000' }));
    expect(config.kafka.sasl).toMatchObject({ password: SASL_PASSWORD });
    const { logger, text, lines } = memoryLogger();
    const admin = createKafka(kafkaConnection(config.kafka), logger).admin();
    let caught: unknown;
    try {
      await admin.connect();
    } catch (error) {
      caught = error;
      logger.fatal({ err: describeError(error) }, 'fatal error, shutting down');
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    expect(caught).toBeInstanceOf(Error);
    // The password really went over the wire (PLAIN: authzid NUL username NUL password)...
    expect(broker.received.map((b) => b.toString('utf8'))).toContain(`\u0000${SASL_USER}\u0000${SASL_PASSWORD}`);
    // ...the failure was logged, by kafkajs through our logger and by us...
    expect(lines().some((l) => l.component === 'kafkajs' && l.level === 50)).toBe(true);
    expect(text()).toMatch(/SASL|[Aa]uthentication/);
    // ...and no secret is anywhere.
    expect(leaks(text())).toEqual([]);
    expect(leaks(errorText(caught))).toEqual([]);
  }, 30_000);

  it('the Kafka client with a TLS client key: the key never appears when the connection fails', async () => {
    const closing = createServer((socket) => socket.destroy());
    servers.push(closing);
    const port = await listen(closing);
    const keyFile = join(scratch, 'client.key');
    writeFileSync(keyFile, TLS_KEY);
    const config = loadConfig(
      secretEnv({
        KAFKA_BROKERS: `127.0.0.1:${port}`,
        KAFKA_SSL: 'true',
        KAFKA_SSL_KEY_FILE: keyFile,
        KAFKA_CONNECTION_TIMEOUT_MS: '1000',
      }),
    );
    expect(config.kafka.ssl === false ? undefined : config.kafka.ssl.key).toBe(TLS_KEY);
    const { logger, text, lines } = memoryLogger();
    const admin = createKafka(kafkaConnection(config.kafka), logger).admin();
    let caught: unknown;
    // kafkajs retries the connection; the first error lines are what we look at.
    const connecting = admin.connect().catch((error: unknown) => {
      caught = error;
    });
    const deadline = Date.now() + 20_000;
    while (!lines().some((l) => l.level === 50) && caught === undefined && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await admin.disconnect().catch(() => undefined);
    await Promise.race([connecting, new Promise((r) => setTimeout(r, 2_000))]);
    expect(lines().some((l) => l.level === 50) || caught !== undefined).toBe(true);
    expect(leaks(text())).toEqual([]);
    if (caught !== undefined) expect(leaks(errorText(caught))).toEqual([]);
  }, 30_000);

  it('the schema source refused (401) or facing a registry that is down: credentials sent, never shown', async () => {
    const compiler = createSchemaCompiler();
    const { logger, text } = memoryLogger();
    const cases = [
      // Credentials from the configuration, and credentials inside the URL (the adapter strips them).
      { registry: await fakeRegistry(401), username: REGISTRY_USER, password: REGISTRY_PASSWORD, inUrl: false },
      { registry: await fakeRegistry(401), username: undefined, password: undefined, inUrl: true },
      { registry: await fakeRegistry(503), username: REGISTRY_USER, password: REGISTRY_PASSWORD, inUrl: false },
    ];
    for (const { registry, username, password, inUrl } of cases) {
      const url = inUrl ? registry.url.replace('http://', `http://${REGISTRY_USER}:${URL_PASSWORD}@`) : registry.url;
      const source = new ToolSchemaSource(
        {
          ...DEFAULT_REGISTRY_CONFIG,
          url,
          maxRetries: 1,
          retryBackoffMs: 1,
          ...(username === undefined ? {} : { username }),
          ...(password === undefined ? {} : { password }),
        },
        compiler,
      );
      let caught: unknown;
      try {
        await source.get('search_issues');
      } catch (error) {
        caught = error;
        // As the worker logs a failed lookup.
        logger.warn({ tool: 'search_issues', err: describeError(error) }, 'schema lookup failed');
      }
      expect(caught).toBeInstanceOf(Error);
      expect(await source.ping()).toBe(false);
      const expected = `Basic ${Buffer.from(`${REGISTRY_USER}:${inUrl ? URL_PASSWORD : REGISTRY_PASSWORD}`).toString('base64')}`;
      expect(registry.authorizations.length).toBeGreaterThan(0);
      expect(registry.authorizations.every((a) => a === expected)).toBe(true);
      expect(leaks(errorText(caught))).toEqual([]);
    }
    expect(text()).toContain('schema lookup failed');
    expect(text()).toContain('check the registry username and password');
    expect(leaks(text())).toEqual([]);
  }, 30_000);

  it('the worker process: startup, readiness probe and fatal error on stdout/stderr carry no secret', async () => {
    const cli = join(ROOT, 'dist', 'cli.js');
    expect(existsSync(cli), `${cli} is missing: run \`npm run build\` first (npm test builds before vitest)`).toBe(true);
    // The refusal comes after 1.5 s, so the readiness probe below reaches the registry first.
    const broker = await fakeSaslBroker(1_500);
    const registry = await fakeRegistry(401);
    const httpPort = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      ...secretEnv({
        KAFKA_BROKERS: `127.0.0.1:${broker.port}`,
        SCHEMA_REGISTRY_URL: registry.url,
        KAFKA_CONNECTION_TIMEOUT_MS: '2000',
        LOG_LEVEL: 'trace',
        METRICS_PORT: String(httpPort),
      }),
    };
    const child = spawn(process.execPath, [cli, 'run'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => {
        resolve(code);
      }),
    );
    // Hit the readiness probe while the worker starts: it pings the registry with the credentials.
    for (let i = 0; i < 20 && registry.authorizations.length === 0 && child.exitCode === null; i++) {
      await fetch(`http://127.0.0.1:${httpPort}/readyz`).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const code = await exited;
    clearTimeout(timer);
    const text = Buffer.concat(output).toString('utf8');
    // A fatal error (the broker refused the credentials) exits 1, after logging it.
    expect(code, text).toBe(1);
    expect(text).toContain('fatal error, shutting down');
    expect(broker.received.map((b) => b.toString('utf8'))).toContain(`\u0000${SASL_USER}\u0000${SASL_PASSWORD}`);
    expect(registry.authorizations).toContain(`Basic ${Buffer.from(`${REGISTRY_USER}:${REGISTRY_PASSWORD}`).toString('base64')}`);
    expect(text).toContain('"component":"kafkajs"');
    expect(leaks(text)).toEqual([]);
  }, 40_000);
});
