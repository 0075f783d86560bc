/**
 * The audit layer by layer, on small definitions: what each layer reports, where (tool, parameter, keyword), what
 * counts as a home, and that ids are stable.
 */
import { describe, expect, it } from 'vitest';
import { auditTool, diffProseAndSchema, findingId, validityFindings, type Finding } from '../../../src/audit/index.js';
import type { JsonObject } from '../../../src/core/shared/json.js';
import type { ToolDefinition } from '../../../src/core/schema/tool-definition.js';

function tool(properties: JsonObject, extra: JsonObject = {}, description = 'A tool.'): ToolDefinition {
  return { name: 't', description, inputSchema: { type: 'object', properties, ...extra } };
}

/** A tool whose input schema declares draft-07. */
function draft07Tool(properties: JsonObject, extra: JsonObject = {}): ToolDefinition {
  return {
    name: 't',
    description: undefined,
    inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties, ...extra },
  };
}

const where = (findings: readonly Finding[]): string[] => findings.map((f) => `${f.layer} ${f.parameter ?? '-'} ${f.keyword}`).sort();

describe('validity layer', () => {
  it('accepts a sound schema', () => {
    expect(validityFindings(tool({ q: { type: 'string', default: 'x', enum: ['x', 'y'] } }, { required: ['q'] }))).toEqual([]);
  });

  it('reports a required name with no property, on that name', () => {
    const [finding] = validityFindings(tool({ amount: { type: 'number' } }, { required: ['amount', 'currency'] }));
    expect(finding).toMatchObject({
      layer: 'validity',
      parameter: 'currency',
      keyword: 'required',
      id: 'validity:t:currency:required',
      path: '',
    });
    expect(finding?.suggestion).toContain('"currency"');
  });

  it('counts names declared in allOf, $ref targets, branches and patternProperties', () => {
    const definition = tool(
      { a: { type: 'string' } },
      {
        allOf: [{ $ref: '#/$defs/B' }],
        $defs: { B: { properties: { b: { type: 'string' } } } },
        anyOf: [{ required: ['a'] }, { required: ['c'] }, { properties: { c: { type: 'string' } } }],
        patternProperties: { '^x-': { type: 'string' } },
        required: ['a', 'b', 'x-trace'],
      },
    );
    expect(validityFindings(definition)).toEqual([]);
  });

  it('checks nested required lists against their own object', () => {
    const findings = validityFindings(
      tool({ filters: { type: 'object', properties: { state: { type: 'string' } }, required: ['status'] } }),
    );
    expect(where(findings)).toEqual(['validity filters required']);
  });

  it('reports defaults, enum members and consts their own subschema rejects', () => {
    const findings = validityFindings(
      tool({
        limit: { type: 'integer', default: 'ten' },
        mode: { type: 'string', enum: ['fast', 'safe'], default: 'careful' },
        priority: { type: 'string', enum: ['low', 3] },
        code: { type: 'string', const: 7 },
        day: { type: 'string', format: 'date', default: '2024-13-45' },
        ok: { type: 'string', minLength: 2, enum: ['ab', 'cd'], default: 'ab' },
      }),
    );
    expect(where(findings)).toEqual([
      'validity code const',
      'validity day default',
      'validity limit default',
      'validity mode default',
      'validity priority enum',
    ]);
  });

  it('validates defaults through $ref in draft-07 definitions', () => {
    const definition = draft07Tool(
      { size: { $ref: '#/definitions/Size', default: 0 } },
      { definitions: { Size: { type: 'integer', minimum: 1 } } },
    );
    expect(where(validityFindings(definition))).toEqual(['validity size default']);
  });

  it('compares values as the worker does: own toString/constructor keys are data, multipleOf is exact in decimal', () => {
    const definition = draft07Tool({
      shape: { enum: [{}, { toString: '' }], default: { toString: '' } },
      owner: { enum: [{ constructor: {} }, 1], default: { constructor: {} } },
      price: { type: 'number', multipleOf: 0.01, default: 0.07 },
      twice: { type: 'array', uniqueItems: true, default: [{ valueOf: 1 }, { valueOf: 1 }] },
    });
    expect(where(validityFindings(definition))).toEqual(['validity twice default']);
  });

  it('reports meta-schema violations on the parameter and keyword concerned', () => {
    const findings = validityFindings(tool({ q: { type: 'strng' }, size: { type: 'integer', minimum: '5' } }, { required: 'q' }));
    expect(where(findings)).toEqual(['validity - required', 'validity q type', 'validity size minimum']);
  });

  it('reports patterns that do not compile in Unicode mode, dangling refs and unsatisfiable bounds', () => {
    const findings = validityFindings(
      tool({
        slug: { type: 'string', pattern: '[a-z' },
        escaped: { type: 'string', pattern: '^\\-$' },
        ref: { $ref: '#/$defs/Missing' },
        range: { type: 'integer', minimum: 10, maximum: 5 },
      }),
    );
    expect(where(findings)).toEqual(['validity escaped pattern', 'validity range minimum', 'validity ref $ref', 'validity slug pattern']);
  });

  it('checks values even when the schema is broken elsewhere, and reports a property that is not a schema', () => {
    const findings = validityFindings(tool({ a: 'string', e: { type: 'integer', enum: [1, '3'] }, d: { enum: [] } }));
    expect(where(findings)).toEqual(['validity a properties', 'validity d enum', 'validity e enum']);
  });

  it('does not also report a broken keyword as a prose conflict', () => {
    expect(where(auditTool(tool({ b: { type: 'string', maxLength: -1, description: 'B.' } })))).toEqual(['validity b maxLength']);
  });

  it('reports an unsupported $schema for the tool as a whole, and an external $ref the worker cannot resolve', () => {
    expect(
      where(
        validityFindings({
          name: 't',
          description: undefined,
          inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
        }),
      ),
    ).toEqual(['validity - $schema']);
    expect(where(validityFindings(tool({ a: { $ref: 'https://example.com/a.json' } })))).toEqual(['validity a $ref']);
  });

  it('attributes a problem inside $defs to the one parameter that uses it', () => {
    const findings = validityFindings(tool({ op: { $ref: '#/$defs/Op' } }, { $defs: { Op: { type: 'string', enum: ['a', 1] } } }));
    expect(findings.map((f) => [f.parameter, f.keyword, f.id])).toEqual([['op', 'enum', 'validity:t:op:enum@/$defs/Op']]);
  });
});

