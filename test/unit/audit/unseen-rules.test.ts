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

/** The findings of a tool of `properties`, each as layer, parameter, keyword and the fix's `set`. */
function tool(properties: JsonObject, description = 'A tool.', required: string[] = []): string[] {
  return auditTool({ name: 't', description, inputSchema: { type: 'object', properties, required } }).map(
    (f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword} ${JSON.stringify(f.fix?.set ?? null)}`,
  );
}

/** The prose-only findings of one keyword on parameter `p` described by `sentence`. */
function of(keyword: string, sentence: string, type = 'string', extra: JsonObject = {}): string[] {
  return findings(sentence, type, extra).filter((f) => f.startsWith(`prose-only ${keyword} `));
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

describe('the rules added in the twelfth session, first round', () => {
  const tool = (properties: JsonObject, description = 'A tool.') =>
    auditTool({ name: 't', description, inputSchema: { type: 'object', properties } }).map(
      (f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword} ${JSON.stringify(f.fix?.set ?? null)}`,
    );

  it('a bound that is the natural domain of the named quantity is intrinsic', () => {
    const position = {
      type: 'object',
      description: 'Where to look.',
      properties: {
        longitude: { type: 'number', minimum: -180, maximum: 180 },
        latitude: { type: 'number', minimum: -90, maximum: 90 },
      },
    };
    expect(tool({ from: position })).toEqual([]);
    expect(
      tool({ minLatitude: { type: 'number', minimum: -90, maximum: 90 }, lng: { type: 'number', minimum: -180, maximum: 180 } }),
    ).toEqual([]);
    expect(tool({ fill_opacity: { type: 'number', minimum: 0, maximum: 1 } })).toEqual([]);
    expect(tool({ scale: { type: 'integer', description: 'Percentage of the page width.', minimum: 1, maximum: 100 } })).toEqual([]);
    expect(tool({ value: { type: 'number', description: 'The opacity of the fill.', minimum: 0, maximum: 1 } })).toEqual([]);
    expect(tool({ port: { type: 'integer', minimum: 1, maximum: 65535 } })).toEqual([]);
  });

  it('a bound tighter than the natural domain, or on a quantity with none, is still reported', () => {
    expect(tool({ latitude: { type: 'number', minimum: -85.0511, maximum: 85.0511 } })).toEqual([
      'schema-only latitude maximum null',
      'schema-only latitude minimum null',
    ]);
    expect(tool({ percent: { type: 'integer', minimum: 10, maximum: 400 } })).toEqual([
      'schema-only percent maximum null',
      'schema-only percent minimum null',
    ]);
    expect(tool({ count: { type: 'number', minimum: -90, maximum: 90 } })).toEqual([
      'schema-only count maximum null',
      'schema-only count minimum null',
    ]);
  });

  it('two numbers that are a position, a two-element list shown in the prose, and a line of two or more positions', () => {
    const pair = { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } };
    expect(tool({ center: pair })).toEqual([]);
    expect(tool({ marker: { ...pair, description: 'Coordinate as [longitude, latitude]' } })).toEqual([]);
    expect(
      tool({ bounds: { type: 'array', minItems: 2, maxItems: 2, items: pair, description: '[[minLng, minLat], [maxLng, maxLat]].' } }),
    ).toEqual([]);
    expect(
      tool({ line: { type: 'array', minItems: 2, items: pair, description: 'LineString coordinates as [longitude, latitude] pairs' } }),
    ).toEqual([]);
    // Two of something else: reported.
    expect(
      tool({ reviewers: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'string' }, description: 'Who reviews.' } }),
    ).toEqual(['schema-only reviewers maxItems null', 'schema-only reviewers minItems null']);
  });

  it('storage caps of host names, passwords and format codes are no real limit; a cap on free text is', () => {
    expect(tool({ includeDomains: { type: 'array', items: { type: 'string', maxLength: 253 } } })).toEqual([]);
    expect(tool({ password: { type: 'string', maxLength: 255 } })).toEqual([]);
    expect(tool({ formula: { type: 'string', maxLength: 8192 } })).toEqual([]);
    expect(tool({ note: { type: 'string', maxLength: 255 } })).toEqual(['schema-only note maxLength null']);
  });

  it("advice and one alternative's range are not bounds; a plain range still is", () => {
    expect(findings('Prefer 50-200 for short contours, 300-500 as they grow.', 'integer')).toEqual([]);
    expect(findings('We suggest 10-20 for most pages.', 'integer')).toEqual([]);
    expect(findings('top, bottom: items, or percent (1-100).', 'integer')).toEqual([]);
    expect(findings('Either a count or a percent (1-100).', 'integer')).toEqual([]);
    expect(findings('Single letter (a-z), number (0-99), or an icon name.')).toEqual([]);
    expect(findings('Page number or offset (0-1000).', 'integer')).toContain('prose-only maximum {"maximum":1000}');
    expect(findings('Image URL (PNG or JPEG, max 1024px).')).toEqual([]);
    expect(findings('Name (max 64 characters).')).toContain('prose-only maxLength {"maxLength":64}');
  });

  it('a default is a literal, not another parameter or a generated name', () => {
    const other = tool({
      to_sheet: { type: 'string', description: 'Target sheet. Default: `sheet`.' },
      sheet: { type: 'string', description: 'Source sheet.' },
    });
    expect(other).toEqual([]);
    expect(findings('Name of the table. Default: PivotTableN.')).toEqual([]);
    expect(findings('Name of the sheet. Default: Sheet1.')).toContain('prose-only default {"default":"Sheet1"}');
    // A listed value that is also a parameter's name is still a literal.
    expect(
      tool({
        function: { type: 'string', description: 'The source.' },
        format: { type: 'string', enum: ['function', 'script'], description: 'Defaults to "function".' },
      }),
    ).toEqual(['prose-only format default {"default":"function"}']);
  });

  it('"X by default" and a value marked "(default)" inside a list give a default when the schema lists the value', () => {
    const levels = { enum: ['compact', 'summary', 'full'] };
    expect(findings('Compact by default. Full includes contracts.', 'string', levels)).toContain(
      'prose-only default {"default":"compact"}',
    );
    expect(findings('Domain detail, summary by default; full adds contracts.', 'string', levels)).toContain(
      'prose-only default {"default":"summary"}',
    );
    expect(findings('Results are sorted by default.', 'string', levels)).toEqual([]);
    expect(findings('Results are sorted by default.')).toEqual([]);
    const matrices = { enum: ['duration', 'distance'] };
    expect(findings('Possible values are: duration (default), distance, or both.', 'string', matrices)).toContain(
      'prose-only default {"default":"duration"}',
    );
    expect(findings('Options: "ar" (Argentina), "us" (United States, default).', 'string', { enum: ['ar', 'us'] })).toContain(
      'prose-only default {"default":"us"}',
    );
    expect(findings('Visual style. "pin" is the default marker.', 'string', { enum: ['pin', 'numbered'] })).toContain(
      'prose-only default {"default":"pin"}',
    );
    expect(findings('Uses the default sort.', 'string', levels)).toEqual([]);
  });

  it('"Provide either `query` or `runId`" and "must be specified either query or runId" are a oneOf of the two', () => {
    const ab = { query: { type: 'string' }, runId: { type: 'string' } };
    expect(tool(ab, 'Provide either `query` or `runId`.')).toContain(
      'prose-only - oneOf {"oneOf":[{"required":["query"]},{"required":["runId"]}]}',
    );
    expect(tool(ab, 'Must be specified either query or runId.')).toContain(
      'prose-only - oneOf {"oneOf":[{"required":["query"]},{"required":["runId"]}]}',
    );
    expect(tool(ab, 'At least one of `query` or `runId` must be provided.')).toContain(
      'prose-only - anyOf {"anyOf":[{"required":["query"]},{"required":["runId"]}]}',
    );
    expect(tool(ab, 'Use either mode to list files.')).toEqual([]);
  });

  it('characters named in words are a pattern', () => {
    expect(findings("Letters, digits, underscores and periods, e.g. 'TaxRate'.")).toContain(
      `prose-only pattern ${JSON.stringify({ pattern: '^[A-Za-z0-9_.]+$' })}`,
    );
    expect(findings('May contain only lowercase letters, numbers and hyphens.')).toContain(
      `prose-only pattern ${JSON.stringify({ pattern: '^[a-z0-9\\-]+$' })}`,
    );
    expect(findings('1-31 characters, none of [ ] : * ? / \\.').filter((f) => f.startsWith('prose-only pattern'))).toHaveLength(1);
    expect(findings('Letters and numbers are sent as typed.')).toEqual([]);
    expect(findings('The number of digits.')).toEqual([]);
    expect(findings('None of the above.')).toEqual([]);
  });
});

describe('the rules added in the twelfth session, second round', () => {
  const tool = (properties: JsonObject, description = 'A tool.') =>
    auditTool({ name: 't', description, inputSchema: { type: 'object', properties } }).map(
      (f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword} ${JSON.stringify(f.fix?.set ?? null)}`,
    );
  const enums = (sentence: string, type = 'string'): string[] => findings(sentence, type).filter((f) => f.startsWith('prose-only enum'));

  it('a bare list that fills its place is a value list; things, examples and mid-sentence glosses are not', () => {
    expect(enums('How Grafana should access the datasource (proxy or direct)')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['proxy', 'direct'] })}`,
    ]);
    expect(enums('annotation or alert')).toEqual([`prose-only enum ${JSON.stringify({ enum: ['annotation', 'alert'] })}`]);
    expect(enums('Theme for the rendered image: light or dark. Defaults to dark')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['light', 'dark'] })}`,
    ]);
    expect(enums('Type of resource: dashboard, panel, or explore')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['dashboard', 'panel', 'explore'] })}`,
    ]);
    expect(enums('State on execution error: NoData, Alerting, OK')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['NoData', 'Alerting', 'OK'] })}`,
    ]);
    for (const sentence of [
      'The file to read (path or URL)',
      'Name or ID of the project',
      'Examples: foo, bar, baz',
      'Includes: name, email, phone',
      'A timeout (seconds or minutes)',
      "The server uses each field's target (root or jsonData) to place values correctly.",
      'Fields to return: title, body, author',
      'Sort by created or updated first, then by name.',
      'Log type (application, host, performance, or custom)',
    ])
      expect(enums(sentence)).toEqual([]);
    expect(enums('Geometry coordinates (Point, LineString, or Polygon)', 'object')).toEqual([]);
  });

  it('"default 100" closing a clause, "Off by default" opening a sentence and "(defaults to: {})" give defaults', () => {
    expect(findings('Max results, default 100', 'integer')).toContain('prose-only default {"default":100}');
    expect(findings('Max results default 100', 'integer')).toContain('prose-only default {"default":100}');
    expect(findings('Whether to include custom fields. Off by default because it costs a request.', 'boolean')).toContain(
      'prose-only default {"default":false}',
    );
    expect(findings('Whether to follow redirects. Enabled by default.', 'boolean')).toContain('prose-only default {"default":true}');
    expect(findings('Prometheus style matchers (defaults to: {})', 'object')).toContain('prose-only default {"default":{}}');
    expect(findings('Uses the default 10 retries.', 'integer')).toEqual([]);
    expect(findings('Sets default 5 minutes of delay.', 'integer')).toEqual([]);
    expect(findings('Disable the cache. Caching is enabled by default.', 'boolean')).toEqual([]);
    expect(findings('The default max: 100, configurable by the server.', 'integer').filter((f) => f.includes('default'))).toEqual([]);
  });

  it('"Must be provided with X" and "Must be used together with X" in a parameter make it depend on X', () => {
    const pair = (text: string) => ({ start: { type: 'string' }, end: { type: 'string', description: text } });
    expect(tool(pair('End of the range. Must be provided with start.'))).toContain(
      'prose-only - dependentRequired {"dependentRequired":{"end":["start"]}}',
    );
    expect(tool(pair("Must be used together with 'start'. Providing 'end' without 'start' will fail."))).toContain(
      'prose-only - dependentRequired {"dependentRequired":{"end":["start"]}}',
    );
    expect(tool(pair('Must be provided with care.')).filter((f) => f.includes('dependentRequired'))).toEqual([]);
    expect(tool(pair('Can be provided with start.')).filter((f) => f.includes('dependentRequired'))).toEqual([]);
  });

  it('"if both are given" and "takes priority" make either/or an anyOf, not a oneOf', () => {
    const ab = { uid: { type: 'string' }, name: { type: 'string' } };
    const found = tool(ab, 'Provide either uid or name; uid takes priority if both are given.');
    expect(found).toContain('prose-only - anyOf {"anyOf":[{"required":["uid"]},{"required":["name"]}]}');
    expect(found.filter((f) => f.includes('oneOf'))).toEqual([]);
    expect(tool(ab, 'Provide either `uid` or `name`.')).toContain(
      'prose-only - oneOf {"oneOf":[{"required":["uid"]},{"required":["name"]}]}',
    );
  });

  it('a UUID as one alternative, a time that may be relative, and pydantic bytes give no format', () => {
    const formats = (sentence: string, extra: JsonObject = {}): string[] =>
      findings(sentence, 'string', extra).filter((f) => / format /.test(f));
    expect(formats('The name or UUID of the custom field.')).toEqual([]);
    expect(formats('Select options may be given as their label, value or UUID.')).toEqual([]);
    expect(formats('The UUID or slug of the project.')).toEqual([]);
    expect(formats('The project UUID.')).toHaveLength(1);
    expect(formats('Supports RFC3339, relative (now-1h), or Unix ms.')).toEqual([]);
    expect(formats('Start time in RFC3339 format.')).toHaveLength(1);
    expect(findings('The value to store.', 'string', { format: 'binary' })).toEqual([]);
  });

  it('a rule said for some operations only is no unconditional required, default or count; a value list still is', () => {
    expect(findings("For 'create'/'update': the folder to store the rule in (required).")).toEqual([]);
    expect(findings('For get: <=0 defaults to 200.', 'integer')).toEqual([]);
    expect(findings("Matchers. Required (at least one) for 'create' and 'update'.", 'array').filter((f) => !f.includes('enum'))).toEqual(
      [],
    );
    expect(enums("State when no data: NoData, Alerting, OK (required for 'create', 'update')")).toHaveLength(1);
    expect(findings('The folder to store the rule in (required).')).not.toEqual([]);
  });
});

describe('the rules read from the fifth draw (after its blind figures were taken)', () => {
  const tool = (properties: JsonObject, description = 'A tool.') =>
    auditTool({ name: 't', description, inputSchema: { type: 'object', properties } }).map(
      (f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword} ${JSON.stringify(f.fix?.set ?? null)}`,
    );
  const enums = (sentence: string, type = 'string'): string[] => findings(sentence, type).filter((f) => f.startsWith('prose-only enum'));
  const of = (keyword: string, sentence: string, type = 'string'): string[] =>
    findings(sentence, type).filter((f) => f.startsWith(`prose-only ${keyword} `));

  it('identifiers listed after a label naming operations, actions or values are the values, however many or two', () => {
    const ops = [
      'create-job',
      'delete-job',
      'get-job',
      'get-jobs',
      'update-job',
      'start-job-run',
      'stop-job-run',
      'get-job-run',
      'batch-stop-job-run',
    ];
    expect(enums(`Operation to perform: ${ops.join(', ')}. Choose read-only operations when write access is disabled.`)).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ops })}`,
    ]);
    expect(enums('Operation to perform: describe-connection-type, list-connection-types.')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['describe-connection-type', 'list-connection-types'] })}`,
    ]);
    expect(enums('Values: TERMINATE_AT_INSTANCE_HOUR, TERMINATE_AT_TASK_COMPLETION.')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['TERMINATE_AT_INSTANCE_HOUR', 'TERMINATE_AT_TASK_COMPLETION'] })}`,
    ]);
    for (const sentence of [
      'Fields to return: first-name, last-name.',
      'Operation to perform: create, delete.',
      'Examples: get-job, list-jobs, stop-job.',
      'Optional end timestamp (RFC3339 or Unix)',
      'Start of the range (ISO or epoch)',
    ])
      expect(enums(sentence)).toEqual([]);
  });

  it('a version template with x placeholders and a number shown as the format are patterns', () => {
    expect(of('pattern', 'The release label. Format: emr-x.x.x (e.g., emr-6.10.0).')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^emr-[0-9]+\\.[0-9]+\\.[0-9]+$' })}`,
    ]);
    expect(of('pattern', 'Timestamp of the message, in format 1234567890.123456.')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^[0-9]+\\.[0-9]+$' })}`,
    ]);
    expect(of('pattern', 'Uses version 1.2 of the API.')).toEqual([]);
    expect(of('pattern', 'The box (format: x by y).')).toEqual([]);
  });

  it('characters listed by commas after "cannot contain" are a pattern; words are not', () => {
    expect(of('pattern', 'Name of the cluster. Cannot contain <, >, $, |, or ` (backtick).')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^[^<>$|`]*$' })}`,
    ]);
    expect(of('pattern', 'Cannot contain spaces, tabs, or newlines.')).toEqual([]);
  });

  it('a prefix said of the value ("(starts with \'S\', ...)", "must begin with") is a pattern; a filter on names is not', () => {
    expect(of('pattern', "ID of the user group (starts with 'S', e.g., 'S0123456789').")).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^S' })}`,
    ]);
    expect(of('pattern', 'The key must begin with `sk-`.')).toEqual([`prose-only pattern ${JSON.stringify({ pattern: '^sk-' })}`]);
    expect(of('pattern', "Only channels whose name starts with 'dev'.")).toEqual([]);
    expect(of('pattern', "Search for names that start with 'a'.")).toEqual([]);
  });

  it('a cap on what is returned is no bound on the value sent; read-only operations are no read-only parameter', () => {
    expect(of('maxItems', 'Series selectors. Limits: max 10,000 series returned per request.', 'array')).toEqual([]);
    expect(of('maxItems', 'Series selectors, at most 10 selectors.', 'array')).toHaveLength(1);
    expect(of('readOnly', 'Operation to run. These are read-only operations.')).toEqual([]);
    expect(of('readOnly', 'Both are read-only operations.')).toEqual([]);
    expect(of('readOnly', 'This field is read-only.')).toHaveLength(1);
  });

  it('"Default is boolean false" names the type before the literal; "Return X (default: Y)" is said of the parameter', () => {
    expect(of('default', 'Only threads. Default is boolean false.', 'boolean')).toEqual([
      `prose-only default ${JSON.stringify({ default: false })}`,
    ]);
    expect(
      findings('Return issues with a specific state (default: opened)', 'string', { enum: ['opened', 'closed', 'all'] }).filter((f) =>
        f.includes(' default '),
      ),
    ).toEqual([`prose-only default ${JSON.stringify({ default: 'opened' })}`]);
    expect(
      findings('Returns the issues of a state (default: opened)', 'string', { enum: ['opened', 'closed'] }).filter((f) =>
        f.includes(' default '),
      ),
    ).toEqual([]);
  });

  it('"Required if X is specified" makes X need this one; "Required unless X is provided" is one or the other', () => {
    const pair = (text: string) => ({
      sort_order: { type: 'string' },
      order_by: { type: 'string', description: `Statistic to sort by. ${text}` },
    });
    expect(tool(pair('Required if sort_order is specified.'))).toContain(
      'prose-only - dependentRequired {"dependentRequired":{"sort_order":["order_by"]}}',
    );
    expect(tool(pair('Required unless sort_order parameter is provided.'))).toContain(
      'prose-only - anyOf {"anyOf":[{"required":["order_by"]},{"required":["sort_order"]}]}',
    );
    expect(tool(pair("Required if sort_order is 'asc'.")).filter((f) => / (?:dependentRequired|anyOf) /.test(f))).toEqual([]);
    expect(tool(pair('Required unless the caller is an admin.')).filter((f) => / (?:dependentRequired|anyOf) /.test(f))).toEqual([]);
  });
});

