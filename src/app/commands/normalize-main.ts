import { createReadStream, createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { loadSchemaDir } from '../../adapters/files/schema-dir.js';
import { DEFAULT_NORMALIZE_OPTIONS, MAX_CONFIGURABLE_ENTITY_PASSES } from '../../core/rule/normalize.js';
import { pipelineOptions } from '../../core/pipeline.js';
import { DEFAULT_RECORD_LIMITS, MAX_CONFIGURABLE_DEPTH, MAX_CONFIGURABLE_RECORD_BYTES } from '../../core/records/bytes.js';
import { createSchemaCompiler } from '../../core/validation/validate.js';
import { normalizeStream } from './normalize-command.js';
import { isDirectory, isFile, listFlag, parseCommandArgs, positiveInt, UsageError } from './usage.js';

export const NORMALIZE_USAGE = `Usage: toolcall-normalizer normalize --schemas DIR [--input FILE] [--output FILE] [options]

Reads JSON Lines tool calls (stdin by default) and writes one output record per call (stdout by default): one
per line, or one per tool call of a line that is a whole assistant message, each with its line number.

Options:
  --schemas DIR              Directory of tool definitions, one <tool>.json per tool (required)
  --input FILE               Read calls from FILE instead of stdin
  --output FILE              Write records to FILE instead of stdout
  --deep                     Beyond RT-TOOL-8: also JSON-decode nested properties/items declared array/object
  --entity-exempt LIST       Beyond RT-TOOL-8: comma-separated "tool" or "tool/parameter" entries whose strings
                             keep their HTML character references (repeatable)
  --max-record-bytes N       Largest line accepted, in bytes (default ${DEFAULT_RECORD_LIMITS.maxRecordBytes})
  --max-depth N              Deepest nesting accepted (default ${DEFAULT_RECORD_LIMITS.maxDepth})
  --max-entity-passes N      Bound on entity-decoding passes per string (default ${DEFAULT_NORMALIZE_OPTIONS.maxEntityPasses})
  --summary                  Print counts to stderr at the end

Exit status: 0 when every line was processed (invalid calls are data), 1 on an I/O failure, 2 on a usage error.`;

export async function normalizeMain(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      schemas: { type: 'string' },
      input: { type: 'string' },
      output: { type: 'string' },
      deep: { type: 'boolean' },
      'entity-exempt': { type: 'string', multiple: true },
      'max-record-bytes': { type: 'string' },
      'max-depth': { type: 'string' },
      'max-entity-passes': { type: 'string' },
      summary: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    NORMALIZE_USAGE,
  );
  if (values.help === true) {
    process.stdout.write(`${NORMALIZE_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`, NORMALIZE_USAGE);
  const schemasDir = values.schemas;
  if (schemasDir === undefined) throw new UsageError('--schemas DIR is required', NORMALIZE_USAGE);
  if (!(await isDirectory(schemasDir))) throw new UsageError(`--schemas: "${schemasDir}" is not a readable directory`, NORMALIZE_USAGE);
  if (values.input !== undefined && !(await isFile(values.input))) {
    throw new UsageError(`--input: "${values.input}" is not a readable file`, NORMALIZE_USAGE);
  }

  const options = pipelineOptions({
    maxRecordBytes: positiveInt(
      values['max-record-bytes'],
      'max-record-bytes',
      DEFAULT_RECORD_LIMITS.maxRecordBytes,
      NORMALIZE_USAGE,
      MAX_CONFIGURABLE_RECORD_BYTES,
    ),
    maxDepth: positiveInt(values['max-depth'], 'max-depth', DEFAULT_RECORD_LIMITS.maxDepth, NORMALIZE_USAGE, MAX_CONFIGURABLE_DEPTH),
    maxEntityPasses: positiveInt(
      values['max-entity-passes'],
      'max-entity-passes',
      DEFAULT_NORMALIZE_OPTIONS.maxEntityPasses,
      NORMALIZE_USAGE,
      MAX_CONFIGURABLE_ENTITY_PASSES,
    ),
    deep: values.deep === true,
    entityExempt: listFlag(values['entity-exempt']),
  });

  const loaded = await loadSchemaDir(schemasDir, createSchemaCompiler());
  for (const problem of loaded.problems) process.stderr.write(`toolcall-normalizer: schemas: ${problem.file}: ${problem.message}\n`);
  if (loaded.tools.size === 0) process.stderr.write(`toolcall-normalizer: schemas: no tool definitions (*.json) in ${schemasDir}\n`);

  const input = values.input === undefined ? process.stdin : createReadStream(values.input);
  const output = values.output === undefined ? process.stdout : createWriteStream(values.output);
  const summary = await normalizeStream(input, output, loaded.tools, options);
  if (output !== process.stdout) {
    output.end();
    await finished(output);
  }
  if (values.summary === true) {
    process.stderr.write(
      `lines=${summary.lines} calls=${summary.calls} normalized=${summary.normalized} rejected=${summary.rejected} ` +
        `dead_lettered=${summary.deadLettered} repairs=${summary.repairs} pass_throughs=${summary.passThroughs}\n`,
    );
  }
  return 0;
}
