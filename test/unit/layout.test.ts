/**
 * The layout is a contract: each part of src/ imports only what sits below it (docs/development.md "Layout"). A new import
 * that runs back up fails here, with the file and the import named.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Stages of the core, lowest first: a stage imports its own folder and lower stages only. */
const CORE_STAGES: Readonly<Record<string, number>> = { shared: 0, validation: 1, rule: 1, schema: 2, records: 3, 'pipeline.ts': 4 };

/** What each top-level part may import besides itself. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  audit: ['core'],
  adapters: ['core'],
  config: ['core'],
  library: ['core'],
  proxy: ['core', 'library'],
  app: ['core', 'audit', 'adapters', 'config', 'library', 'proxy'],
  'cli.ts': ['app'],
};

/** Node modules the pure core may use: computation only, no I/O, no environment. */
const CORE_NODE_MODULES = new Set(['node:buffer', 'node:crypto']);

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map(
    (m) => m[1] ?? m[2] ?? '',
  );
}

function partOf(path: string): string {
  return relative(SRC, path).split(/[\\/]/)[0] ?? '';
}

function coreStageOf(path: string): number | undefined {
  const [part, stage] = relative(SRC, path).split(/[\\/]/);
  return part === 'core' && stage !== undefined ? CORE_STAGES[stage] : undefined;
}

/** The core stage a file belongs to (`records` for records/envelopes/x.ts): a stage's subfolders are its own. */
function stageFolderOf(path: string): string | undefined {
  return relative(SRC, path).split(/[\\/]/)[1];
}

function violations(): string[] {
  const found: string[] = [];
  for (const file of tsFiles(SRC)) {
    const from = relative(SRC, file);
    const part = partOf(file);
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) {
        if (part === 'core' && spec.startsWith('node:') && !CORE_NODE_MODULES.has(spec))
          found.push(`${from}: the pure core imports ${spec}`);
        continue;
      }
      const target = resolve(dirname(file), spec);
      const targetPart = partOf(target);
      if (targetPart === part) {
        if (part !== 'core') continue;
        const [own, theirs] = [coreStageOf(file), coreStageOf(target)];
        if (own === undefined || theirs === undefined) found.push(`${from} -> ${spec}: outside the core's stages`);
        else if (stageFolderOf(file) !== stageFolderOf(target) && theirs >= own)
          found.push(`${from} -> ${spec}: imports a stage at or above its own`);
        continue;
      }
      if (!(ALLOWED[part] ?? []).includes(targetPart)) found.push(`${from} -> ${spec}: ${part} may not import ${targetPart}`);
    }
  }
  return found;
}

describe('layout: every part of src/ imports only downward', () => {
  it('finds every top-level part and core stage it checks', () => {
    const parts = new Set(tsFiles(SRC).map(partOf));
    for (const part of ['core', 'audit', 'adapters', 'config', 'app', 'cli.ts']) expect(parts).toContain(part);
    for (const part of parts) expect(Object.keys(ALLOWED), `src/${part} has no rule in ALLOWED`).toContain(part);
    const stages = new Set(tsFiles(join(SRC, 'core')).map((file) => relative(join(SRC, 'core'), file).split(/[\\/]/)[0]));
    for (const stage of stages) expect(Object.keys(CORE_STAGES), `src/core/${String(stage)} has no stage`).toContain(stage);
  });

  it('has no import that runs back up', () => {
    expect(violations()).toEqual([]);
  });
});