describe('the rules read from the sixth draw (after its blind figures were taken)', () => {
  it('"At least one filter must be provided" is an anyOf of the optional parameters, and no requirement or bound of `filter`', () => {
    const props = {
      id: { type: 'string' },
      filter: { type: 'string' },
      name: { type: 'string' },
      limit: { type: 'integer', default: 10 },
      cursor: { type: 'string' },
    };
    const anyOf = 'prose-only - anyOf {"anyOf":[{"required":["filter"]},{"required":["name"]}]}';
    expect(tool(props, 'Find things. At least one filter must be provided.', ['id'])).toEqual([anyOf]);
    expect(tool(props, 'At least one field is required.', ['id'])).toEqual([anyOf]);
    expect(tool(props, 'Provide at least one search criterion.', ['id'])).toEqual([anyOf]);
    // Near misses: a count of values, a filter's own contents, a rule that names its parameters.
    expect(tool(props, 'Returns at least one filter.', ['id']).filter((f) => f.includes(' anyOf '))).toEqual([]);
    expect(tool(props, 'Each filter must have at least one field.', ['id']).filter((f) => f.includes(' anyOf '))).toEqual([]);
    expect(tool(props, 'At least one of `filter` or `name` must be provided.', ['id'])).toEqual([anyOf]);
  });

  it('"Pass null to clear it" on a type without null adds null to the type', () => {
    expect(of('type', 'The description. Pass null (or an empty string) to clear it.')).toEqual([
      'prose-only type {"type":["string","null"]}',
    ]);
    expect(of('type', 'Set to null to remove the due date.', 'integer')).toEqual(['prose-only type {"type":["integer","null"]}']);
    expect(of('type', 'The label; null clears it.')).toEqual(['prose-only type {"type":["string","null"]}']);
    // Near misses: null already allowed, null refused, null as an output.
    expect(of('type', 'Pass null to clear it.', 'string', { type: ['string', 'null'] })).toEqual([]);
    expect(of('type', 'Do not pass null to clear it; send an empty string.')).toEqual([]);
    expect(of('type', 'Returns null if nothing matches.')).toEqual([]);
  });

  it('a layout of bracketed placeholders, when it is the whole format, is a pattern that takes the prose examples', () => {
    expect(of('pattern', 'Environment variables. Format: <key>=<value>.', 'string')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^[^=]+=.+$' })}`,
    ]);
    expect(of('pattern', 'Format: <hostPort>:<containerPort>, e.g. 8080:80.')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^[^:]+:.+$' })}`,
    ]);
    expect(of('pattern', "A '{key}={value}' pair to set.")).toEqual([`prose-only pattern ${JSON.stringify({ pattern: '^[^=]+=.+$' })}`]);
    // Near misses: one placeholder, a layout the sentence goes on to qualify, an example the layout refuses.
    expect(of('pattern', "Use '{name}' in the message.")).toEqual([]);
    expect(of('pattern', 'Format: <key>=<value> or a bare key.')).toEqual([]);
    expect(of('pattern', 'Format: <key>=<value>, e.g. FOO.')).toEqual([]);
  });

  it('"(not compatible with a and b)" in a parameter forbids it with each; a flag or a thing that is no parameter does not', () => {
    const props = (text: string, type = 'number') => ({
      capacity: { type, description: `Capacity (${text}).` },
      workers: { type: 'string' },
      size: { type: 'string' },
    });
    expect(tool(props('not compatible with workers and size'))).toContain(
      'prose-only - not {"not":{"anyOf":[{"required":["capacity","workers"]},{"required":["capacity","size"]}]}}',
    );
    expect(tool(props('incompatible with `workers`'))).toContain('prose-only - not {"not":{"required":["capacity","workers"]}}');
    expect(tool(props('not compatible with older servers')).filter((f) => f.includes(' not '))).toEqual([]);
    expect(tool(props('incompatible with workers', 'boolean')).filter((f) => f.includes(' not '))).toEqual([]);
  });
});

describe('the rules read from the seventh draw and training (sixteenth session)', () => {
  it('a list that says it is open ("values include", "etc.", "and more") is no enum', () => {
    expect(of('enum', 'Valid values include: appointments, companies, contacts, deals.')).toEqual([]);
    expect(of('enum', 'Supported values include `csv` and `json`.')).toEqual([]);
    expect(of('enum', 'One of `csv`, `json`, etc.')).toEqual([]);
    expect(of('enum', "Allowed values: 'csv', 'json', and more.")).toEqual([]);
    // Near miss: a closed list still is one.
    expect(of('enum', 'Valid values: csv, json.')).toEqual([`prose-only enum ${JSON.stringify({ enum: ['csv', 'json'] })}`]);
  });

  it('a parenthesized list right after the category it lists is an enum without "or"; kinds of a named thing are not', () => {
    expect(of('enum', 'Logging level (DEBUG, INFO, WARNING, ERROR)')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['DEBUG', 'INFO', 'WARNING', 'ERROR'] })}`,
    ]);
    expect(of('enum', 'Resource type to scale (deployment, replicaset, statefulset)')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['deployment', 'replicaset', 'statefulset'] })}`,
    ]);
    expect(of('enum', 'Filter by specific object ID (task, project, or comment).')).toEqual([]);
    expect(of('enum', 'Fields to return (name, email, phone)')).toEqual([]);
    expect(of('enum', 'Resource type (deployment, replicaset) to scale, among others.')).toEqual([]);
  });

  it('a value marked "(default)" inside a bare list keeps the list; "to return:" is no "Returns:" label', () => {
    expect(of('enum', 'Type of query results to return: DATA_ROWS (default) or DATA_MANIFEST')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['DATA_ROWS', 'DATA_MANIFEST'] })}`,
    ]);
    expect(of('enum', 'Sort order: asc (default) or desc.')).toEqual([`prose-only enum ${JSON.stringify({ enum: ['asc', 'desc'] })}`]);
    expect(of('enum', 'Returns: rows or columns.')).toEqual([]);
  });

  it('defaults: "N unit if not specified", "Default value will be X", "(lowest/default)"', () => {
    expect(of('default', 'Timeout for command - 60000 milliseconds if not specified', 'integer')).toEqual([
      'prose-only default {"default":60000}',
    ]);
    expect(of('default', "Output format, 'json' if omitted.")).toEqual(['prose-only default {"default":"json"}']);
    expect(of('default', 'Default value will be `unassignedOrMe`.')).toEqual(['prose-only default {"default":"unassignedOrMe"}']);
    expect(of('default', 'Priority: "p1" (highest), "p2" (high), or "p4" (lowest/default).')).toEqual([
      'prose-only default {"default":"p4"}',
    ]);
    // Near misses: no literal before "if not specified", a default the schema already has.
    expect(of('default', 'Uses the current directory if not specified.')).toEqual([]);
    expect(of('default', 'Returns an error if not specified.')).toEqual([]);
    expect(of('default', '60000 milliseconds if not specified', 'integer', { default: 60000 })).toEqual([]);
  });

  it('"(required if X not provided)" is an anyOf of the two; "(required if X is provided)" a conditional requirement, not reported', () => {
    const props = (text: string) => ({ file_path: { type: 'string' }, language: { type: 'string', description: `Language (${text})` } });
    expect(tool(props('required if file_path not provided'))).toContain(
      'prose-only - anyOf {"anyOf":[{"required":["language"]},{"required":["file_path"]}]}',
    );
    expect(tool(props('required if file_path is provided'))).toEqual([]);
    expect(tool(props('required if the file is binary')).filter((f) => / (?:anyOf|dependentRequired) /.test(f))).toEqual([]);
  });

  it('one quoted value after "must be" or "Allowed values:" that ends its clause is an enum of one; a categories label lists values', () => {
    expect(of('enum', 'Must be "image".')).toEqual([`prose-only enum ${JSON.stringify({ enum: ['image'] })}`]);
    expect(of('enum', "Type of sorting. Allowed values: 'popularity' - sort by number of members")).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['popularity'] })}`,
    ]);
    expect(of('enum', 'Available categories: merge_requests, issues, repositories, branches.')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['merge_requests', 'issues', 'repositories', 'branches'] })}`,
    ]);
    // Near misses: a value the sentence goes on to qualify, a quoted example.
    expect(of('enum', "Must be 'true' to confirm.")).toEqual([]);
    expect(of('enum', "Must be a valid name, e.g. 'main'.")).toEqual([]);
  });

  it('a default list in JSON or Python quotes is a default', () => {
    expect(of('default', "Default: ['Sheet1'].", 'array')).toEqual(['prose-only default {"default":["Sheet1"]}']);
    expect(of('default', 'Defaults to ["a", "b"].', 'array')).toEqual(['prose-only default {"default":["a","b"]}']);
    expect(of('default', "Default: ['Sheet1'].", 'array', { default: ['Sheet1'] })).toEqual([]);
  });

  it("values listed for a comma-separated string are a pattern of the list, which takes the description's own example", () => {
    const pattern = '^(?:mpim|im|public_channel)(?:\\s*,\\s*(?:mpim|im|public_channel))*$';
    expect(
      of('pattern', "Comma-separated channel types. Allowed values: 'mpim', 'im', 'public_channel'. Example: 'public_channel,im'"),
    ).toEqual([`prose-only pattern ${JSON.stringify({ pattern })}`]);
    expect(of('enum', "Comma-separated channel types. Allowed values: 'mpim', 'im', 'public_channel'.")).toEqual([]);
    // Near miss: one value of the list, an enum.
    expect(of('enum', "Channel type. Allowed values: 'mpim', 'im', 'public_channel'.")).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['mpim', 'im', 'public_channel'] })}`,
    ]);
  });

  it('no enum on objects, none from durations shown as a format, none from a "Bad:" example', () => {
    const items = { type: 'object', properties: { taskId: { type: 'string' }, projectId: { type: 'string' } } };
    expect(
      tool({ comments: { type: 'array', items, description: 'Each comment must specify either taskId or projectId.' } }),
    ).not.toContain('prose-only comments enum {"enum":["taskId","projectId"]}');
    expect(of('enum', 'Use format: "2h" (hours), "90m" (minutes), "2h30m" (combined), or "1.5h" (decimal hours).')).toEqual([]);
    expect(of('enum', "Bad (too vague): 'auth' or 'hooks'.")).toEqual([]);
  });

  it('an error said of a value ("ValueError: If \'ids\' is empty", "throws if limit is less than 1") is the constraint that keeps it out', () => {
    const ids = { ids: { type: 'array', items: { type: 'string' } } };
    expect(tool(ids, "Deletes documents.\n\nRaises:\n    ValueError: If 'ids' is empty")).toEqual([
      'prose-only ids minItems {"minItems":1}',
    ]);
    expect(tool({ limit: { type: 'integer' } }, 'Lists rows. Throws an error if limit is less than 1.')).toEqual([
      'prose-only limit minimum {"minimum":1}',
    ]);
    expect(tool(ids, 'Returns an empty list if nothing matches.')).toEqual([]);
    expect(tool(ids, 'ValueError: If the collection does not exist.')).toEqual([]);
  });
});

