/**
 * `npm run demo`: the main job end to end on a local default, as a new user would run it.
 *
 * 1. starts the local stack (real Kafka + Apicurio Registry; scripts/stack.sh) unless one is running;
 * 2. pushes the example tool definitions (examples/tools) to the registry with `schemas push`;
 * 3. produces examples/calls.jsonl (clean, repairable, invalid and unprocessable calls in every envelope, and
 *    whole assistant messages that fan out into several calls) to a fresh input topic;
 * 4. runs the worker (`toolcall-normalizer run`) until every call has come out, then stops it (SIGTERM);
 * 5. prints what came out on each topic, with the repair and pass-through counts from /metrics;
 * 6. stops the stack if this demo started it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { decodeRecord } from '../src/core/records/envelope.js';
import { tryParseJson } from '../src/core/shared/json.js';
import { freePort } from './free-port.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/cli.js`;
const stack = `${root}scripts/stack.sh`;

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

function stackIsUp(): boolean {
  try {
    execFileSync('bash', [stack, 'env'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const startedStack = !stackIsUp();
say(
  startedStack
    ? '== starting the local stack (Kafka + Apicurio Registry); first run downloads them'
    : '== using the local stack already running',
);
const env: Record<string, string> = {};
for (const line of execFileSync('bash', [stack, 'up'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).split('\n')) {
  const [name, value] = line.split('=', 2);
  if (name !== undefined && value !== undefined && value !== '') env[name] = line.slice(name.length + 1);
}
const brokers = env.KAFKA_BROKERS;
const registry = env.SCHEMA_REGISTRY_URL;
if (brokers === undefined || registry === undefined)
  throw new Error('scripts/stack.sh up did not print KAFKA_BROKERS and SCHEMA_REGISTRY_URL');
say(`   KAFKA_BROKERS=${brokers}\n   SCHEMA_REGISTRY_URL=${registry}`);

try {
  say('\n== pushing the example tool definitions (examples/tools) to the registry');
  say(
    execFileSync(process.execPath, [cli, 'schemas', 'push', '--registry', registry, `${root}examples/tools`], { encoding: 'utf8' })
      .trimEnd()
      .replace(/^/gm, '   '),
  );

  const run = `demo-${Date.now()}`;
  const topics = { input: `${run}.raw`, output: `${run}.normalized`, rejected: `${run}.rejected`, dlq: `${run}.dlq` };
  const calls = readFileSync(`${root}examples/calls.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const kafka = new Kafka({ clientId: 'demo', brokers: [brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: Object.values(topics).map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: topics.input, messages: calls.map((value, i) => ({ key: `agent-${i % 4}`, value })) });
  await producer.disconnect();
  // One output per call: a whole message fans out, anything unreadable is one dead letter.
  const reads = calls.map((line) => {
    const parsed = tryParseJson(line);
    return parsed.ok ? decodeRecord(parsed.value) : undefined;
  });
  const expected = reads.reduce((sum, read) => sum + (read?.ok === true ? read.calls.length : 1), 0);
  const messages = reads.filter((read) => read?.ok === true && read.message).length;
  say(
    `\n== produced ${calls.length} raw records to ${topics.input} (examples/calls.jsonl: every envelope; ` +
      `clean, repairable, invalid, unprocessable; ${messages} whole messages): ${expected} calls to come out`,
  );

  const port = await freePort();
  say(`== running the worker: toolcall-normalizer run (exactly-once, metrics on :${port})`);
  const worker = spawn(process.execPath, [cli, 'run'], {
    env: {
      ...process.env,
      KAFKA_BROKERS: brokers,
      SCHEMA_REGISTRY_URL: registry,
      INPUT_TOPIC: topics.input,
      OUTPUT_TOPIC: topics.output,
      REJECTED_TOPIC: topics.rejected,
      DLQ_TOPIC: topics.dlq,
      GROUP_ID: run,
      METRICS_PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) =>
    worker.once('exit', (code) => {
      resolve(code);
    }),
  );

  const received: { topic: string; message: KafkaMessage }[] = [];
  const consumer = kafka.consumer({ groupId: `${run}-reader`, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.output, topics.rejected, topics.dlq], fromBeginning: true });
  const drained = new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: ({ topic, message }) => {
        received.push({ topic, message });
        if (received.length >= expected) resolve();
        return Promise.resolve();
      },
    });
  });
  const timeout = new Promise<void>((_, reject) =>
    setTimeout(() => {
      reject(new Error(`only ${received.length} of ${expected} outputs came out within 90 s`));
    }, 90_000).unref(),
  );
  await Promise.race([drained, timeout]);
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  await consumer.disconnect();
  worker.kill('SIGTERM');
  const code = await exited;

  say(`\n== what came out (${received.length} outputs for ${calls.length} input records; worker exited ${String(code)} after SIGTERM)\n`);
  const rows = received.map(({ topic, message }) => describe(topic, message, topics)).sort((a, b) => a.order - b.order);
  const header = ['topic', 'id', 'tool', 'format', 'repairs / errors'];
  const table = [header, ...rows.map((r) => [r.topic, r.id, r.tool, r.format, r.detail])];
  const widths = header.map((_, i) => Math.min(48, Math.max(...table.map((row) => (row[i] ?? '').length))));
  for (const [n, row] of table.entries()) {
    say(row.map((cell, i) => (i === row.length - 1 ? cell : cell.slice(0, widths[i]).padEnd(widths[i] ?? 0))).join('  '));
    if (n === 0) say(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  say("\n== counts from the worker's /metrics");
  for (const name of [
    'toolcall_records_total',
    'toolcall_calls_total',
    'toolcall_repairs_total',
    'toolcall_pass_throughs_total',
    'toolcall_dead_letters_total',
  ]) {
    const sums = new Map<string, number>();
    for (const line of metrics.split('\n')) {
      const match = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`).exec(line);
      if (match === null) continue;
      const label = (match[1] ?? '').split(',').find((l) => !l.startsWith('tool=')) ?? '';
      sums.set(label, (sums.get(label) ?? 0) + Number(match[2]));
    }
    say(`   ${name.padEnd(30)} ${[...sums].map(([l, v]) => `${l.replace(/"/g, '')}: ${v}`).join(', ')}`);
  }
} finally {
  if (startedStack) {
    say('\n== stopping the local stack');
    execFileSync('bash', [stack, 'down'], { stdio: 'inherit' });
  } else {
    say('\n(the stack was already running before the demo, so it is left running; npm run stack:down stops it)');
  }
}

interface Row {
  order: number;
  topic: string;
  id: string;
  tool: string;
  format: string;
  detail: string;
}

function describe(topic: string, message: KafkaMessage, topics: { output: string; rejected: string; dlq: string }): Row {
  const kind = topic === topics.output ? 'normalized' : topic === topics.rejected ? 'rejected' : 'dead-letter';
  const headers = message.headers ?? {};
  const header = (name: string): string => String(headers[name] ?? '');
  if (kind === 'dead-letter') {
    return {
      order: 1000 + Number(header('__connect.errors.offset')),
      topic: kind,
      id: '-',
      tool: '-',
      format: '-',
      detail: `${header('toolcall-error-code')}: ${header('__connect.errors.exception.message').slice(0, 70)}`,
    };
  }
  const value = JSON.parse(message.value?.toString() ?? '{}') as {
    id: string | null;
    tool: string | null;
    format: string | null;
    /** Left out when empty. */
    repairs?: { pointer: string; kind: string }[];
    errors: { code: string; path: string }[];
    source: { offset: string; partition: number };
  };
  const detail =
    kind === 'normalized'
      ? value.repairs === undefined
        ? 'clean'
        : value.repairs.map((r) => `${r.kind} ${r.pointer}`).join(', ')
      : value.errors.map((e) => `${e.code} ${e.path}`).join(', ');
  return {
    order: Number(value.id?.replace(/\D/g, '') ?? 0),
    topic: kind,
    id: value.id ?? '-',
    tool: value.tool ?? '-',
    format: value.format ?? '-',
    detail,
  };
}
