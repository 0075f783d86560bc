/**
 * The worker's settings table (src/config/settings.ts) for documents and checks:
 *   tsx scripts/settings.ts --json            every setting as JSON (scripts/check-deploy.sh reads it)
 *   tsx scripts/settings.ts --write-docs      rewrites the table of docs/configuration.md between its markers
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS, settingsMarkdownTable } from '../src/config/settings.js';

export const README_BEGIN = '<!-- settings:begin (npm run docs:settings) -->';
export const README_END = '<!-- settings:end -->';

/** The document's text with the block between the markers replaced by the rendered table. */
export function withSettingsTable(readme: string): string {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin === -1 || end < begin) throw new Error(`docs/configuration.md has no "${README_BEGIN}" ... "${README_END}" block`);
  return `${readme.slice(0, begin + README_BEGIN.length)}\n${settingsMarkdownTable()}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  if (mode === '--json') {
    process.stdout.write(
      `${JSON.stringify(
        Object.entries(SETTINGS).map(([name, spec]) => ({ name, ...spec })),
        null,
        2,
      )}\n`,
    );
  } else if (mode === '--write-docs') {
    const path = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
    writeFileSync(path, withSettingsTable(readFileSync(path, 'utf8')));
  } else {
    process.stderr.write('usage: tsx scripts/settings.ts --json | --write-docs\n');
    process.exitCode = 2;
  }
}