describe('the rules read from the eighth draw (after its blind figures were taken)', () => {
  const list = { items: { type: 'string' } };

  it('"no duplicates", "each tag at most once", "must be unique" on a list are uniqueItems; a unique name is not', () => {
    expect(of('uniqueItems', 'Calendar IDs to query (max 50, no duplicates).', 'array', list)).toEqual([
      'prose-only uniqueItems {"uniqueItems":true}',
    ]);
    expect(of('uniqueItems', 'Each tag may appear at most once.', 'array', list)).toEqual(['prose-only uniqueItems {"uniqueItems":true}']);
    expect(of('uniqueItems', 'The values must be unique.', 'array', list)).toEqual(['prose-only uniqueItems {"uniqueItems":true}']);
    // Near misses: a string's uniqueness is the server's state, duplicates the server drops, a schema that has it.
    expect(of('uniqueItems', 'The name must be unique.')).toEqual([]);
    expect(of('uniqueItems', 'Duplicates are removed.', 'array', list)).toEqual([]);
    expect(of('uniqueItems', 'No duplicates.', 'array', { ...list, uniqueItems: true })).toEqual([]);
  });

  it('"must end with .png, .jpg, or .jpeg" is a pattern of the suffixes; a loop that must end is not', () => {
    expect(of('pattern', 'Filename must end with .png, .jpg, or .jpeg')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '(?:\\.png|\\.jpg|\\.jpeg)$' })}`,
    ]);
    expect(of('pattern', 'The loop must end with a break.')).toEqual([]);
    expect(of('pattern', 'Names that end with .tmp are skipped.')).toEqual([]);
  });

  it('"Only one of a or b can be provided" and "Cannot be used if b is provided" are a not of both', () => {
    const props = { voice_id: { type: 'string' }, voice_name: { type: 'string' } };
    expect(tool(props, 'Speak. Only one of voice_id or voice_name can be provided.')).toContain(
      'prose-only - not {"not":{"required":["voice_id","voice_name"]}}',
    );
    expect(
      tool({ plan: { type: 'object' }, length_ms: { type: 'integer', description: 'Length. Cannot be used if plan is provided.' } }),
    ).toContain('prose-only - not {"not":{"required":["length_ms","plan"]}}');
    // Near miss: exactly one stays a oneOf.
    expect(tool(props, 'Exactly one of voice_id or voice_name must be provided.')).toContain(
      'prose-only - oneOf {"oneOf":[{"required":["voice_id"]},{"required":["voice_name"]}]}',
    );
  });

  it('identifiers by spaces after "one of", and a sentence of quoted values alone, are value lists', () => {
    expect(of('enum', 'Must be one of: mp3_22050_32 mp3_44100_32 pcm_16000 opus_48000_192')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['mp3_22050_32', 'mp3_44100_32', 'pcm_16000', 'opus_48000_192'] })}`,
    ]);
    expect(of('enum', 'Quality of the ASR. `high` or `low`.')).toEqual([`prose-only enum ${JSON.stringify({ enum: ['high', 'low'] })}`]);
    expect(of('enum', 'Pick one of the options shown above')).toEqual([]);
    expect(of('enum', '`high` is faster than `low`.')).toEqual([]);
  });

  it('a unit glued to both ends of a range ("between 10000ms and 300000ms") is read; a range\'s loose end agrees with an exclusive bound', () => {
    expect(of('minimum', 'Length in milliseconds. Must be between 10000ms and 300000ms.', 'integer')).toEqual([
      'prose-only minimum {"minimum":10000}',
    ]);
    expect(findings('Scale factor (0.0-1.0).', 'number', { exclusiveMinimum: 0, maximum: 1 })).toEqual([]);
  });

  it('a default with a fallback to an environment variable, or under a condition, is no literal default', () => {
    expect(of('default', 'Defaults to eleven_v2 or environment variable ELEVENLABS_MODEL_ID.')).toEqual([]);
    expect(of('default', 'Defaults to 400 pixels for iOS or 30% of screen dimension for Android', 'integer')).toEqual([]);
    expect(of('default', 'Whether to check for conflicts (default: true when changing time)', 'boolean')).toEqual([]);
    // Near misses: what omitting means is the default itself.
    expect(of('default', 'Page size (default: 20 if omitted).', 'integer')).toEqual(['prose-only default {"default":20}']);
  });

  it('"requires" asks for an argument only when it names one: not "requires network access" (issue 23)', () => {
    expect(of('required', 'Requires network access to the host.')).toEqual([]);
    expect(of('required', 'Using this setting requires a slightly higher computational load.', 'boolean')).toEqual([]);
    const props = { project_id: { type: 'string' }, host: { type: 'string' } };
    expect(tool(props, 'Creates a thing. Requires the project_id.')).toEqual([
      'prose-only project_id required {"required":["project_id"]}',
    ]);
    expect(tool(props, 'Creates a thing. Requires network access to the host.')).toEqual([]);
  });

  it('dates shown as examples of a layout are no enum and no pattern; a "Supported X:" label lists values, glossed or not', () => {
    expect(findings("Event start. String format: '2025-01-01T10:00:00' (timed) or '2025-01-01' (all-day).")).toEqual([]);
    expect(of('enum', 'The button to press. Supported buttons: BACK (android only), HOME, VOLUME_UP, ENTER')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['BACK', 'HOME', 'VOLUME_UP', 'ENTER'] })}`,
    ]);
    expect(of('enum', 'Exclude: motorway, toll or point(<lng> <lat>)')).toEqual([]);
  });

  it('a pattern on a value the prose names (an email address, a domain) is explained', () => {
    const email = { pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' };
    expect(findings('Email address of the attendee.', 'string', email).filter((f) => f.startsWith('schema-only'))).toEqual([]);
    expect(findings('The attendee.', 'string', email).filter((f) => f.startsWith('schema-only'))).not.toEqual([]);
  });
});

describe('the rules read from the ninth draw (after its blind figures were taken)', () => {
  it('a list of quoted values after a dash, or closed by ", or", and capitals such as NONE are value lists', () => {
    expect(of('enum', 'Action to perform - "create", "update", "delete", or "rsvp".')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['create', 'update', 'delete', 'rsvp'] })}`,
    ]);
    expect(of('enum', '"default", "public", "private", or "confidential".')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['default', 'public', 'private', 'confidential'] })}`,
    ]);
    expect(of('enum', 'One of NONE, SUPERSCRIPT, SUBSCRIPT')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['NONE', 'SUPERSCRIPT', 'SUBSCRIPT'] })}`,
    ]);
    expect(
      of(
        'enum',
        'Supported operations (exhaustive): is, isNot, contains, beginsWith, endsWith, isBefore, isAfter, isGreaterThan, isLessThan.',
      ),
    ).toHaveLength(1);
    // Near misses: examples of a format after a dash, a lower-case "none" that starts a phrase.
    expect(of('enum', '- range: ALWAYS use FROM:TO format - "SheetName!A1:C10" or "SheetName!C1:C1"')).toEqual([]);
    expect(of('enum', 'One of none of the above.')).toEqual([]);
  });

  it('id prefixes: "(PR-*)", "starts with PR- followed by a number", "Format: mem_xyz123"; a hex colour; a number shown after "format, e.g."', () => {
    expect(of('pattern', 'Project identifier (PR-*).')).toEqual(['prose-only pattern {"pattern":"^PR-"}']);
    expect(of('pattern', 'Identifier of the test plan (starts with TP- followed by a number).')).toEqual([
      'prose-only pattern {"pattern":"^TP-"}',
    ]);
    expect(of('pattern', 'The memory to update. Format: mem_xyz123')).toEqual(['prose-only pattern {"pattern":"^mem_\\\\S+$"}']);
    expect(of('pattern', 'Foreground text color (#RRGGBB)')).toEqual(['prose-only pattern {"pattern":"^#[0-9A-Fa-f]{6}$"}']);
    expect(of('pattern', 'The parent message (Slack ts format, e.g. "1609459200.000001")')).toEqual([
      'prose-only pattern {"pattern":"^[0-9]+\\\\.[0-9]+$"}',
    ]);
    // Near misses: a lower-case prefix unquoted, a format that is a word with an underscore, an issue number.
    expect(of('pattern', 'Names that start with re- are reserved.')).toEqual([]);
    expect(of('pattern', 'Output format: json_lines')).toEqual([]);
    expect(of('pattern', 'See issue #123.')).toEqual([]);
  });

  it('rules across parameters: "a and b cannot be combined", "Pass at least one change" over null-default optionals, "(...; requires b)"', () => {
    const props = { query: { type: 'string' }, item_key: { type: 'string' } };
    expect(tool(props, 'Get notes. query and item_key cannot be combined.')).toContain(
      'prose-only - not {"not":{"required":["query","item_key"]}}',
    );
    const update = {
      key: { type: 'string' },
      name: { type: ['string', 'null'], default: null },
      parent: { type: ['string', 'null'], default: null },
    };
    expect(tool(update, 'Update a collection. Pass at least one change.', ['key'])).toContain(
      'prose-only - anyOf {"anyOf":[{"required":["name"]},{"required":["parent"]}]}',
    );
    const font = {
      font_family: { type: 'string' },
      font_weight: { type: 'integer', description: 'Font weight (100-900; requires font_family)' },
    };
    expect(tool(font)).toContain('prose-only - dependentRequired {"dependentRequired":{"font_weight":["font_family"]}}');
  });

  it('a stated default against a broken `default: null` is reported too; words, results and conditions are no constraint', () => {
    expect(
      findings("The MIME type. Defaults to 'text/plain'.", 'string', { default: null }).map((f) => f.split(' ').slice(0, 2).join(' ')),
    ).toEqual(['validity default', 'prose-only default']);
    expect(findings('Each instruction MUST be no more than 20 words.', 'array', { items: { type: 'string' } })).toEqual([]);
    expect(of('maxLength', 'Results are limited to 100 symbols.')).toEqual([]);
    expect(of('required', 'ALWAYS pass item_key when you know which item you want.')).toEqual([]);
    expect(of('format', "Birthday as 'YYYY-MM-DD', 'MM-DD' (no year), or 'clear' to remove.")).toEqual([]);
  });
});

describe('defaults and lengths read again with the ninth draw in training', () => {
  it('a default under a condition the sentence states first, a template, or "Otherwise ..." is no literal; omission is', () => {
    expect(of('default', "If 'drive_id' is specified and 'corpora' is None, it defaults to 'drive'.")).toEqual([]);
    expect(of('default', "Otherwise it defaults to 'allDrives' when `all_drives` is True.")).toEqual([]);
    expect(of('default', "When forwarding (defaults to 'Fwd: <original subject>').")).toEqual([]);
    expect(of('default', 'If omitted, defaults to 10.', 'integer')).toEqual(['prose-only default {"default":10}']);
    expect(of('default', 'If no pattern is provided, it defaults to "./...".')).toEqual(['prose-only default {"default":"./..."}']);
  });

  it('a quoted range is no assignment; rows are no length of a text; kinds of characters count characters', () => {
    expect(of('default', 'Defaults to "A1:Z1000".')).toEqual(['prose-only default {"default":"A1:Z1000"}']);
    expect(of('maxLength', 'Oversized ranges are clamped to at most 1000 rows.')).toEqual([]);
    expect(of('maxLength', 'Can use a maximum of 127 alphanumeric, underscore, or hyphen characters.')).toEqual([
      'prose-only maxLength {"maxLength":127}',
    ]);
  });
});

describe('the rules read from the tenth draw (after its blind figures were taken)', () => {
  it('a placeholder default ("unknown-organization"), a comparison in a condition, a joiner\'s default are no constraints', () => {
    expect(of('default', 'The ID or name of the organization (Default: unknown-organization)')).toEqual([]);
    expect(of('minimum', 'Includes dependencies when depth >= 2.', 'integer')).toEqual([]);
    expect(of('default', "A list of conditions, joined by '&' (the default), '|' or '!'.")).toEqual([]);
    expect(of('minimum', 'Limit (>= 1).', 'integer')).toEqual(['prose-only minimum {"minimum":1}']);
  });

  it('"Read only first N lines" and a list of attribute names are no readOnly or required', () => {
    expect(findings('Read only first N lines')).toEqual([]);
    expect(
      findings('Omit for the default set (type, string, required, readonly, relation, selection).', 'array', { items: { type: 'string' } }),
    ).toEqual([]);
    expect(of('readOnly', 'Read only.')).toEqual(['prose-only readOnly {"readOnly":true}']);
  });

  it('schemes, named prefixes, numeric ids, path templates, placeholders with slashes and numeric codes are read', () => {
    expect(of('pattern', 'The URL to fetch (must be http or https)')).toEqual(['prose-only pattern {"pattern":"^https?://"}']);
    expect(of('pattern', "Pass full kubectl command including 'kubectl' prefix.")).toEqual(['prose-only pattern {"pattern":"^kubectl"}']);
    expect(of('pattern', "Must be a numeric ID from the provider's index.")).toEqual(['prose-only pattern {"pattern":"^[0-9]+$"}']);
    expect(of('pattern', 'Resource ID (/subscriptions/{sub}/resourceGroups/{rg}/providers/X.Y/clusters/{name})')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^\\/subscriptions\\/[^/]+\\/resourceGroups\\/[^/]+\\/providers\\/X\\.Y\\/clusters\\/[^/]+$' })}`,
    ]);
    expect(of('pattern', 'Path inside the artifact (format: <artifactName>/<path/to/file>)')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^[^/]+\\/.+$' })}`,
    ]);
    expect(of('enum', 'Filter on state (0: all, 1: well-formed, 2: creating, 3: deleting, 4: new)', 'integer')).toEqual([
      'prose-only enum {"enum":[0,1,2,3,4]}',
    ]);
    expect(of('enum', 'Operation to perform: list or report')).toEqual([`prose-only enum ${JSON.stringify({ enum: ['list', 'report'] })}`]);
    // Near misses: codes the bounds already allow, an open slash list, a path with no placeholder, a thing named in a list.
    expect(of('enum', 'Algorithm (0=None, 1=Any, 2=All)', 'integer', { minimum: 0, maximum: 2 })).toEqual([]);
    expect(of('enum', 'Log category (kube-apiserver/kube-audit/guard/etc)')).toEqual([]);
    expect(of('pattern', 'See the docs (/docs/api/overview) for help.')).toEqual([]);
    expect(of('enum', 'The file to read: path or URL')).toEqual([]);
  });
});

