import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lintFromString, loadConfig, type NormalizedProblem } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { repoRoot } from './run-redocly.js';

/**
 * Examples are checked by Redocly's `no-invalid-*-examples` rules at error level
 * (`redocly.yaml`); what Redocly does not check (header examples) by our
 * `patient-care/header-examples`. These cases pin what that set of rules catches, each a tiny
 * document linted in-process with the project's `redocly.yaml`.
 */

type Doc = Record<string, unknown>;

/** The rules that judge examples, and the structural ones a broken example trips. */
const EXAMPLE_RULES = new Set([
  'no-invalid-media-type-examples',
  'no-invalid-schema-examples',
  'no-invalid-parameter-examples',
  'patient-care/header-examples',
  'no-unresolved-refs',
  'struct',
]);

let config: Awaited<ReturnType<typeof loadConfig>>;

beforeAll(async () => {
  config = await loadConfig({ configPath: path.join(repoRoot, 'redocly.yaml') });
});

/** `ruleId pointer` of every example problem in `document`. */
async function exampleProblems(document: Doc, file = 'given.yaml'): Promise<string[]> {
  const problems: NormalizedProblem[] = await lintFromString({
    source: stringify(document),
    absoluteRef: path.join(repoRoot, 'test/fixtures/lint', file),
    config,
  });
  return problems
    .filter((p) => EXAMPLE_RULES.has(p.ruleId))
    .map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
}

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

describe('examples in spec/openapi.yaml', () => {
  it('catches wrong examples in schemas, media types, $ref-ed examples, parameters, headers and event schemas', async () => {
    const spec: unknown = parse(readFileSync(path.join(repoRoot, 'spec/openapi.yaml'), 'utf8'));
    dig(spec, 'components', 'schemas', 'Patient', 'example').phone = 555;
    const list = dig(spec, 'paths', '/v1/patients', 'get');
    dig(list, 'responses', '200', 'content', 'application/json', 'example').has_more = 'no';
    dig(spec, 'components', 'examples', 'ClaimPaidEvent', 'value', 'data', 'object').amount_total =
      -1;
    dig(list, 'parameters', 6).example = 'yes';
    dig(spec, 'components', 'headers', 'RateLimit-Limit').example = 0;
    dig(spec, 'components', 'schemas', 'ClaimEvent', 'example').type = 'patient.created';
    expect(await exampleProblems(spec as Doc, 'spec-copy.yaml')).toEqual(
      expect.arrayContaining([
        'no-invalid-schema-examples #/components/schemas/Patient/example/phone',
        'no-invalid-media-type-examples #/paths/~1v1~1patients/get/responses/200/content/application~1json/example/has_more',
        'no-invalid-media-type-examples #/components/examples/ClaimPaidEvent/value/data/object/amount_total',
        'no-invalid-parameter-examples #/paths/~1v1~1patients/get/parameters/6/example',
        'patient-care/header-examples #/components/headers/RateLimit-Limit/example',
        'no-invalid-schema-examples #/components/schemas/ClaimEvent/example/type',
      ]),
    );
  });
});

describe('example checks follow OpenAPI 3.0 semantics', () => {
  it('lets nullable: true accept null, and a schema without it refuse null', async () => {
    const schemas = {
      A: { type: 'string', nullable: true, example: null },
      B: { type: 'string', example: null },
    };
    expect(await exampleProblems(doc(schemas))).toEqual([
      'no-invalid-schema-examples #/components/schemas/B/example',
    ]);
  });

  it('checks formats: date, date-time, email, uri, int64', async () => {
    const schemas = {
      Day: { type: 'string', format: 'date', example: '2026-02-30' },
      Moment: { type: 'string', format: 'date-time', example: '2026-11-01T10:00:00Z' },
      Mail: { type: 'string', format: 'email', example: 'not an email' },
      Link: { type: 'string', format: 'uri', example: 'https://example.com/a' },
      Big: { type: 'integer', format: 'int64', example: 12 },
    };
    expect(await exampleProblems(doc(schemas))).toEqual([
      'no-invalid-schema-examples #/components/schemas/Day/example',
      'no-invalid-schema-examples #/components/schemas/Mail/example',
    ]);
  });

  it('picks the oneOf member by the discriminator', async () => {
    const member = (kind: string, flag: string) => ({
      type: 'object',
      required: ['kind', flag],
      properties: { kind: { type: 'string', enum: [kind] }, [flag]: { type: 'boolean' } },
    });
    const schemas = {
      Cat: member('cat', 'meows'),
      Dog: member('dog', 'barks'),
      Pet: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: {
          propertyName: 'kind',
          mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' },
        },
        example: { kind: 'dog', barks: true },
      },
      WrongTag: {
        allOf: [{ $ref: '#/components/schemas/Pet' }],
        example: { kind: 'dog', meows: true },
      },
      UnknownTag: { allOf: [{ $ref: '#/components/schemas/Pet' }], example: { kind: 'cow' } },
    };
    const problems = await exampleProblems(doc(schemas));
    expect(problems.some((p) => p.includes('/components/schemas/WrongTag/example'))).toBe(true);
    expect(problems.some((p) => p.includes('/components/schemas/UnknownTag/example'))).toBe(true);
    expect(problems.some((p) => p.includes('/components/schemas/Pet/'))).toBe(false);
  });

  it('forbids readOnly properties in request examples and writeOnly ones in responses', async () => {
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
    expect(await exampleProblems(doc(schemas, operation))).toEqual([
      'no-invalid-media-type-examples #/paths/~1things/post/requestBody/content/application~1json/example/id',
      'no-invalid-media-type-examples #/paths/~1things/post/responses/200/content/application~1json/example/secret',
    ]);
  });

  it('reports unknown schema keywords, ignores x- ones', async () => {
    const schemas = {
      Fine: { type: 'string', 'x-internal': true, example: 'a' },
      Typo: { type: 'string', maxLenght: 3, example: 'abcd' },
    };
    expect(await exampleProblems(doc(schemas))).toEqual([
      'struct #/components/schemas/Typo/maxLenght',
    ]);
  });

  it('resolves $ref-ed examples and reports those that lead nowhere', async () => {
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
    expect(await exampleProblems(document)).toEqual([
      'no-unresolved-refs #/paths/~1things/post/responses/200/content/application~1json/examples/gone',
      'no-invalid-media-type-examples #/components/examples/Text/value',
    ]);
  });

  it('checks x-webhooks payload examples against their schema', async () => {
    const document = doc({
      Event: { type: 'object', properties: { id: { type: 'string' } } },
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
    expect(await exampleProblems(document)).toEqual([
      'no-invalid-media-type-examples #/x-webhooks/thing.created/post/requestBody/content/application~1json/examples/bad/value/id',
    ]);
  });
});
