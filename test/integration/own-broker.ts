/**
 * Helpers for tests that need a broker of their own beside the shared local stack: a Kafka started with
 * `scripts/stack.sh up-kafka` on free ports and a private STACK_STATE_DIR (optionally with SASL/SCRAM and TLS
 * listeners, or with topic auto-creation off), always taken down again (`down`), even when the test runner
 * exits early; and a tiny basic-auth reverse proxy (node:http) that stands in front of the real Apicurio
 * Registry, whose own authentication needs an OIDC server we cannot run here.
 *
 * The shared default stack (127.0.0.1:19092/18081) is never touched here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from './harness.js';

const STACK = join(REPO_ROOT, 'scripts', 'stack.sh');

export interface OwnBrokerOptions {
  /** KAFKA_SECURITY: comma-separated `sasl-scram`, `tls`, `sasl-tls` (default: PLAINTEXT only). */
  readonly security?: string;
  /** KAFKA_SCRAM_USERS: `name:password[,...]`. */
  readonly scramUsers?: string;
  /** KAFKA_SUPER_USERS: `name[,...]` (default: every SCRAM user). */
  readonly superUsers?: string;
  /** KAFKA_AUTO_CREATE_TOPICS (default true). */
  readonly autoCreateTopics?: boolean;
  /** KAFKA_OAUTH_TOKEN_TTL in seconds (with the `oauth` listener). */
  readonly oauthTokenTtlS?: number;
}

/** The OAUTHBEARER listener and its OIDC provider (KAFKA_SECURITY=oauth). */
export interface OwnOAuth {
  readonly brokers: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecretFile: string;
}

export interface OwnBroker {
  /** The PLAINTEXT listener (`127.0.0.1:<port>`): the tests' own admin, producer and readers. */
  readonly brokers: string;
  /** The SASL_PLAINTEXT (SCRAM) listener, when enabled. */
  readonly sasl: string | undefined;
  /** The SSL listener, when enabled. */
  readonly tls: string | undefined;
  /** The SASL_SSL listener, when enabled. */
  readonly saslTls: string | undefined;
  /** The CA that signed the broker certificate (PEM), when TLS is enabled. */
  readonly caFile: string | undefined;
  /** The OAUTHBEARER listener and its OIDC provider, when enabled. */
  readonly oauth: OwnOAuth | undefined;
  readonly stateDir: string;
  /** The broker's server.log (every line so far). */
  serverLog(): string;
  /** Lines of server.log saying a client failed to authenticate. */
  failedAuthentications(): number;
  /** `scripts/stack.sh down` for this state dir (idempotent). */
  down(): Promise<void>;
}

const running = new Set<string>();

function stackEnvFor(stateDir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, STACK_STATE_DIR: stateDir, ...extra };
  // Never inherit another stack's settings from the shell running the tests.
  for (const name of [
    'KAFKA_SECURITY',
    'KAFKA_SCRAM_USERS',
    'KAFKA_SUPER_USERS',
    'KAFKA_AUTO_CREATE_TOPICS',
    'KAFKA_SASL_PORT',
    'KAFKA_TLS_PORT',
    'KAFKA_SASL_TLS_PORT',
    'KAFKA_OAUTH_PORT',
    'KAFKA_OIDC_PORT',
    'KAFKA_OAUTH_TOKEN_TTL',
  ]) {
    if (!(name in extra)) Reflect.deleteProperty(env, name);
  }
  return env;
}

async function runStack(command: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  const child = spawn('bash', [STACK, command], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', (c) => {
      resolve(c);
    });
    child.once('error', () => {
      resolve(null);
    });
  }).finally(() => {
    clearTimeout(timer);
  });
  if (code !== 0) {
    throw new Error(
      `bash scripts/stack.sh ${command} failed ` +
        `(status ${String(code)}):\n${Buffer.concat(out).toString('utf8')}${Buffer.concat(err).toString('utf8')}`,
    );
  }
  return Buffer.concat(out).toString('utf8');
}