describe('the rules read from the eleventh draw (after its blind figures were taken)', () => {
  it('id prefixes with an underscore, a leading slash, and characters in parentheses are patterns', () => {
    expect(of('pattern', 'ID should have a pay_ prefix.')).toEqual(['prose-only pattern {"pattern":"^pay_"}']);
    expect(of('pattern', "The settlement to fetch. ID starts with the 'setl_'")).toEqual(['prose-only pattern {"pattern":"^setl_"}']);
    expect(findings('Must include the leading slash. Example: /containers/json')).toEqual(['prose-only pattern {"pattern":"^/"}']);
    expect(of('pattern', 'Snapshot name (alphanumeric, hyphens, underscores).')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^[A-Za-z0-9\\-_]+$' })}`,
    ]);
    expect(of('pattern', 'Names with a common prefix are grouped.')).toEqual([]);
  });

  it('a catch-all word closing a list of values, key-value pairs as properties', () => {
    expect(of('enum', 'state: opened, closed, or all')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['opened', 'closed', 'all'] })}`,
    ]);
    expect(of('maxProperties', 'Maximum 15 pairs, each value limited to 256 characters.', 'object')).toEqual([
      'prose-only maxProperties {"maxProperties":15}',
    ]);
    // Near misses: a thing among the values, units that are parts of a value.
    expect(of('enum', 'The file: path, URL, or all')).toEqual([]);
    expect(of('enum', 'Disk size. Supported units: K, M, G, T.')).toEqual([]);
  });

  it('no requirement from completeness or from one value of another parameter; no bound from a time after now or a sign with a meaning', () => {
    expect(of('required', 'All line items must be provided.', 'array', { items: { type: 'object' } })).toEqual([]);
    expect(
      of('required', 'Must include all the environment IDs that are part of the group.', 'array', { items: { type: 'integer' } }),
    ).toEqual([]);
    expect(of('minimum', 'Unix timestamp (min 2 mins after current time)', 'integer')).toEqual([]);
    expect(of('minimum', 'Debits are positive, credits are negative value', 'number')).toEqual([]);
    expect(of('format', 'App containers have no stable uuid hostname.')).toEqual([]);
  });
});

describe('the rules read from the twelfth draw (after its blind figures were taken)', () => {
  it('a sentence a docstring wraps onto the next line is read whole; "(or both)" makes either/or an anyOf', () => {
    const props = { collection_id: { type: 'string' }, parent_document_id: { type: 'string' } };
    expect(tool(props, 'Move a document. You must specify either collection_id or\n    parent_document_id (or both).')).toEqual([
      'prose-only - anyOf {"anyOf":[{"required":["collection_id"]},{"required":["parent_document_id"]}]}',
    ]);
    // Near misses: a new sentence in capitals, and a docstring entry, each start a sentence of their own.
    expect(tool(props, 'Move a document\nReturns the new path.')).toEqual([]);
  });

  it('"always use a AND b together", "(YYYY format)", "only \'human\' supported", "An optional note", a glossed code list on a string', () => {
    const where = { city: { type: 'string' }, state: { type: 'string' } };
    expect(tool(where, 'Search. Always use city AND state together when searching by location.')).toEqual([
      'prose-only - dependentRequired {"dependentRequired":{"city":["state"],"state":["city"]}}',
    ]);
    expect(of('pattern', 'Year of approval (YYYY format)')).toEqual(['prose-only pattern {"pattern":"^[0-9]{4}$"}']);
    expect(of('enum', "Species (currently only 'human' supported)")).toEqual([`prose-only enum ${JSON.stringify({ enum: ['human'] })}`]);
    expect(of('enum', 'Recall classification (1=most serious, 2=moderate, 3=least serious)')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['1', '2', '3'] })}`,
    ]);
    expect(
      tool({ note: { type: 'string', description: 'An optional note attached to the highlight.' }, id: { type: 'string' } }, 'A tool.', [
        'note',
        'id',
      ]),
    ).toEqual(['schema-only note required {"required":["id"]}']);
    // Near misses: a list default on a string, a date layout with dashes (the date rule's).
    expect(of('default', 'Defaults to ["published"] when omitted.')).toEqual([]);
    expect(of('pattern', 'Date as YYYY-MM-DD.')).toEqual([]);
  });

  it('"At least one of a, b, or c must be provided" is an anyOf of the three, and no bound or requirement of one', () => {
    const props = {
      vmid: { type: 'integer' },
      cores: { type: ['integer', 'null'], default: null },
      memory: { type: ['integer', 'null'], default: null },
    };
    expect(
      tool({ ...props, disk_size: { type: 'string' } }, 'Resize. At least one of cores, memory, or disk_size must be provided.', ['vmid']),
    ).toEqual(['prose-only - anyOf {"anyOf":[{"required":["cores"]},{"required":["memory"]},{"required":["disk_size"]}]}']);
    expect(of('minItems', 'At least 2 items, 3 at most.', 'array')).toEqual(['prose-only minItems {"minItems":2}']);
  });
});

describe('the rules read from the training misses of the seventeenth session', () => {
  it('a bare value marked "(default)" inside a value list is the default, not only when the schema lists it', () => {
    expect(of('default', 'Sort direction: asc (default) or desc')).toEqual(['prose-only default {"default":"asc"}']);
    expect(of('default', 'Log level: DEBUG, INFO (default), WARNING')).toEqual(['prose-only default {"default":"INFO"}']);
    // Near miss: a word marked the default outside any list names no value the schema knows.
    expect(of('default', 'Returns the summary (default) view of the page.')).toEqual([]);
  });

  it("a default in the unit the parameter counts in is compared with the schema's", () => {
    expect(of('default', 'Maximum duration in seconds. Defaults to 600 seconds (10 minutes).', 'integer', { default: 300 })).toEqual([
      'prose-only default null',
    ]);
    expect(of('default', 'Maximum duration in seconds. Defaults to 300 seconds.', 'integer', { default: 300 })).toEqual([]);
    // Near misses: another unit than the parameter's, or a parameter that names no unit.
    expect(of('default', 'Timeout in milliseconds. Defaults to 5 seconds.', 'integer', { default: 5000 })).toEqual([]);
    expect(of('default', 'Timeout. Defaults to 600 seconds.', 'integer', { default: 300 })).toEqual([]);
  });

  it('"required for all operations" is required of every call; "for all operations except list" is a condition', () => {
    expect(of('required', 'ID of the application (required for all operations).')).toEqual(['prose-only required {"required":["p"]}']);
    expect(of('required', 'The name is required for every action.')).toEqual(['prose-only required {"required":["p"]}']);
    expect(of('required', 'Required for all operations except list.')).toEqual([]);
    expect(of('required', 'Required for all of them.')).toEqual([]);
  });

  it('"(mutually exclusive with `tags`)" as a gloss of a parameter is a not of the pair', () => {
    const tags = { type: 'array', items: { type: 'string' } };
    expect(tool({ tags, add_tags: { ...tags, description: 'Tags to add (mutually exclusive with `tags`).' } })).toEqual([
      'prose-only - not {"not":{"required":["add_tags","tags"]}}',
    ]);
    expect(tool({ tags, add_tags: { ...tags, description: 'Tags to add (mutually exclusive with the tags of the parent).' } })).toEqual([]);
  });
});

describe('the rules read from the fourteenth draw (after its blind figures were taken)', () => {
  it('"Cannot be greater than 100" is an upper bound, "must not be less than 5" a lower one', () => {
    expect(findings('Maximum number of entries. Cannot be greater than 100.', 'integer')).toEqual(['prose-only maximum {"maximum":100}']);
    expect(findings('Must not be less than 5.', 'integer')).toEqual(['prose-only minimum {"minimum":5}']);
    expect(findings('Cannot be less than the start time.')).toEqual([]);
  });

  it('"If not specified, 500 is used" is a default', () => {
    expect(of('default', 'The maximum number of events. If not specified, 500 is used.', 'integer')).toEqual([
      'prose-only default {"default":500}',
    ]);
    expect(of('default', 'If not specified, "default" is used.')).toEqual(['prose-only default {"default":"default"}']);
    expect(of('default', 'If not specified, the current directory is used.')).toEqual([]);
  });

  it('value lists in brackets, after "can be", in capitals, or as glossed numeric codes', () => {
    const enumOf = (values: unknown[]): string => `prose-only enum ${JSON.stringify({ enum: values })}`;
    expect(of('enum', 'The output format. One of: (table, wide, yaml, json).')).toEqual([enumOf(['table', 'wide', 'yaml', 'json'])]);
    expect(of('enum', "Supported values are: ['k8s_audit_logs', 'k8s_event_logs'].")).toEqual([
      enumOf(['k8s_audit_logs', 'k8s_event_logs']),
    ]);
    expect(of('enum', "Method to use. Can be 'pod', 'ssh' or 'any'.")).toEqual([enumOf(['pod', 'ssh', 'any'])]);
    expect(of('enum', 'The mode must be READ, WRITE, or ADMIN.')).toEqual([enumOf(['READ', 'WRITE', 'ADMIN'])]);
    expect(of('enum', 'network is 0 for secret or 2 for public', 'integer')).toEqual([enumOf([0, 2])]);
    // Near misses: an array shown as a value, words that are not capitals, a count glossed by "for".
    expect(of('enum', 'Accepts ["tagA", "tagB"] (preferred), a bare string.')).toEqual([]);
    expect(of('enum', 'Can be a user or a team.')).toEqual([]);
    expect(of('enum', 'Uses HTTP or HTTPS for transport.')).toEqual([]);
    expect(of('enum', 'Retry 3 times for timeouts or 5 times for throttling errors.', 'integer')).toEqual([]);
  });

  it('a bare list ends at " -- ", at "and is", and before ", defaulting to"', () => {
    const props = { access: { type: 'string' }, member_access: { type: 'string' }, status: { type: 'string' } };
    expect(
      tool(
        props,
        'Collections. access is one of: public, private -- a private one is hidden. member_access is one of: view, comment, edit ' +
          'and is a separate scale. status is one of: unreleased, released, cancelled, defaulting to unreleased.',
      ).filter((f) => f.includes(' enum ')),
    ).toEqual([
      'prose-only access enum {"enum":["public","private"]}',
      'prose-only member_access enum {"enum":["view","comment","edit"]}',
      'prose-only status enum {"enum":["unreleased","released","cancelled"]}',
    ]);
  });

  it('a value of a list that names a parameter, or a name inside a gloss, is not what the sentence speaks of', () => {
    const props = {
      options: { type: 'array', items: { type: 'string' } },
      property_type: { type: 'string' },
      is_required: { type: 'boolean' },
    };
    expect(
      tool(
        { ...props, relation_type: { type: 'string' } },
        'Properties. property_type is one of: TEXT, OPTION, RELATION. ' + 'relation_type (required for RELATION) is one of: ISSUE, USER.',
      ),
    ).toEqual([
      'prose-only property_type enum {"enum":["TEXT","OPTION","RELATION"]}',
      'prose-only relation_type enum {"enum":["ISSUE","USER"]}',
    ]);
  });

  it('"Dates are ISO 8601 (YYYY-MM-DD)" speaks of every date parameter, and of a date without a time', () => {
    const props = { name: { type: 'string' }, start_date: { type: 'string' }, end_date: { type: 'string' } };
    expect(tool(props, 'Cycles. Dates are ISO 8601 (YYYY-MM-DD).')).toEqual([
      'prose-only end_date format {"format":"date"}',
      'prose-only start_date format {"format":"date"}',
    ]);
    // Near miss: no parameter is named for the class ("due", not "due_date").
    expect(tool({ name: { type: 'string' }, due: { type: 'string' } }, 'Cycles. Dates are ISO 8601 (YYYY-MM-DD).')).toEqual([]);
  });

  it('"(not together with trace_id)" and "cannot be used simultaneously with \'since\'" are a not of the pair', () => {
    const other = { type: 'string' };
    expect(tool({ trace_id: other, session_id: { type: 'string', description: 'Session ID (not together with trace_id)' } })).toEqual([
      'prose-only - not {"not":{"required":["session_id","trace_id"]}}',
    ]);
    expect(tool({ since: other, time_range: { type: 'string', description: "Cannot be used simultaneously with 'since'." } })).toEqual([
      'prose-only - not {"not":{"required":["time_range","since"]}}',
    ]);
  });

  it("a parameter every action's signature names is required; one some actions name is not", () => {
    const props = {
      action: { type: 'string', enum: ['list', 'create', 'delete'] },
      project_id: { type: 'string' },
      cycle_id: { type: 'string' },
      name: { type: 'string' },
    };
    const signatures =
      'Cycles.\n\nActions:\n  list (project_id; optional cursor);\n  create (project_id, name; optional cycle_id);\n  delete (project_id, cycle_id).';
    expect(tool(props, signatures, ['action'])).toEqual(['prose-only project_id required {"required":["action","project_id"]}']);
    // One action without its line: nothing can be said of what every action needs.
    expect(tool(props, signatures.replace(/\n {2}delete[^\n]*/, ''), ['action'])).toEqual([]);
  });
});

