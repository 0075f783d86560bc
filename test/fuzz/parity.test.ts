/**
 * Parity of the worker and the CLI: the same records through the worker's path (the `Worker` class driven in
 * process through the in-memory port of test/unit/app/worker/fake-port.ts, schemas fetched through its cache)
 * and through the CLI's (`normalize`: `processRecord`, and `normalizeStream` itself for the example traffic) give
 * equal outputs, Kafka metadata aside (topic names, keys, headers other than the error, schema ids, source
 * coordinates). The records: the fuzz corpus (the campaign's arbitraries, sampled with the campaign's seed) and
 * examples/calls.jsonl with examples/tools.
 */
import { readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaDir } from '../../src/adapters/files/schema-dir.js';
import { normalizeStream } from '../../src/app/commands/normalize-command.js';
import { DEFAULT_NORMALIZE_OPTIONS } from '../../src/core/rule/normalize.js';
import {
  DEFAULT_PIPELINE_OPTIONS,
  NO_EXEMPTIONS,
  parseEntityExemptions,
  processRecord,
  type PipelineOptions,
} from '../../src/core/pipeline.js';
import { HEADER, type OutputMessage, type OutputTopics } from '../../src/core/records/output.js';
import type { CompiledTool } from '../../src/core/schema/tool.js';
import type { JsonValue } from '../../src/core/shared/json.js';
import { truncate } from '../../src/core/shared/text.js';
import type { OutputRecord } from '../../src/core/shared/types.js';
import { createSchemaCompiler } from '../../src/core/validation/validate.js';
import { batchOf, fakeWorker, FakeSchemas } from '../unit/app/worker/fake-port.js';
import { arbitraryBytes, envelopeRecord, layout, messageRecord } from './arbitraries.js';
import { FUZZ_SEED } from './harness.js';
import { loadCampaignTools } from './tools.js';

/** Records per arbitrary and option set: the corpus is sampled, not shrunk, so a mismatch names its record. */
const SAMPLES = 1_000;

/**
 * The worker bounds each output value (MAX_OUTPUT_BYTES, a Kafka limit the CLI has no use for): set far above
 * any record here, so what is compared is the chain, not the bound (test/unit/core/records/output.test.ts).
 */
const NO_BOUND = 1 << 30;

/** Dead letters carry the input as it was; the error travels in headers, its message cut as a header's is. */
const MAX_HEADER_MESSAGE = 1000;

const OPTION_SETS: readonly (readonly [string, PipelineOptions])[] = [
  ['defaults', DEFAULT_PIPELINE_OPTIONS],
  ['deep', { ...DEFAULT_PIPELINE_OPTIONS, normalize: { ...DEFAULT_NORMALIZE_OPTIONS, deep: true } }],
  ['exemptions', { ...DEFAULT_PIPELINE_OPTIONS, entityExemptions: parseEntityExemptions(['write_file', 'search_issues/query']) }],
  [
    'small limits',
    {
      limits: { maxRecordBytes: 512, maxDepth: 3 },
      normalize: { ...DEFAULT_NORMALIZE_OPTIONS, maxDepth: 3, maxEntityPasses: 1 },
      entityExemptions: NO_EXEMPTIONS,
    },
  ],
];

/** What both paths say of one call, as JSON text (so `__proto__` keys compare as the data they are). */
function fromRecord(record: OutputRecord): string {
  if (record.disposition === 'dead_letter') {
    const error = record.errors[0];
    return JSON.stringify(['dead_letter', error?.code, truncate(error?.message ?? '', MAX_HEADER_MESSAGE)]);
  }
  const errors = record.disposition === 'rejected' ? record.errors : [];
  return JSON.stringify([
    record.disposition,
    record.id,
    record.tool,
    record.format,
    record.arguments,
    errors,
    record.repairs,
    record.passThroughs,
  ]);
}

function fromMessage(message: OutputMessage, topics: OutputTopics): string {
  if (message.topic === topics.dlq) {
    return JSON.stringify(['dead_letter', message.headers[HEADER.errorCode], message.headers[HEADER.dlqMessage]]);
  }
  const value = JSON.parse(String(message.value)) as Record<string, JsonValue | undefined>;
  return JSON.stringify([
    message.topic === topics.output ? 'normalized' : 'rejected',
    value.id,
    value.tool,
    value.format,
    value.arguments,
    value.errors ?? [],
    value.repairs ?? [],
    value.passThroughs ?? [],
  ]);
}

