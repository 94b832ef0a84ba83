/**
 * The loader: any revision of a spec, read through a `FileSource`, bundled by Redocly; and the
 * bundle of a document whose only other files are Markdown descriptions, which is made without
 * Redocly's bundler and must be what that bundler makes.
 */
import { join } from 'node:path';
import { bundle, createConfig } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { bundleFile, parseFile, readLenient } from '../../../tooling/openapi/load.js';
import { withVersionLists } from '../../../tooling/openapi/version-list.js';

const OUR_SPEC = join(import.meta.dirname, '..', '..', '..', 'spec', 'openapi.yaml');

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

  it('inlines description files and bundles other split files in one document', async () => {
    const read = await readLenient(
      'api/openapi.yaml',
      source({
        'api/openapi.yaml': [
          'openapi: 3.0.3',
          'info: {title: T, version: "1", description: {$ref: ./guide.md}}',
          'paths:',
          '  /pets: {$ref: "./pets.yaml"}',
        ].join('\n'),
        'api/guide.md': '# Guide\n\nRead me.\n',
        'api/pets.yaml': 'get: {responses: {"200": {description: ok}}}\n',
      }),
    );
    expect(read.bundled.info.description).toBe('# Guide\n\nRead me.\n');
    expect(read.bundled.paths['/pets']).toEqual({
      get: { responses: { '200': { description: 'ok' } } },
    });
  });

  it('refuses a missing description file, naming it', async () => {
    const files = {
      'a.yaml':
        'openapi: 3.0.3\ninfo: {title: T, version: "1", description: {$ref: ./gone.md}}\npaths: {}\n',
    };
    await expect(readLenient('a.yaml', source(files))).rejects.toThrow(/^gone\.md not found$/);
  });
});

describe('bundleFile', () => {
  it("gives our spec, whose other files are Markdown guides, as Redocly's bundler does", async () => {
    const { bundled } = await bundleFile(await parseFile(OUR_SPEC), undefined, { copy: true });
    const parsed = await parseFile(OUR_SPEC);
    const redocly = await bundle({
      config: await createConfig({}),
      doc: parsed.root,
      dereference: false,
      externalRefResolver: parsed.resolver,
    });
    expect(redocly.problems).toEqual([]);
    await withVersionLists(redocly.bundle.parsed);
    expect(bundled).toEqual(redocly.bundle.parsed);
    // The guides were inlined: no `$ref` leaves the file.
    expect(JSON.stringify(bundled)).not.toMatch(/"\$ref":"[^#]/);
  });
});
