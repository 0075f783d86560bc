/**
 * `toolcall-normalizer schemas push`: registers each tool definition of a schema directory as a JSON Schema
 * subject in a Confluent-compatible registry, in the form the worker's {@link ToolSchemaSource} reads back
 * (the input schema with `x-tool: {name, description}`, see core/schema/registry-document.ts).
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { Ajv, Options, ValidateFunction } from 'ajv';
import { loadSchemaDir } from '../../adapters/files/schema-dir.js';
import { validityFindings } from '../../audit/validity.js';
import { createSchemaChecker } from '../../core/schema/meta-schema.js';
import { newAjv } from '../../core/validation/ajv-instance.js';
import { DEFAULT_REGISTRY_CONFIG, RegistryClient, RegistryError } from '../../adapters/registry/client.js';
import { isJsonObject } from '../../core/shared/json.js';
import { forTerminal } from '../../core/shared/text.js';
import {
  DEFAULT_SUBJECT_TEMPLATE,
  parseRegistryUrl,
  subjectFor,
  subjectProblem,
  toRegistryDocument,
} from '../../core/schema/registry-document.js';
import { createSchemaCompiler } from '../../core/validation/validate.js';
import { stdioOutput, type CommandOutput } from './output.js';
import { parseRegistryFlags, REGISTRY_FLAG_OPTIONS, registryConnection } from './registry-flags.js';
import { isDirectory, parseCommandArgs, UsageError } from './usage.js';

export const SCHEMAS_USAGE = `Usage: toolcall-normalizer schemas push --registry URL [options] DIR

Registers each tool definition in DIR (one <tool>.json per tool, as for "normalize --schemas") as a JSON Schema
subject, and prints one line per tool: subject=<subject> version=<n> id=<id>. Pushing an unchanged definition
again registers nothing new and prints the same version and id.

Options:
  --registry URL             Confluent-compatible API base URL (required), e.g. http://localhost:8080/apis/ccompat/v7
  --subject-template T       Subject of a tool; {tool} is replaced by its name (default "${DEFAULT_SUBJECT_TEMPLATE}")
  --username U               Basic auth user name (with --password-env)
  --password-env VAR         Name of the environment variable holding the password (never the password itself)
  --timeout-ms N             Timeout of one registry request in ms (default ${DEFAULT_REGISTRY_CONFIG.timeoutMs})
  --force                    Push definitions even when the audit's validity layer finds errors in them

Each definition is checked first by the validity layer of "toolcall-normalizer audit" (meta-schema, required
names, default/enum values); one with validity errors is reported and not pushed unless --force.
The registry's compatibility rules for each subject are left as configured; an incompatible change is reported.

Exit status: 0 when every definition was pushed; 1 when a definition has problems (it is not pushed, the others
are) or the registry refused or failed; 2 on a usage error.`;

export interface PushOptions {
  readonly registry: string;
  readonly dir: string;
  readonly subjectTemplate: string;
  readonly username?: string;
  readonly password?: string;
  readonly timeoutMs?: number;
  /** Push definitions with validity errors too (they are still reported). */
  readonly force?: boolean;
}

export interface PushedTool {
  readonly file: string;
  readonly tool: string;
  readonly subject: string;
  readonly version: number;
  readonly id: number;
}

export interface PushReport {
  readonly pushed: readonly PushedTool[];
  /** Files not pushed, with why (problems found by loadSchemaDir, registry refusals, failures). */
  readonly failed: readonly { file: string; message: string }[];
}

const STDIO = stdioOutput('schemas push');

