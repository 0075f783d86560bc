/**
 * `npm run bench:encode`: what the Kafka client spends encoding one produced record, in process, no broker.
 * Encodes the bench corpus as the pipe writes it (the input record and its one header), as the worker writes
 * it (its output record, OUTPUT_SIZE_FACTOR times larger) and with each extra header, through kafkajs's own record-batch
 * encoder (the code its producer runs for every record), and through @platformatic/kafka's. Prints µs per
 * record, median of the rounds.
 *
 * Why: the worker's output costs the client far more than its bytes suggest. kafkajs allocates a zero-filled
 * 512-byte buffer per record and per header, grows and copies the record's when it passes 512 bytes, and
 * writes every varint through a temporary Buffer; this bench puts a figure on each of those.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeCorpus } from './corpus.js';
import { outputShapedText } from './pipe-common.js';

const gc = (globalThis as { gc?: () => void }).gc;
const RECORDS = 1_000; // one produce request's worth: about what the worker sends per 512 KiB request
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 201);

type Headers = Record<string, string>;
interface Shape {
  readonly name: string;
  readonly value: (input: string) => string;
  readonly headers: (i: number) => Headers;
}

const outputSized = outputShapedText;
const producedAt: Headers = { 'bench-produced-at': '1764460800000' };
const SHAPES: readonly Shape[] = [
  { name: 'input record, 1 header (the pipe)', value: (v) => v, headers: () => producedAt },
  { name: 'output-sized record, 1 header', value: outputSized, headers: () => producedAt },
  {
    name: 'output-sized, + idempotency-key (the worker now)',
    value: outputSized,
    headers: (i) => ({ ...producedAt, 'idempotency-key': `call_${i}` }),
  },
  {
    name: 'output-sized, + idempotency-key + disposition (before)',
    value: outputSized,
    headers: (i) => ({ ...producedAt, 'idempotency-key': `call_${i}`, 'toolcall-disposition': 'normalized' }),
  },
];

interface Encoder {
  readonly client: string;
  encode(messages: readonly { key: Buffer; value: string; headers: Headers }[]): unknown;
}

/** kafkajs's producer path for one partition's records: Record (v0) per message, then the RecordBatch (v2 format). */
function kafkajsEncoder(): Encoder {
  const require = createRequire(import.meta.url);
  const kafkajsDir = join(require.resolve('kafkajs'), '..', 'src'); // its main is index.js beside src/
  const Record = require(join(kafkajsDir, 'protocol/recordBatch/record/v0')) as (r: object) => unknown;
  const { RecordBatch } = require(join(kafkajsDir, 'protocol/recordBatch/v0')) as { RecordBatch: (b: object) => Promise<unknown> };
  return {
    client: 'kafkajs 2.2.4',
    encode: (messages) =>
      RecordBatch({
        transactional: true,
        records: messages.map((m, i) => Record({ offsetDelta: i, key: m.key, value: m.value, headers: m.headers })),
      }),
  };
}

async function platformaticEncoder(): Promise<Encoder> {
  const main = createRequire(import.meta.url).resolve('@platformatic/kafka');
  const records = pathToFileURL(join(main, '..', 'protocol', 'records.js')).href;
  const { createRecordsBatch } = (await import(records)) as { createRecordsBatch: (m: object[], o: object) => unknown };
  return {
    client: '@platformatic/kafka',
    // Without serializers the client takes bytes: the worker would hand it Buffers.
    encode: (messages) =>
      createRecordsBatch(
        messages.map((m) => ({
          topic: 't',
          partition: 0,
          key: m.key,
          value: Buffer.from(m.value),
          headers: new Map(Object.entries(m.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])),
        })),
        { transactionalId: 'bench' },
      ),
  };
}

const corpus = makeCorpus(RECORDS);
const key = Buffer.from('key-0001');

/** Times one client on one shape: µs per record, median of the rounds after a quarter of warm-up rounds. */
async function timeShape(encoder: Encoder, shape: Shape): Promise<number> {
  const messages = corpus.map((line, i) => ({ key, value: shape.value(line), headers: shape.headers(i) }));
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // A full collection before each timing (node --expose-gc, as `npm run bench:encode` runs it): a round pays
    // for its own garbage, not for what the previous one left behind.
    gc?.();
    const start = process.hrtime.bigint();
    await encoder.encode(messages);
    times.push(Number(process.hrtime.bigint() - start) / 1e3 / RECORDS);
  }
  const measured = times.slice(Math.floor(ROUNDS / 4)).sort((a, b) => a - b);
  return measured[Math.floor(measured.length / 2)] ?? NaN;
}

const [, , mode, clientArg, shapeArg] = process.argv;
if (mode === '--child') {
  // One client and one shape per process: in one process the JIT state and heap that one shape leaves behind
  // move the next shape's figure by more than the differences measured here.
  const encoder = clientArg === 'platformatic' ? await platformaticEncoder() : kafkajsEncoder();
  const shape = SHAPES[Number(shapeArg)];
  if (shape === undefined) throw new Error(`bench:encode: no shape ${String(shapeArg)}`);
  process.stdout.write(`${String(await timeShape(encoder, shape))}\n`);
} else {
  const clients = [
    { id: 'kafkajs', name: 'kafkajs 2.2.4' },
    { id: 'platformatic', name: '@platformatic/kafka' },
  ];
  process.stdout.write(
    `bench:encode: ${String(RECORDS)} corpus records per batch, ${String(ROUNDS)} ` +
      `rounds, median µs per record, a process per figure (node ${process.version})\n`,
  );
  for (const client of clients) {
    process.stdout.write(`\n${client.name}\n`);
    let base = NaN;
    for (const [i, shape] of SHAPES.entries()) {
      const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', client.id, String(i)], {
        encoding: 'utf8',
      });
      const m = Number(out.trim());
      if (i === 0) base = m;
      process.stdout.write(`  ${shape.name.padEnd(58)} ${m.toFixed(2).padStart(6)} µs  (${(m / base).toFixed(2)}x the pipe's record)\n`);
    }
  }
}