describe('prose-only layer', () => {
  it('finds the article case: "The currency is required" with currency optional in the schema', () => {
    const definition = tool(
      {
        amount: { type: 'number', description: 'Amount, greater than 0.', exclusiveMinimum: 0 },
        currency: { type: 'string', enum: ['USD', 'EUR'], description: 'Currency: USD or EUR.' },
      },
      { required: ['amount'] },
      'Move money. The currency is required.',
    );
    expect(where(diffProseAndSchema(definition))).toEqual(['prose-only currency required']);
  });

  it('attributes by name, by spaced name and by the noun after the number', () => {
    const definition = tool(
      {
        client_id: { type: 'string', description: 'Who pays.' },
        limit: { type: 'integer', description: 'How many rows to return.' },
      },
      {},
      'Bill a client. The client ID must be a UUID. Use at most 1000 rows.',
    );
    expect(where(diffProseAndSchema(definition))).toEqual(['prose-only client_id format', 'prose-only limit maximum']);
  });

  it('maps a bound by the parameter type: maximum, maxLength, maxItems, items maxLength', () => {
    const definition = tool({
      n: { type: 'integer', description: 'At most 10.' },
      s: { type: 'string', description: 'At most 10 characters.' },
      a: { type: 'array', items: { type: 'string' }, description: 'At most 10 tags.' },
      e: { type: 'array', items: { type: 'string' }, description: 'Each at most 10 characters.' },
    });
    const findings = diffProseAndSchema(definition);
    expect(findings.map((f) => `${f.parameter ?? '-'} ${f.keyword} ${f.path}`).sort()).toEqual([
      'a maxItems /properties/a',
      'e maxLength /properties/e/items',
      'n maximum /properties/n',
      's maxLength /properties/s',
    ]);
  });

  it('takes matching schema bounds as a home, and reports bounds that disagree', () => {
    const home = tool({ n: { type: 'integer', minimum: 1, maximum: 100, description: 'Between 1 and 100.' } });
    expect(diffProseAndSchema(home)).toEqual([]);
    const disagree = tool({ n: { type: 'integer', minimum: 1, maximum: 500, description: 'Between 1 and 100.' } });
    const [finding] = diffProseAndSchema(disagree);
    expect(finding).toMatchObject({ layer: 'prose-only', parameter: 'n', keyword: 'maximum' });
    expect(finding?.suggestion).toContain('500');
  });

  it('covers "positive" with exclusiveMinimum 0 or any minimum above 0, and an integer minimum 1', () => {
    for (const schema of [
      { type: 'number', exclusiveMinimum: 0 },
      { type: 'number', minimum: 0.01 },
      { type: 'integer', minimum: 1 },
    ] as JsonObject[]) {
      expect(diffProseAndSchema(tool({ n: { ...schema, description: 'Must be positive.' } }))).toEqual([]);
    }
    expect(where(diffProseAndSchema(tool({ n: { type: 'number', minimum: 0, description: 'Must be positive.' } })))).toEqual([
      'prose-only n minimum',
    ]);
  });

  it('takes enum as the home of ISO codes, format/pattern of date formats, minLength 1 of non-empty', () => {
    const definition = tool({
      currency: { type: 'string', enum: ['USD', 'EUR'], description: 'ISO 4217 code: USD or EUR.' },
      day: { type: 'string', format: 'date', description: 'Day, YYYY-MM-DD.' },
      when: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Day, YYYY-MM-DD.' },
      name: { type: 'string', minLength: 1, description: 'Never empty.' },
      tags: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'Non-empty list of tags.' },
    });
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('does not take a loose pattern as the home of a format', () => {
    const definition = tool({ id: { type: 'string', pattern: '^.+$', description: 'Must be a UUID.' } });
    expect(where(diffProseAndSchema(definition))).toEqual(['prose-only id format']);
  });

  it('reports defaults stated but absent or different, not dynamic ones', () => {
    const definition = tool({
      a: { type: 'integer', description: 'Defaults to 20.' },
      b: { type: 'integer', default: 20, description: 'Defaults to 10.' },
      c: { type: 'string', description: 'Defaults to the current user.' },
      d: { type: 'string', enum: ['x', 'y'], default: 'x', description: '`x` or `y`; defaults to `x`.' },
    });
    expect(where(diffProseAndSchema(definition))).toEqual(['prose-only a default', 'prose-only b default']);
  });

  it('compares numbers in their units: "10 million", a pattern quantifier, a unit the schema does not count in', () => {
    const definition = tool({
      principal: { type: 'number', maximum: 10000000, description: 'Loan amount, at most 10 million.' },
      org: { type: 'string', pattern: '^[A-Za-z0-9-]{1,39}$', description: 'Organization login, 1-39 letters, digits or hyphens.' },
      ttl_seconds: { type: 'integer', maximum: 2592000, description: 'Time to live in seconds, at most 30 days.' },
      value: { description: 'Any JSON value, up to 64 KB once serialized.' },
    });
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('does not pin what the tool description counts on a parameter it merely names nearby', () => {
    const definition = tool(
      {
        query: { type: 'string', description: 'Search text.' },
        cursor: { type: 'string', description: 'Opaque cursor.' },
        labels: { type: 'array', items: { type: 'string' }, description: 'Label names.' },
      },
      {},
      'Search `query` across repositories updated between 2020 and 2024. Returns at most ' +
        '100 results; use `cursor` for more. Filter by `labels`; returns at most 50 issues.',
    );
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('reads "at least one digit" as a rule on the characters (pattern), not on the length', () => {
    const definition = tool({
      password: {
        type: 'string',
        minLength: 12,
        pattern: '^(?=.*\\d).+$',
        description: 'At least 12 characters, with at least one digit.',
      },
      pin: { type: 'string', minLength: 12, description: 'Secret, minimum 12 characters with at least one digit.' },
    });
    expect(where(diffProseAndSchema(definition))).toEqual(['prose-only pin pattern']);
  });

  it('reads "at most 2 decimal places" as precision (multipleOf), not as a maximum', () => {
    expect(where(diffProseAndSchema(tool({ price: { type: 'number', description: 'Price with at most 2 decimal places.' } })))).toEqual([
      'prose-only price multipleOf',
    ]);
    expect(
      diffProseAndSchema(tool({ price: { type: 'number', multipleOf: 0.01, description: 'Price with at most 2 decimal places.' } })),
    ).toEqual([]);
  });

  it('reports a rule about several parameters for the tool as a whole, unless anyOf encodes it', () => {
    const props = {
      email: { type: 'string', format: 'email', description: 'Email address.' },
      phone: { type: 'string', description: 'Phone.' },
    } as JsonObject;
    const text = 'Provide at least one of `email` or `phone`.';
    const [finding] = diffProseAndSchema(tool(props, {}, text));
    expect(finding).toMatchObject({ layer: 'prose-only', parameter: null, keyword: 'anyOf', id: 'prose-only:t:-:anyOf' });
    expect(diffProseAndSchema(tool(props, { anyOf: [{ required: ['email'] }, { required: ['phone'] }] }, text))).toEqual([]);
  });

  it('reads nested properties against their own object', () => {
    const definition = tool({
      filters: { type: 'object', description: 'Filters.', properties: { state: { type: 'string', description: 'Required.' } } },
    });
    const [finding] = diffProseAndSchema(definition);
    expect(finding).toMatchObject({
      parameter: 'filters',
      keyword: 'required',
      id: 'prose-only:t:filters:required@/properties/state',
      path: '/properties/filters/properties/state',
    });
  });
});

describe('schema-only layer', () => {
  it("reports a maximum the prose never gives (the article's 500000), and not one it gives in any spelling", () => {
    expect(where(diffProseAndSchema(tool({ amount: { type: 'number', maximum: 500000, description: 'Amount to move.' } })))).toEqual([
      'schema-only amount maximum',
    ]);
    for (const said of ['at most 500000', 'up to 500,000 EUR', 'no more than 500k', 'capped at 500 000']) {
      expect(diffProseAndSchema(tool({ amount: { type: 'number', maximum: 500000, description: `Amount, ${said}.` } }))).toEqual([]);
    }
  });

  it('leaves trivial bounds alone: minimum 0, integer minimum 1, minLength 1, minItems 1', () => {
    const definition = tool({
      a: { type: 'number', minimum: 0, description: 'A quantity.' },
      b: { type: 'integer', minimum: 1, description: 'A count.' },
      c: { type: 'string', minLength: 1, description: 'A name.' },
      d: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'A list.' },
    });
    expect(diffProseAndSchema(definition)).toEqual([]);
  });

  it('reports a pattern with no word about the format, and accepts an example that matches it', () => {
    expect(
      where(diffProseAndSchema(tool({ code: { type: 'string', pattern: '^[A-Z0-9]{8}$', description: 'Promotional code.' } }))),
    ).toEqual(['schema-only code pattern']);
    expect(
      diffProseAndSchema(tool({ code: { type: 'string', pattern: '^[A-Z0-9]{8}$', description: 'Promotional code such as SUMMER24.' } })),
    ).toEqual([]);
  });

  it('reports an enum of values a model cannot read (numbers, one-letter codes) that the prose never mentions', () => {
    expect(where(diffProseAndSchema(tool({ window: { type: 'integer', enum: [60, 300, 600], description: 'Rate window.' } })))).toEqual([
      'schema-only window enum',
    ]);
    expect(where(diffProseAndSchema(tool({ grade: { type: 'string', enum: ['K', 'M', 'Z'], description: 'Grade.' } })))).toEqual([
      'schema-only grade enum',
    ]);
    expect(
      diffProseAndSchema(tool({ window: { type: 'integer', enum: [60, 300, 600], description: 'Rate window: 60, 300 or 600 seconds.' } })),
    ).toEqual([]);
  });

  it('leaves alone an enum whose values explain themselves (the model reads them in the schema)', () => {
    for (const values of [
      ['asc', 'desc'],
      ['open', 'closed', 'all'],
      ['debug', 'info', 'warn', 'error'],
      ['+1', '-1', 'laugh', 'heart'],
      ['us-east-1', 'eu-west-1'],
    ]) {
      expect(diffProseAndSchema(tool({ choice: { type: 'string', enum: values, description: 'Which one.' } }))).toEqual([]);
    }
  });

  it('reports a format the prose never names, and a required parameter the prose calls optional', () => {
    const definition = tool(
      { at: { type: 'string', format: 'date-time', description: 'Reminder.' }, note: { type: 'string', description: 'Optional note.' } },
      { required: ['at', 'note'] },
    );
    expect(where(diffProseAndSchema(definition))).toEqual(['schema-only at format', 'schema-only note required']);
  });
});

describe('ids', () => {
  it('are built from layer, tool, parameter and keyword, with the location below the parameter', () => {
    expect(findingId('prose-only', 'transfer_funds', 'currency', 'required')).toBe('prose-only:transfer_funds:currency:required');
    expect(findingId('validity', 'x', null, '$schema')).toBe('validity:x:-:$schema');
    expect(findingId('schema-only', 'x', 'ops', 'enum', '/items/properties/op')).toBe('schema-only:x:ops:enum@/items/properties/op');
  });

  it('are stable across runs, rewording and unrelated edits, and gone when fixed', () => {
    const base = tool({
      amount: { type: 'number', maximum: 500000, description: 'Amount to move.' },
      memo: { type: 'string', description: 'Note.' },
    });
    const ids = auditTool(base).map((f) => f.id);
    expect(ids).toEqual(['schema-only:t:amount:maximum']);
    expect(auditTool(base).map((f) => f.id)).toEqual(ids);
    const reworded = tool({
      memo: { type: 'string', description: 'A note for the customer.' },
      amount: { type: 'number', maximum: 400000, description: 'How much to move.' },
      extra: { type: 'boolean', description: 'Flag.' },
    });
    expect(auditTool(reworded).map((f) => f.id)).toEqual(ids);
    const fixed = tool({ amount: { type: 'number', maximum: 500000, description: 'Amount to move, at most 500000 EUR.' } });
    expect(auditTool(fixed)).toEqual([]);
  });

  it('are unique within a tool and sorted deterministically', () => {
    const definition = tool({
      a: { type: 'integer', maximum: 7, enum: [1, 2], description: 'x' },
      b: { type: 'string', pattern: '^a$', format: 'email', description: 'y' },
    });
    const findings = auditTool(definition);
    expect(new Set(findings.map((f) => f.id)).size).toBe(findings.length);
    expect(findings.map((f) => f.id)).toEqual(
      [...findings]
        .sort((x, y) => (x.parameter ?? '').localeCompare(y.parameter ?? '') || x.keyword.localeCompare(y.keyword))
        .map((f) => f.id),
    );
  });

  it('does not mutate the definition', () => {
    const definition = tool(
      { q: { type: 'string', enum: ['a', 1], default: 'z', description: 'One of `a` or `b`.' } },
      { required: ['q', 'r'] },
    );
    const before = JSON.stringify(definition);
    auditTool(definition);
    expect(JSON.stringify(definition)).toBe(before);
  });
});
