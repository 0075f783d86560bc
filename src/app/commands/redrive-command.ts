/**
 * `toolcall-normalizer redrive`: sends dead letters or rejected calls back to the input topic (or another) once
 * whatever set them aside is fixed (docs/redrive.md). The selection's consumer group records how far it went, in
 * the same transaction as the records it sent, so running the same redrive again adds nothing.
 */
import { readFile } from 'node:fs/promises';
import { loadKafkaConfig, type WorkerConfig } from '../../config/config.js';
import type { Selection } from '../../core/records/redrive.js';
import { forTerminal } from '../../core/shared/text.js';
import type { KafkaConnection } from '../../adapters/kafka/connection.js';
import { configOrUsage, parseCommandArgs, UsageError } from './usage.js';

export const REDRIVE_USAGE = `Usage: toolcall-normalizer redrive --from TOPIC [--to TOPIC] [filters] [--dry-run] [--json]

Reads dead letters (DLQ_TOPIC) or rejected calls (REJECTED_TOPIC) and sends each selected record's original value
back to the input topic, with its key, its headers and its idempotency-key, exactly once per selection: a second
run of the same command sends nothing that the first sent. Nothing on the source topic is deleted or moved.
The brokers and their security come from the worker's environment (KAFKA_BROKERS, KAFKA_SSL*, KAFKA_SASL*,
KAFKA_COMPRESSION); see docs/redrive.md.

Options:
  --from TOPIC         The topic to read: the dead-letter or the rejected topic (required)
  --to TOPIC           Where the originals go (default: INPUT_TOPIC, else tool-calls.raw)
  --since TIME         Only records written at or after TIME (ISO 8601, or milliseconds since the epoch)
  --until TIME         Only records written before TIME
  --offsets LIST       Only these offsets: P:FROM-TO (TO exclusive, may be left out), comma-separated
  --code CODE          Only records with this error code (repeatable, or comma-separated)
  --tool NAME          Only calls of this tool (repeatable, or comma-separated)
  --key KEY            Only records with this key (repeatable)
  --keys-file FILE     Only records whose key is a line of FILE
  --dry-run            Count what would be sent, by error code and tool; send nothing, commit nothing
  --json               Print the summary as JSON

Exit status: 0 when the selection is redriven (records that hold no original are listed, and skipped); 1 when
the redrive failed (what it committed stays, a new run goes on from there); 2 on a usage or configuration error.`;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  offsets: { type: 'string' },
  code: { type: 'string', multiple: true },
  tool: { type: 'string', multiple: true },
  key: { type: 'string', multiple: true },
  'keys-file': { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A time as milliseconds since the epoch. */
export function parseTime(text: string, flag: string): bigint {
  if (/^\d+$/.test(text)) return BigInt(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new UsageError(`--${flag}: "${forTerminal(text)}" is not an ISO 8601 time or milliseconds since the epoch`, REDRIVE_USAGE);
  return BigInt(ms);
}

/** `P:FROM-TO` entries, comma-separated (TO exclusive, optional). */
export function parseOffsets(text: string): Selection['offsets'] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      const match = /^(\d+):(\d+)-(\d*)$/.exec(entry);
      if (match === null) throw new UsageError(`--offsets: "${forTerminal(entry)}" is not PARTITION:FROM-TO`, REDRIVE_USAGE);
      const from = BigInt(match[2] ?? '0');
      const to = match[3] === undefined || match[3] === '' ? undefined : BigInt(match[3]);
      if (to !== undefined && to <= from) throw new UsageError(`--offsets: "${entry}" ends before it starts`, REDRIVE_USAGE);
      return { partition: Number(match[1]), from, to };
    });
}

