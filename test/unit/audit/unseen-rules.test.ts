/**
 * The rules added for tool sets the audit had not seen (issue 23), each with sentences it must read as a
 * constraint and sentences it must leave alone, on one string, boolean or integer parameter.
 */
import { describe, expect, it } from 'vitest';
import { auditTool } from '../../../src/audit/index.js';
import type { JsonObject } from '../../../src/core/shared/json.js';

function findings(description: string, type = 'string', extra: JsonObject = {}): string[] {
  return auditTool({
    name: 't',
    description: 'A tool.',
    inputSchema: { type: 'object', properties: { p: { type, description: description, ...extra } } },
  }).map((f) => `${f.layer} ${f.keyword} ${JSON.stringify(f.fix?.set ?? null)}`);
}

describe('value lists without "one of"', () => {
  it.each([
    ["task type: 'shell_command', 'AI', or 'http'", ['shell_command', 'AI', 'http']],
    ["State: 'active', 'pending', 'expired'", ['active', 'pending', 'expired']],
    ["Format: 'csv' (default), 'json', or 'parquet'", ['csv', 'json', 'parquet']],
    ['PR state (draft|open|merged).', ['draft', 'open', 'merged']],
    ['Include active alerts (true/false)', ['true', 'false']],
    ['Options: "internal" (private VPC only) or "internet-facing" (public access).', ['internal', 'internet-facing']],
  ])('%s', (sentence, values) => {
    expect(findings(sentence)).toContain(`prose-only enum ${JSON.stringify({ enum: values })}`);
  });
  it.each(["Examples: 'a', 'b'", "Duration: '30m', '2h', '1d'", 'Path to the file (e.g. src/index.ts)', "Label filter: 'key=value'"])(
    'not: %s',
    (sentence) => {
      expect(findings(sentence).filter((f) => f.startsWith('prose-only enum'))).toEqual([]);
    },
  );
});

describe('defaults', () => {
  it.each([
    ['whether the task is enabled (defaults to false; set to true to activate immediately)', 'boolean', false],
    ['Return a minified version. (Optional, default true)', 'boolean', true],
    ["Duration: '30m', '2h', '1d' (default: 2h)", 'string', '2h'],
    ['Max wait (default: 8000ms)', 'integer', 8000],
  ] as const)('%s', (sentence, type, value) => {
    expect(findings(sentence, type)).toContain(`prose-only default ${JSON.stringify({ default: value })}`);
  });
  it('a number with a unit is not compared with a count: "Default: 10KB (10240 bytes)" against 10240', () => {
    expect(findings('Maximum number of bytes to return. Default: 10KB (10240 bytes).', 'integer', { default: 10240 })).toEqual([]);
  });
});

describe('advice and conditions are not constraints', () => {
  it.each([
    'Use lower values (10-50) for faster queries, higher values (100-1000) for more comprehensive results.',
    'Start with a small time range (15-30 minutes) and expand if needed.',
    'When type is line, its values are recommended to be less than 1.',
    'Use 2 or more replicas for production workloads.',
  ])('%s', (sentence) => {
    expect(findings(sentence, 'integer')).toEqual([]);
  });
  it('"For namespaced resources, always provide the namespace" is said of some values only', () => {
    expect(findings('For namespaced resources, always provide the p.')).toEqual([]);
  });
  it('"must provide the full absolute path" is about the value, not its presence', () => {
    expect(findings('IMPORTANT: Assistant must provide the full absolute path to the p file.')).toEqual([]);
  });
  it('still reads a plain range as one', () => {
    expect(findings('Number of results (10-50).', 'integer')).toEqual(
      expect.arrayContaining([expect.stringContaining('prose-only maximum'), expect.stringContaining('prose-only minimum')]),
    );
  });
});

describe('bounds that cannot be lengths', () => {
  it('"Latitude between -90 and 90" on a string is no length bound (minLength -90 would not compile)', () => {
    expect(findings('Latitude between -90 and 90.').filter((f) => f.includes('minLength'))).toEqual([]);
  });
});

