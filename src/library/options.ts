/**
 * The library's options, the same as the `normalize` command's flags, checked once and turned into the core's
 * pipeline options. A bad option is a programming error: it throws at creation with the option named.
 */
import { DEFAULT_NORMALIZE_OPTIONS } from '../core/rule/normalize.js';
import { parseEntityExemptions, type PipelineOptions } from '../core/pipeline.js';
import { DEFAULT_RECORD_LIMITS } from '../core/records/bytes.js';

/**
 * How the rule is applied, as the `normalize` command's options (README "Command line"). Every field is optional;
 * the defaults are RT-TOOL-8 exactly, with the command's limits.
 */
export interface RuleOptions {
  /**
   * Beyond the rule, off by default: also JSON-decode strings in nested properties and array items whose
   * subschema declares `array`/`object` (`--deep`).
   */
  readonly deep?: boolean;
  /**
   * Beyond the rule: `tool` or `tool/parameter` entries whose strings keep their HTML character references
   * (`--entity-exempt`), e.g. `['write_file/content']`.
   */
  readonly entityExempt?: readonly string[];
  /** Largest record accepted, in UTF-8 bytes of its JSON text (`--max-record-bytes`, default 1048576). */
  readonly maxRecordBytes?: number;
  /** Deepest nesting of arrays/objects accepted, at most 1000 (`--max-depth`, default 64). */
  readonly maxDepth?: number;
  /** Bound on entity-decoding passes per string (`--max-entity-passes`, default 10). */
  readonly maxEntityPasses?: number;
}

const RULE_OPTION_KEYS = ['deep', 'entityExempt', 'maxRecordBytes', 'maxDepth', 'maxEntityPasses'] as const;

/** Highest `maxDepth`: `JSON.stringify` and the recursive walks overflow the stack a little above 4000 levels. */
export const MAX_DEPTH_BOUND = 1_000;

/**
 * Checks `options` (and nothing else: `allowed` names the other keys the caller's options may hold) and builds
 * the pipeline options. Throws a TypeError or RangeError naming the option at fault.
 */
export function pipelineOptions(options: object, allowed: readonly string[], where: string): PipelineOptions {
  const known = new Set<string>([...RULE_OPTION_KEYS, ...allowed]);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw new TypeError(`${where}: unknown option "${key}" (known: ${[...known].join(', ')})`);
  }
  const o = options as Record<string, unknown>;
  if (o.deep !== undefined && typeof o.deep !== 'boolean') throw new TypeError(`${where}: "deep" must be a boolean`);
  const exempt = o.entityExempt;
  if (exempt !== undefined && (!Array.isArray(exempt) || !exempt.every((entry) => typeof entry === 'string'))) {
    throw new TypeError(`${where}: "entityExempt" must be an array of "tool" or "tool/parameter" strings`);
  }
  const maxDepth = positiveInt(o.maxDepth, 'maxDepth', DEFAULT_RECORD_LIMITS.maxDepth, where);
  if (maxDepth > MAX_DEPTH_BOUND) throw new RangeError(`${where}: "maxDepth" must be at most ${MAX_DEPTH_BOUND}, got ${maxDepth}`);
  return {
    limits: { maxRecordBytes: positiveInt(o.maxRecordBytes, 'maxRecordBytes', DEFAULT_RECORD_LIMITS.maxRecordBytes, where), maxDepth },
    normalize: {
      ...DEFAULT_NORMALIZE_OPTIONS,
      deep: o.deep === true,
      maxDepth,
      maxEntityPasses: positiveInt(o.maxEntityPasses, 'maxEntityPasses', DEFAULT_NORMALIZE_OPTIONS.maxEntityPasses, where),
    },
    entityExemptions: parseEntityExemptions((exempt ?? []).flatMap((entry) => entry.split(','))),
  };
}

function positiveInt(value: unknown, name: string, fallback: number, where: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${where}: "${name}" must be a positive integer, got ${typeof value === 'number' ? String(value) : typeof value}`);
  }
  return value;
}
