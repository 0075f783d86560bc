/**
 * The worker image's bill of materials and OCI labels, read back from the image (WORKER_IMAGE when set, else built
 * or reused by `scripts/images.sh`). The SBOM must name exactly the packages the image ships in /app/node_modules,
 * all of package-lock's production tree, and nothing of its dev tree. Needs a Docker engine, no broker.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../integration/harness.js';
import { dockerOk, engineOrSkip, offlineImages } from './docker.js';

const withEngine = engineOrSkip('test/image/sbom.test.ts');
const SBOM_PATH = '/usr/share/toolcall-normalizer/sbom.cdx.json';

interface Component {
  readonly type: string;
  readonly name: string;
  readonly group?: string;
  readonly version: string;
  readonly purl?: string;
  readonly components?: readonly Component[];
}

interface Bom {
  readonly bomFormat: string;
  readonly specVersion: string;
  readonly metadata: { readonly component: Component };
  readonly components: readonly Component[];
  readonly dependencies?: readonly { readonly ref: string; readonly dependsOn?: readonly string[] }[];
}

interface LockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly devOptional?: boolean;
}

const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** package-lock's packages as name@version, split into the production tree (required and optional) and the dev tree. */
function lockTrees(): { required: Set<string>; optional: Set<string>; devOnly: Set<string> } {
  const required = new Set<string>();
  const optional = new Set<string>();
  const dev = new Set<string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.version === undefined) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const key = `${name}@${entry.version}`;
    // npm's devOptional: a dev dependency that is also an optional dependency of the production tree (installed).
    if (entry.dev === true) dev.add(key);
    else if (entry.optional === true || entry.devOptional === true) optional.add(key);
    else required.add(key);
  }
  const devOnly = new Set([...dev].filter((key) => !required.has(key) && !optional.has(key)));
  return { required, optional, devOnly };
}

function flatten(components: readonly Component[]): Component[] {
  return components.flatMap((c) => [c, ...flatten(c.components ?? [])]);
}

const keyOf = (c: Component): string => `${c.group === undefined || c.group === '' ? '' : `${c.group}/`}${c.name}@${c.version}`;

// Run inside the image: the SBOM and every package.json under /app/node_modules (nested trees too), as name@version.
const PROBE = `
const fs = require('node:fs'), path = require('node:path');
const installed = [];
const walk = (dir) => {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (entry.startsWith('@')) { walk(full); continue; }
    const manifest = path.join(full, 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const p = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    installed.push(p.name + '@' + p.version);
    walk(path.join(full, 'node_modules'));
  }
};
walk('/app/node_modules');
process.stdout.write(JSON.stringify({ sbom: JSON.parse(fs.readFileSync(${JSON.stringify(SBOM_PATH)}, 'utf8')), installed }));
`;

describe.skipIf(!withEngine)('worker image: SBOM and OCI labels', () => {
  let image = '';
  let bom: Bom;
  let installed: string[] = [];
  let labels: Record<string, string> = {};

  beforeAll(async () => {
    image = (await offlineImages(['WORKER_IMAGE'], 'worker')).WORKER_IMAGE ?? '';
    const out = await dockerOk(
      ['run', '--rm', '--network', 'none', '--user', '1000:1000', '--read-only', '--entrypoint', 'node', image, '-e', PROBE],
      { timeoutMs: 120_000 },
    );
    const probe = JSON.parse(out) as { sbom: Bom; installed: string[] };
    bom = probe.sbom;
    installed = probe.installed;
    labels = JSON.parse(await dockerOk(['inspect', '--format', '{{json .Config.Labels}}', image])) as Record<string, string>;
  }, 1_500_000);

  it('is a CycloneDX 1.6 document about this package', () => {
    expect(bom.bomFormat).toBe('CycloneDX');
    expect(bom.specVersion).toBe('1.6');
    expect(bom.metadata.component).toMatchObject({ name: packageJson.name, version: packageJson.version });
    expect(bom.dependencies?.length ?? 0).toBeGreaterThan(0);
  });

  it('lists exactly the packages the image ships, each with an npm purl', () => {
    const components = flatten(bom.components).filter((c) => c.type === 'library');
    expect(installed.length).toBeGreaterThan(Object.keys(packageJson.dependencies).length);
    expect(new Set(components.map(keyOf))).toEqual(new Set(installed));
    for (const c of components) expect(c.purl, keyOf(c)).toMatch(/^pkg:npm\//);
  });

  it("lists all of package-lock's production tree and nothing of its dev tree", () => {
    const listed = new Set(flatten(bom.components).map(keyOf));
    const { required, optional, devOnly } = lockTrees();
    expect(
      [...required].filter((key) => !listed.has(key)),
      'production packages missing from the SBOM',
    ).toEqual([]);
    expect(
      [...listed].filter((key) => devOnly.has(key)),
      'dev-only packages in the SBOM',
    ).toEqual([]);
    expect(
      [...listed].filter((key) => !required.has(key) && !optional.has(key)),
      'packages not in the lock',
    ).toEqual([]);
    for (const name of Object.keys(packageJson.dependencies))
      expect(
        [...listed].some((key) => key.startsWith(`${name}@`)),
        name,
      ).toBe(true);
    for (const dev of ['typescript', 'vitest', '@cyclonedx/cyclonedx-npm', 'oidc-provider'])
      expect(
        [...listed].some((key) => key.startsWith(`${dev}@`)),
        dev,
      ).toBe(false);
  });

  it('carries the OCI labels: source, revision, version, licences', () => {
    expect(labels['org.opencontainers.image.version']).toBe(packageJson.version);
    expect(labels['org.opencontainers.image.licenses']).toBe(packageJson.license);
    expect(labels['org.opencontainers.image.source']).toMatch(/\S/);
    const head = spawnSync(
      'git',
      [
        'log',
        '-1',
        '--format=%H',
        '--',
        'Dockerfile',
        '.dockerignore',
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
        'src',
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    const revision = labels['org.opencontainers.image.revision'] ?? '';
    if (head.status === 0 && head.stdout.trim() !== '') expect(revision.replace(/-modified$/, '')).toBe(head.stdout.trim());
    else expect(revision).toBe('unknown');
    expect(labels['toolcall-normalizer.sbom']).toBe(SBOM_PATH);
  });
});
