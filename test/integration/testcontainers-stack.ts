/**
 * Kafka and Apicurio Registry started with testcontainers instead of scripts/stack.sh (TEST_STACK=testcontainers,
 * or by default where a Docker engine answers and the images are there: see test/global-setup.ts).
 *
 * Images: KAFKA_IMAGE and REGISTRY_IMAGE, by default the official ones a Docker user pulls; CI points them at the
 * offline builds of `npm run images`, which take the same configuration. Containers use the host network and
 * ports picked free at start, so they never clash with the shared local stack (19092-19096, 18081, 19000) or
 * with another run. Ryuk is off (its image cannot be pulled here): the global teardown removes the containers.
 *
 * The fault tests stop and start services (harness.ts stackCommand): with containers that is `docker stop` and
 * `docker start` of the same container, which keeps its data as stack.sh's stop-* does (Kafka's log dir in the
 * container, the registry's H2 database in a file instead of Apicurio's default in-memory one).
 */
import { spawn } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from '../../scripts/free-port.js';

export const DEFAULT_KAFKA_IMAGE = 'apache/kafka:4.1.2';
export const DEFAULT_REGISTRY_IMAGE = 'apicurio/apicurio-registry:3.3.3';

/** Where the global setup leaves the containers for the test workers (JSON of {@link ContainerStackInfo}). */
export const CONTAINERS_VARIABLE = 'TEST_STACK_CONTAINERS';

export interface ContainerStackInfo {
  readonly kafka: string;
  readonly registry: string;
  readonly kafkaBrokers: string;
  readonly registryUrl: string;
  readonly registryManagementPort: number;
}

export interface ContainerStack extends ContainerStackInfo {
  stop(): Promise<void>;
}

export function stackImages(): { kafka: string; registry: string } {
  return { kafka: process.env.KAFKA_IMAGE ?? DEFAULT_KAFKA_IMAGE, registry: process.env.REGISTRY_IMAGE ?? DEFAULT_REGISTRY_IMAGE };
}

