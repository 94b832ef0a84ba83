/** Given/want tables for the parts of the OpenAPI model without a file of their own. */
import { describe, expect, it } from 'vitest';
import { createAjv } from '../../../contract/ajv.js';
import { KNOWN_FORMATS } from '../../../contract/formats.js';
import {
  appendPointer,
  getAtPointer,
  parsePointer,
  parseReference,
} from '../../../contract/pointer.js';
import { printValue } from '../../../generators/print.js';
import { tryResolveRef } from '../../../tooling/openapi/document.js';
import { inlinePathReferences } from '../../../tooling/openapi/inline-path-refs.js';
import { convertComponentSchemas } from '../../../tooling/openapi/json-schema.js';
import { uniqueNames } from '../../../tooling/openapi/names.js';
import { listOperations } from '../../../tooling/openapi/operations.js';
import { pairOperations, pathItemOperations } from '../../../tooling/openapi/path-items.js';

describe('pointers', () => {
  it.each([
    ['', []],
    ['#', []],
    ['/a/b', ['a', 'b']],
    ['#/paths/~1v1~1a/get', ['paths', '/v1/a', 'get']],
    ['/tag~0s/0', ['tag~s', '0']],
    ['/50%25', ['50%25']],
  ])('parsePointer(%j) = %j', (pointer, want) => expect(parsePointer(pointer)).toEqual(want));

  it.each([
    ['#/components/schemas/Pet%20Store', ['components', 'schemas', 'Pet Store']],
    ['#/components/schemas/100%', ['components', 'schemas', '100%']],
  ])('parseReference(%j) = %j', (ref, want) => expect(parseReference(ref)).toEqual(want));

  it('looks a token up as written, then percent-decoded, and only among own properties', () => {
    const root = { a: { 'b c': 1, '50%25': 2 } };
    expect(getAtPointer(root, '#/a/b%20c')).toBe(1);
    expect(getAtPointer(root, '#/a/50%25')).toBe(2);
    expect(getAtPointer(root, '#/a/constructor')).toBeUndefined();
    expect(getAtPointer(root, '#/a/missing/deeper')).toBeUndefined();
  });

  it('appends escaped tokens', () => {
    expect(appendPointer('#/paths', '/v1/{id}', 'get')).toBe('#/paths/~1v1~1{id}/get');
  });

  it('tryResolveRef follows chains and gives up on cycles and dangling refs', () => {
    const doc = { a: { $ref: '#/b' }, b: { $ref: '#/c' }, c: { ok: true }, x: { $ref: '#/x' } };
    expect(tryResolveRef(doc, { $ref: '#/a' })).toEqual({ ok: true });
    expect(tryResolveRef(doc, { $ref: '#/x' })).toBeUndefined();
    expect(tryResolveRef(doc, { $ref: '#/nothing' })).toBeUndefined();
    expect(tryResolveRef(doc, { $ref: 'other.yaml#/a' })).toBeUndefined();
  });
});

describe('uniqueNames', () => {
  it.each([
    [['a', 'b'], [], ['a', 'b']],
    [['a', 'a', 'a'], [], ['a', 'a2', 'a3']],
    [['a', 'a', 'a2'], [], ['a', 'a3', 'a2']],
    [
      ['then', 'raw'],
      ['then', 'raw'],
      ['then2', 'raw2'],
    ],
  ])('uniqueNames(%j, reserved %j) = %j', (wanted, reserved, want) =>
    expect(uniqueNames(wanted, new Set(reserved))).toEqual(want),
  );
});

describe('the operation walk', () => {
  const doc = {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/pets/{id}': {
        parameters: [{ name: 'id', in: 'path', schema: { type: 'string' } }],
        get: {
          'x-scopes': ['pets:read'],
          'x-key-kinds': ['secret'],
          responses: {
            '200': { $ref: '#/components/responses/Pet' },
            'x-note': 'not a status',
          },
        },
      },
    },
    components: {
      responses: {
        Pet: {
          description: 'ok',
          content: {
            'text/plain': { schema: { type: 'string' } },
            'application/json': { schema: { type: 'object' } },
          },
        },
      },
    },
  };

  it('names unnamed operations by the one rule, merges parameters, resolves responses', () => {
    const [op] = listOperations(doc);
    expect(op?.operationId).toBe('getPetsById');
    expect(op?.namedInSpec).toBe(false);
    expect(op?.parameters.map((p) => [p.name, p.in, p.required])).toEqual([['id', 'path', true]]);
    expect(op?.responses.map((r) => [r.status, r.media?.mediaType, r.pointer])).toEqual([
      ['200', 'application/json', '#/components/responses/Pet'],
    ]);
    expect(op?.responses[0]?.content.map((m) => m.mediaType)).toEqual([
      'text/plain',
      'application/json',
    ]);
    expect(op?.scopes).toEqual(['pets:read']);
    expect(op?.keyKinds).toEqual(['secret']);
  });

  it('refuses an unknown key kind at its pointer', () => {
    const bad = structuredClone(doc);
    bad.paths['/pets/{id}'].get['x-key-kinds'] = ['admin'];
    expect(() => listOperations(bad)).toThrow(/Unknown key kind "admin"/);
  });

  it("walks a Path Item's methods in one order, whatever they hold, and nothing of a non-object", () => {
    const item = { post: { responses: {} }, summary: 's', get: null, parameters: [], trace: 5 };
    expect(pathItemOperations(item, '#/paths/~1a')).toEqual([
      { method: 'get', node: null, pointer: '#/paths/~1a/get' },
      { method: 'post', node: { responses: {} }, pointer: '#/paths/~1a/post' },
      { method: 'trace', node: 5, pointer: '#/paths/~1a/trace' },
    ]);
    for (const notAnItem of [null, 'x', 7, [{ get: {} }]]) {
      expect(pathItemOperations(notAnItem, '#/paths/~1a')).toEqual([]);
    }
  });

  it("pairs two revisions of a Path Item by method, in the walk's order", () => {
    const base = pathItemOperations({ delete: {}, get: {} }, '/b');
    const head = pathItemOperations({ post: {}, get: {} }, '/h');
    expect(
      pairOperations(base, head).map((p) => [p.method, p.base?.pointer, p.head?.pointer]),
    ).toEqual([
      ['get', '/b/get', '/h/get'],
      ['post', undefined, '/h/post'],
      ['delete', '/b/delete', undefined],
    ]);
  });

  it('refuses what the tolerant walk hands over: a null operation, a non-object Path Item', () => {
    const withOperation = (get: unknown) =>
      ({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/a': { get } } }) as never;
    expect(() => listOperations(withOperation(null))).toThrow('An Operation must be an object.');
    expect(() => listOperations(withOperation([]))).toThrow('An Operation must be an object.');
    const badItem = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: { '/a': 'not a path item' },
    } as never;
    expect(() => listOperations(badItem)).toThrow('A Path Item must be an object.');
  });

  it('reads a document without paths as no operations', () => {
    expect(
      listOperations({ openapi: '3.0.3', info: { title: 't', version: '1' } } as never),
    ).toEqual([]);
  });
});

