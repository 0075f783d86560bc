/**
 * Scores the audit on test/fixtures/audit/unseen: each server's tools.json (as its server lists them) against its
 * labels.json (classified by reading: `must-find`, `acceptable`, `must-not`, each with the quoted text).
 *
 * - precision: findings labelled `must-find` or `acceptable`, over all findings (an unlabelled finding counts against);
 * - recall: `must-find` labels found, over all `must-find` labels;
 * - per confidence level: the precision of the findings at that level.
 *
 * - calibration (`--calibration`): per finding kind, the precision of the findings its rules propose as `high`, and
 *   the kinds that earn `high` by it (src/audit/calibration.ts holds the table read from the training split).
 *
 *   tsx scripts/audit-corpus/score.ts [--split held-out|training|all] [--servers a,b,c] [--verbose] [--calibration]
 *
 * `--servers` scores the named servers alone, whatever their split (e.g. one draw).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditTool, findingKind, type Finding, proposedFindings } from '../../src/audit/index.js';
import { MIN_PRECISION, MIN_SUPPORT } from '../../src/audit/calibration.js';
import type { JsonValue } from '../../src/core/shared/json.js';
import { parseToolDefinition, type ToolDefinition } from '../../src/core/schema/tool-definition.js';

/** Servers kept for checking the audit from outside (issue 23): never in the corpus. */
export const RESERVED = [
  'github/github-mcp-server',
  'getsentry/sentry-mcp',
  'sooperset/mcp-atlassian',
  'grafana/mcp-grafana',
  'hashicorp/terraform-mcp-server',
  'mongodb-js/mongodb-mcp-server',
] as const;

export const UNSEEN = fileURLToPath(new URL('../../test/fixtures/audit/unseen', import.meta.url));

export type LabelClass = 'must-find' | 'acceptable' | 'must-not';
export interface Label {
  readonly class: LabelClass;
  readonly layer: string;
  readonly parameter: string | null;
  readonly keyword: string;
  readonly quote: string;
}
export interface CorpusServer {
  readonly name: string;
  readonly split: 'training' | 'held-out';
  readonly ecosystem: string;
  readonly repository: string;
  readonly definitions: readonly ToolDefinition[];
  readonly labels: Readonly<Record<string, readonly Label[]>>;
}

export function loadCorpus(root = UNSEEN): CorpusServer[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const dir = join(root, name);
      const source = JSON.parse(readFileSync(join(dir, 'source.json'), 'utf8')) as {
        split: 'training' | 'held-out';
        ecosystem: string;
        repository: string;
      };
      const tools = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as JsonValue[];
      const definitions = tools.map((tool, i) => {
        const read = parseToolDefinition(tool, `${name}-${i}`);
        if (!read.ok) throw new Error(`${name}: tool ${i}: ${read.reason}`);
        return read.definition;
      });
      let labels: Record<string, Label[]> = {};
      try {
        labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as Record<string, Label[]>;
      } catch {
        labels = {};
      }
      return { name, split: source.split, ecosystem: source.ecosystem, repository: source.repository, definitions, labels };
    });
}

/**
 * Keywords that spell one constraint two ways: draft-07's `dependencies` is 2019-09's `dependentRequired`, and a
 * `const` is an `enum` of one value (labellers write either for "only 'x' is supported").
 */
const SAME_CONSTRAINT: Readonly<Record<string, string>> = { dependencies: 'dependentRequired', const: 'enum' };

export const labelKey = (e: { layer: string; parameter: string | null; keyword: string }): string =>
  `${e.layer} ${e.parameter ?? '-'} ${SAME_CONSTRAINT[e.keyword] ?? e.keyword}`;

export interface Figures {
  readonly tools: number;
  readonly servers: number;
  readonly found: number;
  readonly correct: number;
  readonly mustFind: number;
  readonly recalled: number;
  readonly byConfidence: Readonly<Record<string, { found: number; correct: number }>>;
  readonly wrong: readonly string[];
  readonly misses: readonly string[];
}

