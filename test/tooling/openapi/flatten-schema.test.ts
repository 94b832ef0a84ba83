/** `flattenSchema`: one schema with its `allOf` members merged, as pagination and the breaking engine read it. */
import { describe, expect, it } from 'vitest';
import { flattenSchema } from '../../../tooling/openapi/flatten-schema.js';

const doc = {
  components: {
    schemas: {
      Base: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      Loop: { allOf: [{ $ref: '#/components/schemas/Loop' }], properties: { x: {} } },
    },
  },
};

describe('flattenSchema', () => {
  it('merges allOf members: own properties and keywords win, a later member over an earlier', () => {
    const flat = flattenSchema(doc, {
      node: {
        description: 'own',
        allOf: [
          { $ref: '#/components/schemas/Base' },
          { description: 'part', properties: { id: { type: 'integer' }, name: {} } },
        ],
        properties: { name: { type: 'string' } },
      },
      pointer: '/s',
    });
    expect(flat.keywords).toEqual({ description: 'own', type: 'object' });
    expect([...flat.properties].map(([name, at]) => [name, at.pointer])).toEqual([
      ['id', '/s/allOf/1/properties/id'],
      ['name', '/s/properties/name'],
    ]);
    expect([...flat.required]).toEqual(['id']);
  });

  it('stops at an allOf cycle and reads what is not an object as empty', () => {
    const loop = flattenSchema(doc, { node: { $ref: '#/components/schemas/Loop' }, pointer: '/s' });
    expect(loop.pointer).toBe('/components/schemas/Loop');
    expect([...loop.properties.keys()]).toEqual(['x']);
    expect(flattenSchema(doc, { node: 'broken', pointer: '/s' }).properties.size).toBe(0);
  });
});
