/**
 * generators/types-pieces.ts: `types.ts` assembled from cached pieces is byte for byte
 * `generateTypes`' whole print, for our spec, every older version's derived document and the
 * edge fixtures, with an empty cache, a full one, and one filled before an edit (an operation
 * added, a schema's description changed, a shared parameter changed: the pieces that depend on
 * what changed are printed again, the rest reused). An unusual shape (a `WithRequired` helper)
 * gives the whole print and caches nothing.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { generateTypes } from '../../generators/types.js';
import { generateTypesPieced, type PieceCache } from '../../generators/types-pieces.js';
import { deriveDocument, versions } from '../../server/versioning/index.js';
import { lintConfig, loadDocument } from '../../tooling/openapi/load.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = [
  'test/fixtures/specs/edge/openapi.yaml',
  'test/fixtures/specs/clinic/openapi.yaml',
  'test/fixtures/specs/bad-key-kind.yaml',
];

type Document = OpenApiDocument & {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, Record<string, unknown>>>;
};

/** A cache in a map that counts what it was asked for and given. */
function countingCache(map = new Map<string, string>()) {
  const counts = { hits: 0, misses: 0, sets: 0 };
  const cache: PieceCache = {
    get(key) {
      const text = map.get(key);
      if (text === undefined) counts.misses += 1;
      else counts.hits += 1;
      return text;
    },
    set(key, text) {
      counts.sets += 1;
      map.set(key, text);
    },
  };
  return { map, counts, cache };
}

function pieced(document: OpenApiDocument, cache: PieceCache): string {
  return generateTypesPieced(structuredClone(document), cache);
}

async function bundled(file: string): Promise<Document> {
  return (await loadDocument(join(ROOT, file), await lintConfig(null))).bundled as Document;
}

/** The text of `document` pieced from a cache filled by `before`, and what that cost. */
function afterEdit(before: OpenApiDocument, after: OpenApiDocument) {
  const filled = countingCache();
  pieced(before, filled.cache);
  const reused = countingCache(filled.map);
  return { text: pieced(after, reused.cache), counts: reused.counts };
}

describe('types.ts from pieces', () => {
  let ours: Document;
  beforeAll(async () => {
    ours = await bundled('spec/openapi.yaml');
  });

  it('is the whole print for our spec and every older version, cold, warm and shared', () => {
    const shared = countingCache();
    const older = versions.supported.filter((date) => date !== versions.latest);
    expect(older.length).toBeGreaterThan(0);
    for (const document of [ours, ...older.map((date) => deriveDocument(ours, versions, date))]) {
      const whole = generateTypes(document as OpenApiDocument);
      expect(pieced(document as OpenApiDocument, countingCache().cache)).toBe(whole);
      expect(pieced(document as OpenApiDocument, shared.cache)).toBe(whole);
      const sets = shared.counts.sets;
      expect(pieced(document as OpenApiDocument, shared.cache)).toBe(whole);
      expect(shared.counts.sets).toBe(sets); // a full cache prints nothing
    }
    // The older versions reuse most of the latest's pieces.
    expect(shared.counts.hits).toBeGreaterThan(shared.counts.sets);
  });

  it.each(FIXTURES)('is the whole print for %s, cold and warm', async (file) => {
    const document = await bundled(file);
    const whole = generateTypes(document);
    const { cache, counts } = countingCache();
    expect(pieced(document, cache)).toBe(whole);
    expect(counts.sets).toBeGreaterThan(0);
    expect(pieced(document, cache)).toBe(whole);
    expect(counts.misses).toBe(counts.sets);
  });

  it('prints only the new path after an operation is added', () => {
    const after = structuredClone(ours);
    const entries = Object.entries(after.paths);
    entries.splice(3, 0, [
      '/v1/referrals',
      {
        get: {
          operationId: 'listReferrals',
          summary: 'List referrals',
          parameters: [{ $ref: '#/components/parameters/PatientCareActor' }],
          responses: { '200': { description: 'Referrals' } },
        },
      },
    ]);
    after.paths = Object.fromEntries(entries);
    const whole = generateTypes(after);
    expect(whole).not.toBe(generateTypes(ours));
    const { text, counts } = afterEdit(ours, after);
    expect(text).toBe(whole);
    expect(counts.sets).toBe(1);
  });

  it('prints a schema again, and what reaches it, after its description changes', () => {
    const after = structuredClone(ours);
    const patient = after.components.schemas?.Patient as Record<string, unknown>;
    patient.description = 'A patient, described anew.';
    const whole = generateTypes(after);
    expect(whole).not.toBe(generateTypes(ours));
    const { text, counts } = afterEdit(ours, after);
    expect(text).toBe(whole);
    expect(counts.sets).toBeGreaterThan(1);
    expect(counts.hits).toBeGreaterThan(counts.sets);
  });

  it('prints every path that uses a shared parameter again after it changes', () => {
    const after = structuredClone(ours);
    const actor = after.components.parameters?.PatientCareActor as Record<string, unknown>;
    actor.description = 'Who acts behind the API key.';
    actor.required = true;
    const whole = generateTypes(after);
    expect(whole).not.toBe(generateTypes(ours));
    const users = Object.values(ours.paths).filter((item) =>
      JSON.stringify(item).includes('"#/components/parameters/PatientCareActor"'),
    ).length;
    expect(users).toBeGreaterThan(5);
    const { text, counts } = afterEdit(ours, after);
    expect(text).toBe(whole);
    expect(counts.sets).toBeGreaterThanOrEqual(users + 1);
  });

  it.each([
    [
      'a WithRequired helper is needed',
      {
        Pet: { type: 'object', properties: { name: { type: 'string' } } },
        Named: { allOf: [{ $ref: '#/components/schemas/Pet' }], required: ['name'] },
      },
    ],
    [
      'one is needed beside a discriminator (the pieced attempt leaves the document as it was)',
      {
        Named: {
          oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
          discriminator: { propertyName: 'kind' },
        },
        Cat: {
          type: 'object',
          required: ['kind'],
          properties: { kind: { type: 'string' }, name: { type: 'string' } },
        },
        Dog: {
          type: 'object',
          required: ['kind'],
          properties: { kind: { type: 'string' }, barks: { type: 'boolean' } },
        },
        Tag: { type: 'object', properties: { label: { type: 'string' } } },
        Labelled: { allOf: [{ $ref: '#/components/schemas/Tag' }], required: ['label'] },
      },
    ],
  ])('gives the whole print and caches nothing when %s', (_, schemas) => {
    const document = {
      openapi: '3.0.3',
      info: { title: 'Helper', version: '1' },
      paths: {
        '/pets': {
          get: {
            operationId: 'listPets',
            responses: {
              '200': {
                description: 'Pets',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Named' } } },
              },
            },
          },
        },
      },
      components: { schemas },
    } as unknown as OpenApiDocument;
    const whole = generateTypes(document);
    expect(whole).toContain('WithRequired');
    const { cache, counts } = countingCache();
    expect(pieced(document, cache)).toBe(whole);
    expect(counts.sets).toBe(0);
  });
});