describe('the rules added in the tenth session', () => {
  it('a quoted list that fills the parentheses is a value list; example sentences are not', () => {
    expect(findings('Output format ("markdown" or "csv")')).toContain(`prose-only enum ${JSON.stringify({ enum: ['markdown', 'csv'] })}`);
    expect(findings("Good: 'How to set up authentication with JWT' or 'React useEffect cleanup examples'.")).toEqual([]);
  });

  it('"Default false." and "\'relevance\' (default)" give defaults', () => {
    expect(findings('Re-download even if cached. Default false.', 'boolean')).toContain(
      `prose-only default ${JSON.stringify({ default: false })}`,
    );
    expect(findings("Sort by 'relevance' (default) or 'date' (newest first).")).toContain(
      `prose-only default ${JSON.stringify({ default: 'relevance' })}`,
    );
    expect(findings('Default branch of the repository.').filter((f) => f.includes(' default '))).toEqual([]);
  });

  it('a date layout without seconds and offset is a pattern, not RFC 3339; "in any format" is no format', () => {
    expect(findings('Effective date in format "YYYY-MM-DD HH:MM"')).toContain(
      `prose-only pattern ${JSON.stringify({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}$' })}`,
    );
    expect(findings('Start, as YYYY-MM-DDTHH:mm:ssZ.')).toContain(`prose-only format ${JSON.stringify({ format: 'date-time' })}`);
    expect(findings('Time in any format.')).toEqual([]);
  });

  it("an identifier's length and pattern are its own shape; a cap on how many ids is not", () => {
    const tool = (properties: JsonObject) => auditTool({ name: 't', description: 'A tool.', inputSchema: { type: 'object', properties } });
    expect(tool({ paper_id: { type: 'string', description: 'The arXiv paper ID.', maxLength: 40, pattern: '^[0-9.v]+$' } })).toEqual([]);
    const ids = tool({
      paper_ids: { type: 'array', description: 'arXiv paper IDs.', maxItems: 50, items: { type: 'string', maxLength: 40 } },
    });
    expect(ids.map((f) => `${f.layer} ${f.keyword}`)).toEqual(['schema-only maxItems']);
  });

  it('"Option N" blocks after "exactly one of these options" are a oneOf of their parameters, on the object that has them', () => {
    const description = [
      'Input options (EXACTLY ONE of these THREE options must be used):',
      '',
      'Option 1 - Project slug and branch (BOTH required):',
      '- projectSlug: The project slug',
      '- branch: The branch',
      '',
      'Option 2 - Direct URL:',
      '- projectURL: The URL of the project',
      '',
      'Option 3 - Project detection:',
      '- workspaceRoot: The workspace root',
      '- branch: The branch',
      '',
      'Recommended workflow:',
      '- Never call this tool with incomplete parameters',
    ].join('\n');
    const properties = Object.fromEntries(['projectSlug', 'branch', 'projectURL', 'workspaceRoot'].map((n) => [n, { type: 'string' }]));
    const found = auditTool({
      name: 't',
      description,
      inputSchema: { type: 'object', properties: { params: { type: 'object', properties } } },
    });
    const oneOf = found.find((f) => f.keyword === 'oneOf');
    expect(oneOf?.parameter).toBe('params');
    expect(oneOf?.fix?.set).toEqual({
      oneOf: [{ required: ['projectSlug', 'branch'] }, { required: ['projectURL'] }, { required: ['workspaceRoot', 'branch'] }],
    });
    const withHome = auditTool({
      name: 't',
      description,
      inputSchema: { type: 'object', properties: { params: { type: 'object', properties, anyOf: [{ required: ['projectURL'] }] } } },
    });
    expect(withHome.filter((f) => f.keyword === 'oneOf')).toEqual([]);
  });
});
