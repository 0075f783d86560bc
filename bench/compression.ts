/**
 * `npx tsx bench/compression.ts`: bytes on the broker and calls/s for each KAFKA_COMPRESSION, side by side, on each
 * client of BENCH_CLIENTS (default `kafkajs,platformatic`). For each codec the worker (`node dist/cli.js run`,
 * exactly-once) drains a backlog of BENCH_CALLS (default 20000) calls of the benchmark corpus (bench/corpus.ts:
 * distinct, realistic calls; the same for every codec) from fresh topics; the figures are
 * the drain's calls/s (first to last committed input offset, read every 100 ms) and the bytes the broker's log
 * directories hold for the three output topics (DescribeLogDirs). Needs `npm run build` and a running stack
 * (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, as the integration tests); prints one table.
 */
import { Admin } from '@platformatic/kafka';
import { COMPRESSIONS } from '../src/core/shared/stream.js';
import { makeCorpus } from './corpus.js';
import {
  committedInputRecords,
  freshTopics,
  outputTopics,
  produce,
  pushExampleSchemas,
  stackEnv,
  startReadyWorker,
  stopWorkersAndCloseClients,
  uniqueSubjectTemplate,
  topicEnv,
  sleep,
} from '../test/integration/harness.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const CLIENTS = (process.env.BENCH_CLIENTS ?? 'kafkajs,platformatic').split(',').map((c) => c.trim());

async function brokerBytes(topics: readonly string[]): Promise<bigint> {
  const admin = new Admin({ clientId: 'bench-compression', bootstrapBrokers: [...stackEnv().brokers] });
  try {
    const answer = await admin.describeLogDirs({ topics: topics.map((name) => ({ name, partitions: [0, 1, 2] })) });
    let total = 0n;
    for (const broker of answer)
      for (const dir of broker.results) for (const t of dir.topics) for (const p of t.partitions) total += p.partitionSize;
    return total;
  } finally {
    await admin.close();
  }
}

async function main(): Promise<void> {
  const template = uniqueSubjectTemplate('bcz');
  await pushExampleSchemas(template);
  const rows: string[] = [];
  const calls = makeCorpus(CALLS).map((value, i) => ({ key: `k${String(i % 30)}`, value }));
  const inputBytes = calls.reduce((sum, c) => sum + Buffer.byteLength(c.value), 0);
  for (const client of CLIENTS) {
    for (const codec of COMPRESSIONS) {
      const topics = await freshTopics(`bcz-${client}-${codec}`, 3);
      await produce(topics.input, calls);
      const worker = await startReadyWorker({
        ...topicEnv(topics),
        SUBJECT_TEMPLATE: template,
        KAFKA_CLIENT: client,
        KAFKA_COMPRESSION: codec,
      });
      let first: number | undefined;
      let done = 0;
      const deadline = Date.now() + 600_000;
      for (;;) {
        done = await committedInputRecords(topics);
        if (done > 0) first ??= Date.now();
        if (done >= CALLS || Date.now() > deadline) break;
        await sleep(100);
      }
      const seconds = (Date.now() - (first ?? Date.now())) / 1000;
      await worker.stop();
      const bytes = await brokerBytes(outputTopics(topics));
      rows.push(
        `| ${client} | ${codec} | ${(Number(bytes) / 1_048_576).toFixed(2)} MiB | ${(Number(bytes) / CALLS).toFixed(0)} | ${seconds > 0 ? Math.round(done / seconds) : '-'} |`,
      );
      console.error(rows.at(-1));
    }
  }
  console.log(
    `\n${CALLS} calls of bench/corpus.ts per run (${(inputBytes / 1_048_576).toFixed(2)} MiB of values), exactly-once, 3 partitions\n`,
  );
  console.log('| client | KAFKA_COMPRESSION | output bytes on the broker | bytes/call | calls/s |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => void stopWorkersAndCloseClients());
