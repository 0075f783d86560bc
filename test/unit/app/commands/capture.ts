import type { CommandOutput } from '../../../../src/app/commands/output.js';

/** A command's output held in memory: stdout as text (and as its lines), stderr as the lines written. */
export interface CapturedOutput extends CommandOutput {
  text(): string;
  lines(): string[];
  readonly errors: string[];
}

export function captureOutput(): CapturedOutput {
  let text = '';
  const errors: string[] = [];
  return {
    out: (chunk) => {
      text += chunk;
    },
    err: (line) => errors.push(line),
    text: () => text,
    lines: () => (text === '' ? [] : text.replace(/\n$/, '').split('\n')),
    errors,
  };
}
