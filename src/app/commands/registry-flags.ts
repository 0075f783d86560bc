/**
 * The registry flags `schemas push` and `audit --registry` share: parsed and checked once, so both commands
 * accept the same command lines and refuse the same mistakes with the same words.
 */
import { DEFAULT_REGISTRY_CONFIG, type RegistryConnection } from '../../adapters/registry/client.js';
import { readSecretEnv } from '../../config/secrets.js';
import { DEFAULT_SUBJECT_TEMPLATE, parseRegistryUrl, subjectTemplateProblem } from '../../core/schema/registry-document.js';
import { positiveInt, UsageError } from './usage.js';

/** The `parseCommandArgs` options of the registry flags. */
export const REGISTRY_FLAG_OPTIONS = {
  registry: { type: 'string' },
  'subject-template': { type: 'string' },
  username: { type: 'string' },
  'password-env': { type: 'string' },
  'timeout-ms': { type: 'string' },
} as const;

/** The flags that mean something only with `--registry`. */
export const REGISTRY_ONLY_FLAGS = ['subject-template', 'username', 'password-env', 'timeout-ms'] as const;

export type RegistryFlagValues = { readonly [K in keyof typeof REGISTRY_FLAG_OPTIONS]?: string | undefined };

export interface RegistryFlags {
  /** The `--registry` URL as given (credentials in it stay there, for the client to take). */
  readonly url: string;
  readonly subjectTemplate: string;
  readonly username: string | undefined;
  /** Read from the variable `--password-env` names, never from the command line. */
  readonly password: string | undefined;
  readonly timeoutMs: number;
}

/** Checks the registry flags of a command line whose `--registry` is `url`. @throws UsageError */
export function parseRegistryFlags(url: string, values: RegistryFlagValues, usage: string): RegistryFlags {
  try {
    parseRegistryUrl(url);
  } catch (error) {
    throw new UsageError(`--registry: ${error instanceof Error ? error.message : String(error)}`, usage);
  }
  const subjectTemplate = values['subject-template'] ?? DEFAULT_SUBJECT_TEMPLATE;
  const problem = subjectTemplateProblem(subjectTemplate);
  if (problem !== undefined) throw new UsageError(`--subject-template: ${problem}`, usage);
  const username = values.username;
  const passwordEnv = values['password-env'];
  if ((username === undefined) !== (passwordEnv === undefined)) throw new UsageError('--username and --password-env go together', usage);
  let password: string | undefined;
  if (passwordEnv !== undefined) {
    password = readSecretEnv(passwordEnv);
    if (password === undefined) throw new UsageError(`--password-env: environment variable ${passwordEnv} is not set`, usage);
  }
  const timeoutMs = positiveInt(values['timeout-ms'], 'timeout-ms', DEFAULT_REGISTRY_CONFIG.timeoutMs, usage);
  return { url, subjectTemplate, username, password, timeoutMs };
}

/** What a command's {@link RegistryClient} connects with; the client lets explicit credentials win over the URL's. */
export function registryConnection(flags: Pick<RegistryFlags, 'url' | 'timeoutMs' | 'username' | 'password'>): RegistryConnection {
  return {
    url: flags.url,
    timeoutMs: flags.timeoutMs,
    maxRetries: DEFAULT_REGISTRY_CONFIG.maxRetries,
    ...(flags.username === undefined ? {} : { username: flags.username }),
    ...(flags.password === undefined ? {} : { password: flags.password }),
  };
}
