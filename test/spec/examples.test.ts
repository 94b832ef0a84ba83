import { describe, expect, it } from 'vitest';
import { validateExamples } from '../../scripts/lib/spec-examples.js';
import { loadSpec } from './load-spec.js';

type Doc = Record<string, unknown>;

/** The object at `keys` below `node`, for editing a copy of the spec in place. */
function dig(node: unknown, ...keys: (string | number)[]): Doc {
  let current = node;
  for (const key of keys) current = (current as Doc)[String(key)];
  if (typeof current !== 'object' || current === null) throw new Error(`no object at ${keys}`);
  return current as Doc;
}

/** A minimal OpenAPI 3.0 document around some component schemas and one operation. */
function doc(schemas: Doc, operation: Doc = { responses: { '200': { description: 'ok' } } }): Doc {
  return {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: { '/things': { post: operation } },
    components: { schemas },
  };
}

function pointers(document: Doc): string[] {
  return validateExamples(document).map((problem) => problem.pointer);
}

describe('every example in spec/openapi.yaml matches its schema', () => {
  it('finds no problem', () => {
    expect(validateExamples(loadSpec())).toEqual([]);
  });

  it('catches a wrong schema example in the real spec', () => {
    const spec = loadSpec();
    dig(spec, 'components', 'schemas', 'Patient', 'example').phone = '555-0123';
    const problems = validateExamples(spec);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.pointer).toBe('/components/schemas/Patient/example');
    expect(problems[0]?.message).toContain('/phone');
  });

  it('catches wrong examples in media types, $ref-ed examples, parameters, headers and event schemas', () => {
    const spec = loadSpec();
    const list = dig(spec, 'paths', '/v1/patients', 'get');
    dig(list, 'responses', '200', 'content', 'application/json', 'example').has_more = 'no';
    dig(spec, 'components', 'examples', 'ClaimPaidEvent', 'value', 'data', 'object').amount_total =
      -1;
    dig(list, 'parameters', 5).example = 'yes';
    dig(spec, 'components', 'headers', 'RateLimit-Limit').example = 0;
    dig(spec, 'components', 'schemas', 'ClaimEvent', 'example').type = 'patient.created';
    expect(pointers(spec)).toEqual(
      expect.arrayContaining([
        '/paths/~1v1~1patients/get/responses/200/content/application~1json/example',
        '/paths/~1v1~1events~1{id}/get/responses/200/content/application~1json/examples/claim.paid',
        '/paths/~1v1~1patients/get/parameters/5/example',
        '/components/headers/RateLimit-Limit/example',
        '/components/schemas/ClaimEvent/example',
      ]),
    );
  });
});