function listOf(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export async function redriveMain(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, REDRIVE_USAGE);
  if (values.help === true) {
    process.stdout.write(`${REDRIVE_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${forTerminal(positionals[0] ?? '')}"`, REDRIVE_USAGE);
  if (values.from === undefined) throw new UsageError('--from TOPIC is required (the dead-letter or the rejected topic)', REDRIVE_USAGE);
  const config = configOrUsage('redrive', loadKafkaConfig);
  if (config === undefined) return 2;
  const keys = listOf(values.key);
  if (values['keys-file'] !== undefined) {
    const text = await readFile(values['keys-file'], 'utf8').catch((error: unknown) => {
      throw new UsageError(
        `--keys-file: cannot read "${forTerminal(values['keys-file'] ?? '')}" (${error instanceof Error ? error.message : String(error)})`,
        REDRIVE_USAGE,
      );
    });
    keys.push(...text.split(/\r?\n/).filter((line) => line !== ''));
  }
  const selection: Selection = {
    source: values.from,
    target: values.to ?? config.topics.input,
    since: values.since === undefined ? undefined : parseTime(values.since, 'since'),
    until: values.until === undefined ? undefined : parseTime(values.until, 'until'),
    offsets: values.offsets === undefined ? [] : parseOffsets(values.offsets),
    codes: listOf(values.code),
    tools: listOf(values.tool),
    keys,
  };
  if (selection.source === selection.target) throw new UsageError('--from and --to must differ', REDRIVE_USAGE);
  if (selection.since !== undefined && selection.until !== undefined && selection.until <= selection.since)
    throw new UsageError('--until must be after --since', REDRIVE_USAGE);
  const dryRun = values['dry-run'] === true;
  const { runRedrive } = await import('../../adapters/kafka/redrive.js');
  const connection = await openConnection(config);
  if (connection === 'failed') return 1;
  const progress = progressReporter(dryRun);
  let tally;
  try {
    tally = await runRedrive(connection.options, { selection, dryRun, compression: config.kafka.compression, progress });
  } finally {
    connection.stop();
  }
  progress.end();
  const byCodeAndTool = [...tally.byCodeAndTool].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (values.json === true) {
    const summary = {
      group: tally.group,
      source: selection.source,
      target: selection.target,
      dryRun,
      read: tally.read,
      selected: tally.selected,
      redriven: tally.redriven,
      byCodeAndTool: byCodeAndTool.map(([label, count]) => {
        const [code, tool] = label.split(' ');
        return { code, tool, count };
      }),
      unreadable: tally.unreadable,
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  const sent = dryRun ? `would send ${tally.selected - tally.unreadable.length}` : `sent ${tally.redriven}`;
  const lines = [
    `redrive ${selection.source} -> ${selection.target} (selection ${tally.group})${dryRun ? ', dry run: nothing sent' : ''}`,
    tally.alreadyDone
      ? '  nothing new since the last run of this selection: 0 records sent'
      : `  read ${tally.read}, selected ${tally.selected}, ${sent}`,
    ...byCodeAndTool.map(([label, count]) => `  ${String(count).padStart(8)}  ${label}`),
    ...tally.unreadable.map((u) => `  skipped ${u.topic}/${u.partition}@${u.offset}: ${forTerminal(u.reason)}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** Progress on stderr: a bar redrawn in place on a terminal, a line every few seconds otherwise. */
function progressReporter(dryRun: boolean): ((t: { total: number; read: number; selected: number; redriven: number }) => void) & {
  end(): void;
} {
  const tty = process.stderr.isTTY;
  let lastAt = 0;
  let drawn = false;
  const report = (t: { total: number; read: number; selected: number; redriven: number }): void => {
    const now = Date.now();
    if (t.total === 0 || (!tty && now - lastAt < 2_000)) return;
    lastAt = now;
    const share = Math.min(1, t.read / t.total);
    const done = dryRun ? `${t.selected} selected` : `${t.redriven} sent`;
    if (tty) {
      const width = 30;
      const filled = Math.round(share * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(share * 100)}% ${t.read}/${t.total} read, ${done}`,
      );
      drawn = true;
    } else process.stderr.write(`redrive: ${t.read}/${t.total} read (${Math.round(share * 100)}%), ${done}\n`);
  };
  return Object.assign(report, {
    end: () => {
      if (drawn) process.stderr.write('\n');
    },
  });
}

/**
 * The Kafka connection as the worker opens it; with OAUTHBEARER its token source's warnings and the one line of a
 * failure go to stderr, never a token. 'failed' once that line is written.
 */
async function openConnection(config: WorkerConfig): Promise<KafkaConnection | 'failed'> {
  const [{ openKafkaConnection }, { default: pino }] = await Promise.all([import('../../adapters/kafka/connection.js'), import('pino')]);
  const logger = pino(
    { level: 'warn', base: { service: 'toolcall-normalizer', component: 'redrive' } },
    pino.destination({ fd: 2, sync: true }),
  );
  try {
    return await openKafkaConnection(config.kafka, logger);
  } catch (error) {
    process.stderr.write(`toolcall-normalizer redrive: ${forTerminal(error instanceof Error ? error.message : String(error))}\n`);
    return 'failed';
  }
}