describe('component schemas', () => {
  it('one entry per schema, two for a directional one, sorted, each with its $id', () => {
    const doc = {
      components: {
        schemas: {
          Pet: { type: 'object', properties: { id: { type: 'string', readOnly: true } } },
          Error: { type: 'object' },
        },
      },
    };
    expect(convertComponentSchemas(doc).map((c) => [c.name, c.direction, c.schema.$id])).toEqual([
      ['Error', null, 'urn:openapi:schema:Error'],
      ['Pet', 'request', 'urn:openapi:request:Pet'],
      ['Pet', 'response', 'urn:openapi:response:Pet'],
    ]);
  });
});

describe('the Ajv factory', () => {
  it.each([
    ['int32', 2 ** 31 - 1, true],
    ['int32', 2 ** 31, false],
    ['date', '2024-02-29', true],
    ['date', '2023-02-29', false],
    ['uuid', 'not-a-uuid', false],
  ])('format %s accepts %j: %s', (format, value, want) => {
    const type = typeof value === 'number' ? 'integer' : 'string';
    expect(createAjv().compile({ type, format })(value)).toBe(want);
  });

  it('reports every error by default and only the first with allErrors: false', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
    };
    const wrong = { a: 1, b: 'x' };
    const all = createAjv().compile(schema);
    const first = createAjv({ allErrors: false }).compile(schema);
    expect(all(wrong)).toBe(false);
    expect(all.errors).toHaveLength(2);
    expect(first(wrong)).toBe(false);
    expect(first.errors).toHaveLength(1);
  });

  it('knows every format the conversion keeps (strict mode compiles each)', () => {
    const ajv = createAjv();
    const numeric = new Set(['int32', 'int64', 'float', 'double']);
    for (const format of KNOWN_FORMATS) {
      const type = numeric.has(format) ? 'number' : 'string';
      expect(() => ajv.compile({ type, format }), format).not.toThrow();
    }
  });
});

describe('inlinePathReferences', () => {
  it('replaces refs into paths by a copy of their target, cycles by {}, leaves others', () => {
    const doc = {
      paths: {
        '/a': {
          get: {
            schema: { type: 'object', properties: { me: { $ref: '#/paths/~1a/get/schema' } } },
          },
        },
        '/b': {
          get: {
            schema: { $ref: '#/paths/~1a/get/schema' },
            other: { $ref: '#/components/schemas/X' },
            example: { $ref: '#/paths/~1a/get/schema' },
          },
        },
      },
    };
    expect(inlinePathReferences(doc)).toBeGreaterThan(0);
    expect(doc.paths['/b'].get.schema).toEqual({
      type: 'object',
      properties: { me: { type: 'object', properties: { me: {} } } },
    });
    expect(doc.paths['/b'].get.other).toEqual({ $ref: '#/components/schemas/X' });
    expect(doc.paths['/b'].get.example).toEqual({ $ref: '#/paths/~1a/get/schema' });
  });
});

describe('printValue', () => {
  it.each([
    [{ type: 'string' }, 0, "{ type: 'string' }"],
    [{ 'a-b': [1, null, true] }, 0, "{ 'a-b': [1, null, true] }"],
    [{ __proto__: null, x: 1 }, 0, '{ x: 1 }'],
    [JSON.parse('{"__proto__":{"a":1}}'), 0, "{ ['__proto__']: { a: 1 } }"],
    [{}, 0, '{}'],
  ])('printValue(%j) = %s', (value, column, want) =>
    expect(printValue(value, 0, column)).toBe(want),
  );

  it('breaks what does not fit in 100 columns, one entry a line', () => {
    const long = { description: 'x'.repeat(60), pattern: 'y'.repeat(30) };
    expect(printValue(long, 0, 20)).toBe(
      `{\n  description: '${'x'.repeat(60)}',\n  pattern: '${'y'.repeat(30)}',\n}`,
    );
  });
});