describe('validateExamples follows OpenAPI 3.0 semantics', () => {
  it('lets nullable: true with a type accept null, and nothing else', () => {
    const schemas = {
      A: { type: 'string', nullable: true, example: null },
      B: { type: 'string', example: null },
      // OpenAPI 3.0.3: nullable does not add null to an enum.
      C: { type: 'string', enum: ['x'], nullable: true, example: null },
      D: { type: 'string', enum: ['x', null], nullable: true, example: null },
    };
    expect(pointers(doc(schemas))).toEqual([
      '/components/schemas/B/example',
      '/components/schemas/C/example',
    ]);
  });

  it('checks formats: date, date-time, email, uri, int64', () => {
    const schemas = {
      Day: { type: 'string', format: 'date', example: '2026-02-30' },
      Moment: { type: 'string', format: 'date-time', example: '2026-11-01T10:00:00Z' },
      Mail: { type: 'string', format: 'email', example: 'not an email' },
      Link: { type: 'string', format: 'uri', example: 'https://example.com/a' },
      Big: { type: 'integer', format: 'int64', example: 12 },
    };
    expect(pointers(doc(schemas))).toEqual([
      '/components/schemas/Day/example',
      '/components/schemas/Mail/example',
    ]);
  });

  it('picks the oneOf member by the discriminator, with mapping', () => {
    const schemas = {
      Cat: {
        type: 'object',
        required: ['kind', 'meows'],
        properties: { kind: { type: 'string' }, meows: { type: 'boolean' } },
      },
      Dog: {
        type: 'object',
        required: ['kind', 'barks'],
        properties: { kind: { type: 'string' }, barks: { type: 'boolean' } },
      },
      Pet: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: {
          propertyName: 'kind',
          mapping: { cat: '#/components/schemas/Cat', dog: 'Dog' },
        },
        example: { kind: 'dog', barks: true },
      },
      // Without the discriminator this would pass oneOf (it is a valid Cat).
      WrongTag: {
        allOf: [{ $ref: '#/components/schemas/Pet' }],
        example: { kind: 'dog', meows: true },
      },
      UnknownTag: { allOf: [{ $ref: '#/components/schemas/Pet' }], example: { kind: 'cow' } },
    };
    expect(pointers(doc(schemas))).toEqual([
      '/components/schemas/WrongTag/example',
      '/components/schemas/UnknownTag/example',
    ]);
  });

  it('forbids readOnly properties in request examples and writeOnly ones in responses', () => {
    const schemas = {
      Thing: {
        type: 'object',
        required: ['id', 'secret'],
        properties: {
          id: { type: 'string', readOnly: true },
          secret: { type: 'string', writeOnly: true },
        },
        // At schema level both directions are possible, so both properties may appear.
        example: { id: 'a', secret: 'b' },
      },
    };
    const body = (example: Doc) => ({
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example },
      },
    });
    const operation = {
      requestBody: body({ secret: 's', id: 'x' }),
      responses: { '200': { description: 'ok', ...body({ id: 'x', secret: 's' }) } },
    };
    const problems = validateExamples(doc(schemas, operation));
    expect(problems.map((p) => p.pointer)).toEqual([
      '/paths/~1things/post/requestBody/content/application~1json/example',
      '/paths/~1things/post/responses/200/content/application~1json/example',
    ]);
    expect(problems[0]?.message).toContain('/id');
    expect(problems[1]?.message).toContain('/secret');
  });

  it('ignores x- keywords and knows example, but reports unknown keywords', () => {
    const schemas = {
      Fine: { type: 'string', 'x-internal': true, example: 'a' },
      Typo: { type: 'string', maxLenght: 3, example: 'abcd' },
    };
    const problems = validateExamples(doc(schemas));
    expect(problems.map((p) => p.pointer)).toEqual(['/components/schemas/Typo/example']);
    expect(problems[0]?.message).toContain('maxLenght');
  });

  it('resolves $ref-ed examples and reports those that lead nowhere', () => {
    const document = doc(
      { N: { type: 'integer', example: 1 } },
      {
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/N' },
                examples: {
                  good: { $ref: '#/components/examples/One' },
                  bad: { $ref: '#/components/examples/Text' },
                  gone: { $ref: '#/components/examples/Missing' },
                },
              },
            },
          },
        },
      },
    );
    dig(document, 'components').examples = { One: { value: 1 }, Text: { value: 'one' } };
    const problems = validateExamples(document);
    const base = '/paths/~1things/post/responses/200/content/application~1json/examples';
    expect(problems.map((p) => p.pointer)).toEqual([`${base}/bad`, `${base}/gone`]);
    expect(problems[1]?.message).toContain('cannot resolve');
  });

  it('treats x-webhooks request bodies as sent by the server', () => {
    const document = doc({
      Event: {
        type: 'object',
        properties: { id: { type: 'string', readOnly: true } },
      },
    });
    document['x-webhooks'] = {
      'thing.created': {
        post: {
          requestBody: {
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Event' },
                examples: { ok: { value: { id: 'evt' } }, bad: { value: { id: 7 } } },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
    };
    expect(pointers(document)).toEqual([
      '/x-webhooks/thing.created/post/requestBody/content/application~1json/examples/bad',
    ]);
  });
});