export async function schemasMain(args: string[], output: CommandOutput = STDIO): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === 'help' || subcommand === '--help' || subcommand === '-h') {
    output.out(`${SCHEMAS_USAGE}\n`);
    return subcommand === undefined ? 2 : 0;
  }
  if (subcommand !== 'push') throw new UsageError(`unknown schemas command "${subcommand}"`, SCHEMAS_USAGE);
  const { values, positionals } = parseCommandArgs(
    rest,
    {
      ...REGISTRY_FLAG_OPTIONS,
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    SCHEMAS_USAGE,
  );
  if (values.help === true) {
    output.out(`${SCHEMAS_USAGE}\n`);
    return 0;
  }
  const [dir, extra] = positionals;
  if (dir === undefined) throw new UsageError('the schema directory DIR is required', SCHEMAS_USAGE);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, SCHEMAS_USAGE);
  if (!(await isDirectory(dir))) throw new UsageError(`"${dir}" is not a readable directory`, SCHEMAS_USAGE);

  const registry = values.registry;
  if (registry === undefined) throw new UsageError('--registry URL is required', SCHEMAS_USAGE);
  const flags = parseRegistryFlags(registry, values, SCHEMAS_USAGE);
  const options: PushOptions = {
    registry,
    dir,
    subjectTemplate: flags.subjectTemplate,
    timeoutMs: flags.timeoutMs,
    force: values.force === true,
    ...(flags.username === undefined ? {} : { username: flags.username }),
    ...(flags.password === undefined ? {} : { password: flags.password }),
  };

  const report = await pushToolSchemas(options, output);
  return report.failed.length === 0 ? 0 : 1;
}

/**
 * Pushes every definition of `options.dir` that loads without problems, in file-name order, and reports each
 * result on `output`. A definition with problems, or one the registry refuses (incompatible, invalid), is
 * reported and skipped; an auth failure, an unavailable registry or a URL that is not one stops the run (every
 * later push would fail the same way), the remaining files reported as not pushed.
 */