describe('the rules read from the fifteenth draw (after its blind figures were taken)', () => {
  it('a bulleted value list under a label is an enum; one said to be open is not', () => {
    const bullets =
      "Bid strategy. Valid values:\n  - 'LOWEST_COST' (recommended) - no cap\n  - 'COST_CAP' - REQUIRES bid_amount\n    and more text\n  - 'MIN_ROAS'";
    expect(of('enum', bullets)).toEqual([`prose-only enum ${JSON.stringify({ enum: ['LOWEST_COST', 'COST_CAP', 'MIN_ROAS'] })}`]);
    expect(of('enum', 'Supported resource types:\n- all: everything\n- vnet: virtual networks')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['all', 'vnet'] })}`,
    ]);
    // Near misses: bullets of prose, and a list the text calls open.
    expect(of('enum', 'Features:\n- Supports filtering\n- Fast paging')).toEqual([]);
    expect(of('enum', `${bullets}\nOther values are passed through to the API as-is.`)).toEqual([]);
  });

  it('a required parameter with a default is reported: the default never applies', () => {
    expect(tool({ level: { type: 'string', default: 'info', description: 'Log level.' } }, 'A tool.', ['level'])).toEqual([
      'schema-only level required {"required":[]}',
    ]);
    expect(tool({ level: { type: 'string', default: 'info', description: 'Log level.' } })).toEqual([]);
  });

  it('"(default; ...)", "Set to 0 to ..., 1 to ...", "in snake_case"', () => {
    expect(of('default', "Output format: 'slim' (default; compact), 'wide'.", 'string', { enum: ['slim', 'wide'] })).toEqual([
      'prose-only default {"default":"slim"}',
    ]);
    expect(of('enum', 'Set to 0 to opt out of the program, 1 to opt in.', 'integer')).toEqual(['prose-only enum {"enum":[0,1]}']);
    expect(of('pattern', 'The name of the migration in snake_case.')).toEqual([
      'prose-only pattern {"pattern":"^[a-z0-9]+(?:_[a-z0-9]+)*$"}',
    ]);
    // Near misses: a range, and a case said of something else.
    expect(of('enum', 'Pick 1 to 5 for small or 6 to 9 for large.', 'integer')).toEqual([]);
    expect(of('pattern', 'Converts keys to snake_case in the response.')).toEqual([]);
  });

  it('no default from a word on a boolean, a number joined to a word, or a field inside the value', () => {
    expect(of('default', 'Return all fields (default: slim)', 'boolean', { default: false })).toEqual([]);
    expect(of('default', 'Default is 7-day click if not specified.', 'integer')).toEqual([]);
    expect(of('default', 'Targeting spec. targeting_automation.advantage_audience defaults to 0 if not set.', 'object')).toEqual([]);
    expect(of('default', 'Page size. Defaults to 10.', 'integer')).toEqual(['prose-only default {"default":10}']);
  });
});

describe('common phrasings no draw had yet (eighteenth session)', () => {
  it('value lists after "Accepted values are", "Supported:" and "Allowed:", with dotted names, pipes and "A"', () => {
    expect(of('enum', "Accepted values are 'low', 'medium' and 'high'.")).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['low', 'medium', 'high'] })}`,
    ]);
    expect(of('enum', 'Output format, defaults to markdown. Supported: markdown, html, text')).toHaveLength(1);
    expect(of('enum', 'Status filter. Allowed: open | closed | all')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['open', 'closed', 'all'] })}`,
    ]);
    expect(of('enum', 'Supported values: payments, payments.card, transfers, virtual_account')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['payments', 'payments.card', 'transfers', 'virtual_account'] })}`,
    ]);
    expect(of('enum', 'Type of the record. One of A, AAAA, CNAME, MX, TXT.')).toHaveLength(1);
    expect(of('enum', 'One of a, b or c.')).toEqual([]);
    expect(of('enum', 'Pipes are allowed: a | b')).toEqual([]);
  });
  it('a quoted value "by default", and a switch\'s word for its default', () => {
    expect(of('default', "Sort order; 'desc' by default")).toEqual([`prose-only default ${JSON.stringify({ default: 'desc' })}`]);
    expect(of('default', 'Verbose output. Default: off.', 'boolean')).toEqual([`prose-only default ${JSON.stringify({ default: false })}`]);
    expect(of('default', 'Mode. Default: off.', 'string')).toEqual([`prose-only default ${JSON.stringify({ default: 'off' })}`]);
  });
  it('a closed interval "[0, 2]" bounds the value; on a list of numbers a range bounds the numbers, not the count', () => {
    expect(of('maximum', 'Temperature in the range [0, 2].', 'number')).toEqual([`prose-only maximum ${JSON.stringify({ maximum: 2 })}`]);
    expect(of('minimum', 'Pass [1, 2] to pick both.', 'number')).toEqual([]);
    const numbers = { items: { type: 'number' } };
    expect(findings('A box with values between 0 and 1.', 'array', numbers).filter((f) => f.includes('Items'))).toEqual([]);
    expect(of('maximum', 'A box with values between 0 and 1.', 'array', numbers)).toEqual([
      `prose-only maximum ${JSON.stringify({ maximum: 1 })}`,
    ]);
    expect(of('maxItems', 'Between 1 and 5 tags.', 'array', { items: { type: 'string' } })).toHaveLength(1);
  });
  it('a prefix said of ids, and "must start with https://" when nothing else is allowed', () => {
    expect(of('pattern', "IDs start with 'org-'.")).toEqual([`prose-only pattern ${JSON.stringify({ pattern: '^org-' })}`]);
    expect(of('pattern', 'The URL (must begin with http:// or https://)')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^https?://' })}`,
    ]);
    expect(of('pattern', '(must start with http:// or https://), or a ref://<id> token')).toEqual([]);
  });
});

describe('a requirement on a value of another parameter', () => {
  const properties = (description: string): JsonObject => ({
    type: { type: 'string', enum: ['webhook', 'email'] },
    verbose: { type: 'boolean' },
    url: { type: 'string', description },
  });
  it.each([
    ["Required when type is 'webhook'.", 'type', ['webhook']],
    ['The endpoint (required if type = webhook)', 'type', ['webhook']],
    ['Required when verbose is true.', 'verbose', [true]],
  ] as const)('%s', (sentence, other, values) => {
    const set = { allOf: [{ if: { properties: { [other]: { enum: values } }, required: [other] }, then: { required: ['url'] } }] };
    expect(tool(properties(sentence))).toEqual([`prose-only - if ${JSON.stringify(set)}`]);
  });
  it.each([
    "Required when type is 'sms'.",
    'Required when the sender is known.',
    'Required for create and update.',
    "Required when type is 'webhook' and the account is new.",
  ])('not: %s', (sentence) => {
    expect(tool(properties(sentence)).filter((f) => f.includes(' if '))).toEqual([]);
  });
  it('is not reported where the root has an allOf of its own (it may hold the rule), and has no fix before draft-07', () => {
    const schema = (extra: JsonObject): JsonObject => ({
      type: 'object',
      properties: properties("Required when type is 'webhook'."),
      ...extra,
    });
    const withAllOf = auditTool({ name: 't', description: 'A tool.', inputSchema: schema({ allOf: [{ required: ['type'] }] }) });
    expect(withAllOf.filter((f) => f.keyword === 'if')).toEqual([]);
    const draft04 = auditTool({
      name: 't',
      description: 'A tool.',
      inputSchema: schema({ $schema: 'http://json-schema.org/draft-04/schema#' }),
    });
    expect(draft04.filter((f) => f.keyword === 'if').map((f) => f.fix)).toEqual([undefined]);
  });
});

describe('the rules read from the sixteenth draw (after its blind figures were taken)', () => {
  it('"YYYY-MM-DD or delta like -1d" is a date or another form: a pattern, not format date', () => {
    expect(findings('Filter runs created after this date (YYYY-MM-DD or delta like -1d, -1w)')).toEqual(['prose-only pattern null']);
    expect(of('format', 'Date (YYYY-MM-DD or ISO 8601)')).toEqual([`prose-only format ${JSON.stringify({ format: 'date' })}`]);
  });
  it('"Numeric ID of ..." opening the text, and a hex colour shown by its example', () => {
    expect(of('pattern', 'Numeric ID of the base workflow run')).toEqual([`prose-only pattern ${JSON.stringify({ pattern: '^[0-9]+$' })}`]);
    expect(of('pattern', 'Numeric ID or name of the project')).toEqual([]);
    expect(of('pattern', 'Hex color code for the calendar (e.g., "#1976D2" for blue)')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^#[0-9A-Fa-f]{6}$' })}`,
    ]);
    expect(of('pattern', 'Hex color, e.g. "#1976D2", "#FFF" or "red".')).toEqual([]);
  });
  it('"Requires experiment to be set." and "(requires server parameter)", but not said of one quoted value', () => {
    const pair = (description: string): string[] =>
      tool({ variant: { type: 'string', description }, experiment: { type: 'string', enum: ['a', 'b'] } });
    const set = { dependentRequired: { variant: ['experiment'] } };
    expect(pair('Filter to runs with this variant. Requires experiment to be set.')).toEqual([
      `prose-only - dependentRequired ${JSON.stringify(set)}`,
    ]);
    expect(pair('A variant (requires experiment parameter)')).toEqual([`prose-only - dependentRequired ${JSON.stringify(set)}`]);
    expect(pair("'x' for one run (requires experiment parameter), 'y' for all").filter((f) => f.includes('dependentRequired'))).toEqual([]);
  });
  it('no default from two values picked "depending on" something, nor from a number followed by "depending on"', () => {
    expect(of('default', "Defaults to 'Event reminder' or 'Todo reminder' depending on what it is attached to.")).toEqual([]);
    expect(of('default', 'Defaults to 10 depending on the plan.', 'integer')).toEqual([]);
  });
  it('no bound from inside an example', () => {
    expect(findings('Timeout in minutes (default: auto; e.g. 1 minute up to 40 runs, 2 for 41-80)', 'integer')).toEqual([]);
  });
  it("a bulleted list in the tool's text is the values of the one parameter its label line names", () => {
    const description = [
      'Fetch rules.',
      '  Note:',
      '    The `rule_types` argument filters the rules. Available types are:',
      "    - 'ids'",
      "    - 'sigma'",
      '  Example:',
      "    - `rule_types=['sigma']`: sigma rules only.",
    ].join('\n');
    const found = tool({ rule_types: { type: 'array', items: { type: 'string' } } }, description);
    expect(found).toEqual([`prose-only rule_types enum ${JSON.stringify({ enum: ['ids', 'sigma'] })}`]);
  });
});

describe('phrasings of the issue checked before the seventeenth draw', () => {
  it('a literal prefix and one placeholder is a template: "format: job-<digits>", "in the form PROJ-{number}"', () => {
    expect(of('pattern', 'Job id, format: job-<digits>')).toEqual([`prose-only pattern ${JSON.stringify({ pattern: '^job-[0-9]+$' })}`]);
    expect(of('pattern', 'The key, in the form PROJ-{number}.')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^PROJ-[0-9]+$' })}`,
    ]);
    expect(of('pattern', 'format: org_<id>')).toEqual([`prose-only pattern ${JSON.stringify({ pattern: '^org_\\S+$' })}`]);
  });
  it('two quoted values alone are no list: examples say the same ("(e.g., "main" or "refs/heads/main")")', () => {
    expect(of('enum', 'Branch to filter by (e.g., "main" or "refs/heads/main")')).toEqual([]);
    expect(of('enum', "Rows '3' or '3:5'; columns 'B' or 'B:D'.")).toEqual([]);
  });
});

describe('the rules read from the seventeenth draw (after its blind figures were taken)', () => {
  it('"Read-only actions: ..." and "The \'get\' action is read-only" speak of actions, not of the value', () => {
    expect(of('readOnly', 'Read-only actions: ping, read.')).toEqual([]);
    expect(of('readOnly', "The 'get' action is read-only; 'clear' modifies state.")).toEqual([]);
    expect(of('readOnly', 'QUERY (read-only): - list_packages')).toEqual([]);
    expect(of('readOnly', 'This field is read-only.')).toHaveLength(1);
  });
  it('codes after a label or "where", with the code marked as the default', () => {
    expect(findings('Capsule direction: 0=X, 1=Y (default), 2=Z.', 'integer')).toEqual([
      `prose-only default ${JSON.stringify({ default: 1 })}`,
      `prose-only enum ${JSON.stringify({ enum: [0, 1, 2] })}`,
    ]);
    expect(of('enum', 'Minimum severity, where 1=Error, 2=Warning, 3=Information, 4=Hint.', 'integer')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: [1, 2, 3, 4] })}`,
    ]);
  });
  it('a list under a label naming a target or a dimension; measures marked "(default)" are a choice', () => {
    expect(of('enum', 'Build target: windows64, osx, linux64, android, ios, webgl')).toHaveLength(1);
    expect(of('enum', "Physics dimension: '3d' (default) or '2d'.")).toEqual([`prose-only enum ${JSON.stringify({ enum: ['3d', '2d'] })}`]);
    expect(of('enum', "Duration: '30m', '2h'")).toEqual([]);
    expect(of('enum', 'Relation type: spouse, child, parent, or custom.')).toEqual([]);
  });
  it('kinds in parentheses are no values: "(name/path/id)", "Intensity value (ambient/reflection)"', () => {
    expect(of('enum', 'Target GameObject (name/path/id).')).toEqual([]);
    expect(of('enum', 'Intensity value (ambient/reflection).', 'number')).toEqual([]);
    expect(of('enum', 'Include archived (true/false).')).toHaveLength(1);
  });
  it('no bound from a condition: "Requests >10 require ...", "Specify `depth > 0` to also retrieve ..."', () => {
    expect(findings('Requests >10 require allowLargeResultSet=true.', 'integer')).toEqual([]);
    expect(findings('Specify `depth > 0` to also retrieve children.', 'integer')).toEqual([]);
    expect(of('minimum', 'Must be > 0.', 'integer')).toHaveLength(1);
  });
  it('a default in the prose of a required parameter is a schema-only required; "plain text by default" is not', () => {
    const required = (description: string): string[] =>
      tool({ path: { type: 'string', description }, body: { type: 'string' } }, 'A tool.', ['path']).filter((f) => f.includes('required'));
    expect(required('Local path. Defaults to current working directory.')).toEqual([
      `schema-only path required ${JSON.stringify({ required: [] })}`,
    ]);
    expect(required('The text (plain text by default).')).toEqual([]);
  });
  it('"(prefix: a_, b_)" is a pattern of the prefixes', () => {
    expect(of('pattern', 'Action to perform (prefix: animator_, controller_, clip_).')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern: '^(?:animator_|controller_|clip_)' })}`,
    ]);
  });
});

