/**
 * `toolcall-normalizer run`: the worker process. Configuration comes from the environment (docs/configuration.md);
 * flags only offer help. Exit status: 0 after a graceful shutdown (SIGTERM/SIGINT), 1 on a fatal error or a shutdown
 * that overran its bound (so Kubernetes restarts the pod), 2 on bad configuration.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { pino, type Logger } from 'pino';
import { startHttpServer } from '../../adapters/http/server.js';
import { openKafkaConnection } from '../../adapters/kafka/connection.js';
import { createKafkaStream } from '../../adapters/kafka/index.js';
import type { StreamOptions } from '../../adapters/kafka/port.js';
import { WorkerMetrics } from '../../adapters/metrics/metrics.js';
import { ToolSchemaSource } from '../../adapters/registry/client.js';
import { loadConfig, type WorkerConfig } from '../../config/config.js';
import { redactUserinfo } from '../../config/secrets.js';
import { createSchemaCompiler } from '../../core/validation/validate.js';
import { configOrUsage, parseCommandArgs } from '../commands/usage.js';
import { WorkerTracing } from '../../adapters/tracing/worker-spans.js';
import type { Tracing } from '../../adapters/tracing/sdk.js';
import { deliveryObserver, describeError, Worker } from './worker.js';

export const RUN_USAGE = `Usage: toolcall-normalizer run

Runs the stream worker. Configuration is read from environment variables (see docs/configuration.md):
KAFKA_BROKERS and SCHEMA_REGISTRY_URL are required; INPUT_TOPIC, OUTPUT_TOPIC, REJECTED_TOPIC, DLQ_TOPIC,
GROUP_ID, DELIVERY (exactly-once | at-least-once), METRICS_PORT, LOG_LEVEL and more are optional.`;

/** Longest a shutdown waits for the last spans to be exported. */
export const TRACES_FLUSH_MS = 5_000;

/**
 * The SDK and the worker's spans when the configuration turns tracing on; otherwise nothing is imported and the
 * worker makes no span (docs/tracing.md).
 */
export async function workerTracing(
  config: WorkerConfig,
  metrics: WorkerMetrics,
): Promise<{ tracing: Tracing; spans: WorkerTracing } | undefined> {
  if (config.tracing === undefined) return undefined;
  const { startTracing } = await import('../../adapters/tracing/sdk.js');
  const tracing = await startTracing(
    config.tracing,
    (reason, spans) => {
      metrics.spansDropped.inc({ reason }, spans);
    },
    packageVersion(),
  );
  const spans = new WorkerTracing(tracing.tracer, {
    groupId: config.groupId,
    onMalformedContext: () => {
      metrics.traceContextInvalid.inc();
    },
  });
  return { tracing, spans };
}

export function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
    const { version } = JSON.parse(text) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** How long a stop asked for while the worker still starts is waited for before the process ends. */
const STOP_WHILE_STARTING_MS = 2_000;

/** How long the registry's answer to a readiness ping is reused. */
const READY_PING_TTL_MS = 5_000;

export async function runMain(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, { help: { type: 'boolean', short: 'h' } }, RUN_USAGE);
  if (values.help === true) {
    process.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  const config = configOrUsage('run', loadConfig);
  if (config === undefined) return 2;
  const logger = pino({
    level: config.logLevel,
    base: { service: 'toolcall-normalizer' },
    // Belt and braces: nothing we log carries these, but a future log line must not leak them either.
    // pino's wildcards match one level each, so the paths cover the config's own nesting (kafka.sasl.password).
    redact: {
      paths: [
        'password',
        '*.password',
        '*.*.password',
        'sasl',
        '*.sasl',
        '*.*.sasl',
        'authorization',
        '*.authorization',
        '*.*.authorization',
        'key',
        '*.ssl.key',
        '*.*.ssl.key',
      ],
      censor: '[redacted]',
    },
  });
  return runWorker(config, logger);
}

/** The worker's schema source, as configured. Exported so a test can prove that what config accepts, it accepts. */
export function toolSchemaSource(config: WorkerConfig): ToolSchemaSource {
  return new ToolSchemaSource(
    {
      url: config.registry.url,
      ...(config.registry.username === undefined ? {} : { username: config.registry.username }),
      ...(config.registry.password === undefined ? {} : { password: config.registry.password }),
      subjectTemplate: config.registry.subjectTemplate,
      timeoutMs: config.registry.timeoutMs,
      cacheTtlMs: config.registry.cacheTtlMs,
      negativeTtlMs: config.registry.negativeTtlMs,
      maxRetries: config.registry.maxRetries,
    },
    createSchemaCompiler(),
  );
}

/** What the Kafka port needs of the configuration. */
export function streamOptions(config: WorkerConfig): StreamOptions {
  return {
    topics: config.topics,
    groupId: config.groupId,
    delivery: config.delivery,
    transactionalIdPrefix: config.transactionalIdPrefix,
    workerId: config.workerId,
    groupInstanceId: config.kafka.groupInstanceId,
    createTopics: config.createTopics,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
    fetchMaxWaitMs: config.kafka.fetchMaxWaitMs,
    compression: config.kafka.compression,
    groupProtocol: config.kafka.groupProtocol,
    groupRemoteAssignor: config.kafka.groupRemoteAssignor,
  };
}

