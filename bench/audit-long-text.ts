/**
 * `npm run bench:audit-long-text`: how the audit's time grows with the length of a description, per shape of text.
 * Each shape (a phrase one rule reads) is repeated to SMALL and to LARGE characters (default 50 000 and 200 000) in a
 * tool's description and in one parameter's, and the two audits are timed side by side. Linear time shows as a ratio
 * near LARGE/SMALL (4 by default); a shape that some rule reads once per candidate over the whole sentence shows as
 * its square (16) and is printed first. Pure CPU, no service; prints one table.
 */
import { auditTool } from '../src/audit/index.js';
import type { ToolDefinition } from '../src/core/schema/tool-definition.js';

const SMALL = Number(process.env.BENCH_SMALL ?? 50_000);
const LARGE = Number(process.env.BENCH_LARGE ?? 200_000);

/** Phrases of the rules: value lists, bounds, defaults, formats, templates, rules across parameters, layouts. */
const SHAPES = [
  "Default: 'a'. ",
  "one of 'a', 'b' ",
  '(a|b) ',
  'at least 1 ',
  'must be at least 5 and at most 10 characters ',
  "'a' (default), ",
  "Required when `type` is 'x', ",
  '| a | b |\n',
  "- 'a'\n",
  'Valid values:\n- a\n',
  'Format: YYYY-MM-DD ',
  "e.g. 'x' ",
  'e.g. at least 5 and at most 10; ',
  'defaults to 5 if not set, ',
  '`a` and `b` are mutually exclusive, ',
  'either `a` or `b` ',
  'Provide either `a` or `b`, not both. ',
  'only one of a or b can be given, ',
  '0=X, 1=Y, ',
  "'a' to do, or ",
  'Supported: a, b, ',
  "State: 'a', 'b', ",
  "Use 'a' to x, or ",
  "use 'a' for b, ",
  "mode - 'a', ",
  'Parameters:\n- q (optional): x\n',
  'Actions: list (q; optional r);\n',
  'between 1 and 5, ',
  'ISO 8601 ',
  "required for 'x', ",
  "For 'x': required. ",
  "if `q` is 'a', ",
  "(default: 'a') or ",
  'x, y, or z; ',
  "prefix 'org-' ",
  'format: job-<digits> ',
  "`q` must start with 'a', ",
  'Default: 5, one of a, b or c; ',
  '`limit` or ',
  '1-',
  'as a list ',
  '(int) ',
  'a string or a number ',
  'true/false ',
];

function definition(text: string): ToolDefinition {
  return {
    name: 'long',
    description: `Tool. ${text}`,
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string', description: `Query ${text} end.` }, r: { type: 'integer' }, type: { type: 'string' } },
    },
  };
}

function auditMs(shape: string, size: number): number {
  const text = shape.repeat(Math.ceil(size / shape.length)).slice(0, size);
  const started = performance.now();
  auditTool(definition(text));
  return performance.now() - started;
}

const rows = SHAPES.map((shape) => {
  const small = auditMs(shape, SMALL);
  const large = auditMs(shape, LARGE);
  return { shape, small, large, ratio: large / small };
}).sort((a, b) => b.ratio - a.ratio);

console.log(`audit time by shape of text, ${SMALL} and ${LARGE} characters (linear: about ${(LARGE / SMALL).toFixed(1)}x)`);
console.log(`${'ratio'.padStart(6)} ${'small ms'.padStart(9)} ${'large ms'.padStart(9)}  shape`);
for (const row of rows)
  console.log(
    `${row.ratio.toFixed(1).padStart(6)} ${row.small.toFixed(0).padStart(9)} ${row.large.toFixed(0).padStart(9)}  ${JSON.stringify(row.shape)}`,
  );
