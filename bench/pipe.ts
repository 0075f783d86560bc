/**
 * The pass-through pipe the worker is measured against (bench/worker.ts): consumes the input topic and produces
 * every record's bytes unchanged (key, value, headers) to one output topic, on the same client (kafkajs) with
 * the same consumer and producer settings and the same delivery code path as src/app/worker/worker.ts:
 *
 * - exactly-once: one transactional producer per input partition (`<prefix>-<topic>-<partition>`), claimed
 *   with an empty transaction before the committed offset is read; each fetched batch is produced, its offsets
 *   sent with sendOffsets and committed in one transaction;
 * - at-least-once: one idempotent producer; sendBatch, then commitOffsets.
 *
 * Only the work in between differs: where the worker decodes, normalizes, validates and serializes, the pipe
 * copies. So worker / pipe is the cost of our code on this client. Not part of the product.
 *
 * Run as a process (as the worker is): `node --import tsx bench/pipe.ts`, configured by the worker's own
 * variables: KAFKA_BROKERS, INPUT_TOPIC, OUTPUT_TOPIC, GROUP_ID, DELIVERY, TRANSACTIONAL_ID_PREFIX,
 * KAFKA_FETCH_MAX_WAIT_MS, KAFKA_SESSION_TIMEOUT_MS; PIPE_CLIENT picks the client (kafkajs, the default;
 * platformatic: bench/pipe-platformatic.ts; confluent: bench/pipe-confluent.ts); PIPE_SHAPE=output writes records
 * shaped like the worker's output. It prints `pipe ready` on stdout once it consumes, and stops cleanly on SIGTERM.
 */
import { pathToFileURL } from 'node:url';
import { pipeConfigFromEnv, type Pipe } from './pipe-common.js';

async function main(): Promise<void> {
  const config = pipeConfigFromEnv();
  const client = process.env.PIPE_CLIENT ?? 'kafkajs';
  let pipe: Pipe;
  if (client === 'kafkajs') pipe = (await import('./pipe-kafkajs.js')).kafkajsPipe(config);
  else if (client === 'platformatic') pipe = (await import('./pipe-platformatic.js')).platformaticPipe(config);
  else if (client === 'confluent') pipe = (await import('./pipe-confluent.js')).confluentPipe(config);
  else throw new Error(`PIPE_CLIENT must be kafkajs, platformatic or confluent, got ${client}`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    pipe.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`pipe: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await pipe.start();
  process.stdout.write(`pipe ready (${client}, ${config.delivery}, ${config.shape})\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`pipe: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
