/**
 * One table (src/core/records/settings.ts) drives the worker's environment, the CLI's flags and the library's
 * options: every bound is the same in the three, and a refused value is worded the same way by each.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { pipelineFlags } from '../../../src/config/flags.js';
import { PIPELINE_ENV, SETTINGS, settingFlag } from '../../../src/config/settings.js';
import { PIPELINE_SETTING_NAMES, PIPELINE_SETTINGS, settingRule } from '../../../src/core/records/settings.js';
import { normalizeMain, NORMALIZE_USAGE } from '../../../src/app/commands/normalize-main.js';
import { UsageError } from '../../../src/app/commands/usage.js';
import { createNormalizer } from '../../../src/library/index.js';

const BASE = { KAFKA_BROKERS: 'localhost:9092', SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7' } as const;
const TOOLS = { t: { type: 'object' } };

function envProblem(name: string, text: string): string {
  try {
    loadConfig({ ...BASE, [name]: text });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  return '';
}

function flagProblem(flag: string, text: string): string {
  const flags = pipelineFlags(PIPELINE_SETTING_NAMES);
  const read = flags.read({ [flag]: text });
  return read.ok ? '' : read.message;
}

function libraryProblem(option: string, value: unknown): string {
  try {
    createNormalizer({ tools: TOOLS, [option]: value });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return '';
}

const INT_NAMES = PIPELINE_SETTING_NAMES.filter((name) => PIPELINE_SETTINGS[name].kind === 'int') as readonly (
  'maxRecordBytes' | 'maxDepth' | 'maxEntityPasses'
)[];

describe('one table of pipeline settings', () => {
  it('every pipeline setting has its row in the environment table, with the same kind, default and bounds', () => {
    for (const name of PIPELINE_SETTING_NAMES) {
      expect(SETTINGS[PIPELINE_ENV[name]], name).toEqual({ ...PIPELINE_SETTINGS[name], option: name });
    }
  });

  it('every pipeline setting is a flag of normalize, and normalize lists each in its usage', () => {
    for (const name of PIPELINE_SETTING_NAMES) expect(NORMALIZE_USAGE).toContain(`--${settingFlag(name)}`);
    expect(Object.keys(pipelineFlags(PIPELINE_SETTING_NAMES).options)).toEqual(PIPELINE_SETTING_NAMES.map(settingFlag));
  });

  it.each(INT_NAMES)('%s: the bounds hold alike in the environment, the flags and the library', (name) => {
    const spec = PIPELINE_SETTINGS[name];
    const env = PIPELINE_ENV[name];
    const flag = settingFlag(name);
    const rule = settingRule(spec);
    for (const value of [spec.min - 1, spec.max + 1, 1e9, 1.5]) {
      expect(envProblem(env, String(value))).toBe(`${env}: ${rule}, got "${value}"`);
      expect(flagProblem(flag, String(value))).toBe(`--${flag}: ${rule}, got "${value}"`);
      expect(libraryProblem(name, value)).toBe(`createNormalizer: ${name}: ${rule}, got ${value}`);
    }
    for (const value of [spec.min, spec.max]) {
      expect(envProblem(env, String(value))).toBe('');
      expect(flagProblem(flag, String(value))).toBe('');
      expect(libraryProblem(name, value)).toBe('');
    }
  });

  it('the library no longer accepts what the environment and the CLI refuse (maxEntityPasses 1e9, any record size)', () => {
    expect(() => createNormalizer({ tools: TOOLS, maxEntityPasses: 1e9 })).toThrow(RangeError);
    expect(() => createNormalizer({ tools: TOOLS, maxRecordBytes: 2 ** 40 })).toThrow(RangeError);
  });

  it("a refused flag is a usage error with the table's wording", async () => {
    const run = normalizeMain(['--schemas', '.', '--max-entity-passes', '1001']);
    await expect(run).rejects.toThrow(UsageError);
    await expect(normalizeMain(['--schemas', '.', '--max-entity-passes', '1001'])).rejects.toThrow(
      `--max-entity-passes: ${settingRule(PIPELINE_SETTINGS.maxEntityPasses)}, got "1001"`,
    );
  });

  it('a boolean is worded alike in the environment and the library', () => {
    const rule = settingRule(PIPELINE_SETTINGS.deep);
    expect(envProblem('NORMALIZE_DEEP', 'maybe')).toBe(`NORMALIZE_DEEP: ${rule}, got "maybe"`);
    expect(libraryProblem('deep', 'maybe')).toBe(`createNormalizer: deep: ${rule}, got "maybe"`);
  });

  it('flags give the settings the table names, lists split at commas', () => {
    const read = pipelineFlags(PIPELINE_SETTING_NAMES).read({ deep: true, 'entity-exempt': ['a,b/c', 'd'], 'max-depth': '7' });
    expect(read).toEqual({ ok: true, settings: { deep: true, entityExempt: ['a', 'b/c', 'd'], maxDepth: 7 } });
  });
});
