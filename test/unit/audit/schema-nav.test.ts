/** Which parameter a schema pointer belongs to: through the keywords that apply to the same value. */
import { describe, expect, it } from 'vitest';
import { locate } from '../../../src/audit/schema-nav.js';
import type { JsonObject } from '../../../src/core/shared/json.js';

const root: JsonObject = {
  type: 'object',
  properties: { q: { type: 'string' } },
  $defs: { shared: { type: 'integer' } },
  allOf: [{ properties: { x: { type: 'string' } } }],
  then: { properties: { y: { maxLength: 3 } } },
};

describe('locate', () => {
  it('names the parameter of a top-level property, with the location inside it', () => {
    expect(locate(root, '/properties/q/maxLength')).toEqual({ parameter: 'q', location: '/maxLength' });
  });

  it('steps over an index after allOf/anyOf/oneOf', () => {
    expect(locate(root, '/allOf/0/properties/x/type')).toEqual({ parameter: 'x', location: '/allOf/0/properties/x/type' });
  });

  it('steps over not/if/then/else alone: they hold one schema, no index', () => {
    expect(locate(root, '/then/properties/y/maxLength')).toEqual({ parameter: 'y', location: '/then/properties/y/maxLength' });
    expect(locate(root, '/not/properties/z')).toEqual({ parameter: 'z', location: '/not/properties/z' });
    expect(locate(root, '/if/allOf/1/properties/w')).toEqual({ parameter: 'w', location: '/if/allOf/1/properties/w' });
  });

  it('names no parameter for a pointer outside the properties', () => {
    expect(locate(root, '/required')).toEqual({ parameter: null, location: '/required' });
  });
});
