/**
 * `toolcall-normalizer audit`: where tool definitions' prose and schemas disagree, and whether the schemas are
 * sound (src/audit). Reads a schema directory or every subject of a registry, prints a table (or `--json`), and
 * gates CI: exit 1 when there is a finding, or, with `--baseline`, only when there is a finding the baseline does
 * not know; `--fail-on` raises the confidence a finding needs to fail the run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { loadSchemaDir } from '../../adapters/files/schema-dir.js';
import { DEFAULT_REGISTRY_CONFIG, RegistryClient } from '../../adapters/registry/client.js';
import { compareWithBaseline, parseBaseline, serializeBaseline } from '../../audit/baseline.js';
import { atOrAbove, auditTools, CONFIDENCE_LEVELS, type Confidence, type Finding } from '../../audit/index.js';
import { renderTable } from '../../audit/report.js';
import { tryParseJson } from '../../core/shared/json.js';
import { DEFAULT_SUBJECT_TEMPLATE, fromRegistryDocument, toolFromSubject } from '../../core/schema/registry-document.js';
import type { ToolDefinition } from '../../core/schema/tool-definition.js';
import { createSchemaCompiler } from '../../core/validation/validate.js';
import { ioFailure } from './io.js';
import { stdioOutput, type CommandOutput } from './output.js';
import {
  parseRegistryFlags,
  REGISTRY_FLAG_OPTIONS,
  REGISTRY_ONLY_FLAGS,
  registryConnection,
  type RegistryFlags,
} from './registry-flags.js';
import { isDirectory, parseCommandArgs, UsageError } from './usage.js';

export const AUDIT_USAGE = `Usage: toolcall-normalizer audit [options] DIR
       toolcall-normalizer audit --registry URL [--subject-template T] [options]

Audits tool definitions: the schema itself (validity), constraints the description states that no schema keyword
encodes (prose-only), and constraints the schema enforces that the description never explains (schema-only).
DIR holds one <tool>.json per tool, as for "normalize --schemas"; --registry audits the latest version of every
JSON Schema subject (that follows --subject-template) in a Confluent-compatible registry.

Options:
  --json                     Print {"findings": [...]} instead of a table
  --baseline FILE            Fail only on findings whose id is not in FILE (a file --update-baseline wrote, or
                             the --json output of an earlier run); report the new ones and the fixed ones
  --update-baseline          Write the current findings to the --baseline FILE (sorted, stable) and exit 0
  --fail-on LEVEL            Exit 1 only for (new) findings of confidence LEVEL or above: high, medium or low
                             (default low: every finding fails); the report still lists them all
  --registry URL             Confluent-compatible API base URL, e.g. http://localhost:8080/apis/ccompat/v7
  --subject-template T       With --registry: subjects of tools; {tool} is the tool name (default "${DEFAULT_SUBJECT_TEMPLATE}")
  --username U               Registry basic auth user name (with --password-env)
  --password-env VAR         Name of the environment variable holding the registry password
  --timeout-ms N             Timeout of one registry request in ms (default ${DEFAULT_REGISTRY_CONFIG.timeoutMs})

Exit status: 0 when there is no finding at or above --fail-on (with --baseline: no new one; with
--update-baseline: the baseline was written); 1 when there is one, or a definition cannot be read; 2 on a usage
error.`;

const STDIO = stdioOutput('audit');

interface Loaded {
  readonly definitions: ToolDefinition[];
  /** Files or subjects that could not be read as a tool definition at all. */
  readonly problems: string[];
}

