/** The model's path-item reader, tolerant: what it hands over of documents strict reading refuses. */
import { describe, expect, it } from 'vitest';
import { locate } from '../../../tooling/openapi/document.js';
import { listOperations } from '../../../tooling/openapi/operations.js';
import {
  pairPathItems,
  pairPaths,
  pairWebhooks,
  readPathItem,
} from '../../../tooling/openapi/path-items.js';

const doc = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  components: {
    parameters: {
      Trace: { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
    },
    responses: { Gone: { description: 'gone' } },
    headers: { Id: { schema: { type: 'string' } } },
    requestBodies: { Note: { content: { 'application/json': { schema: {} } } } },
  },
  paths: {
    '/a/{id}': {
      parameters: [
        { name: 'id', in: 'path', required: true },
        { name: 'x-trace', in: 'header', description: 'path level' },
      ],
      get: {
        parameters: [{ $ref: '#/components/parameters/Trace' }, { $ref: '#/nowhere' }],
        requestBody: { $ref: '#/components/requestBodies/Note' },
        responses: {
          '200': {
            description: 'ok',
            headers: { 'Request-Id': { $ref: '#/components/headers/Id' } },
          },
          '410': { $ref: '#/components/responses/Gone' },
        },
      },
      put: null,
      post: { parameters: 'not a list', responses: ['not', 'a', 'map'] },
    },
  },
};
const item = { node: doc.paths['/a/{id}'], pointer: '/paths/~1a~1{id}' };

describe('readPathItem, tolerant', () => {
  it('reads a document the strict reader refuses', () => {
    expect(() => listOperations(doc)).toThrow();
    expect(readPathItem(doc, item, { strict: false }).map((op) => op.method)).toEqual([
      'get',
      'post',
    ]);
  });

  it('merges parameters by the model key, the operation winning, each resolved', () => {
    const [get] = readPathItem(doc, item, { strict: false });
    expect([...(get?.parameters.entries() ?? [])].map(([key, at]) => [key, at.pointer])).toEqual([
      ['path:id', '/paths/~1a~1{id}/parameters/0'],
      ['header:x-trace', '/components/parameters/Trace'],
      // A dangling `$ref` is kept at its own pointer, under the key of what it holds.
      ['undefined:undefined', '/paths/~1a~1{id}/get/parameters/1'],
    ]);
  });

  it('resolves the request body and responses, keeping where each status was written', () => {
    const [get, post] = readPathItem(doc, item, { strict: false });
    expect(get?.requestBody.pointer).toBe('/components/requestBodies/Note');
    expect([...(get?.responses.values() ?? [])].map((r) => [r.at, r.resolved.pointer])).toEqual([
      ['/paths/~1a~1{id}/get/responses/200', '/paths/~1a~1{id}/get/responses/200'],
      ['/paths/~1a~1{id}/get/responses/410', '/components/responses/Gone'],
    ]);
    // Its own `parameters` is not a list: only the Path Item's apply.
    expect([...(post?.parameters.keys() ?? [])]).toEqual(['path:id', 'header:x-trace']);
    expect(post?.responses.size).toBe(0);
    expect(post?.requestBody.node).toBeUndefined();
    // Header names are keyed case-insensitively, as parameters are.
    const headers = [...(get?.responses.get('200')?.headers.entries() ?? [])];
    expect(headers.map(([name, h]) => [name, h.at, h.resolved.pointer])).toEqual([
      [
        'request-id',
        '/paths/~1a~1{id}/get/responses/200/headers/Request-Id',
        '/components/headers/Id',
      ],
    ]);
  });

  it('pairs two revisions by method', () => {
    const head = { node: { get: {}, delete: {} }, pointer: '/paths/~1a' };
    const pairs = pairPathItems({ document: doc, item }, { document: { paths: {} }, item: head });
    expect(pairs.map((p) => [p.method, Boolean(p.base), Boolean(p.head)])).toEqual([
      ['get', true, true],
      ['post', true, false],
      ['delete', false, true],
    ]);
  });
});

