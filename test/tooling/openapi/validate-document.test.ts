/**
 * The model's validity check against the official OpenAPI 3.0 JSON Schema: our spec passes,
 * each kind of mistake is one finding at the node to fix (not the three Ajv reports for a
 * failed `oneOf`), and a file's findings name its line and column.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { readDocument } from '../../../tooling/openapi/load.js';
import {
  reduceErrors,
  SCHEMA_RULE,
  validateDocument,
} from '../../../tooling/openapi/validate-document.js';
import { validateFile } from '../../../tooling/openapi/validate-file.js';

const FIXTURE = 'test/fixtures/specs/required-empty.yaml';

function minimal(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'T', version: '1' },
    paths: {
      '/pets': {
        get: {
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
            },
          },
        },
      },
    },
    components: { schemas: { Pet: { type: 'object', required: ['id'] } } },
    ...extra,
  };
}

function withPet(pet: Record<string, unknown>): Record<string, unknown> {
  return { ...minimal(), components: { schemas: { Pet: pet } } };
}

describe('validateDocument', () => {
  it('finds nothing wrong with spec/openapi.yaml, bundled', async () => {
    const { bundled } = await readDocument('spec/openapi.yaml');
    expect(await validateDocument(bundled)).toEqual([]);
  });

  it('required: [] is one finding at the required keyword', async () => {
    const found = await validateDocument(withPet({ type: 'object', required: [] }));
    expect(found.map((e) => [e.pointer, e.message])).toEqual([
      ['#/components/schemas/Pet/required', '`required` must NOT have fewer than 1 items'],
    ]);
  });

  it('an unknown keyword is named at its key', async () => {
    const found = await validateDocument(withPet({ type: 'object', requird: ['id'] }));
    expect(found.map((e) => [e.pointer, e.message])).toEqual([
      ['#/components/schemas/Pet/requird', '`requird` is not allowed in `Pet`'],
    ]);
  });

  it('reports every mistake, each once, and leaves the document as it was', async () => {
    const document = minimal();
    const get = (document.paths as Record<string, Record<string, Record<string, unknown>>>)[
      '/pets'
    ]!.get!;
    delete get.responses;
    get.parameters = [{ name: 'limit', in: 'body' }];
    const before = structuredClone(document);
    const found = await validateDocument(document);
    expect(document).toEqual(before);
    const pointers = found.map((e) => e.pointer);
    expect(pointers).toContain('#/paths/~1pets/get');
    expect(found.find((e) => e.pointer === '#/paths/~1pets/get')?.message).toMatch(
      /required property 'responses'/,
    );
    // One finding per keyword for the four location branches Ajv tried, not four.
    expect(found.filter((e) => e.pointer === '#/paths/~1pets/get/parameters/0/in')).toEqual([
      expect.objectContaining({
        message: '`in` must be one of "path", "query", "header", "cookie"',
      }),
    ]);
    expect(found.find((e) => e.pointer === '#/paths/~1pets/get/parameters/0')?.message).toBe(
      "`parameters[0]` must have property 'schema' or 'content'",
    );
    expect(new Set(found.map((e) => `${e.pointer} ${e.message}`)).size).toBe(found.length);
  });

  it('refuses what is not OpenAPI 3.0, and a $ref that does not resolve', async () => {
    expect((await validateDocument(minimal({ openapi: '3.1.0' })))[0]?.pointer).toBe('#/openapi');
    const dangling = withPet({ type: 'object', properties: { a: { $ref: '#/nowhere' } } });
    const found = await validateDocument(dangling);
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(/nowhere/);
  });

  it('with refs: false judges the schema alone (the dev loop, whose lint follows the refs)', async () => {
    const dangling = withPet({ type: 'object', properties: { a: { $ref: '#/nowhere' } } });
    expect(await validateDocument(dangling, { refs: false })).toEqual([]);
    const found = await validateDocument(withPet({ type: 'object', required: [] }), {
      refs: false,
    });
    expect(found.map((e) => [e.pointer, e.message])).toEqual([
      ['#/components/schemas/Pet/required', '`required` must NOT have fewer than 1 items'],
    ]);
  });
});

describe('the compiled schema kept on disk', () => {
  it('finds what a validator compiled afresh finds, error for error', async () => {
    const documents = [
      withPet({ type: 'object', required: [] }),
      withPet({ type: 'object', requird: ['id'], nullable: 'yes' }),
      minimal({ servers: [{ url: 1 }], tags: [{ description: 'no name' }] }),
    ];
    for (const document of documents) {
      const fresh = await new Validator({ allErrors: true }).validate(structuredClone(document));
      expect(fresh.valid).toBe(false);
      const expected = reduceErrors(fresh.errors as ErrorObject[]);
      const found = await validateDocument(document);
      expect(found.map((e) => [e.pointer, e.message])).toEqual(
        expected.map((e) => [e.pointer, e.message]),
      );
      expect(found.length).toBeGreaterThan(0);
    }
  });
});

describe('validateFile', () => {
  it('names the fixture’s required: [] by file, line and column', async () => {
    const found = await validateFile(FIXTURE, process.cwd());
    expect(found).toEqual([
      {
        severity: 'error',
        where: `${FIXTURE}:293:17`,
        pointer: '#/components/schemas/PatientCreateParams/required',
        message: '`required` must NOT have fewer than 1 items',
        ruleId: SCHEMA_RULE,
      },
    ]);
  });

  it('a file that does not parse is one finding naming its line', async () => {
    const found = await validateFile('test/fixtures/specs/not-yaml.yaml', process.cwd());
    expect(found).toHaveLength(1);
    expect(found[0]?.where).toMatch(/^test\/fixtures\/specs\/not-yaml\.yaml:\d+:\d+$/);
  });
});
