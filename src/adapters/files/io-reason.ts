/** How an I/O failure is worded for people: the system's reason, with its code. */
import { getSystemErrorMessage } from 'node:util';

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