/** Starts a Kafka of this test's own (`scripts/stack.sh up-kafka`) on free ports in a fresh state dir. */
export async function startOwnBroker(options: OwnBrokerOptions = {}): Promise<OwnBroker> {
  const stateDir = mkdtempSync(join(tmpdir(), 'toolcall-own-broker-'));
  const [kafkaPort, controllerPort, saslPort, tlsPort, saslTlsPort, oauthPort, oidcPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const extra: Record<string, string> = {
    KAFKA_PORT: String(kafkaPort),
    KAFKA_CONTROLLER_PORT: String(controllerPort),
    KAFKA_SASL_PORT: String(saslPort),
    KAFKA_TLS_PORT: String(tlsPort),
    KAFKA_SASL_TLS_PORT: String(saslTlsPort),
    KAFKA_OAUTH_PORT: String(oauthPort),
    KAFKA_OIDC_PORT: String(oidcPort),
    KAFKA_NUM_PARTITIONS: '3',
  };
  if (options.security !== undefined) extra.KAFKA_SECURITY = options.security;
  if (options.scramUsers !== undefined) extra.KAFKA_SCRAM_USERS = options.scramUsers;
  if (options.superUsers !== undefined) extra.KAFKA_SUPER_USERS = options.superUsers;
  if (options.autoCreateTopics !== undefined) extra.KAFKA_AUTO_CREATE_TOPICS = String(options.autoCreateTopics);
  if (options.oauthTokenTtlS !== undefined) extra.KAFKA_OAUTH_TOKEN_TTL = String(options.oauthTokenTtlS);
  const env = stackEnvFor(stateDir, extra);
  running.add(stateDir);
  let out: string;
  try {
    out = await runStack('up-kafka', env, 240_000);
  } catch (error) {
    await runStack('down', env, 120_000).catch(() => undefined);
    running.delete(stateDir);
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const lines = new Map<string, string>();
  for (const line of out.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) lines.set(match[1], match[2]);
  }
  const brokers = lines.get('KAFKA_BROKERS');
  if (brokers === undefined) throw new Error(`scripts/stack.sh up-kafka printed no KAFKA_BROKERS:\n${out}`);
  const serverLog = (): string => {
    try {
      return readFileSync(join(stateDir, 'kafka', 'logs', 'server.log'), 'utf8');
    } catch {
      return '';
    }
  };
  return {
    brokers,
    sasl: lines.get('KAFKA_SASL_BROKERS'),
    tls: lines.get('KAFKA_TLS_BROKERS'),
    saslTls: lines.get('KAFKA_SASL_TLS_BROKERS'),
    caFile: lines.get('KAFKA_TLS_CA_FILE'),
    oauth: lines.has('KAFKA_OAUTH_BROKERS')
      ? {
          brokers: lines.get('KAFKA_OAUTH_BROKERS') ?? '',
          tokenUrl: lines.get('KAFKA_OAUTH_TOKEN_URL') ?? '',
          clientId: lines.get('KAFKA_OAUTH_CLIENT_ID') ?? '',
          clientSecretFile: lines.get('KAFKA_OAUTH_CLIENT_SECRET_FILE') ?? '',
        }
      : undefined,
    stateDir,
    serverLog,
    failedAuthentications: () =>
      serverLog()
        .split('\n')
        .filter((l) => l.includes('Failed authentication with')).length,
    down: async () => {
      if (!running.has(stateDir)) return;
      await runStack('down', env, 120_000);
      running.delete(stateDir);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

// Last resort: a test runner that ends without its afterAll must not leave a broker behind.
process.once('exit', () => {
  for (const stateDir of running) {
    try {
      execFileSync('bash', [STACK, 'down'], { env: stackEnvFor(stateDir, {}), stdio: 'ignore', timeout: 60_000 });
      rmSync(stateDir, { recursive: true, force: true });
    } catch {
      // nothing more can be done here
    }
  }
});

/**
 * Points the harness's own admin, producer and readers at `broker`'s PLAINTEXT listener: they take KAFKA_BROKERS
 * when first used, so call this in beforeAll before any of them. Returns the function that puts the previous
 * KAFKA_BROKERS back (call it last in afterAll, should another test file run in this process).
 */
export function pointHarnessAt(broker: OwnBroker): () => void {
  const previous = process.env.KAFKA_BROKERS;
  process.env.KAFKA_BROKERS = broker.brokers;
  return () => {
    if (previous === undefined) Reflect.deleteProperty(process.env, 'KAFKA_BROKERS');
    else process.env.KAFKA_BROKERS = previous;
  };
}

/** The worker's environment for SASL/SCRAM on `listener` (e.g. {@link OwnBroker.sasl}): KAFKA_BROKERS and KAFKA_SASL_*. */
export function scramWorkerEnv(
  listener: string,
  mechanism: 'scram-sha-256' | 'scram-sha-512',
  username: string,
  password: string,
): Record<string, string> {
  return { KAFKA_BROKERS: listener, KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password };
}

// ------------------------------------------------------------------------------------------- counting proxy

/**
 * A TCP relay in front of one listener that counts the connections made through it: how often a client tried,
 * whichever client it is (a refused TLS handshake leaves no line in the broker's log). `down()` makes the listener
 * unreachable (connections refused, open ones cut) and `up()` brings it back on the same address: an outage of
 * whatever is behind it, seen from the client, while the thing itself keeps running.
 */
export interface CountingProxy {
  /** `127.0.0.1:<port>`: give it as KAFKA_BROKERS (or as the host of a URL). */
  readonly address: string;
  connections(): number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const [host = '127.0.0.1', port = '0'] = target.split(/:(?=\d+$)/);
  let connections = 0;
  const open = new Set<Socket>();
  const server = createTcpServer((socket) => {
    connections++;
    const upstream = connect(Number(port), host);
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
    upstream.on('close', () => socket.destroy());
  });
  const listen = (on: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(on, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => {
        resolve();
      });
      for (const socket of open) socket.destroy();
    });
  await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the counting proxy has no TCP address');
  const ownPort = address.port;
  return {
    address: `127.0.0.1:${ownPort}`,
    connections: () => connections,
    down: stop,
    up: () => (server.listening ? Promise.resolve() : listen(ownPort)),
    close: stop,
  };
}

// ----------------------------------------------------------------------------------------- basic-auth proxy

export interface BasicAuthProxy {
  /** The registry URL through the proxy (same path as `target`). */
  readonly url: string;
  /** Requests answered 401 (missing or wrong credentials). */
  refused(): number;
  /** Requests forwarded to the registry (right credentials). */
  forwarded(): number;
  close(): Promise<void>;
}

/**
 * A reverse proxy on 127.0.0.1 that requires `Authorization: Basic base64(user:password)` and forwards
 * everything else to `target`'s host (the real Apicurio Registry), as a basic-auth gateway in front of a
 * registry would. Answers 401 with a Confluent-style error body otherwise.
 */
export async function startBasicAuthProxy(target: string, username: string, password: string): Promise<BasicAuthProxy> {
  const upstream = new URL(target);
  const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  let refused = 0;
  let forwarded = 0;
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      refused++;
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="registry"' });
      res.end(JSON.stringify({ error_code: 40101, message: 'Unauthorized' }));
      return;
    }
    forwarded++;
    const headers = { ...req.headers, host: upstream.host };
    Reflect.deleteProperty(headers, 'authorization');
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error_code: 50201, message: 'registry unreachable' }));
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/+$/, '')}`,
    refused: () => refused,
    forwarded: () => forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** The worker's environment for the registry behind `proxy` with these credentials: SCHEMA_REGISTRY_URL, _USERNAME, _PASSWORD. */
export function basicAuthRegistryEnv(proxy: BasicAuthProxy, username: string, password: string): Record<string, string> {
  return { SCHEMA_REGISTRY_URL: proxy.url, SCHEMA_REGISTRY_USERNAME: username, SCHEMA_REGISTRY_PASSWORD: password };
}
