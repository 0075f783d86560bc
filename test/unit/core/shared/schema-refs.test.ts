import { describe, expect, it } from 'vitest';
import { SchemaRefs, walkSubschemas } from '../../../../src/core/shared/schema-refs.js';
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