describe('the rules read from the eighteenth draw (after its blind figures were taken)', () => {
  const ids = { name: { type: 'string', description: 'Object name.' }, uid: { type: 'string', description: 'Object unique identifier.' } };
  it('"by name or UID (at least one is required)" is an anyOf of the names, not a requirement of each', () => {
    const set = { anyOf: [{ required: ['name'] }, { required: ['uid'] }] };
    expect(tool(ids, 'Show a NAT section by name or UID (at least one is required).')).toEqual([
      `prose-only - anyOf ${JSON.stringify(set)}`,
    ]);
    expect(tool(ids, 'Show a rulebase. Either name or uid is required, the other can be empty.')).toEqual([
      `prose-only - anyOf ${JSON.stringify(set)}`,
    ]);
    expect(tool(ids, 'Find usages. Requires either uid or name parameter.')).toEqual([
      `prose-only - anyOf ${JSON.stringify({ anyOf: [{ required: ['uid'] }, { required: ['name'] }] })}`,
    ]);
  });
  it('no default said of one value of another parameter ("Full defaults to True"), nor one "on create"', () => {
    const properties = {
      detail_level: { type: 'string', enum: ['minimal', 'full'] },
      include_state: { type: 'boolean', description: 'Include state (None = auto). Full defaults to True.' },
      auto: { type: 'boolean', description: 'Defaults to false on create; omitting it on update leaves it unchanged.' },
    };
    expect(tool(properties).filter((f) => f.includes('default'))).toEqual([]);
  });
  it('"Parameters:" then "- name (optional): text" bullets at the same indent are the parameters\' own texts', () => {
    const description = [
      'Run ip.',
      'Parameters:',
      '- node (required): The node.',
      "- namespace (optional): Namespace of the debug pod. Default: 'default'",
      '- apply_tail_first (optional): If both are set,',
      'apply tail first. Default: false',
      '',
      'Example:',
      "- node='a'",
    ].join('\n');
    const found = tool({ node: { type: 'string' }, namespace: { type: 'string' }, apply_tail_first: { type: 'boolean' } }, description, [
      'node',
    ]);
    expect(found.sort()).toEqual([
      `prose-only apply_tail_first default ${JSON.stringify({ default: false })}`,
      `prose-only namespace default ${JSON.stringify({ default: 'default' })}`,
    ]);
  });
});

describe('rules read from the training draws in the nineteenth session', () => {
  const table = (header: string, rows: string[]): string =>
    [`| ${header} | Description |`, '| --- | --- |', ...rows.map((row) => `| ${row} | Something. |`)].join('\n');
  it("a markdown table whose first header cell names the parameter is that parameter's values", () => {
    const description = `Related entities.\n\nThe following table lists the relationships.\n\n${table('Relationship', ['comments', 'graphs', '`mx_records`'])}`;
    const properties = { domain: { type: 'string' }, relationship_name: { type: 'string' } };
    expect(tool(properties, description)).toEqual([
      `prose-only relationship_name enum ${JSON.stringify({ enum: ['comments', 'graphs', 'mx_records'] })}`,
    ]);
    // In the parameter's own text, a header that says "Value" is enough.
    expect(of('enum', `The mode.\n${table('Value', ['fast', 'safe'])}`)).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['fast', 'safe'] })}`,
    ]);
  });
  it('no values from a table of prose, of fields, naming no parameter, or said to be open', () => {
    const properties = { relationship_name: { type: 'string' } };
    expect(tool(properties, table('Relationship', ['comments', 'two words']))).toEqual([]);
    expect(tool(properties, table('Field', ['comments', 'graphs']))).toEqual([]);
    expect(of('enum', table('Field', ['id', 'name']))).toEqual([]);
    expect(tool(properties, `${table('Relationship', ['comments', 'graphs'])}\nOther values are passed through as-is.`)).toEqual([]);
    // A table of the tool's parameters is no list of values.
    expect(tool({ name: { type: 'string' }, size: { type: 'integer' } }, table('Name', ['name', 'size']))).toEqual([]);
  });
});

describe('types the prose states (rules read from the training draws in the twenty-first session)', () => {
  const types = (properties: JsonObject, description = 'A tool.'): string[] =>
    tool(properties, description).filter((f) => / type /.test(f));
  it('a value the schema leaves open gets the type its prose states, strong or weak', () => {
    expect(types({ p: { description: 'String or number.' } })).toEqual([
      `prose-only p type ${JSON.stringify({ type: ['string', 'number'] })}`,
    ]);
    expect(types({ p: { description: 'List of labels to add.' } })).toEqual([`prose-only p type ${JSON.stringify({ type: 'array' })}`]);
    expect(types({ p: { description: 'Whether to include archived items.' } })).toEqual([
      `prose-only p type ${JSON.stringify({ type: 'boolean' })}`,
    ]);
    expect(types({ p: { description: 'Maximum number of results.', default: 10 } })).toEqual([
      `prose-only p type ${JSON.stringify({ type: 'integer' })}`,
    ]);
  });
  it('no fix where setting a type would break the schema: a default of another type, or branches', () => {
    expect(types({ p: { description: 'Number of results.', default: 'ten' } })).toEqual(['prose-only p type null']);
    expect(types({ p: { anyOf: [{}, { type: 'null' }], description: 'Comment ID (integer).' } })).toEqual(['prose-only p type null']);
  });
  it('nothing on a reference the audit does not follow, or on values the schema lists', () => {
    expect(types({ p: { $ref: 'https://example.com/s.json', description: 'String or number.' } })).toEqual([]);
    expect(types({ p: { enum: ['a', 'b'], description: 'List of labels.' } })).toEqual([]);
  });
  it('a typed value: only a type stated outright that the schema does not allow', () => {
    expect(of('type', 'Daily budget in account currency (in cents) as a string.', 'integer')).toEqual(['prose-only type null']);
    expect(of('type', 'Development build (true/false)', 'string')).toEqual(['prose-only type null']);
    expect(of('type', 'Accepts a string or a number.', 'string')).toEqual(['prose-only type null']);
    // Agreeing, weak, or said of the items of a list.
    expect(of('type', 'Daily budget as a string.', 'string')).toEqual([]);
    expect(of('type', 'Page size (int, optional)', 'number')).toEqual([]);
    expect(of('type', 'Whether to include archived items.', 'string')).toEqual([]);
    expect(of('type', 'Label IDs (string)', 'array', { items: { type: 'string' } })).toEqual([]);
    expect(of('type', 'Can be a single string or an array of strings.', 'array', { items: { type: 'string' } })).toEqual([
      'prose-only type null',
    ]);
  });
  it("a docstring entry's declared type types the value it names", () => {
    const description = 'Search.\n\nArgs:\n    limit (int, optional): Maximum results.\n    query (str): The query.\n';
    expect(types({ limit: { title: 'Limit', default: 10 }, query: { type: 'string' } }, description)).toEqual([
      `prose-only limit type ${JSON.stringify({ type: 'integer' })}`,
    ]);
    expect(types({ limit: { type: 'string' }, query: { type: 'string' } }, description)).toEqual(['prose-only limit type null']);
    expect(types({ limit: { type: 'integer' }, query: { type: ['string', 'null'] } }, description)).toEqual([]);
  });
});

describe('rules read from the twenty-first and twenty-second draws (after their blind figures were taken)', () => {
  it('a range from 0 with no unit on a string is of the number it holds, not of its length', () => {
    expect(findings('Hour of day to filter by (0-23). Leave empty for all hours.')).toEqual([]);
    expect(of('maxLength', 'Name (3-64).')).toEqual([`prose-only maxLength ${JSON.stringify({ maxLength: 64 })}`]);
  });
  it('a range on a list of numbers also taken as text bounds each item', () => {
    const severities = { anyOf: [{ type: 'array', items: { anyOf: [{ type: 'integer' }, { type: 'string' }] } }, { type: 'null' }] };
    expect(tool({ severities: { ...severities, description: 'Severity levels 0-5.' } })).toEqual([
      `prose-only severities maximum ${JSON.stringify({ maximum: 5 })}`,
      `prose-only severities minimum ${JSON.stringify({ minimum: 0 })}`,
    ]);
  });
  it('"CSV of codes" is a list in one string: its values make a pattern, not an enum', () => {
    expect(findings('CSV of kind codes to filter by: T, O or V.').map((f) => f.split(' ')[1])).toEqual(['pattern']);
  });
  it('"Required parameter — no default." on an optional parameter', () => {
    expect(of('required', 'Edge repository view. Required parameter — no default.')).toHaveLength(1);
  });
  it("codes opening a sentence are the values of an integer; \"'a' for X, or 'b' (the default)\" a list", () => {
    expect(of('enum', '0=enabled, 1=disabled.', 'integer')).toEqual([`prose-only enum ${JSON.stringify({ enum: [0, 1] })}`]);
    expect(of('enum', "Pagination method: 'keyset' for large result sets, or 'offset' (the default).")).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['keyset', 'offset'] })}`,
    ]);
  });
  it('"do not pass empty string" asks for a length of at least 1', () => {
    expect(of('minLength', 'Database name. Required — do not pass empty string.')).toEqual([
      `prose-only minLength ${JSON.stringify({ minLength: 1 })}`,
    ]);
  });
  it('a default in seconds on a string that holds numbers is that number as text', () => {
    expect(of('default', "Duration in seconds (e.g., '1800' for 30 minutes). Optional, defaults to 1800 seconds")).toEqual([
      `prose-only default ${JSON.stringify({ default: '1800' })}`,
    ]);
    expect(of('default', 'Duration, defaults to 1800 seconds')).toEqual([]);
  });
  it('a required parameter the environment can supply is a schema-only required', () => {
    const privateKey = { type: 'string', description: 'Private key. Prefer setting PRIVATE_KEY in the MCP server environment.' };
    expect(tool({ privateKey }, 'A tool.', ['privateKey'])).toEqual([
      `schema-only privateKey required ${JSON.stringify({ required: [] })}`,
    ]);
    expect(tool({ privateKey: { ...privateKey, description: 'Private key, set in the environment.' } }, 'A tool.', ['privateKey'])).toEqual(
      [],
    );
  });
});

