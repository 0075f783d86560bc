/**
 * The options of the hot path's Ajv instances (validate.ts), shared with the build script that generates their
 * meta-schema validators (scripts/meta-validators.ts), so the two cannot drift apart.
 */
import type { Options } from 'ajv';

export const AJV_OPTIONS: Options = {
  // Real tool schemas carry `title`, `examples`, vendor `x-` keys, unknown formats...: tolerate, do not reject.
  strict: false,
  // Agents fix all problems in one retry; payload size and depth are bounded upstream, output by maxDiagnostics.
  allErrors: true,
  // Errors carry `parentSchema`, `schema` and `data`: we need them for descriptions, allowed keys and previews.
  verbose: true,
  // Validation must never change the arguments: no coercion, no defaults, no pruning.
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  validateFormats: true,
  // Arguments are plain data: `constructor`, `toString`, `__proto__` exist only when the call sends them, whereas
  // ajv's default `data.name !== undefined` finds Object.prototype's members.
  ownProperties: true,
  // Pure core: ajv would otherwise `console.warn` about unknown formats and keywords.
  logger: false,
  // Each `$ref` target compiles once, as its own function: inlined, a `$defs` entry shared by every parameter is
  // copied into each use (a 17 KB schema took 22 s and 3.2 GB to compile).
  inlineRefs: false,
};