export async function auditMain(args: string[], output: CommandOutput = STDIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      json: { type: 'boolean' },
      baseline: { type: 'string' },
      'update-baseline': { type: 'boolean' },
      'fail-on': { type: 'string' },
      ...REGISTRY_FLAG_OPTIONS,
      help: { type: 'boolean', short: 'h' },
    },
    AUDIT_USAGE,
  );
  if (values.help === true) {
    output.out(`${AUDIT_USAGE}\n`);
    return 0;
  }
  const [dir, extra] = positionals;
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, AUDIT_USAGE);
  const registry = values.registry;
  if (dir === undefined && registry === undefined)
    throw new UsageError('a schema directory DIR or --registry URL is required', AUDIT_USAGE);
  if (dir !== undefined && registry !== undefined) throw new UsageError('give either DIR or --registry URL, not both', AUDIT_USAGE);
  if (registry === undefined) {
    for (const option of REGISTRY_ONLY_FLAGS) {
      if (values[option] !== undefined) throw new UsageError(`--${option} goes with --registry`, AUDIT_USAGE);
    }
  }
  const failOnText = values['fail-on'] ?? 'low';
  if (!(CONFIDENCE_LEVELS as readonly string[]).includes(failOnText))
    throw new UsageError(`--fail-on must be one of ${CONFIDENCE_LEVELS.join(', ')} (got "${failOnText}")`, AUDIT_USAGE);
  const failOn = failOnText as Confidence;
  const gating = (finding: Finding): boolean => atOrAbove(finding.confidence, failOn);
  const baselineFile = values.baseline;
  const update = values['update-baseline'] === true;
  if (update && baselineFile === undefined)
    throw new UsageError('--update-baseline needs --baseline FILE (where to write it)', AUDIT_USAGE);

  // Read the baseline before the (possibly slow) audit, so a wrong path fails fast.
  let baseline: Set<string> | undefined;
  if (baselineFile !== undefined && !update) {
    let text: string;
    try {
      text = await readFile(baselineFile, 'utf8');
    } catch (error) {
      throw new UsageError(
        `--baseline: cannot read "${baselineFile}" (${error instanceof Error ? error.message : String(error)}); ` +
          'create it with --update-baseline',
        AUDIT_USAGE,
      );
    }
    const parsed = parseBaseline(text);
    if (!parsed.ok) throw new UsageError(`--baseline: "${baselineFile}" is not a baseline: ${parsed.reason}`, AUDIT_USAGE);
    baseline = parsed.ids;
  }

  let loaded: Loaded;
  if (dir !== undefined) {
    if (!(await isDirectory(dir))) throw new UsageError(`"${dir}" is not a readable directory`, AUDIT_USAGE);
    loaded = await loadDirectory(dir);
  } else {
    loaded = await loadRegistry(parseRegistryFlags(registry ?? '', values, AUDIT_USAGE), output);
  }
  for (const problem of loaded.problems) output.err(problem);

  const findings = auditTools(loaded.definitions);
  const readFailed = loaded.problems.length > 0;

  if (update && baselineFile !== undefined) {
    await writeFile(baselineFile, serializeBaseline(findings), 'utf8').catch((error: unknown) => {
      throw ioFailure(`write --baseline "${baselineFile}"`, error);
    });
    writeReport(findings, values.json === true, output);
    output.err(`wrote ${findings.length} finding${findings.length === 1 ? '' : 's'} to the baseline ${baselineFile}`);
    return readFailed ? 1 : 0;
  }

  if (baseline === undefined) {
    writeReport(findings, values.json === true, output);
    const failing = findings.filter(gating).length;
    if (failing < findings.length && findings.length > 0)
      output.err(
        `${findings.length - failing} finding${findings.length - failing === 1 ? '' : 's'} below --fail-on ${failOn} reported, not failing`,
      );
    return failing > 0 || readFailed ? 1 : 0;
  }

  const { added, resolved } = compareWithBaseline(findings, baseline);
  writeReport(findings, values.json === true, output, new Set(added.map((f) => f.id)));
  if (resolved.length > 0) {
    output.err(
      `${resolved.length} baseline entr${resolved.length === 1 ? 'y is' : 'ies are'} no longer found ` +
        `(fixed): ${resolved.join(', ')}; run with --update-baseline to drop ${resolved.length === 1 ? 'it' : 'them'}`,
    );
  }
  const failing = added.filter(gating);
  if (failing.length > 0) {
    output.err(
      `${failing.length} new finding${failing.length === 1 ? '' : 's'} not in the ` +
        `baseline ${baselineFile ?? ''}${failOn === 'low' ? '' : ` at or above --fail-on ${failOn}`}:`,
    );
    for (const finding of failing) output.err(`  ${finding.id} (${finding.confidence}): ${finding.suggestion}`);
    return 1;
  }
  if (added.length > 0)
    output.err(
      `${added.length} new finding${added.length === 1 ? '' : 's'} below ` +
        `--fail-on ${failOn}, not failing: ${added.map((f) => f.id).join(', ')}`,
    );
  output.err(`no new findings (${findings.length} known in the baseline)`);
  return readFailed ? 1 : 0;
}

function writeReport(findings: readonly Finding[], asJson: boolean, output: CommandOutput, markNew?: ReadonlySet<string>): void {
  if (asJson) {
    output.out(`${JSON.stringify({ findings }, null, 2)}\n`);
    return;
  }
  output.out(markNew === undefined ? renderTable(findings) : renderTable(findings, { markNew }));
}

async function loadDirectory(dir: string): Promise<Loaded> {
  const loaded = await loadSchemaDir(dir, createSchemaCompiler());
  // Definitions whose schema does not compile are audited (their validity findings say why); files that are not
  // definitions at all, and second definitions of a tool, are problems.
  const audited = new Set(loaded.definitions.map((entry) => entry.file));
  const problems = loaded.problems.filter((problem) => !audited.has(problem.file)).map((problem) => `${problem.file}: ${problem.message}`);
  return { definitions: loaded.definitions.map((entry) => entry.definition), problems };
}

/**
 * The latest version of every subject that follows the template, read back as tool definitions. Subjects holding
 * Avro or Protobuf schemas (other users of a shared registry) are skipped and counted.
 */
async function loadRegistry(options: RegistryFlags, output: CommandOutput): Promise<Loaded> {
  const client = new RegistryClient(registryConnection(options));
  const subjects = await client.listSubjects();
  const definitions: ToolDefinition[] = [];
  const problems: string[] = [];
  let skipped = 0;
  for (const subject of subjects) {
    if (toolFromSubject(subject, options.subjectTemplate) === undefined) continue;
    const registered = await client.getSubjectVersion(subject);
    if (registered === undefined) continue;
    if (registered.schemaType !== 'JSON') {
      skipped++;
      continue;
    }
    const where = `subject ${subject} version ${registered.version}`;
    const json = tryParseJson(registered.schema);
    if (!json.ok) {
      problems.push(`${where}: the registered schema is not JSON`);
      continue;
    }
    const read = fromRegistryDocument(json.value, subject, options.subjectTemplate);
    if (!read.ok) {
      problems.push(`${where}: ${read.reason}`);
      continue;
    }
    definitions.push(read.definition);
  }
  if (skipped > 0) output.err(`skipped ${skipped} subject${skipped === 1 ? '' : 's'} that hold${skipped === 1 ? 's' : ''} no JSON Schema`);
  if (definitions.length === 0 && problems.length === 0)
    output.err(`no tool subjects in ${client.baseUrl} follow the template "${options.subjectTemplate}"`);
  return { definitions: definitions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), problems };
}