export async function pushToolSchemas(options: PushOptions, output: CommandOutput = STDIO): Promise<PushReport> {
  const loaded = await loadSchemaDir(options.dir, createSchemaCompiler());
  const failed: { file: string; message: string }[] = [];
  for (const problem of loaded.problems) {
    failed.push({ file: problem.file, message: problem.message });
    output.err(`${problem.file}: not pushed: ${problem.message}`);
  }
  const withProblems = new Set(loaded.problems.map((problem) => problem.file));

  // The audit's validity layer: a schema that is unsound (a required name with no property, a default its own
  // schema rejects...) is not registered unless forced.
  const checker = createSchemaChecker();
  for (const { file, definition } of loaded.definitions) {
    if (withProblems.has(file)) continue;
    const findings = validityFindings(definition, checker);
    if (findings.length === 0) continue;
    const details = findings.map((f) => `${f.parameter === null ? '' : `${f.parameter}: `}${f.keyword}: ${f.suggestion}`).join(' | ');
    if (options.force === true) {
      output.err(`${file}: pushed despite ${findings.length} validity error${findings.length === 1 ? '' : 's'} (--force): ${details}`);
      continue;
    }
    const message = `${findings.length} validity error${findings.length === 1 ? '' : 's'} (fix, or push with --force): ${details}`;
    failed.push({ file, message });
    output.err(`${file}: not pushed: ${message}`);
    withProblems.add(file);
  }

  const url = parseRegistryUrl(options.registry);
  const username = options.username ?? url.username;
  const password = options.password ?? url.password;
  const auth = username === undefined ? {} : { auth: { username, password: password ?? '' } };
  // The library would otherwise compile each document with a strict draft-07 Ajv, which rejects 2020-12 schemas
  // ("no schema with key or ref https://json-schema.org/draft/2020-12/schema") and our `x-tool` key.
  const library = new SchemaRegistry({ host: url.baseUrl, ...auth }, { [SchemaType.JSON]: { ajvInstance: registrationAjv() } });
  const client = new RegistryClient(
    registryConnection({
      url: options.registry,
      timeoutMs: options.timeoutMs ?? DEFAULT_REGISTRY_CONFIG.timeoutMs,
      username: options.username,
      password: options.password,
    }),
  );

  const pushed: PushedTool[] = [];
  let stop: string | undefined;
  for (const { file, definition } of loaded.definitions) {
    if (withProblems.has(file)) continue;
    const subject = subjectFor(definition.name, options.subjectTemplate);
    // Checked before any request: a lone surrogate would otherwise surface as the URL encoder's "URI malformed".
    const problem = subjectProblem(subject);
    if (problem !== undefined) {
      failed.push({ file, message: problem });
      output.err(`${file}: not pushed: ${problem}`);
      continue;
    }
    if (stop !== undefined) {
      failed.push({ file, message: stop });
      output.err(`${file}: subject ${subject}: not pushed: ${stop}`);
      continue;
    }
    const schema = JSON.stringify(toRegistryDocument(definition));
    try {
      const id = await register(library, client, subject, schema);
      // register() answers only the id; the version comes from looking the exact text up in the subject.
      const found = await client.lookupSchema(subject, schema);
      if (found === undefined) throw new Error(`registered as id ${id}, but the registry does not find it in the subject`);
      const result: PushedTool = { file, tool: definition.name, subject, version: found.version, id };
      pushed.push(result);
      output.out(`subject=${forTerminal(subject)} version=${result.version} id=${result.id}\n`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failed.push({ file, message });
      output.err(`${file}: subject ${subject}: not pushed: ${message}`);
      // Our client's errors (auth, unavailable, a URL that is not a registry) would repeat for every subject;
      // the library's (409 incompatible, 422 invalid) concern this subject only.
      if (error instanceof RegistryError) stop = 'skipped after an earlier registry failure';
    }
  }
  return { pushed, failed };
}

/**
 * Registers `schema` under `subject` and returns its id.
 *
 * The library's register() first reads `GET /config/{subject}`: on 404 (a new subject) it registers and, by
 * default, sets the subject to BACKWARD; on an existing subject it refuses unless the level equals the one we
 * pass (default BACKWARD). Neither suits: pushing must not rewrite an operator's policy, and on Apicurio 3.3
 * BACKWARD makes every later version of a 2020-12 schema fail with HTTP 500 "could not determine version". So we
 * read the subject's level ourselves, pass exactly that, and never update the configuration: the registry's own
 * rules decide, and an incompatible change comes back as its 409.
 */
async function register(library: SchemaRegistry, client: RegistryClient, subject: string, schema: string): Promise<number> {
  const level = await client.getCompatibility(subject);
  const compatibility = level === undefined ? COMPATIBILITY.NONE : LEVELS.get(level);
  if (compatibility === undefined)
    throw new Error(`the subject's compatibility level "${level ?? ''}" is unknown to the registration client`);
  const { id } = await library.register({ type: SchemaType.JSON, schema }, { subject, compatibility, updateConfig: false });
  return id;
}

const LEVELS = new Map<string, COMPATIBILITY>(Object.values(COMPATIBILITY).map((level) => [level, level]));

const REGISTRATION_AJV_OPTIONS: Options = { strict: false, validateFormats: false, logger: false };

/**
 * What the library compiles each document with before registering it: our drafts (2020-12, the default, and
 * draft-07/06, as core/validation/validate.ts reads them), permissive about vendor keys and formats. The tool's own schema
 * is already checked by our compiler in loadSchemaDir; this only has to agree with it. A fresh Ajv per compile,
 * because Ajv keeps every `$id` it compiled and throws on the second schema with the same `$id` (a few schemas
 * per push: the cost does not matter). `$schema` is dropped from the copy compiled, since we chose the draft.
 */
function registrationAjv(): { addSchema: Ajv['addSchema']; compile: (schema: unknown) => ValidateFunction } {
  return {
    addSchema: () => {
      throw new Error('schema references are not used by tool schemas');
    },
    compile: (schema: unknown) => {
      // toRegistryDocument always produces an object.
      if (!isJsonObject(schema)) throw new Error('a tool schema document must be a JSON object');
      const { $schema } = schema;
      const draft07 = typeof $schema === 'string' && /draft-0[67]\/schema/.test($schema);
      const root = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema'));
      return newAjv(draft07 ? 'draft-07' : '2020-12', REGISTRATION_AJV_OPTIONS).compile(root);
    },
  };
}