/** Starts Kafka and the registry (in parallel) and waits until both answer; removes both when either fails. */
export async function startContainerStack(log: (line: string) => void): Promise<ContainerStack> {
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  // Host networking: the services are on loopback. It also spares testcontainers its look for the default bridge
  // network's gateway, which fails on an engine without one (scripts/docker-engine.sh runs dockerd --bridge=none).
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
  const { GenericContainer, Wait } = await import('testcontainers');
  const images = stackImages();
  const [kafkaPort, controllerPort, registryPort, managementPort] = await distinctFreePorts();
  const labels = { 'toolcall-normalizer.test-stack': `${process.pid}` };
  log(`testcontainers: ${images.kafka} on 127.0.0.1:${kafkaPort}, ${images.registry} on 127.0.0.1:${registryPort} (host network)`);

  const kafka = new GenericContainer(images.kafka)
    .withNetworkMode('host')
    .withLabels(labels)
    .withEnvironment({
      CLUSTER_ID: '4L6g3nShT-eMCtK--X86sw',
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://127.0.0.1:${kafkaPort},CONTROLLER://127.0.0.1:${controllerPort}`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${kafkaPort}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'PLAINTEXT',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: `1@127.0.0.1:${controllerPort}`,
      // As scripts/stack.sh: one node, so replication factor 1 everywhere (groups and transactions hang otherwise).
      KAFKA_NUM_PARTITIONS: '3',
      KAFKA_DEFAULT_REPLICATION_FACTOR: '1',
      KAFKA_MIN_INSYNC_REPLICAS: '1',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '10',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: '10',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_HEAP_OPTS: '-Xms256m -Xmx512m',
      KAFKA_JVM_PERFORMANCE_OPTS: '-XX:TieredStopAtLevel=1 -XX:+UseG1GC -Djava.awt.headless=true',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(180_000);

  const registry = new GenericContainer(images.registry)
    .withNetworkMode('host')
    .withLabels(labels)
    .withEnvironment({
      QUARKUS_HTTP_HOST: '127.0.0.1',
      QUARKUS_HTTP_PORT: String(registryPort),
      QUARKUS_MANAGEMENT_HOST: '127.0.0.1',
      QUARKUS_MANAGEMENT_PORT: String(managementPort),
      APICURIO_STORAGE_KIND: 'sql',
      APICURIO_STORAGE_SQL_KIND: 'h2',
      APICURIO_DATASOURCE_URL: 'jdbc:h2:file:/tmp/registry/db/registry;DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0',
      APICURIO_DATASOURCE_USERNAME: 'sa',
      APICURIO_DATASOURCE_PASSWORD: 'sa',
      APICURIO_REST_DELETION_GROUP_ENABLED: 'true',
      APICURIO_REST_DELETION_ARTIFACT_ENABLED: 'true',
      APICURIO_REST_DELETION_ARTIFACT_VERSION_ENABLED: 'true',
      JAVA_OPTS_APPEND: '-XX:TieredStopAtLevel=1 -Xms128m -Xmx512m',
    })
    .withWaitStrategy(Wait.forLogMessage(/Listening on: http/))
    .withStartupTimeout(180_000);

  const started = await Promise.allSettled([kafka.start(), registry.start()]);
  const running = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  const stop = async (): Promise<void> => {
    await Promise.allSettled(running.map((c) => c.stop({ timeout: 10_000 })));
  };
  if (failed.length > 0) {
    await stop();
    throw new Error(
      'testcontainers could not start the stack ' +
        `(${images.kafka}, ${images.registry}): ${failed.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}`,
    );
  }
  const [kafkaContainer, registryContainer] = running;
  if (kafkaContainer === undefined || registryContainer === undefined) throw new Error('testcontainers returned no container');
  const info: ContainerStackInfo = {
    kafka: kafkaContainer.getId(),
    registry: registryContainer.getId(),
    kafkaBrokers: `127.0.0.1:${kafkaPort}`,
    registryUrl: `http://127.0.0.1:${registryPort}/apis/ccompat/v7`,
    registryManagementPort: managementPort,
  };
  try {
    await Promise.all([kafkaReady(info.kafkaBrokers, Date.now() + 60_000), registryReady(info, Date.now() + 60_000)]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...info, stop };
}

async function distinctFreePorts(): Promise<[number, number, number, number]> {
  const ports = new Set<number>();
  while (ports.size < 4) ports.add(await freePort());
  const [a = 0, b = 0, c = 0, d = 0] = [...ports];
  return [a, b, c, d];
}

/** The container stack the global setup started, when it did (read in the test workers). */
export function containerStackInfo(): ContainerStackInfo | undefined {
  const raw = process.env[CONTAINERS_VARIABLE];
  return raw === undefined || raw === '' ? undefined : (JSON.parse(raw) as ContainerStackInfo);
}

/**
 * stack.sh's fault commands for the container stack: `docker stop` (SIGTERM, SIGKILL after 20 s, as
 * STACK_STOP_TIMEOUT) or `docker start`, then wait until the service answers again.
 */
export async function containerStackCommand(
  info: ContainerStackInfo,
  command: 'stop-registry' | 'start-registry' | 'stop-kafka' | 'start-kafka',
  timeoutMs: number,
): Promise<string> {
  const [action, service] = command.split('-') as ['stop' | 'start', 'kafka' | 'registry'];
  const id = service === 'kafka' ? info.kafka : info.registry;
  const deadline = Date.now() + timeoutMs;
  const args = action === 'stop' ? ['stop', '-t', '20', id] : ['start', id];
  const result = await dockerCli(args, timeoutMs);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} failed (status ${String(result.code)}): ${result.output}`);
  if (action === 'start') {
    if (service === 'kafka') await kafkaReady(info.kafkaBrokers, deadline);
    else await registryReady(info, deadline);
  }
  return result.output;
}

async function dockerCli(args: readonly string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const child = spawn('docker', [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => {
    child.once('close', resolve);
    child.once('error', () => {
      resolve(null);
    });
  }).finally(() => {
    clearTimeout(timer);
  });
  return { code, output: Buffer.concat(chunks).toString('utf8') };
}

/** Until the broker answers a metadata request with itself as controller. */
async function kafkaReady(brokers: string, deadline: number): Promise<void> {
  const admin = new Kafka({
    clientId: 'test-stack-ready',
    brokers: [brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    retry: { retries: 0 },
  }).admin();
  let last = '';
  try {
    for (;;) {
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.controller !== null && cluster.brokers.length > 0) return;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
        await admin.disconnect().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new Error(`Kafka on ${brokers} did not answer in time${last === '' ? '' : ` (${last})`}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Until /health/ready on the management port and the Confluent-compatible API both answer 200 (as stack.sh). */
async function registryReady(info: ContainerStackInfo, deadline: number): Promise<void> {
  let last = '';
  for (;;) {
    try {
      const health = await fetch(`http://127.0.0.1:${info.registryManagementPort}/health/ready`, { signal: AbortSignal.timeout(3_000) });
      await health.text();
      const subjects = await fetch(`${info.registryUrl}/subjects`, { signal: AbortSignal.timeout(3_000) });
      await subjects.text();
      if (health.status === 200 && subjects.status === 200) return;
      last = `health ${health.status}, subjects ${subjects.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) throw new Error(`the registry on ${info.registryUrl} did not answer in time (${last})`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