describe('locate', () => {
  it.each([
    ['a node without $ref', { a: 1 }, '/x'],
    ['a ref cycle, at the last node reached', { $ref: '#/loop/a' }, '/loop/b'],
    ['an external ref, where it is written', { $ref: 'other.yaml#/x' }, '/x'],
    ['a percent-encoded target, decoded', { $ref: '#/paths/~1a~1%7Bid%7D' }, '/paths/~1a~1{id}'],
  ])('%s', (_name, node, want) => {
    const document = {
      loop: { a: { $ref: '#/loop/b' }, b: { $ref: '#/loop/a' } },
      paths: { '/a/{id}': {} },
    };
    expect(locate(document, { node, pointer: '/x' }).pointer).toBe(want);
  });
});

describe('readPathItem, strict', () => {
  const read = (node: unknown) =>
    readPathItem(doc, { node, pointer: '#/paths/~1a' }, { strict: true });

  it('refuses what tolerant reading skips, naming the node', () => {
    expect(() => read({ get: {}, put: null })).toThrow('An Operation must be an object.');
    expect(() => read('see the guide')).toThrow('A Path Item must be an object.');
    expect(() => read({ get: { parameters: 'not a list' } })).toThrow(
      '`parameters` must be an array.',
    );
    expect(() => read({ get: { parameters: [{ $ref: '#/nowhere' }] } })).toThrow(
      'Reference #/nowhere points at nothing.',
    );
    expect(() => read({ get: { parameters: [{ name: 'a', in: 'body' }] } })).toThrow(
      'Unknown parameter location "body".',
    );
    expect(() => read({ get: { responses: ['not', 'a', 'map'] } })).toThrow(
      '`responses` must be an object.',
    );
  });

  it('keeps pointers as URI fragments, the $ref target as written', () => {
    const [get] = read({ get: { requestBody: { $ref: '#/components/requestBodies/Note' } } });
    expect(get?.requestBody.pointer).toBe('#/components/requestBodies/Note');
    expect([...(get?.requestBody.content.values() ?? [])]).toEqual([
      {
        mediaType: 'application/json',
        pointer: '#/components/requestBodies/Note/content/application~1json',
        schema: {
          node: {},
          pointer: '#/components/requestBodies/Note/content/application~1json/schema',
        },
      },
    ]);
  });

  it('leaves extensions out of the responses', () => {
    const [get] = read({ get: { responses: { '204': { description: 'done' }, 'x-note': 1 } } });
    expect([...(get?.responses.keys() ?? [])]).toEqual(['204']);
  });
});

describe('pairing two revisions', () => {
  const paths = (...keys: string[]) => ({ paths: Object.fromEntries(keys.map((k) => [k, {}])) });
  const summary = (pairs: ReturnType<typeof pairPaths>) =>
    pairs.map((p) => [p.key, p.base?.pointer ?? null, p.head?.pointer ?? null]);

  it('pairs paths by name, else by route, then lists the new ones', () => {
    const base = paths('/a/{id}', '/gone', '/same');
    const head = paths('/same', '/a/{patient}', '/new');
    expect(summary(pairPaths(base, head))).toEqual([
      ['/a/{id}', '/paths/~1a~1{id}', '/paths/~1a~1{patient}'],
      ['/gone', '/paths/~1gone', null],
      ['/same', '/paths/~1same', '/paths/~1same'],
      ['/new', null, '/paths/~1new'],
    ]);
    expect(pairPaths(base, head)[0]?.head?.key).toBe('/a/{patient}');
  });

  it('pairs webhooks by event name under the key asked for', () => {
    const hooks = (...names: string[]) => ({
      'x-webhooks': Object.fromEntries(names.map((n) => [n, {}])),
      webhooks: { other: {} },
    });
    expect(summary(pairWebhooks(hooks('a.b', 'gone'), hooks('a.b', 'new'), 'x-webhooks'))).toEqual([
      ['a.b', '/x-webhooks/a.b', '/x-webhooks/a.b'],
      ['gone', '/x-webhooks/gone', null],
      ['new', null, '/x-webhooks/new'],
    ]);
    expect(pairWebhooks({}, 'not a document', 'webhooks')).toEqual([]);
  });
});
