import { parseArgs, type ParseArgsConfig } from 'node:util';
import { stat } from 'node:fs/promises';
import { ConfigError } from '../../config/config.js';

/** A command line that cannot be run as given: exit 2 with the message and the command's usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `parseArgs` with its errors turned into {@link UsageError}s. */
type ParsedArgs<T extends ParseArgsOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
>;
type ParseArgsOptions = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<T extends ParseArgsOptions>(args: string[], options: T, usage: string): ParsedArgs<T> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), usage);
  }
}

/** A positive integer option, or the default when absent. */
export function positiveInt(
  value: string | undefined,
  name: string,
  fallback: number,
  usage: string,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer, got "${value}"`, usage);
  if (n > max) throw new UsageError(`--${name} must be at most ${max}, got "${value}"`, usage);
  return n;
}

/** True when `path` is a directory this process can stat. */
export async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** True when `path` is a regular file this process can stat. */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/**
 * The configuration `load` reads from the environment, or undefined once a {@link ConfigError} is printed (the
 * command then exits 2). Any other error is thrown.
 */
export function configOrUsage<T>(command: string, load: () => T): T | undefined {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`toolcall-normalizer ${command}: ${error.message}\n`);
    return undefined;
  }
}
