import { describe, expect, it } from 'vitest';
import { getAtPointer, parsePointer, toPointer } from '../../../contract/pointer.js';
import { kebabCase, literal } from '../../../generators/names.js';
import { assertOpenApi30 } from '../../../tooling/openapi/document.js';
import { DocumentError } from '../../../tooling/openapi/errors.js';
import { pickMedia } from '../../../tooling/openapi/media.js';
import { derivedOperationId } from '../../../tooling/openapi/names.js';
import { listOperations } from '../../../tooling/openapi/operations.js';

describe('assertOpenApi30: given a document, want acceptance or an error naming the version', () => {
  const table: { given: unknown; pointer?: string; message?: RegExp }[] = [
    { given: { openapi: '3.0.3', info: {}, paths: {} } },
    { given: { openapi: '3.0.0', info: {}, paths: {} } },
    { given: { openapi: '3.1.0', paths: {} }, pointer: '#/openapi', message: /OpenAPI 3\.1\.0/ },
    { given: { swagger: '2.0', paths: {} }, pointer: '#/swagger', message: /Swagger 2\.0/ },
    { given: { info: {} }, pointer: '#', message: /no `openapi` version/ },
    { given: [], pointer: '#', message: /not an object/ },
  ];
  for (const { given, pointer, message } of table) {
    it(JSON.stringify(given), () => {
      if (!pointer) {
        expect(() => assertOpenApi30(given)).not.toThrow();
        return;
      }
      try {
        assertOpenApi30(given);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(DocumentError);
        expect((error as DocumentError).pointer).toBe(pointer);
        expect((error as DocumentError).message).toMatch(message!);
      }
    });
  }
});

describe('names', () => {
  it.each([
    ['Ephemeral Keys', 'ephemeral-keys'],
    ['Patients', 'patients'],
    ['vetVisits', 'vet-visits'],
    ['  odd__Name! ', 'odd-name'],
  ])('kebabCase(%j) = %j', (given, want) => expect(kebabCase(given)).toBe(want));

  it.each([
    ['get', '/v1/patients/{id}', 'getV1PatientsById'],
    ['post', '/repos/{owner}/{repo}/git-refs', 'postReposByOwnerByRepoGitRefs'],
  ])('derivedOperationId(%j, %j) = %j', (method, path, want) =>
    expect(derivedOperationId(method, path)).toBe(want),
  );

  it('escapes quotes, backslashes and line breaks in literals', () => {
    expect(literal("a'b\\c\nd")).toBe("'a\\'b\\\\c\\nd'");
  });
});

describe('pointers', () => {
  it('round-trips tokens with / and ~', () => {
    const pointer = toPointer(['paths', '/v1/a~b', 'get']);
    expect(pointer).toBe('#/paths/~1v1~1a~0b/get');
    expect(parsePointer(pointer)).toEqual(['paths', '/v1/a~b', 'get']);
    expect(getAtPointer({ paths: { '/v1/a~b': { get: 1 } } }, pointer)).toBe(1);
  });
});

describe('operations', () => {
  const document = {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/a/{id}': {
        parameters: [
          { name: 'id', in: 'path', schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        ],
        get: {
          operationId: 'getA',
          parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'integer' } }],
          responses: { '200': { description: '', content: { 'text/plain': {} } } },
        },
      },
    },
  };

  it('merges path-level parameters, the operation’s winning, path ones always required', () => {
    const [op] = listOperations(document);
    expect(op!.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['id', 'path', true],
      ['q', 'query', true],
    ]);
  });

  it('prefers JSON media types', () => {
    expect(pickMedia({ 'text/plain': {}, 'application/problem+json': { schema: 1 } })).toEqual({
      mediaType: 'application/problem+json',
      schema: 1,
    });
    expect(pickMedia({})).toBeNull();
  });

  it('refuses a duplicate operationId with its pointer', () => {
    const twice = {
      ...document,
      paths: { ...document.paths, '/b': { post: { operationId: 'getA', responses: {} } } },
    };
    expect(() => listOperations(twice)).toThrow(/used by more than one operation/);
  });
});
