/**
 * The failure kinds that reading the audit's findings on real tool definitions shows, one test each: noise the
 * audit must not report, and conflicts it must report under the right keyword, with a fix that is valid.
 */
import { describe, expect, it } from 'vitest';
import { auditTool, diffProseAndSchema, type Finding } from '../../../src/audit/index.js';
import { applyFix } from '../../../src/audit/fix.js';
import { templatePattern } from '../../../src/audit/prose-only.js';
import type { JsonObject, JsonValue } from '../../../src/core/shared/json.js';
import type { ToolDefinition } from '../../../src/core/schema/tool-definition.js';
import { createSchemaCompiler } from '../../../src/core/validation/validate.js';

function tool(properties: JsonObject, extra: JsonObject = {}, description = 'A tool.'): ToolDefinition {
  return { name: 't', description, inputSchema: { type: 'object', properties, ...extra } };
}

const where = (findings: readonly Finding[]): string[] => findings.map((f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword}`).sort();

/** Applies the finding's fix and validates `calls` against the result: [] when every call is still accepted. */
function rejectedAfterFix(definition: ToolDefinition, finding: Finding | undefined, calls: JsonValue[]): string[] {
  if (finding?.fix === undefined) throw new Error('no fix');
  const compiled = createSchemaCompiler().compile(applyFix(definition.inputSchema, finding.fix));
  if (!compiled.ok) return [compiled.diagnostic.message];
  return calls.flatMap((call) => compiled.validate(call).map((d) => `${JSON.stringify(call)}: ${d.message}`));
}

describe('schema-only noise is not reported', () => {
  it('leaves alone zod safe-integer bounds and other type limits', () => {
    const definition = tool({
      page: { type: 'integer', minimum: 1, maximum: 9007199254740991, description: 'Page number.' },
      offset: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991, description: 'Offset.' },
      id: { type: 'integer', maximum: 2147483647, description: 'Row id.' },
    });
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('leaves alone trivial lower bounds (exclusiveMinimum 0, minimum 1 on a number, minLength 2)', () => {
    const definition = tool({
      count: { type: 'number', exclusiveMinimum: 0, description: 'How many.' },
      size: { type: 'number', minimum: 1, description: 'Size.' },
      query: { type: 'string', minLength: 2, description: 'Search text.' },
    });
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('still reports an upper bound a realistic value crosses, at medium confidence', () => {
    const findings = diffProseAndSchema(
      tool({ window_hours: { type: 'integer', maximum: 168, description: 'Look-back window in hours.' } }),
    );
    expect(where(findings)).toEqual(['schema-only window_hours maximum']);
    expect(findings[0]?.confidence).toBe('medium');
  });
});

describe('prose read for what it says', () => {
  it('does not read search syntax in an example query as a bound', () => {
    const definition = tool({ q: { type: 'string', description: 'Search query, e.g. `stars:>1000 language:go` or "forks:>=10".' } });
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('reads "at least one of A or B is required" as anyOf of required lists, not as required', () => {
    const definition = tool(
      { email: { type: 'string' }, phone: { type: 'string' } },
      {},
      'Find a contact. At least one of `email` or `phone` is required.',
    );
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only - anyOf']);
    expect(rejectedAfterFix(definition, findings[0], [{ email: 'a@b.c' }, { phone: '1' }, { email: 'a@b.c', phone: '1' }])).toEqual([]);
  });

  it('reads "A and B must be provided together" as dependentRequired', () => {
    const definition = tool(
      { start: { type: 'string' }, end: { type: 'string' } },
      {},
      'List events. `start` and `end` must be provided together.',
    );
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only - dependentRequired']);
    expect(findings[0]?.fix?.set).toEqual({ dependentRequired: { start: ['end'], end: ['start'] } });
    expect(rejectedAfterFix(definition, findings[0], [{}, { start: 'a', end: 'b' }])).toEqual([]);
  });

  it('reads "exactly one of X, Y or Z" and "provide X or Y, not both" as oneOf', () => {
    const three = tool(
      { issue: { type: 'string' }, pull: { type: 'string' }, commit: { type: 'string' } },
      {},
      'Comment on something. Exactly one of `issue`, `pull` or `commit` must be given.',
    );
    expect(where(diffProseAndSchema(three))).toEqual(['prose-only - oneOf']);
    const own = tool({
      query: { type: 'string', description: 'The objective. Provide query or runId, not both.' },
      runId: { type: 'string' },
    });
    const findings = diffProseAndSchema(own);
    expect(where(findings)).toEqual(['prose-only - oneOf']);
    expect(rejectedAfterFix(own, findings[0], [{ query: 'x' }, { runId: 'r' }])).toEqual([]);
  });

  it('reads "A and B are mutually exclusive" as not of a required list', () => {
    const definition = tool(
      { cursor: { type: 'string' }, page: { type: 'integer' } },
      {},
      'List items. `cursor` and `page` are mutually exclusive.',
    );
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only - not']);
    expect(rejectedAfterFix(definition, findings[0], [{}, { cursor: 'c' }, { page: 2 }])).toEqual([]);
  });

  it('does not turn a format offered among others, or for some values only, into a format', () => {
    const definition = tool({
      since: { type: 'string', description: 'ISO 8601 date or range (e.g. 2024-01-01..2024-02-01).' },
      when: { type: 'string', description: 'Accepts ISO 8601, or relative dates such as "2 weeks ago".' },
      value: { type: 'string', description: 'The field value; for dates, YYYY-MM-DD.' },
      id: { type: 'string', description: 'Optional. Defaults to a random UUID.' },
    });
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('attributes no sentence about the response to a parameter', () => {
    const definition = tool(
      { labels: { type: 'array', items: { type: 'string' }, description: 'Labels to filter by.' } },
      {},
      'List issues. Returns at most 50 labels per issue.',
    );
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('suggests the default value alone, not the prose around it', () => {
    const definition = tool({
      ignoreMode: {
        type: 'string',
        enum: ['untilEscalating', 'forever'],
        description: "How to ignore (default: `ignoreMode='untilEscalating'`).",
      },
    });
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only ignoreMode default']);
    expect(findings[0]?.fix?.set).toEqual({ default: 'untilEscalating' });
  });
});

describe('misses now found', () => {
  it('finds a format shown as a template (GHSA-xxxx-xxxx-xxxx) and builds its pattern', () => {
    const definition = tool({ ghsa_id: { type: 'string', description: 'Advisory ID (format: GHSA-xxxx-xxxx-xxxx).' } });
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only ghsa_id pattern']);
    expect(findings[0]?.confidence).toBe('high');
    expect(rejectedAfterFix(definition, findings[0], [{ ghsa_id: 'GHSA-abcd-1234-wxyz' }])).toEqual([]);
    expect(rejectedAfterFix(definition, findings[0], [{ ghsa_id: 'CVE-2024-1' }])).not.toEqual([]);
  });

  it("finds \"in format 'user:ID' or 'team:ID'\" with no pattern", () => {
    const definition = tool({ reviewer: { type: 'string', description: "Who reviews, in format 'user:ID' or 'team:ID'." } });
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only reviewer pattern']);
    expect(rejectedAfterFix(definition, findings[0], [{ reviewer: 'user:42' }, { reviewer: 'team:core' }])).toEqual([]);
  });

  it('finds "X is still required" with nothing in required', () => {
    const definition = tool({
      owner: { type: 'string', description: 'Repository owner (the repository name alone is not enough). It is still required.' },
    });
    expect(where(diffProseAndSchema(definition))).toEqual(['prose-only owner required']);
  });

  it('finds "(\'indexed\' only)" with no enum or const', () => {
    const definition = tool({ mode: { type: 'string', description: "Search mode ('indexed' only)." } });
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only mode enum']);
    expect(findings[0]?.fix?.set).toEqual({ enum: ['indexed'] });
  });

  it('finds values glossed in parentheses with no enum', () => {
    const definition = tool({
      kind: { type: 'string', description: "List local branches ('local'), remote branches ('remote') or all branches ('all')." },
    });
    expect(where(diffProseAndSchema(definition))).toEqual(['prose-only kind enum']);
  });

  it('finds an enum that lists a placeholder instead of the values it stands for', () => {
    const definition = tool({
      freshness: {
        type: 'string',
        enum: ['pd', 'pw', 'YYYY-MM-DDtoYYYY-MM-DD'],
        description: "'pd' last day, 'pw' last week, 'YYYY-MM-DDtoYYYY-MM-DD' a range, e.g. 2022-04-01to2022-07-30.",
      },
    });
    const findings = diffProseAndSchema(definition);
    expect(where(findings)).toEqual(['prose-only freshness enum']);
    expect(rejectedAfterFix(definition, findings[0], [{ freshness: 'pd' }, { freshness: '2022-04-01to2022-07-30' }])).toEqual([]);
  });

  it('finds a required parameter the argument list calls optional, with a fix that drops it from required', () => {
    const definition = tool(
      { name: { type: 'string' }, amount_off: { type: 'number' } },
      { required: ['name', 'amount_off'] },
      'Create a coupon.\n- name (str): The name.\n- amount_off (number, optional): The amount off.',
    );
    const findings = auditTool(definition);
    expect(where(findings)).toEqual(['schema-only amount_off required']);
    expect(findings[0]?.fix?.set).toEqual({ required: ['name'] });
  });
});

describe('requirements on a value of another parameter', () => {
  it('reports "required when method is X" as one if/then per parameter, in one finding, and no plain required', () => {
    const definition = tool({
      method: { type: 'string', enum: ['create', 'update'] },
      id: { type: 'string', description: 'The item. Required when method is update.' },
      body: { type: 'string', description: 'Required if method is create.' },
    });
    const findings = diffProseAndSchema(definition);
    expect(findings.map((f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword}`)).toEqual(['prose-only - if']);
    expect(findings[0]?.fix?.set).toEqual({
      allOf: [
        { if: { properties: { method: { enum: ['update'] } }, required: ['method'] }, then: { required: ['id'] } },
        { if: { properties: { method: { enum: ['create'] } }, required: ['method'] }, then: { required: ['body'] } },
      ],
    });
  });
});

describe('templatePattern', () => {
  it('builds patterns from templates', () => {
    expect(templatePattern(['GHSA-xxxx-xxxx-xxxx'])).toBe('^GHSA-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}$');
    expect(templatePattern(['user:ID', 'team:ID'])).toBe('^(?:user:[^\\s]+|team:[^\\s]+)$');
    expect(templatePattern(['HH:MM'])).toBe('^[0-9]{2}:[0-9]{2}$');
  });
});
