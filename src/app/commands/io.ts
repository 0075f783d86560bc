/**
 * I/O failures of a command, as one line each: what could not be done, to which file, and the system's reason.
 */
import { getSystemErrorMessage } from 'node:util';

/** A file or stream a command needs could not be read or written: exit 1 with its one-line message. */
export class CommandIoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandIoError';
  }
}

/** The system's words for an I/O error (`no such file or directory (ENOENT)`), else its message. */
export function ioReason(error: unknown): string {
  const { errno, code } = (typeof error === 'object' && error !== null ? error : {}) as { errno?: unknown; code?: unknown };
  if (typeof errno === 'number' && typeof code === 'string') {
    try {
      return `${getSystemErrorMessage(errno)} (${code})`;
    } catch {
      // An errno the platform does not know: the message below says what Node.js said.
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n', 1)[0] ?? message;
}

/** `cannot <action>: <reason>` as a {@link CommandIoError}. */
export function ioFailure(action: string, error: unknown): CommandIoError {
  return new CommandIoError(`cannot ${action}: ${ioReason(error)}`);
}

/** True for the error of a write to a pipe whose reader has gone (`normalize | head -1`). */
export function isBrokenPipe(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EPIPE';
}