describe('rules read from the twenty-fourth and twenty-fifth draws (after their blind figures were taken)', () => {
  const optional = { anyOf: [{ type: 'string' }, { type: 'null' }], default: null };
  it('"Either a, b, or c must be provided" is anyOf over the three, not a required on each', () => {
    const found = tool(
      { repo_id: optional, repo_name: optional, repo_url: optional },
      'Note: Either repo_id, repo_name, or repo_url must be provided.',
    );
    expect(found).toEqual([
      `prose-only - anyOf ${JSON.stringify({ anyOf: [{ required: ['repo_id'] }, { required: ['repo_name'] }, { required: ['repo_url'] }] })}`,
    ]);
  });
  it('the next sentence may allow both: "If both are provided, a takes precedence" makes it anyOf, not oneOf', () => {
    const found = tool(
      { repo_id: optional, repo_name: optional },
      'Either repo_id or repo_name must be provided. If both are provided, repo_id takes precedence.',
    );
    expect(found).toEqual([`prose-only - anyOf ${JSON.stringify({ anyOf: [{ required: ['repo_id'] }, { required: ['repo_name'] }] })}`]);
    const several = tool(
      { repo_id: optional, repo_name: optional, repo_url: optional },
      'Either repo_id, repo_name, or repo_url must be given. If multiple are given, the first wins.',
    );
    expect(several.map((f) => f.split(' ')[2])).toEqual(['anyOf']);
  });
  it('"Either this OR `b` must be provided (but not both)" in a parameter\'s own text is oneOf of it and the other', () => {
    const repo_id = { ...optional, description: 'Either this OR `repo_name` must be provided (but not both).' };
    expect(tool({ repo_id, repo_name: optional })).toEqual([
      `prose-only - oneOf ${JSON.stringify({ oneOf: [{ required: ['repo_id'] }, { required: ['repo_name'] }] })}`,
    ]);
  });
  it('keys an object or each item must have: "Must include: version, sources, layers"', () => {
    const style = { type: 'object', additionalProperties: {}, description: 'Style object. Must include: version (8), sources, layers.' };
    expect(tool({ style })).toEqual([`prose-only style required ${JSON.stringify({ required: ['version', 'sources', 'layers'] })}`]);
    const items = { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } };
    const env = { type: 'array', items, description: "Each variable must have a 'name' and 'value' field." };
    expect(tool({ env })).toEqual([`prose-only env required ${JSON.stringify({ required: ['name', 'value'] })}`]);
    expect(tool({ env: { ...env, items: { ...items, required: ['name', 'value'] } } })).toEqual([]);
    // A closed object that does not declare the key: the prose and the properties disagree, left to the maintainer.
    expect(tool({ env: { ...env, items: { ...items, properties: { name: { type: 'string' } }, additionalProperties: false } } })).toEqual([
      `prose-only env required ${JSON.stringify({ required: ['name'] })}`,
    ]);
    expect(tool({ q: { type: 'string', description: 'Must include: version, sources.' } }).filter((f) => f.includes('version'))).toEqual(
      [],
    );
  });
  it("a label's items that each open with a quoted value and say what it does are the values", () => {
    expect(of('enum', "Filter scope: 'user' returns user databases, 'all' returns every database.")).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['user', 'all'] })}`,
    ]);
    expect(of('enum', "Search query: 'react' finds React pages, 'vue' finds Vue pages.")).toEqual([]);
  });
  it('no default computed from another parameter, and a "(default)" mark ends the item of the quoted value opening it', () => {
    const end_date = { type: 'string', default: '', description: 'Event end. Defaults to due_date+1hr if omitted.' };
    expect(tool({ due_date: { type: 'string' }, end_date }).filter((f) => f.includes('default'))).toEqual([]);
    const searchIn = {
      type: 'string',
      enum: ['name', 'content', 'both'],
      default: 'both',
      description:
        'Where to search: "name" matches titles only, "content" searches inside files, "both" searches names and content (default).',
    };
    expect(tool({ searchIn })).toEqual([]);
  });
  it('inside an object written out key by key, a bound is of one of its keys; its optional keys are marked', () => {
    const tasks = { type: 'array', items: { type: 'object' }, description: 'Each task: {title: str (required), priority: int (0-5)}' };
    expect(tool({ tasks })).toEqual([`prose-only tasks required ${JSON.stringify({ required: ['title'] })}`]);
    const positions = { type: 'array', items: { type: 'object' }, description: 'List of {task_id: int, position?: float}' };
    expect(tool({ positions })).toEqual([`prose-only positions required ${JSON.stringify({ required: ['task_id'] })}`]);
  });
  it('"STIX id or internal UUID" is one alternative of two, no uuid format', () => {
    expect(of('format', 'Entity id (STIX id or internal UUID)')).toEqual([]);
  });
  it('a rule across the properties of the object a parameter holds has its home on that object', () => {
    const item = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } };
    const components = { type: 'array', items: item, description: 'Exactly one of `id` / `name` must be set.' };
    expect(tool({ components })).toEqual([
      `prose-only components oneOf ${JSON.stringify({ oneOf: [{ required: ['id'] }, { required: ['name'] }] })}`,
    ]);
    const destination = { ...item, description: 'Only one of id or name must be specified.' };
    expect(tool({ destination }).map((f) => f.split(' ').slice(0, 3).join(' '))).toEqual(['prose-only destination oneOf']);
  });
  it("the tool's text may say it of the objects a parameter holds, naming the parameter by its singular", () => {
    const item = { type: 'object', properties: { taskId: { type: 'string' }, projectId: { type: 'string' } } };
    const comments = { type: 'array', items: item };
    const set = { oneOf: [{ required: ['taskId'] }, { required: ['projectId'] }] };
    expect(tool({ comments }, 'Add comments. Each comment must specify either taskId or projectId.')).toEqual([
      `prose-only comments oneOf ${JSON.stringify(set)}`,
    ]);
    // A sentence that names no parameter holding them sets no rule on them.
    expect(tool({ comments }, 'Add notes. Each note must specify either taskId or projectId.')).toEqual([]);
  });
});

describe('the rules of the twenty-second session', () => {
  const tags = { type: 'array', items: { type: 'string' } };
  const notOf = (...names: string[]) => `prose-only - not ${JSON.stringify({ not: { required: names } })}`;

  it('"mutually exclusive with" after a comma or "and is" in a parameter\'s own text is a not of the pair', () => {
    const url = { type: 'string' };
    expect(
      tool({ url, alexandria: { type: 'object', description: 'Capability invocation, mutually exclusive with url. Pin a version.' } }),
    ).toEqual([notOf('alexandria', 'url')]);
    expect(tool({ url, mode: { type: 'string', description: 'Selects a mode and is mutually exclusive with `url`.' } })).toEqual([
      notOf('mode', 'url'),
    ]);
    // A thing that is no parameter excludes nothing.
    expect(tool({ url, mode: { type: 'string', description: 'The mode, mutually exclusive with batch jobs.' } })).toEqual([]);
  });

  it('"mutually exclusive with `a`, `b` and `c`" excludes each, not only the first', () => {
    const one = { type: 'string' };
    const scores = { type: 'array', description: 'Mutually exclusive with `issues`, `files`, and `results`.' };
    const set = { not: { anyOf: ['issues', 'files', 'results'].map((n) => ({ required: ['scores', n] })) } };
    expect(tool({ issues: one, files: one, results: one, scores })).toEqual([`prose-only - not ${JSON.stringify(set)}`]);
  });

  it('"Don\'t set this param if X is also set" and "Do not combine with X" in its own text exclude the pair', () => {
    const tests = { type: 'array', items: { type: 'string' } };
    const level = (description: string) => ({ tests, level: { type: 'string', description } });
    expect(tool(level('Test level. Don\'t set this param if "tests" is also set.'))).toEqual([notOf('level', 'tests')]);
    expect(tool(level('Test level. Do not combine with `tests`.'))).toEqual([notOf('level', 'tests')]);
    expect(tool(level('Test level. Do not use with older servers.'))).toEqual([]);
    expect(tool(level('Test level. Do not set it if unsure.'))).toEqual([]);
  });

  it('a list of quoted values one per line, after "One of:", is one sentence and one value list', () => {
    const text = 'Filter by scope. One of:\n"resource" (service attributes),\n"span" (span attributes, like status),\n"intrinsic".';
    expect(of('enum', text)).toEqual([`prose-only enum ${JSON.stringify({ enum: ['resource', 'span', 'intrinsic'] })}`]);
    // A line that ends a sentence is still its end.
    expect(of('enum', 'Filter by scope.\n"resource" is the usual one.')).toEqual([]);
  });

  it('a value list that shares two words with parameter names is still a value list; a list of names is not', () => {
    const sets = ['all', 'agent', 'firewall', 'graders', 'info', 'usage'];
    const artifacts = { type: 'array', items: { type: 'string' }, description: `Valid sets: ${sets.join(', ')}.` };
    const flag = { type: 'boolean' };
    expect(tool({ artifacts, firewall: flag, graders: flag })).toEqual([`prose-only artifacts enum ${JSON.stringify({ enum: sets })}`]);
    const fields = { type: 'array', items: { type: 'string' }, description: 'Valid sets: firewall, graders, info.' };
    expect(tool({ fields, firewall: flag, graders: flag })).toEqual([]);
  });

  it('in the tool\'s text, "`a`/`b` (mutually exclusive with `c`)" excludes c with each of a and b', () => {
    const text = 'Replace tags via `tags`, or edit them via `add_tags`/`remove_tags` (mutually exclusive with `tags`).';
    const set = { not: { anyOf: [{ required: ['add_tags', 'tags'] }, { required: ['remove_tags', 'tags'] }] } };
    expect(tool({ tags, add_tags: tags, remove_tags: tags }, text)).toEqual([`prose-only - not ${JSON.stringify(set)}`]);
    // A name that is no parameter, on either side, sets nothing.
    expect(tool({ tags, add_tags: tags }, 'Edit via `add_tags`/`drop_tags` (mutually exclusive with `tags`).')).toEqual([]);
    expect(tool({ tags, add_tags: tags }, 'Edit via `add_tags` (mutually exclusive with `labels`).')).toEqual([]);
  });

  it('decimal places on a numeric string are a pattern; on a string or number, left alone', () => {
    const pattern = '^-?\\d+(?:\\.\\d{1,18})?$';
    expect(of('pattern', 'A balance as a numeric string, up to 18 decimal places.')).toEqual([
      `prose-only pattern ${JSON.stringify({ pattern })}`,
    ]);
    const either = { balance: { anyOf: [{ type: 'string' }, { type: 'number' }], description: 'Up to 18 decimal places.' } };
    expect(tool(either)).toEqual([]);
    expect(of('multipleOf', 'Amount, up to 2 decimal places.', 'number')).toEqual(['prose-only multipleOf {"multipleOf":0.01}']);
  });

  it('"(1-500)" on a list of numbers whose count already says 1 and 500 bounds no number', () => {
    const ids = {
      type: 'array',
      items: { type: 'integer' },
      minItems: 1,
      maxItems: 500,
      description: 'Transaction IDs to delete (1-500).',
    };
    expect(tool({ ids })).toEqual([]);
    const scores = { type: 'array', items: { type: 'number' }, description: 'Scores (0-100).' };
    expect(tool({ scores }).map((f) => f.split(' ').slice(0, 3).join(' '))).toEqual([
      'prose-only scores maximum',
      'prose-only scores minimum',
    ]);
  });

  it("a default given after a server setting (an environment variable) is the setting's", () => {
    expect(of('default', 'Stops after KEYCLOAK_DEADLINE seconds (default 45).', 'integer')).toEqual([]);
    expect(of('default', '0 falls back to MAX_USERS (default 5000).', 'integer')).toEqual([]);
    expect(of('default', 'Window in seconds (default 45).', 'integer')).toEqual(['prose-only default {"default":45}']);
  });

  it('"If set, end_month is also required" in its own text: this one needs the other', () => {
    const month = { type: 'string' };
    const set = { dependentRequired: { start_month: ['end_month'] } };
    expect(tool({ start_month: { ...month, description: 'First month. If set, end_month is also required.' }, end_month: month })).toEqual([
      `prose-only - dependentRequired ${JSON.stringify(set)}`,
    ]);
    expect(tool({ start_month: { ...month, description: 'If set, a report is also required.' }, end_month: month })).toEqual([]);
  });

  it('a property of the objects a parameter holds may exclude a sibling in its own text', () => {
    const ids = { type: 'array', items: { type: 'integer' } };
    const item = {
      type: 'object',
      properties: { tag_ids: { ...ids, description: 'Mutually exclusive with extra_tag_ids.' }, extra_tag_ids: ids },
    };
    expect(tool({ transactions: { type: 'array', items: item } })).toEqual([
      `prose-only transactions not ${JSON.stringify({ not: { required: ['tag_ids', 'extra_tag_ids'] } })}`,
    ]);
  });

  it('"cannot be combined with offset" after a comma is said of the parameter', () => {
    const props = {
      all_hits: { type: 'string', description: 'Ignores limit, cannot be combined with offset (no paging).' },
      offset: { type: 'integer' },
    };
    expect(tool(props)).toEqual([`prose-only - not ${JSON.stringify({ not: { required: ['all_hits', 'offset'] } })}`]);
  });

  it('a width of each code on a list of strings is of its items', () => {
    const codes = { type: 'array', items: { type: 'string' }, description: 'The 3-letter codes of the airports.' };
    expect(tool({ codes })).toEqual([`prose-only codes pattern ${JSON.stringify({ pattern: '^[A-Za-z]{3}$' })}`]);
  });

  it('a pattern or width on a date or a currency by its name is its standard form, not worth a word', () => {
    const date = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Start of the range.' };
    const currency = { type: 'string', minLength: 3, maxLength: 3 };
    expect(tool({ start_date: date, currency })).toEqual([]);
    expect(tool({ start_code: date }).map((f) => f.split(' ').slice(0, 3).join(' '))).toEqual(['schema-only start_code pattern']);
  });

  it('a Sphinx field goes on at its own indent until a blank line or the next field', () => {
    const text = '    List.\n\n    :param kind: Type to list: "databases", "tables",\n    "functions".\n    :param other: Else.\n';
    expect(tool({ kind: { type: 'string' }, other: { type: 'string' } }, text)).toEqual([
      `prose-only kind enum ${JSON.stringify({ enum: ['databases', 'tables', 'functions'] })}`,
    ]);
  });

  it('"Provide at least one writable field" on an object asks for one of its properties', () => {
    const update = {
      type: 'object',
      properties: { date: { type: 'string' }, notes: { type: 'string' } },
      description: 'Fields to update. Provide at least one writable field.',
    };
    expect(tool({ update })).toEqual([
      `prose-only update anyOf ${JSON.stringify({ anyOf: [{ required: ['date'] }, { required: ['notes'] }] })}`,
    ]);
  });

  it("\"Set to 'Y' to exclude, 'N' to include all\" lists the values it sets", () => {
    expect(of('enum', "Exclude system tables. Set to 'Y' to exclude, 'N' to include all (default: 'N').")).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['Y', 'N'] })}`,
    ]);
    expect(of('enum', "Set to 'Y' to exclude.")).toEqual([]);
  });

  it('"Required when target_type is \'pod\'" on a text that lists no values: the quoted value or code is its literal', () => {
    const props = (description: string) => ({ namespace: { type: 'string', description }, target_type: { type: 'string' } });
    const set = (value: string) => ({
      allOf: [{ if: { properties: { target_type: { enum: [value] } }, required: ['target_type'] }, then: { required: ['namespace'] } }],
    });
    expect(tool(props("Namespace. Required when target_type is 'pod'."))).toEqual([`prose-only - if ${JSON.stringify(set('pod'))}`]);
    expect(tool(props('Namespace. Required when target_type is CALL_NOW.'))).toEqual([
      `prose-only - if ${JSON.stringify(set('CALL_NOW'))}`,
    ]);
    // A bare word may be prose, not a value.
    expect(tool(props('Namespace. Required when target_type is pod.'))).toEqual([]);
  });

  it("a quoted list may end with '' for all; a list of operators under its label is a value list", () => {
    expect(of('enum', "Filter: 'hosted', 'installed', or '' for all")).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['hosted', 'installed', ''] })}`,
    ]);
    expect(of('enum', "Label: 'a', 'b' for all users.")).toEqual([]);
    expect(of('enum', 'Comparison operator: GreaterThan, LessThan, Equal')).toEqual([
      `prose-only enum ${JSON.stringify({ enum: ['GreaterThan', 'LessThan', 'Equal'] })}`,
    ]);
  });

  it('"(max limit: 100)" is an upper bound; "Defaults to false for security" a default, not a conditional one', () => {
    expect(of('maximum', 'Records to return (max limit: 100)', 'integer')).toEqual(['prose-only maximum {"maximum":100}']);
    expect(of('default', 'Include the secret. Defaults to false for security.', 'boolean')).toEqual([
      'prose-only default {"default":false}',
    ]);
    expect(of('default', 'Defaults to 5 for video creatives.', 'integer')).toEqual([]);
  });

  it("a value said after a key in a list of an object's keys is that key's", () => {
    const params = {
      type: 'object',
      properties: { limit: { type: 'integer' } },
      description: 'ListParams object containing:\n- limit: Number of results to return (default 20)',
    };
    expect(tool({ params }, 'A tool.', ['params']).filter((f) => f.includes(' params required '))).toEqual([]);
  });
});

describe('the rules of the twenty-third session', () => {
  it('a format the parameter is named for (`email`, `contactEmail`, `website_url`) needs no word in its prose', () => {
    const email = { type: 'string', format: 'email', description: 'Where receipts go.' };
    const url = { type: 'string', format: 'uri', description: 'The company homepage.' };
    expect(tool({ email, contactEmail: email, website_url: url })).toEqual([]);
    expect(tool({ recipient: email }).map((f) => f.split(' ').slice(0, 3).join(' '))).toEqual(['schema-only recipient format']);
  });

  it('a bound right after another parameter\'s quoted name is that parameter\'s ("Raise ``size`` (max 200)")', () => {
    const text = 'List.\n\n    Args:\n        owner: A username. A page may shrink: raise ``size`` (max 200) or iterate ``page``.\n';
    const properties = { owner: { type: 'string' }, size: { type: 'integer' }, page: { type: 'integer' } };
    expect(tool(properties, text)).toEqual([]);
    expect(tool(properties, 'List.\n\n    Args:\n        owner: A username (max 200).\n')).toEqual([
      `prose-only owner maxLength ${JSON.stringify({ maxLength: 200 })}`,
    ]);
  });

  it('words said of the thing an id names ("The cell can be either vertex or edge") are not the id\'s values', () => {
    const description = 'The ID of a cell to delete. The cell can be either vertex or edge.';
    expect(tool({ cell_id: { type: 'string', description } })).toEqual([]);
    expect(tool({ cell_kind: { type: 'string', description } })).toEqual([
      `prose-only cell_kind enum ${JSON.stringify({ enum: ['vertex', 'edge'] })}`,
    ]);
  });

  it('a value named as a format is a layout: "yyyy/MM/dd" in its text is what it may say, not its shape', () => {
    const description = 'Output format: iso, full, or a date-fns pattern (e.g. yyyy/MM/dd HH:mm).';
    expect(tool({ format: { type: 'string', description }, dateFormat: { type: 'string', description } })).toEqual([]);
    expect(tool({ day: { type: 'string', description: 'The day, yyyy/MM/dd.' } }).map((f) => f.split(' ').slice(0, 3).join(' '))).toEqual([
      'prose-only day pattern',
    ]);
  });

  it('a number said as the default of a string that holds a number is that text; "0" and 0 are one default', () => {
    const decimals = { type: 'string', description: 'The number of decimals used to represent token amounts. Defaults to 18.' };
    expect(tool({ decimals })).toEqual([`prose-only decimals default ${JSON.stringify({ default: '18' })}`]);
    expect(tool({ label: { type: 'string', description: 'The label. Defaults to 18.' } })).toEqual([]);
    expect(tool({ fee: { type: 'string', default: '0', description: 'Fee percent. Defaults to 0 (no fee).' } })).toEqual([]);
  });

  it('"(default: 127.0.0.1)" is an address, not the number 127', () => {
    expect(tool({ localHost: { type: 'string', description: 'Local host (default: 127.0.0.1)' } })).toEqual([
      `prose-only localHost default ${JSON.stringify({ default: '127.0.0.1' })}`,
    ]);
    expect(tool({ port: { type: 'number', description: 'Bind address (default: 127.0.0.1)' } })).toEqual([]);
  });

  it('"(random, default)" marks a default; "as hex string" asks for a pattern it cannot write', () => {
    const uuidVersion = { type: 'string', enum: ['v4', 'v7'], description: 'UUID version: v4 (random, default) or v7 (time-ordered)' };
    expect(tool({ uuidVersion })).toEqual([`prose-only uuidVersion default ${JSON.stringify({ default: 'v4' })}`]);
    expect(tool({ color: { type: 'string', description: 'The text color of the label as hex string' } })).toEqual([
      'prose-only color pattern null',
    ]);
  });
});

describe('the rules of the twenty-fourth session', () => {
  it('a width and the hex alphabet give the whole layout ("Must be a 32-character hexadecimal string.")', () => {
    expect(tool({ asset_id: { type: 'string', description: 'The asset ID. Must be a 32-character hexadecimal string.' } })).toContain(
      `prose-only asset_id pattern ${JSON.stringify({ pattern: '^[0-9A-Fa-f]{32}$' })}`,
    );
    expect(tool({ key: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The key, 64 hex characters.' } })).toEqual([]);
  });

  it('a cap said to drop what lies beyond it ("any beyond the first 1000 are ignored rather than rejected") is no bound', () => {
    const tags = { type: 'array', items: { type: 'string' } };
    const ignored = 'The tags. At most 1000 are processed per request; any beyond the first 1000 are ignored rather than rejected.';
    expect(tool({ tags: { ...tags, description: ignored } })).toEqual([]);
    expect(tool({ tags: { ...tags, description: 'The tags. At most 1000 per request.' } })).toEqual([
      `prose-only tags maxItems ${JSON.stringify({ maxItems: 1000 })}`,
    ]);
  });

  it('"Positive number: returns that many" is one case of what the values do, not a lower bound', () => {
    const description = 'Points per page. Special values:\n- Positive number: Returns that many points per page\n- -1: Returns all points';
    expect(tool({ points_per_page: { type: 'number', description } })).toEqual([]);
    expect(tool({ count: { type: 'number', description: 'A positive number.' } })).toEqual([
      `prose-only count exclusiveMinimum ${JSON.stringify({ exclusiveMinimum: 0 })}`,
    ]);
  });

  it('a format in a branch beside one that takes any string is no home: the prose\'s "ISO 8601" is still unencoded', () => {
    const loose = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'string' }], description: 'Series start (ISO 8601).' };
    expect(tool({ start: loose })).toEqual([`prose-only start format ${JSON.stringify({ format: 'date-time' })}`]);
    const tight = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }], description: 'Series start (ISO 8601).' };
    expect(tool({ start: tight })).toEqual([]);
  });

  it('a cap of a thousand and more on max_items, max_rows, max_records is a result count, left alone like limit', () => {
    for (const name of ['max_items', 'maxRows', 'max_records', 'limit'])
      expect(tool({ [name]: { type: 'integer', maximum: 5000, description: 'Cap on list items returned.' } })).toEqual([]);
    expect(tool({ retries: { type: 'integer', maximum: 5000, description: 'How often to retry.' } })).toEqual([
      'schema-only retries maximum null',
    ]);
  });
});

describe('the rules of the twenty-fifth session', () => {
  const dispatching = (description: string): JsonObject => ({
    action: { type: 'string', enum: ['list', 'create', 'update', 'delete'] },
    scope: { type: 'string', enum: ['user', 'team'] },
    id: { type: 'string', description },
  });
  it.each([
    ["The record (required for 'update' and 'delete').", ['update', 'delete']],
    ['Required for update.', ['update']],
    ['The record; required for "delete" actions.', ['delete']],
  ] as const)('a requirement on values one other parameter lists: %s', (sentence, values) => {
    const set = { allOf: [{ if: { properties: { action: { enum: values } }, required: ['action'] }, then: { required: ['id'] } }] };
    expect(tool(dispatching(sentence))).toEqual([`prose-only - if ${JSON.stringify(set)}`]);
  });
  it.each([
    // Every value of the action: the parameter is simply required, not on a value.
    'Required for list, create, update and delete.',
    // Values no parameter lists, or a purpose rather than values.
    'Required for archive.',
    'Required for namespaced resources.',
  ])('not: %s', (sentence) => {
    expect(tool(dispatching(sentence)).filter((f) => f.includes(' if '))).toEqual([]);
  });

  it('a bare number on a string that holds a comma-separated list counts its values, not characters', () => {
    expect(tool({ flights: { type: 'string', description: 'Flight numbers (comma-separated values, max 15).' } })).toEqual([]);
    expect(tool({ flight: { type: 'string', description: 'Flight number, max 15.' } })).toEqual([
      `prose-only flight maxLength ${JSON.stringify({ maxLength: 15 })}`,
    ]);
  });

  it('"(comma-separated: ADSB, MLAT, ESTIMATED)" lists the values each item takes: a pattern over the list', () => {
    const one = '(?:ADSB|MLAT|ESTIMATED)';
    expect(tool({ sources: { type: 'string', description: 'Source of information (comma-separated: ADSB, MLAT, ESTIMATED).' } })).toEqual([
      `prose-only sources pattern ${JSON.stringify({ pattern: `^${one}(?:\\s*,\\s*${one})*$` })}`,
    ]);
  });

  it('an enum beside a branch that takes any string refuses nothing: the values the prose lists are unencoded', () => {
    const sort = (anyOf: JsonObject[]): JsonObject => ({ anyOf, description: 'Sort direction: "asc", "desc"' });
    expect(tool({ order: sort([{ type: 'string' }, { type: 'string', enum: ['asc', 'desc'] }, { type: 'null' }]) })).toEqual([
      'prose-only order enum null',
    ]);
    expect(tool({ order: sort([{ type: 'string', enum: ['asc', 'desc'] }, { type: 'null' }]) })).toEqual([]);
  });

  it('a name set apart ("other than limit") is not what a requirement speaks of', () => {
    const properties = { flights: { type: 'string' }, limit: { type: 'number' } };
    const apart = 'Counts flights. At least one search parameter (other than limit) must be provided.';
    expect(tool(properties, apart).filter((f) => f.includes(' required '))).toEqual([]);
    expect(tool(properties, 'Counts flights. The limit must be provided.')).toContain(
      `prose-only limit required ${JSON.stringify({ required: ['limit'] })}`,
    );
  });

  it('"Requires flight_datetime_to." when that parameter is required anyway holds already', () => {
    const properties = {
      from: { type: 'string', description: 'Start. Requires to.' },
      to: { type: 'string', description: 'End.' },
    };
    expect(tool(properties, 'A tool.', ['from', 'to'])).toEqual([]);
    expect(tool(properties)).toEqual([`prose-only - dependentRequired ${JSON.stringify({ dependentRequired: { from: ['to'] } })}`]);
  });

  it('values one parameter lists, in a sentence that names another, are said of the one that lists them', () => {
    const properties = {
      action: { type: 'string', enum: ['list', 'totals', 'mute', 'unmute'] },
      filter: { type: 'string', description: 'Filter hosts by name.' },
    };
    expect(tool(properties, 'Manage hosts. Actions: list (with filters), totals (counts), mute (silence alerts), unmute.')).toEqual([]);
  });

  it('a range in parentheses after a quoted value ("\\"5xx\\" (500-599)") glosses that value', () => {
    const status = (description: string): JsonObject => ({ code: { type: 'string', description } });
    expect(tool(status('Status filter. Examples: "500", "5xx" (500-599), ">=400"'))).toEqual([]);
    expect(tool(status('Status code (3-5)'))).toHaveLength(2);
  });

  it('a requirement in a block of the tool description headed by one action ("history:") holds for that action only', () => {
    const properties = { action: { type: 'string', enum: ['list', 'history'] }, id: { type: 'string' } };
    const headed = 'Manage monitors.\n\nhistory: Count state transitions.\n  - Inputs: id (required, monitor ID).';
    expect(tool(properties, headed).filter((f) => f.includes(' required '))).toEqual([]);
    expect(tool(properties, 'Manage monitors.\n\nInputs: id (required, monitor ID).')).toContain(
      `prose-only id required ${JSON.stringify({ required: ['id'] })}`,
    );
  });

  it('plural nouns opening a sentence ("Airports (IATA/ICAO) or countries.") name kinds, not values', () => {
    expect(tool({ airports: { type: 'string', description: 'Airports (IATA/ICAO) or countries.' } })).toEqual([]);
    expect(tool({ mode: { type: 'string', description: 'Annotation or alert.' } })).toEqual([
      `prose-only mode enum ${JSON.stringify({ enum: ['Annotation', 'alert'] })}`,
    ]);
  });

  it('a default written in alternative spellings ("None/False") agrees when one of them is the schema\'s', () => {
    const flag = (value: JsonObject['default']): JsonObject => ({
      trash: {
        anyOf: [{ type: 'boolean' }, { type: 'string' }, { type: 'null' }],
        default: value,
        description: 'Show trashed notes (default: None/False)',
      },
    });
    expect(tool(flag(null))).toEqual([]);
    expect(tool(flag(true))).toHaveLength(1);
  });

  it('"YYYY-MM-DD or full ISO" is a date or a date-time: one pattern takes both, where format "date" would refuse one', () => {
    const either = String.raw`^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$`;
    const descriptions = [
      'Due date (YYYY-MM-DD or full ISO)',
      'Since, in YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS format.',
      'As of (ISO 8601 date or datetime).',
    ];
    for (const description of descriptions)
      expect(tool({ due: { type: 'string', description } })).toEqual([`prose-only due pattern ${JSON.stringify({ pattern: either })}`]);
    expect(tool({ due: { type: 'string', description: 'Due date (YYYY-MM-DD)' } })).toEqual([
      `prose-only due format ${JSON.stringify({ format: 'date' })}`,
    ]);
  });

  it('"(1-based)", "1-indexed" count from 1: a minimum of 1 on a number, no length of a string', () => {
    expect(tool({ start_line: { type: 'integer', description: 'Start line for sequential reading (1-based)' } })).toEqual([
      `prose-only start_line minimum ${JSON.stringify({ minimum: 1 })}`,
    ]);
    expect(tool({ line: { type: 'string', description: 'The line, 1-indexed.' } })).toEqual([]);
    expect(tool({ offset: { type: 'integer', description: 'Zero-based offset.' } })).toEqual([]);
  });

  it('a page size carried as a string takes its default as text, and its "max" bounds the number, not the length', () => {
    expect(tool({ ps: { type: 'string', description: 'Page size (default: 100, max: 500)' } })).toEqual([
      `prose-only ps default ${JSON.stringify({ default: '100' })}`,
    ]);
    expect(tool({ name: { type: 'string', description: 'Display name (max: 500)' } })).toEqual([
      `prose-only name maxLength ${JSON.stringify({ maxLength: 500 })}`,
    ]);
  });

  it('"(default: all)" is a default where the schema lists "all", and says nothing where it does not', () => {
    const engine = (extra: JsonObject): JsonObject => ({
      engine: { type: 'string', description: 'Target search engine (default: all)', ...extra },
    });
    expect(tool(engine({ enum: ['google', 'bing', 'all'] }))).toEqual([`prose-only engine default ${JSON.stringify({ default: 'all' })}`]);
    expect(tool(engine({}))).toEqual([]);
    expect(tool({ account: { type: 'string', description: 'Account ID (default: auto-select)' } })).toEqual([]);
  });

  it('"Required for: add, update" naming every value of a parameter every call sends is a plain requirement', () => {
    const properties = {
      action: { type: 'string', enum: ['add', 'update'] },
      text: { type: 'string', description: 'The comment text. Required for: add, update.' },
    };
    expect(tool(properties, 'A tool.', ['action'])).toEqual([
      `prose-only text required ${JSON.stringify({ required: ['action', 'text'] })}`,
    ]);
    // A parameter a call may leave out: no rule on every call.
    expect(tool(properties)).toEqual([]);
  });

  it('"Required when `format` is `\\"section\\"`": a quoted value written as code is the value inside the quotes', () => {
    const properties = {
      format: { type: 'string', enum: ['full', 'section'] },
      section: { type: 'string', description: 'Required when `format` is `"section"`.' },
    };
    const set = {
      allOf: [{ if: { properties: { format: { enum: ['section'] } }, required: ['format'] }, then: { required: ['section'] } }],
    };
    expect(tool(properties)).toEqual([`prose-only - if ${JSON.stringify(set)}`]);
  });

  it('"priority: low/normal/high/urgent." and a list closed by a dash ("closed — leave empty") are values', () => {
    const properties = { priority: { type: 'string' }, status: { type: 'string' } };
    const text = 'Create a ticket. priority: low/normal/high/urgent. status: new, open, closed — leave empty for all statuses.';
    expect(tool(properties, text)).toEqual([
      `prose-only priority enum ${JSON.stringify({ enum: ['low', 'normal', 'high', 'urgent'] })}`,
      `prose-only status enum ${JSON.stringify({ enum: ['new', 'open', 'closed'] })}`,
    ]);
  });

  it('quoted date layouts are no values, and a clamped range is no bound', () => {
    const since = { type: 'string', description: "Commits from this date (format: 'YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM:SS')" };
    expect(tool({ since }).filter((f) => f.includes(' enum '))).toEqual([]);
    expect(tool({ offset: { type: 'integer', description: '`limit` is clamped to 1-100 and `offset` to 0 or more.' } })).toEqual([]);
  });
});
