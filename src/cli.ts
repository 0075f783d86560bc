#!/usr/bin/env node
/**
 * The command's entry (package.json `bin`, the image's): on a Node.js older than `engines.node` it prints one line
 * naming the version it needs and exits 1; otherwise it loads the command (app/main.ts). Static imports are linked
 * before any code runs, and the command's own name APIs an older Node.js lacks, so this file imports only `node:fs`
 * and the command dynamically.
 */
import { readFileSync } from 'node:fs';

/** The lowest version `engines.node` admits (`^24.11.0` -> [24, 11, 0]); undefined when it cannot be read. */
function minimumNode(): [number, number, number] | undefined {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines?: { node?: unknown } };
    const match = typeof pkg.engines?.node === 'string' ? /^\D*(\d{1,9})\.(\d{1,9})\.(\d{1,9})/.exec(pkg.engines.node) : null;
    return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
  } catch {
    return undefined;
  }
}

/** Whether version `running` sorts before `minimum`, part by part. */
function isOlder(running: readonly number[], minimum: readonly number[]): boolean {
  for (const [i, need] of minimum.entries()) {
    const have = running[i] ?? 0;
    if (have !== need) return have < need;
  }
  return false;
}

const minimum = minimumNode();
const older = minimum !== undefined && isOlder(process.versions.node.split('.').map(Number), minimum);

if (older) {
  process.stderr.write(
    `toolcall-normalizer: needs Node.js ${minimum.join('.')} or later (package.json engines), ` +
      `and this is Node.js ${process.versions.node}\n`,
  );
  process.exitCode = 1;
} else {
  await import('./app/main.js');
}
