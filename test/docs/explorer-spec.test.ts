/**
 * The spec as the explorer loads it (server/docs/explorer-spec.ts), on our spec: the
 * deepObject `created` filter becomes one query parameter per bound, and no media type keeps a
 * single `example` (RapiDoc misreads an object one with a null property).
 */
import { describe, expect, it } from 'vitest';
import { explorerSpec } from '../../server/docs/explorer-spec.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';

type Json = Record<string, unknown>;

/** Every media type object (the values under each `content` key). */
function mediaTypes(node: unknown, underContent = false, found: Json[] = []): Json[] {
  if (Array.isArray(node)) for (const item of node) mediaTypes(item, false, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (underContent && typeof value === 'object' && value !== null) found.push(value as Json);
      mediaTypes(value, key === 'content', found);
    }
  }
  return found;
}

describe('explorerSpec on spec/openapi.yaml', async () => {
  const spec = (await bundleSpec('spec/openapi.yaml')) as unknown as Json;
  const shaped = explorerSpec(spec);
  const parameterNames = (document: Json, path: string) => {
    const resolve = (p: Json) =>
      typeof p.$ref === 'string'
        ? ((document.components as Json).parameters as Json)[p.$ref.split('/').pop()!]
        : p;
    const operation = ((document.paths as Json)[path] as Json).get as Json;
    return (operation.parameters as Json[]).map((p) => (resolve(p) as Json).name);
  };

  it('turns created into created[gt], [gte], [lt], [lte] and keeps the other parameters', () => {
    const before = parameterNames(spec, '/v1/patients');
    const after = parameterNames(shaped, '/v1/patients');
    expect(before).toContain('created');
    expect(after).not.toContain('created');
    expect(after).toEqual(
      expect.arrayContaining(['created[gt]', 'created[gte]', 'created[lt]', 'created[lte]']),
    );
    expect(after.filter((name) => !String(name).startsWith('created'))).toEqual(
      before.filter((name) => name !== 'created'),
    );
  });

  it('moves every media type example under examples, value unchanged', () => {
    const original = mediaTypes(spec).filter((media) => 'example' in media);
    expect(original.length).toBeGreaterThan(5);
    const after = mediaTypes(shaped);
    expect(after.filter((media) => 'example' in media)).toEqual([]);
    const values = after.flatMap((media) =>
      Object.values((media.examples ?? {}) as Record<string, { value: unknown }>).map(
        (e) => e.value,
      ),
    );
    for (const media of original) expect(values).toContainEqual(media.example);
  });

  it('leaves the document it was given unchanged', async () => {
    expect(spec).toEqual(await bundleSpec('spec/openapi.yaml'));
  });
});
