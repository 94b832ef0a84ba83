import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAjv } from '../../contract/ajv.js';
import type { RouteDefinition } from '../../contract/route-types.js';
import { generate } from '../../generators/index.js';
import { lintConfig, loadDocument } from '../../tooling/openapi/load.js';
import { checkArtifacts } from './helpers/check-artifacts.js';

/** Loosely typed JSON, for walking the spec in tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests walk untyped JSON by hand.
type Json = any;

const ROOT = join(import.meta.dirname, '..', '..');

async function bundled(file: string) {
  return (await loadDocument(join(ROOT, file), await lintConfig(null))).bundled;
}

describe('our spec: generated/ against spec/openapi.yaml', () => {
  let document: Record<string, unknown>;
  let routes: typeof import('../../generated/routes.js');
  let client: typeof import('../../generated/client.js');
  beforeAll(async () => {
    document = await bundled('spec/openapi.yaml');
    routes = await import('../../generated/routes.js');
    client = await import('../../generated/client.js');
  });

  it('has every operation, parameter, body and status in types, routes and client', () => {
    const count = checkArtifacts(document, {
      typesText: readFileSync(join(ROOT, 'generated/types.ts'), 'utf8'),
      routes: routes.routes,
      clientOperations: client.operations,
    });
    expect(count).toBeGreaterThanOrEqual(21);
  });

  it('compiles every route schema under Ajv strict mode and accepts the spec examples', () => {
    const ajv = createAjv({ schemas: routes.componentSchemas });
    const paths = document.paths as Record<string, Record<string, Json>>;
    let checked = 0;
    for (const route of routes.routes) {
      const op = paths[route.path]![route.method.toLowerCase()];
      for (const [status, schema] of Object.entries(route.schemas.response)) {
        const validate = ajv.compile(schema as object);
        let response = op.responses[status];
        while (response.$ref) response = resolve(document, response.$ref);
        const media = response.content?.['application/json'];
        for (const example of examplesOf(document, media)) {
          expect(
            validate(example),
            `${route.operationId} ${status} ${ajv.errorsText(validate.errors)}`,
          ).toBe(true);
          checked += 1;
        }
      }
      for (const key of ['params', 'querystring', 'headers', 'body'] as const) {
        const schema = route.schemas[key];
        if (schema) expect(() => ajv.compile(schema as object)).not.toThrow();
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('fixture spec: split files, readOnly/writeOnly, nullable, discriminator, no operationId', () => {
  const out = 'test/output/clinic';
  let document: Record<string, unknown>;
  let files: Map<string, string>;
  let routes: readonly RouteDefinition[];
  beforeAll(async () => {
    document = await bundled('test/fixtures/specs/clinic/openapi.yaml');
    files = generate(document, { outDir: out }).files;
    for (const [path, text] of files) {
      mkdirSync(dirname(join(ROOT, path)), { recursive: true });
      writeFileSync(join(ROOT, path), text);
    }
    routes = (await import(join(ROOT, out, 'routes.ts'))).routes;
  });

  it('bundles the split file (the Pet schema lands in components)', () => {
    expect(Object.keys((document.components as Json).schemas)).toContain('Pet');
  });

  it('has every operation, parameter, body and status in types, routes and client', async () => {
    const client = await import(join(ROOT, out, 'client.ts'));
    expect(
      checkArtifacts(document, {
        typesText: files.get(`${out}/types.ts`)!,
        routes,
        clientOperations: client.operations,
      }),
    ).toBe(5);
  });

  it('names an operation without operationId from its method and path', () => {
    expect(routes.find((r) => r.method === 'DELETE')?.operationId).toBe('deleteV1PetsById');
  });

  it('keeps a date a string in types, marks readOnly/writeOnly for openapi-fetch', () => {
    const types = files.get(`${out}/types.ts`)!;
    expect(types).toMatch(/born\?: string;/);
    expect(types).toMatch(/\bid: \$Read<string>;/);
    expect(types).toMatch(/microchip_secret\?: \$Write<string>;/);
    expect(types).toContain('export type Writable<T>');
  });

  it('validates requests without readOnly fields and responses without writeOnly ones', () => {
    const ajv = createAjv();
    return import(join(ROOT, out, 'routes.ts')).then((module) => {
      for (const schema of module.componentSchemas) ajv.addSchema(schema);
      const create = routes.find((r) => r.operationId === 'createPet')!;
      const body = ajv.compile(create.schemas.body as object);
      const reply = ajv.compile(create.schemas.response['200'] as object);
      expect(body({ name: 'Rex', microchip_secret: 's' })).toBe(true);
      expect(reply({ id: 'pet_1', name: 'Rex', nickname: null })).toBe(true);
      expect(reply({ name: 'Rex' })).toBe(false); // id is required in responses
      expect(body({ name: 'Rex', born: '2020-02-30' })).toBe(false);
      const visit = ajv.compile(
        routes.find((r) => r.operationId === 'createVisit')!.schemas.response['200'] as object,
      );
      expect(visit({ id: 'v', day: '2026-01-02', animal: { kind: 'dog', good: null } })).toBe(true);
      expect(visit({ id: 'v', day: '2026-01-02', animal: { kind: 'cow' } })).toBe(false);
    });
  });

  it('records parameter serialisation for the server', () => {
    const list = routes.find((r) => r.operationId === 'listPets')!;
    expect(list.parameters.find((p) => p.name === 'created')).toEqual({
      name: 'created',
      in: 'query',
      required: false,
      style: 'deepObject',
      explode: true,
    });
    expect(list.scopes).toEqual(['pets:read']);
    expect(list.keyKinds).toEqual(['secret', 'restricted']);
  });
});

function resolve(document: Record<string, unknown>, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .reduce<Json>(
      (node, token) => node[token.replaceAll('~1', '/').replaceAll('~0', '~')],
      document,
    );
}

function examplesOf(document: Record<string, unknown>, media: Json): unknown[] {
  if (!media) return [];
  const found: unknown[] = [];
  if (media.example !== undefined) found.push(media.example);
  for (const entry of Object.values(media.examples ?? {}) as Json[]) {
    const example = entry.$ref ? resolve(document, entry.$ref) : entry;
    if (example.value !== undefined) found.push(example.value);
  }
  return found;
}