export function score(servers: readonly CorpusServer[]): Figures {
  let found = 0;
  let correct = 0;
  let mustFind = 0;
  let recalled = 0;
  const byConfidence: Record<string, { found: number; correct: number }> = {
    high: { found: 0, correct: 0 },
    medium: { found: 0, correct: 0 },
    low: { found: 0, correct: 0 },
  };
  const wrong: string[] = [];
  const misses: string[] = [];
  let tools = 0;
  for (const server of servers)
    for (const definition of server.definitions) {
      tools++;
      const findings: Finding[] = auditTool(definition);
      const labels = server.labels[definition.name] ?? [];
      const good = new Set(labels.filter((l) => l.class !== 'must-not').map(labelKey));
      const got = new Set(findings.map(labelKey));
      for (const f of findings) {
        found++;
        const level = byConfidence[f.confidence] ?? { found: 0, correct: 0 };
        level.found++;
        if (good.has(labelKey(f))) {
          correct++;
          level.correct++;
        } else wrong.push(`${server.name} ${f.tool} ${labelKey(f)} [${f.confidence}]: ${f.evidence.slice(0, 140)}`);
      }
      for (const l of labels.filter((x) => x.class === 'must-find')) {
        mustFind++;
        if (got.has(labelKey(l))) recalled++;
        else misses.push(`${server.name} ${definition.name} ${labelKey(l)}: ${l.quote.slice(0, 140)}`);
      }
    }
  return { tools, servers: servers.length, found, correct, mustFind, recalled, byConfidence, wrong, misses };
}

/** Per kind, the findings the rules propose as `high` and how many of them are right. */
export function highByKind(servers: readonly CorpusServer[]): Map<string, { found: number; correct: number }> {
  const kinds = new Map<string, { found: number; correct: number }>();
  for (const server of servers)
    for (const definition of server.definitions) {
      const good = new Set((server.labels[definition.name] ?? []).filter((l) => l.class !== 'must-not').map(labelKey));
      for (const f of proposedFindings(definition)) {
        if (f.confidence !== 'high') continue;
        const kind = kinds.get(findingKind(f)) ?? { found: 0, correct: 0 };
        kind.found++;
        if (good.has(labelKey(f))) kind.correct++;
        kinds.set(findingKind(f), kind);
      }
    }
  return new Map([...kinds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The kinds that earn `high`: at least MIN_SUPPORT proposed-`high` findings, at least MIN_PRECISION right. */
export function earnedHigh(kinds: ReadonlyMap<string, { found: number; correct: number }>): string[] {
  return [...kinds].filter(([, k]) => k.found >= MIN_SUPPORT && k.correct / k.found >= MIN_PRECISION).map(([kind]) => kind);
}

export const ratio = (a: number, b: number): number => (b === 0 ? 1 : a / b);

export function describeFigures(label: string, f: Figures): string {
  const lines = [
    `${label}: ${f.servers} servers, ${f.tools} tools, ${f.found} findings, ${f.mustFind} must-find`,
    `  precision ${ratio(f.correct, f.found).toFixed(2)} (${f.correct}/${f.found})  recall ${ratio(f.recalled, f.mustFind).toFixed(2)} (${f.recalled}/${f.mustFind})`,
  ];
  for (const level of ['high', 'medium', 'low']) {
    const l = f.byConfidence[level] ?? { found: 0, correct: 0 };
    lines.push(`  ${level.padEnd(6)} precision ${ratio(l.correct, l.found).toFixed(2)} (${l.correct}/${l.found})`);
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const split = args.includes('--split') ? args[args.indexOf('--split') + 1] : 'held-out';
  const verbose = args.includes('--verbose');
  const calibration = args.includes('--calibration');
  const corpus = loadCorpus();
  const named = args.includes('--servers') ? (args[args.indexOf('--servers') + 1] ?? '').split(',').filter(Boolean) : null;
  const unknown = (named ?? []).filter((n) => !corpus.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`no such server in the corpus: ${unknown.join(', ')}`);
  const chosen = corpus.filter((s) => (named !== null ? named.includes(s.name) : split === 'all' || s.split === split));
  if (chosen.length === 0) {
    // Every draw has been read and moved to training: no blind figure until the next draw is labelled.
    console.log(`${split}: no servers (the next draw, labelled blind, goes here; docs/audit.md has the last blind figures)`);
    process.exit(0);
  }
  const figures = score(chosen);
  console.log(describeFigures(`${named !== null ? 'servers' : split} (${chosen.map((s) => s.name).join(', ')})`, figures));
  if (calibration) {
    const kinds = highByKind(chosen);
    console.log('  proposed high, by kind:');
    for (const [kind, k] of kinds) console.log(`    ${kind.padEnd(28)} ${ratio(k.correct, k.found).toFixed(2)} (${k.correct}/${k.found})`);
    console.log(`  earn high (>= ${MIN_SUPPORT} findings, >= ${MIN_PRECISION} precise): ${earnedHigh(kinds).join(', ')}`);
  }
  if (verbose)
    console.log(
      ['  not worth fixing:', ...figures.wrong.map((w) => `    ${w}`), '  missed:', ...figures.misses.map((m) => `    ${m}`)].join('\n'),
    );
}
