/**
 * The CLI's flags for pipeline settings, derived from the core's table (src/core/records/settings.ts): each
 * setting's flag is its name in kebab case, its usage line is the table's help and default, and a refused value
 * is worded as the environment and the library word it.
 */
import {
  intWithin,
  PIPELINE_SETTINGS,
  settingViolation,
  type PipelineSettingName,
  type PipelineSettings,
} from '../core/records/settings.js';
import { settingFlag } from './settings.js';

/** `maxRecordBytes` as `max-record-bytes`, at the type level too, so a command's parsed values stay typed. */
type Kebab<S extends string> = S extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `-${Lowercase<H>}`}${Kebab<T>}` : S;

type Kind<N extends PipelineSettingName> = (typeof PIPELINE_SETTINGS)[N]['kind'];

/** The `node:util` `parseArgs` option of each setting's flag. */
export type FlagOptions<N extends PipelineSettingName> = {
  readonly [K in N as Kebab<K>]: Kind<K> extends 'bool'
    ? { readonly type: 'boolean' }
    : Kind<K> extends 'list'
      ? { readonly type: 'string'; readonly multiple: true }
      : { readonly type: 'string' };
};

export interface PipelineFlags<N extends PipelineSettingName> {
  /** To spread into the command's `parseArgs` options. */
  readonly options: FlagOptions<N>;
  /** The usage lines of the flags, in the table's order. */
  readonly usage: string;
  /** The settings the parsed flags give, or the first refused value's message. */
  read(values: Readonly<Record<string, unknown>>): { ok: true; settings: PipelineSettings } | { ok: false; message: string };
}

const USAGE_NAME_WIDTH = 27;
const USAGE_WIDTH = 116;

/** The flags of the named settings, for a command that takes them. */
export function pipelineFlags<N extends PipelineSettingName>(names: readonly N[]): PipelineFlags<N> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: true }> = {};
  const usage: string[] = [];
  for (const name of names) {
    const spec: (typeof PIPELINE_SETTINGS)[PipelineSettingName] = PIPELINE_SETTINGS[name];
    const flag = settingFlag(name);
    options[flag] =
      spec.kind === 'bool' ? { type: 'boolean' } : spec.kind === 'list' ? { type: 'string', multiple: true } : { type: 'string' };
    const head = `--${flag}${spec.kind === 'int' ? ' N' : spec.kind === 'list' ? ' LIST' : ''}`;
    const tail = spec.kind === 'int' ? ` (default ${spec.default}, at most ${spec.max})` : spec.kind === 'list' ? ' (repeatable)' : '';
    usage.push(...usageLines(head, `${spec.help}${tail}`));
  }
  return {
    options: options as FlagOptions<N>,
    usage: usage.join('\n'),
    read(values) {
      const settings: Record<string, unknown> = {};
      for (const name of names) {
        const spec: (typeof PIPELINE_SETTINGS)[PipelineSettingName] = PIPELINE_SETTINGS[name];
        const flag = settingFlag(name);
        const value = values[flag];
        if (spec.kind === 'bool') settings[name] = value === true;
        else if (spec.kind === 'list') {
          settings[name] = (Array.isArray(value) ? (value as unknown[]) : []).flatMap((entry) => String(entry).split(','));
        } else if (typeof value === 'string') {
          const n = Number(value);
          if (value.trim() === '' || !intWithin(spec, n)) return { ok: false, message: settingViolation(`--${flag}`, spec, `"${value}"`) };
          settings[name] = n;
        }
      }
      return { ok: true, settings };
    },
  };
}

function usageLines(head: string, text: string): string[] {
  const indent = ' '.repeat(2 + USAGE_NAME_WIDTH);
  const lines: string[] = [];
  let line = `  ${head.padEnd(USAGE_NAME_WIDTH - 1)} `;
  for (const word of text.split(' ')) {
    if (line.length + word.length > USAGE_WIDTH && line.trim() !== head) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${word} `;
  }
  lines.push(line.trimEnd());
  return lines;
}
