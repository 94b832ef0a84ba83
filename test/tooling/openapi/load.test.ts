/** The lenient loader: any revision of a spec, read through a `FileSource`, bundled by Redocly. */
import { describe, expect, it } from 'vitest';
import { readLenient } from '../../../tooling/openapi/load.js';

const source = (files: Record<string, string>) => ({
  root: '/repo',
  read: (path: string) => files[path],
});

describe('readLenient', () => {
  it('bundles split YAML and JSON files read through the source, and says where nodes came from', async () => {
    const read = await readLenient(
      'api/openapi.yaml',
      source({
        'api/openapi.yaml': [
          'openapi: 3.0.3',
          'info: {title: T, version: "1"}',
          'paths:',
          '  /pets:',
          '    get:',
          '      responses:',
          '        "200": {$ref: "./responses.json#/Pets"}',
        ].join('\n'),
        'api/responses.json': JSON.stringify({
          Pets: {
            description: 'pets',
            content: { 'application/json': { schema: { type: 'array' } } },
          },
        }),
      }),
    );
    expect(read.bundled.paths['/pets']).toEqual({
      get: { responses: { '200': { $ref: '#/components/responses/Pets' } } },
    });
    expect(read.origin('/components/responses/Pets/content/application~1json')).toEqual({
      file: '/repo/api/responses.json',
      pointer: '#/Pets/content/application~1json',
    });
    expect(read.origin('#/paths/~1pets/get')).toBeUndefined();
  });

  it('judges no shape: other versions, null operations, odd Path Items are bundled as written', async () => {
    const read = await readLenient(
      'openapi.yaml',
      source({
        'openapi.yaml': [
          'openapi: 3.1.0',
          'info: {title: T, version: "1"}',
          'paths:',
          '  /a: {get: null}',
          '  /b: just text',
          '  /c: {$ref: "./c.yaml"}',
        ].join('\n'),
        'c.yaml': 'post: {responses: {}}\nput: 7\n',
      }),
    );
    expect(read.bundled.paths).toEqual({
      '/a': { get: null },
      '/b': 'just text',
      '/c': { post: { responses: {} }, put: 7 },
    });
  });

  it('returns a single file that names no OpenAPI version as it is', async () => {
    const read = await readLenient('old.yaml', source({ 'old.yaml': 'paths: {}\n' }));
    expect(read.bundled).toEqual({ paths: {} });
  });

  it.each([
    [{ 'a.yaml': 'openapi: 3.0.3\npaths: {/x: {$ref: "./x.yaml"}}\n' }, /^x\.yaml not found$/],
    [
      { 'a.yaml': 'openapi: 3.0.3\npaths: {/x: {$ref: "./x.json"}}\n', 'x.json': '{"get": ' },
      /^x\.json is not valid JSON: [^\n]+ \(\d+:\d+\)$/,
    ],
    [{ 'a.yaml': 'openapi: 3.0.3\n  paths: {}\n' }, /^a\.yaml is not valid YAML: [^\n]+$/],
    [{ 'a.yaml': '- openapi\n' }, /^a\.yaml is not an OpenAPI document/],
    [
      { 'a.yaml': 'paths: {/x: {$ref: "./x.yaml"}}\n', 'x.yaml': '{}' },
      /^a\.yaml cannot be bundled: /,
    ],
    [{}, /^a\.yaml not found$/],
  ])('refuses only what cannot be read, in one line naming the file: %j', async (files, want) => {
    await expect(readLenient('a.yaml', source(files))).rejects.toThrow(want);
  });
});
