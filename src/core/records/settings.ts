/**
 * The pipeline's settings, declared once: name (the library option), kind, default, bounds and meaning. The
 * worker's environment table (src/config/settings.ts), the CLI's flags, the library's option checks and the configuration
 * table (docs/configuration.md) are derived from this table, and every source reports a violation with the same {@link settingRule}.
 * Pure data and checks: where a value comes from (environment, flag, option) is the caller's.
 */
import { DEFAULT_NORMALIZE_OPTIONS, MAX_CONFIGURABLE_ENTITY_PASSES } from '../rule/normalize.js';
import { DEFAULT_RECORD_LIMITS, MAX_CONFIGURABLE_DEPTH, MAX_CONFIGURABLE_RECORD_BYTES } from './bytes.js';

interface Described {
  /** One line for README's table (Markdown). */
  readonly description: string;
  /** One line for a command's usage text (plain). */
  readonly help: string;
}

export type PipelineSettingSpec = Described &
  (
    | { readonly kind: 'int'; readonly default: number; readonly min: number; readonly max: number }
    | { readonly kind: 'bool'; readonly default: boolean }
    | { readonly kind: 'list'; readonly default: readonly string[] }
  );

export const PIPELINE_SETTINGS = {
  maxRecordBytes: {
    kind: 'int',
    default: DEFAULT_RECORD_LIMITS.maxRecordBytes,
    min: 1,
    max: MAX_CONFIGURABLE_RECORD_BYTES,
    description: 'largest input record (see [Limits](rule.md#limits))',
    help: 'Largest record (line) accepted, in UTF-8 bytes',
  },
  maxDepth: {
    kind: 'int',
    default: DEFAULT_RECORD_LIMITS.maxDepth,
    min: 1,
    max: MAX_CONFIGURABLE_DEPTH,
    description: 'deepest nesting of arrays/objects (see [Limits](rule.md#limits))',
    help: 'Deepest nesting of arrays/objects accepted',
  },
  maxEntityPasses: {
    kind: 'int',
    default: DEFAULT_NORMALIZE_OPTIONS.maxEntityPasses,
    min: 1,
    max: MAX_CONFIGURABLE_ENTITY_PASSES,
    description: 'bound on entity-decoding passes per string (see [Limits](rule.md#limits))',
    help: 'Bound on entity-decoding passes per string',
  },
  deep: {
    kind: 'bool',
    default: false,
    description: 'beyond the rule: deep mode',
    help: 'Beyond RT-TOOL-8: also JSON-decode nested properties/items declared array/object',
  },
  entityExempt: {
    kind: 'list',
    default: [],
    description: 'beyond the rule: `tool` or `tool/parameter`, comma-separated',
    help: 'Beyond RT-TOOL-8: comma-separated "tool" or "tool/parameter" entries whose strings keep their HTML character references',
  },
} as const satisfies Record<string, PipelineSettingSpec>;

export type PipelineSettingName = keyof typeof PIPELINE_SETTINGS;

/** The names in the table's order. */
export const PIPELINE_SETTING_NAMES = Object.keys(PIPELINE_SETTINGS) as readonly PipelineSettingName[];

/**
 * How the rule is applied; every field is optional, absent ones take the table's default (RT-TOOL-8 exactly).
 * The library's options, the `normalize` command's flags and the worker's environment all fill this shape.
 */
export interface PipelineSettings {
  /** Largest record accepted, in UTF-8 bytes of its JSON text (`--max-record-bytes`, default 1048576). */
  readonly maxRecordBytes?: number | undefined;
  /** Deepest nesting of arrays/objects accepted, at most 1000 (`--max-depth`, default 64). */
  readonly maxDepth?: number | undefined;
  /** Bound on entity-decoding passes per string, at most 1000 (`--max-entity-passes`, default 10). */
  readonly maxEntityPasses?: number | undefined;
  /**
   * Beyond the rule, off by default: also JSON-decode strings in nested properties and array items whose
   * subschema declares `array`/`object` (`--deep`).
   */
  readonly deep?: boolean | undefined;
  /**
   * Beyond the rule: `tool` or `tool/parameter` entries whose strings keep their HTML character references
   * (`--entity-exempt`), e.g. `['write_file/content']`.
   */
  readonly entityExempt?: readonly string[] | undefined;
}

/** The part of a setting's row its check reads; the worker's other int and bool settings have it too. */
export type SettingBounds =
  { readonly kind: 'int'; readonly min: number; readonly max: number } | { readonly kind: 'bool' } | { readonly kind: 'list' };

/** What a setting accepts, as every source words its violation: `<where>: <rule>, got <value>`. */
export function settingRule(spec: SettingBounds): string {
  switch (spec.kind) {
    case 'int':
      return `must be an integer from ${spec.min} to ${spec.max}`;
    case 'bool':
      return 'must be true or false';
    case 'list':
      return 'must be a list of "tool" or "tool/parameter" strings';
  }
}

/** True when `value` is an integer within the setting's bounds. */
export function intWithin(spec: { readonly min: number; readonly max: number }, value: number): boolean {
  return Number.isSafeInteger(value) && value >= spec.min && value <= spec.max;
}

/** The message for a value a setting refuses; `shown` is the value as the source may quote it. */
export function settingViolation(where: string, spec: SettingBounds, shown: string): string {
  return `${where}: ${settingRule(spec)}, got ${shown}`;
}
