import { open, type FileHandle } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { loadSchemaDir } from '../../adapters/files/schema-dir.js';
import { pipelineFlags } from '../../config/flags.js';
import { pipelineOptions } from '../../core/pipeline.js';
import { createSchemaCompiler } from '../../core/validation/validate.js';
import { forTerminal } from '../../core/shared/text.js';
import { ioFailure, ioReason } from './io.js';
import { normalizeStream, StreamFailure } from './normalize-command.js';
import { isDirectory, parseCommandArgs, UsageError } from './usage.js';

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

/** The `--input` file, open for reading; anything but a directory (a FIFO, `<(zcat calls.gz)`) is read. */
async function openInput(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new UsageError(`--input: "${path}" is not a readable file (${ioReason(error)})`, NORMALIZE_USAGE);
  }
  const stat = await handle.stat().catch(() => undefined);
  if (stat?.isDirectory() === true) {
    await handle.close();
    throw new UsageError(`--input: "${path}" is a directory, not a file`, NORMALIZE_USAGE);
  }
  return handle;
}

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

  const flags = FLAGS.read(values);
  if (!flags.ok) throw new UsageError(flags.message, NORMALIZE_USAGE);
  const options = pipelineOptions(flags.settings);

  // Both files are opened before any work, so a wrong path fails at once, naming the file and the reason.
  const inputFile = values.input === undefined ? undefined : await openInput(values.input);
  let outputFile: FileHandle | undefined;
  try {
    outputFile = values.output === undefined ? undefined : await open(values.output, 'w');
  } catch (error) {
    await inputFile?.close();
    throw ioFailure(`write --output "${values.output ?? ''}"`, error);
  }

  const loaded = await loadSchemaDir(schemasDir, createSchemaCompiler());
  const warn = (line: string): boolean => process.stderr.write(`toolcall-normalizer: schemas: ${forTerminal(line)}\n`);
  for (const problem of loaded.problems) warn(`${problem.file}: ${problem.message}`);
  if (loaded.tools.size === 0) warn(`no tool definitions (*.json) in ${schemasDir}`);

  const input: Readable = inputFile === undefined ? process.stdin : inputFile.createReadStream();
  const output: Writable = outputFile === undefined ? process.stdout : outputFile.createWriteStream();
  let summary;
  try {
    summary = await normalizeStream(input, output, loaded.tools, options);
    if (output !== process.stdout) {
      output.end();
      await finished(output).catch((error: unknown) => {
        throw new StreamFailure('output', error);
      });
    }
  } catch (error) {
    if (!(error instanceof StreamFailure)) throw error;
    input.destroy();
    output.destroy();
    const where =
      error.side === 'input'
        ? `read ${values.input === undefined ? 'standard input' : `--input "${values.input}"`}`
        : `write ${values.output === undefined ? 'standard output' : `--output "${values.output}"`}`;
    throw ioFailure(where, error.cause);
  }
  if (values.summary === true) {
    process.stderr.write(
      `lines=${summary.lines} calls=${summary.calls} normalized=${summary.normalized} rejected=${summary.rejected} ` +
        `dead_lettered=${summary.deadLettered} repairs=${summary.repairs} pass_throughs=${summary.passThroughs}\n`,
    );
  }
  return 0;
}
