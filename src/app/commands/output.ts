/**
 * Where a command writes: `out` takes stdout text as it is, `err` one message line. Commands take it as a
 * parameter so that tests capture both in memory.
 */
import { forTerminal } from '../../core/shared/text.js';

export interface CommandOutput {
  out(text: string): void;
  err(line: string): void;
}

/**
 * The process's own streams; each `err` line is prefixed with the program and the command's name, and escaped for
 * the terminal (it quotes file names, tool names and parser snippets).
 */
export function stdioOutput(command: string): CommandOutput {
  return {
    out: (text) => process.stdout.write(text),
    err: (line) => process.stderr.write(`toolcall-normalizer: ${command}: ${forTerminal(line)}\n`),
  };
}
