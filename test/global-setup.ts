/**
 * Before the integration tests (vitest project `integration`): make sure they have a real broker and registry,
 * and export KAFKA_BROKERS and SCHEMA_REGISTRY_URL for them. Which one, by TEST_STACK:
 *
 *   (unset)          KAFKA_BROKERS and SCHEMA_REGISTRY_URL set: those. Otherwise testcontainers when a Docker
 *                    engine answers and KAFKA_IMAGE / REGISTRY_IMAGE are present locally (no pull is tried, so
 *                    the choice never depends on a registry), else the local stack. The choice is printed.
 *   local            the local stack (`scripts/stack.sh up`: idempotent, downloads cached; left running for the
 *                    next run, `npm run stack:down` stops it), unless KAFKA_BROKERS and SCHEMA_REGISTRY_URL are set.
 *   testcontainers   Kafka and the registry in containers (test/integration/testcontainers-stack.ts), whatever
 *                    KAFKA_BROKERS says; removed again when the tests end. Fails when they cannot start.
 *
 * STACK_AUTO=0 forbids starting anything; the integration tests then fail with a message saying how to get a broker.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CONTAINERS_VARIABLE, startContainerStack, stackImages, type ContainerStackInfo } from './integration/testcontainers-stack.js';

const say = (line: string): void => {
  process.stderr.write(`global-setup: ${line}\n`);
};

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const mode = process.env.TEST_STACK ?? '';
  if (mode !== '' && mode !== 'local' && mode !== 'testcontainers')
    throw new Error(`TEST_STACK must be "local" or "testcontainers" (or unset), not "${mode}"`);
  const configured = (process.env.KAFKA_BROKERS ?? '') !== '' && (process.env.SCHEMA_REGISTRY_URL ?? '') !== '';
  if (configured && mode !== 'testcontainers') return undefined;
  if (process.env.STACK_AUTO === '0') return undefined;

  let useContainers = mode === 'testcontainers';
  if (mode === '') {
    const why = containersUnavailable();
    useContainers = why === undefined;
    say(
      useContainers
        ? 'no broker configured and a Docker engine answers: starting Kafka and ' +
            'the registry with testcontainers (TEST_STACK=local for the local stack)'
        : `no broker configured; ${why}: using the local stack`,
    );
  }
  if (useContainers) {
    const stack = await startContainerStack(say);
    process.env.KAFKA_BROKERS = stack.kafkaBrokers;
    process.env.SCHEMA_REGISTRY_URL = stack.registryUrl;
    const info: ContainerStackInfo = {
      kafka: stack.kafka,
      registry: stack.registry,
      kafkaBrokers: stack.kafkaBrokers,
      registryUrl: stack.registryUrl,
      registryManagementPort: stack.registryManagementPort,
    };
    process.env[CONTAINERS_VARIABLE] = JSON.stringify(info);
    say(`testcontainers stack up: KAFKA_BROKERS=${stack.kafkaBrokers} SCHEMA_REGISTRY_URL=${stack.registryUrl}`);
    return async () => {
      await stack.stop();
    };
  }
  startLocalStack();
  return undefined;
}

/** Why the default does not take testcontainers (undefined: it does). */
function containersUnavailable(): string | undefined {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 15_000 });
  if (info.status !== 0) return 'no Docker engine answers';
  const images = stackImages();
  const missing = [images.kafka, images.registry].filter(
    (image) => spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore', timeout: 15_000 }).status !== 0,
  );
  if (missing.length > 0)
    return (
      `a Docker engine answers but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not present ` +
      `locally (\`npm run images\` builds KAFKA_IMAGE and REGISTRY_IMAGE offline; set them to its lines)`
    );
  return undefined;
}

function startLocalStack(): void {
  const script = fileURLToPath(new URL('../scripts/stack.sh', import.meta.url));
  say('KAFKA_BROKERS/SCHEMA_REGISTRY_URL not set: starting the local stack (scripts/stack.sh up)');
  let out: string;
  try {
    out = execFileSync('bash', [script, 'up'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 });
  } catch (error) {
    say(
      `could not start the local stack (${error instanceof Error ? error.message : String(error)}); ` +
        'integration tests will fail. Run "npm run stack:up" to see why.',
    );
    return;
  }
  for (const line of out.split('\n')) {
    const match = /^(KAFKA_BROKERS|SCHEMA_REGISTRY_URL)=(.+)$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) process.env[match[1]] = match[2];
  }
}
