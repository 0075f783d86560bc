/**
 * The library's options: the pipeline's settings table (src/core/records/settings.ts), the same that names the
 * `normalize` command's flags and the worker's environment, checked once and turned into the core's pipeline
 * options. A bad option is a programming error: it throws at creation with the option named.
 */
import { pipelineOptions, type PipelineOptions } from '../core/pipeline.js';
import {
  intWithin,
  PIPELINE_SETTING_NAMES,
  PIPELINE_SETTINGS,
  settingViolation,
  type PipelineSettings,
  type PipelineSettingSpec,
} from '../core/records/settings.js';

/**
 * How the rule is applied, as the `normalize` command's options (docs/cli.md). Every field is optional;
 * the defaults are RT-TOOL-8 exactly, with the command's limits.
 */
export type RuleOptions = PipelineSettings;

/**
 * Checks `options` (and nothing else: `allowed` names the other keys the caller's options may hold) and builds
 * the pipeline options. Throws a TypeError (wrong type) or RangeError (out of bounds) naming the option at fault.
 */
export function checkedPipelineOptions(options: object, allowed: readonly string[], where: string): PipelineOptions {
  const known = new Set<string>([...PIPELINE_SETTING_NAMES, ...allowed]);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw new TypeError(`${where}: unknown option "${key}" (known: ${[...known].join(', ')})`);
  }
  const o = options as Record<string, unknown>;
  for (const name of PIPELINE_SETTING_NAMES) {
    const value = o[name];
    if (value === undefined) continue;
    const problem = optionProblem(PIPELINE_SETTINGS[name], value);
    if (problem !== undefined) throw new problem(settingViolation(`${where}: ${name}`, PIPELINE_SETTINGS[name], shown(value)));
  }
  const settings = o as PipelineSettings;
  // The library takes an array of entries; each may itself be comma-separated, as a flag's or the environment's.
  const entityExempt = settings.entityExempt?.flatMap((entry) => entry.split(','));
  return pipelineOptions({ ...settings, entityExempt });
}

/** The error class for a value the setting refuses, or undefined when it is accepted. */
function optionProblem(spec: PipelineSettingSpec, value: unknown): typeof TypeError | typeof RangeError | undefined {
  switch (spec.kind) {
    case 'int':
      return typeof value !== 'number' ? TypeError : intWithin(spec, value) ? undefined : RangeError;
    case 'bool':
      return typeof value === 'boolean' ? undefined : TypeError;
    case 'list':
      return Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? undefined : TypeError;
  }
}

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}
