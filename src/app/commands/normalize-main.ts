import { createReadStream, createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { loadSchemaDir } from '../../adapters/files/schema-dir.js';
import { pipelineFlags } from '../../config/flags.js';
import { pipelineOptions } from '../../core/pipeline.js';
import { createSchemaCompiler } from '../../core/validation/validate.js';
import { normalizeStream } from './normalize-command.js';
import { isDirectory, isFile, parseCommandArgs, UsageError } from './usage.js';

const FLAGS = pipelineFlags(['deep', 'entityExempt', 'maxRecordBytes', 'maxDepth', 'maxEntityPasses']);

export const NORMALIZE_USAGE = `Usage: toolcall-normalizer normalize --schemas DIR [--input FILE] [--output FILE] [options]

Reads JSON Lines tool calls (stdin by default) and writes one output record per call (stdout by default): one
per line, or one per tool call of a line that is a whole assistant message, each with its line number.

Options:
  --schemas DIR              Directory of tool definitions, one <tool>.json per tool (required)
  --input FILE               Read calls from FILE instead of stdin
  --output FILE              Write records to FILE instead of stdout
${FLAGS.usage}
  --summary                  Print counts to stderr at the end

Exit status: 0 when every line was processed (invalid calls are data), 1 on an I/O failure, 2 on a usage error.`;

export async function normalizeMain(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      schemas: { type: 'string' },
      input: { type: 'string' },
      output: { type: 'string' },
      ...FLAGS.options,
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

  const flags = FLAGS.read(values);
  if (!flags.ok) throw new UsageError(flags.message, NORMALIZE_USAGE);
  const options = pipelineOptions(flags.settings);

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
