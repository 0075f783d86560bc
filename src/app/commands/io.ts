/**
 * I/O failures of a command, as one line each: what could not be done, to which file, and the system's reason.
 */
import { ioReason } from '../../adapters/files/io-reason.js';

export { ioReason };
// The entry point may not import the core: it escapes its messages with the commands' helper.
export { forTerminal } from '../../core/shared/text.js';

/** A file or stream a command needs could not be read or written: exit 1 with its one-line message. */
export class CommandIoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandIoError';
  }
}

/** `cannot <action>: <reason>` as a {@link CommandIoError}. */
export function ioFailure(action: string, error: unknown): CommandIoError {
  return new CommandIoError(`cannot ${action}: ${ioReason(error)}`);
}

/** True for the error of a write to a pipe whose reader has gone (`normalize | head -1`). */
export function isBrokenPipe(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EPIPE';
}
