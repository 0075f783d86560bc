import { describe, expect, it } from 'vitest';
import { inheritedReference, SchemaRefs, walkSubschemas } from '../../../../src/core/shared/schema-refs.js';
import type { JsonObject } from '../../../../src/core/shared/json.js';

const root: JsonObject = {
  $id: 'https://example.com/tool',
  type: 'object',
  properties: {
    tags: { $ref: '#/$defs/Tags' },
    when: { $ref: '#moment' },
    legacy: { $ref: '#old' },
    nested: { $ref: 'https://example.com/inner#/$defs/Leaf' },
  },
  $defs: {
    Tags: { type: 'array', items: { type: 'string' } },
    Moment: { $anchor: 'moment', type: 'string', format: 'date-time' },
    Old: { $id: '#old', type: 'integer' },
    Inner: { $id: 'https://example.com/inner', $defs: { Leaf: { type: 'boolean' } } },
    'a/b~c': { type: 'null' },
  },
};

describe('SchemaRefs: local references resolved as ajv resolves them', () => {
  const refs = new SchemaRefs(root);
  it.each([
    ['#', ''],
    ['#/$defs/Tags', '/$defs/Tags'],
    ['#moment', '/$defs/Moment'],
    ['#old', '/$defs/Old'],
    ['https://example.com/tool#/$defs/Tags', '/$defs/Tags'],
    ['https://example.com/inner#/$defs/Leaf', '/$defs/Inner/$defs/Leaf'],
    ['https://example.com/inner', '/$defs/Inner'],
    ['#/$defs/a~1b~0c', '/$defs/a~1b~0c'],
  ])('%s is found at %s', (ref, pointer) => {
    expect(refs.resolve(ref)?.pointer).toBe(pointer);
  });

  it.each(['#/$defs/Missing', '#nowhere', 'https://elsewhere.example/x#/a', '#/%E0%A4%A'])('%s names nothing', (ref) => {
    expect(refs.resolve(ref)).toBeUndefined();
  });

  it('walks every subschema once, in document order, without following references', () => {
    const pointers: string[] = [];
    walkSubschemas(root, (_schema, pointer) => pointers.push(pointer));
    expect(pointers).toEqual([
      '',
      '/properties/tags',
      '/properties/when',
      '/properties/legacy',
      '/properties/nested',
      '/$defs/Tags',
      '/$defs/Tags/items',
      '/$defs/Moment',
      '/$defs/Old',
      '/$defs/Inner',
      '/$defs/Inner/$defs/Leaf',
      '/$defs/a~1b~0c',
    ]);
  });
});

describe('walkSubschemas: the resource each subschema belongs to', () => {
  it('is the nearest schema with an $id that is not a bare fragment, else the root', () => {
    const resources: [string, string][] = [];
    walkSubschemas(root, (_schema, pointer, resource) => resources.push([pointer, JSON.stringify(resource.$id ?? null)]));
    expect(resources).toContainEqual(['/$defs/Old', '"https://example.com/tool"']);
    expect(resources).toContainEqual(['/$defs/Inner', '"https://example.com/inner"']);
    expect(resources).toContainEqual(['/$defs/Inner/$defs/Leaf', '"https://example.com/inner"']);
  });
});

describe('inheritedReference: a $ref that ajv would resolve to a member every object inherits', () => {
  /** Parsed from text, so `__proto__` is an own key where the schema defines one. */
  const parse = (text: string): JsonObject => JSON.parse(text) as JsonObject;

  it.each([
    '{"properties":{"a":{"$ref":"#/$defs/constructor"}},"$defs":{}}',
    '{"properties":{"a":{"$ref":"#/definitions/toString"}},"definitions":{}}',
    '{"properties":{"a":{"$ref":"#/$defs/x/hasOwnProperty"}},"$defs":{"x":{}}}',
    '{"properties":{"a":{"$ref":"#/__proto__"}}}',
    '{"properties":{"a":{"$ref":"__proto__"}}}',
    '{"properties":{"a":{"$ref":"constructor"}}}',
    '{"properties":{"a":{"$ref":"valueOf#/x"}}}',
    '{"properties":{"a":{"$dynamicRef":"#/$defs/isPrototypeOf"}},"$defs":{}}',
    '{"$defs":{"b":{"$id":"https://x.example/b","$defs":{"constructor":{}}}},"properties":{"a":{"$ref":"#/$defs/b/$defs/toString"}}}',
  ])('%s', (text) => {
    expect(inheritedReference(parse(text))).toBeDefined();
  });

  it.each([
    '{"properties":{"a":{"$ref":"#/$defs/constructor"}},"$defs":{"constructor":{"type":"string"}}}',
    '{"properties":{"a":{"$ref":"#/$defs/__proto__"}},"$defs":{"__proto__":{"type":"string"}}}',
    '{"properties":{"a":{"$ref":"#/$defs/missing"}}}',
    '{"properties":{"a":{"$ref":"https://elsewhere.example/constructor"}}}',
    '{"properties":{"a":{"$ref":"#constructor"}}}',
    // A nested resource resolves `#/...` against itself: its own `$defs/constructor` is defined.
    '{"$defs":{"b":{"$id":"https://x.example/b","$defs":{"constructor":{}},"properties":{"c":{"$ref":"#/$defs/constructor"}}}}}',
    '{"$defs":{"b":{"$id":"https://x.example/b","$defs":{"toString":{}}}},"properties":{"a":{"$ref":"https://x.example/b#/$defs/toString"}}}',
  ])('not %s (defined, or dangling as ajv itself reports)', (text) => {
    expect(inheritedReference(parse(text))).toBeUndefined();
  });
});