/** The worker's outputs for `records`, one batch, as what they say of each call. */
async function throughWorker(
  records: readonly Buffer[],
  tools: ReadonlyMap<string, CompiledTool>,
  options: PipelineOptions,
): Promise<string[]> {
  // Not cached: each tool's first call goes through the fetch, the rest through the cache, as in production.
  const { stream, config } = await fakeWorker(new FakeSchemas(tools), { pipeline: options, maxOutputBytes: NO_BOUND });
  const result = await stream.deliver(batchOf(records));
  expect(result.lastOffset).toBe(String(records.length - 1));
  return result.outputs.map((message) => fromMessage(message, config.topics));
}

/** The CLI's outputs (normalize's `processRecord`, per record), in the same order. */
function throughCli(records: readonly Buffer[], tools: ReadonlyMap<string, CompiledTool>, options: PipelineOptions): string[] {
  return records.flatMap((record) => processRecord(record, (name) => tools.get(name), options).map(fromRecord));
}

/** Compared record by record, so a mismatch names the record and both sides. */
async function expectParity(
  records: readonly Buffer[],
  tools: ReadonlyMap<string, CompiledTool>,
  options: PipelineOptions,
): Promise<number> {
  const worker = await throughWorker(records, tools, options);
  let at = 0;
  for (const [i, record] of records.entries()) {
    const cli = processRecord(record, (name) => tools.get(name), options).map(fromRecord);
    const ours = worker.slice(at, at + cli.length);
    at += cli.length;
    if (JSON.stringify(ours) !== JSON.stringify(cli)) {
      expect({ record: i, text: record.toString('utf8').slice(0, 300), worker: ours }).toEqual({
        record: i,
        text: record.toString('utf8').slice(0, 300),
        worker: cli,
      });
    }
  }
  expect(worker).toHaveLength(at);
  expect(worker).toEqual(throughCli(records, tools, options));
  return at;
}

let campaign: ReadonlyMap<string, CompiledTool>;

beforeAll(async () => {
  campaign = (await loadCampaignTools()).tools;
});

const CORPUS: readonly (readonly [string, fc.Arbitrary<Buffer>])[] = [
  ['arbitrary bytes and wire-format headers', arbitraryBytes],
  [
    'every envelope shape, mutated, some in the wire format',
    fc.tuple(envelopeRecord, layout, fc.boolean()).map(([envelope, write, wire]) => {
      const payload = Buffer.from(write(envelope.value));
      return wire ? Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), payload]) : payload;
    }),
  ],
  ['whole messages that fan out', fc.tuple(messageRecord, layout).map(([message, write]) => Buffer.from(write(message.value)))],
];

describe('worker and CLI give the same outputs', () => {
  for (const [corpus, arbitrary] of CORPUS) {
    for (const [i, [name, options]] of OPTION_SETS.entries()) {
      it(`the fuzz corpus: ${corpus} (${name})`, async () => {
        const records = fc.sample(arbitrary, { seed: FUZZ_SEED + i, numRuns: SAMPLES });
        const outputs = await expectParity(records, campaign, options);
        expect(outputs).toBeGreaterThanOrEqual(SAMPLES);
      });
    }
  }

  it('the example traffic (examples/calls.jsonl with examples/tools), through normalizeStream itself', async () => {
    const { tools } = await loadSchemaDir(fileURLToPath(new URL('../../examples/tools', import.meta.url)), createSchemaCompiler());
    const text = readFileSync(new URL('../../examples/calls.jsonl', import.meta.url), 'utf8');
    const lines = text.split('\n').filter((line) => line !== '');
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    await normalizeStream(Readable.from([Buffer.from(text)]), sink, tools, DEFAULT_PIPELINE_OPTIONS);
    sink.end();
    const cli = Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => fromRecord(JSON.parse(line) as OutputRecord));
    const worker = await throughWorker(
      lines.map((line) => Buffer.from(line)),
      tools,
      DEFAULT_PIPELINE_OPTIONS,
    );
    expect(worker).toEqual(cli);
    // The traffic has every disposition: the comparison is not of empty sides.
    const dispositions = new Set(cli.map((line) => (JSON.parse(line) as [string])[0]));
    expect([...dispositions].sort()).toEqual(['dead_letter', 'normalized', 'rejected']);
  });
});