async function runWorker(config: WorkerConfig, logger: Logger): Promise<number> {
  // From here on the first SIGTERM/SIGINT asks for the one shutdown below, however far the start has come; before,
  // node's default ends the process (the image's tini reports that as 0: nothing was read yet).
  let requestStop: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  process.once('SIGTERM', requestStop);
  process.once('SIGINT', requestStop);
  logger.info({ client: config.kafka.client, delivery: config.delivery }, 'starting');

  const opening = openKafkaConnection(config.kafka, logger);
  const opened = await Promise.race([
    opening.then(
      (connection) => ({ connection }),
      (error: unknown) => ({ error }),
    ),
    stopRequested.then(() => undefined),
  ]);
  if (opened === undefined) {
    // Asked to stop while the connection (an OAuth token) was still being opened: nothing consumed, nothing lost.
    void opening.then(
      (connection) => {
        connection.stop();
      },
      () => undefined,
    );
    logger.info({ exitCode: 0 }, 'stopped while connecting');
    return 0;
  }
  if ('error' in opened) {
    // One line that says why; the worker has consumed nothing yet, so nothing is lost.
    const { error } = opened;
    logger.fatal({ err: describeError(error) }, error instanceof Error ? error.message : String(error));
    return 1;
  }
  const { connection } = opened;
  const schemas = toolSchemaSource(config);
  const metrics = new WorkerMetrics({ toolLabels: config.metricsToolLabels, registryStats: schemas });
  let exitCode: number | undefined;
  let started = false;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const traced = await workerTracing(config, metrics);
  if (traced !== undefined) {
    const { exporter, url, sampler, ratio } = config.tracing ?? {};
    // The URL only: headers (an API key) are never logged.
    logger.info({ exporter, url: exporter === 'otlp' ? redactUserinfo(url ?? '') : undefined, sampler, ratio }, 'tracing on');
  }

  const worker = new Worker({
    config,
    stream: await createKafkaStream(config.kafka.client, connection.options, streamOptions(config), deliveryObserver(metrics), logger),
    schemas,
    metrics,
    logger,
    onFatal: (error) => void shutdown('fatal', error),
    tracing: traced?.spans,
  });

  let registryReady: { at: number; ok: true | string } = { at: 0, ok: 'registry not checked yet' };
  const server: Server = await startHttpServer(config.httpPort, {
    metrics: metrics.registry,
    live: () => {
      const { crashed } = worker.health();
      return { ok: crashed === undefined, checks: { consumer: crashed === undefined ? true : 'crashed' } };
    },
    ready: async () => {
      if (Date.now() - registryReady.at > READY_PING_TTL_MS) registryReady = { at: Date.now(), ok: await schemas.check() };
      const { joined, crashed } = worker.health();
      const checks = {
        broker: joined && crashed === undefined ? (true as const) : 'consumer not in its group',
        registry: registryReady.ok,
      };
      return { ok: checks.broker === true && checks.registry === true, checks };
    },
  });

  async function shutdown(reason: 'signal' | 'fatal', error?: unknown): Promise<void> {
    if (exitCode !== undefined) return;
    exitCode = reason === 'signal' ? 0 : 1;
    if (error !== undefined) logger.fatal({ err: describeError(error) }, 'fatal error, shutting down');
    else logger.info({ timeoutMs: config.shutdownTimeoutMs }, 'shutting down: finishing the batch in hand');
    const timeout = setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown overran its bound');
      finish(1);
    }, config.shutdownTimeoutMs);
    timeout.unref();
    try {
      // Still starting (connecting, joining its group): nothing is delivered yet and nothing can be lost, so the
      // stop is not waited for long; an unanswered connection would otherwise hold it to the shutdown bound.
      if (started) await worker.stop();
      else await Promise.race([worker.stop(), new Promise((resolve) => setTimeout(resolve, STOP_WHILE_STARTING_MS).unref())]);
    } catch (stopError) {
      logger.error({ err: describeError(stopError) }, 'error while stopping');
      exitCode = 1;
    }
    server.close();
    connection.stop();
    await traced?.tracing.shutdown(Math.min(TRACES_FLUSH_MS, config.shutdownTimeoutMs));
    clearTimeout(timeout);
    logger.info({ exitCode }, 'stopped');
    finish(exitCode);
  }

  // A stop asked for during the steps above runs now.
  void stopRequested.then(() => shutdown('signal'));
  process.on('unhandledRejection', (error) => void shutdown('fatal', error));
  process.on('uncaughtException', (error) => void shutdown('fatal', error));

  // Not awaited: a shutdown asked for while it starts ends the process without waiting for the start.
  worker.start().then(
    () => {
      started = true;
      logger.info({ port: config.httpPort }, 'worker ready');
    },
    (error: unknown) => void shutdown('fatal', error),
  );
  return finished;
}
