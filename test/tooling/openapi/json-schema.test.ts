import { describe, expect, it } from 'vitest';
import { createAjv } from '../../../contract/ajv.js';
import {
  componentSchemaId,
  convertSchema,
  type Direction,
  directionalComponents,
} from '../../../tooling/openapi/json-schema.js';

const document = {
  components: {
    schemas: {
      Patient: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id: { type: 'string', readOnly: true },
          name: { type: 'string' },
          secret: { type: 'string', writeOnly: true },
        },
      },
      Plain: { type: 'object', properties: { a: { type: 'string' } } },
      HasPatient: {
        type: 'object',
        properties: { patient: { $ref: '#/components/schemas/Patient' } },
      },
      Cat: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } },
      Dog: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } },
      Stamp: { type: 'integer', readOnly: true },
    },
  },
};

const request = { direction: 'request' as Direction, document };
const response = { direction: 'response' as Direction, document };

describe('convertSchema: given an OpenAPI 3.0 Schema Object, want draft-07 JSON Schema', () => {
  const table: {
    name: string;
    given: unknown;
    options?: Partial<typeof request>;
    want: unknown;
  }[] = [
    {
      name: 'nullable with a type becomes anyOf with null',
      given: { type: 'string', nullable: true },
      want: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
    {
      name: 'nullable without a type (as GitHub writes it) still admits null',
      given: { allOf: [{ $ref: '#/components/schemas/Plain' }], nullable: true },
      want: { anyOf: [{ allOf: [{ $ref: 'urn:openapi:schema:Plain' }] }, { type: 'null' }] },
    },
    {
      name: 'nullable enum keeps the enum on the non-null branch',
      given: { type: 'string', enum: ['a', 'b'], nullable: true },
      want: { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
    },
    {
      name: 'nullable: false is the default and disappears',
      given: { type: 'integer', nullable: false },
      want: { type: 'integer' },
    },
    {
      name: 'request variant drops readOnly properties and their required entry',
      given: document.components.schemas.Patient,
      want: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, secret: { type: 'string' } },
      },
    },
    {
      name: 'response variant drops writeOnly properties',
      given: document.components.schemas.Patient,
      options: { direction: 'response' },
      want: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'string' }, name: { type: 'string' } },
      },
    },
    {
      name: 'a $ref to a readOnly schema counts as readOnly (3.0 refs take no siblings)',
      given: { type: 'object', properties: { at: { $ref: '#/components/schemas/Stamp' }, b: {} } },
      want: { type: 'object', properties: { b: {} } },
    },
    {
      name: 'discriminator with mapping becomes a tag enum plus if/then per value',
      given: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } },
      },
      want: {
        type: 'object',
        required: ['kind'],
        properties: { kind: { type: 'string', enum: ['cat', 'Dog'] } },
        allOf: [
          {
            if: { properties: { kind: { const: 'cat' } }, required: ['kind'] },
            // biome-ignore lint/suspicious/noThenProperty: JSON Schema keyword.
            then: { $ref: 'urn:openapi:schema:Cat' },
          },
          {
            if: { properties: { kind: { const: 'Dog' } }, required: ['kind'] },
            // biome-ignore lint/suspicious/noThenProperty: JSON Schema keyword.
            then: { $ref: 'urn:openapi:schema:Dog' },
          },
        ],
      },
    },
    {
      name: 'discriminator over inline branches is dropped, oneOf kept',
      given: {
        oneOf: [{ type: 'object' }, { type: 'string' }],
        discriminator: { propertyName: 'kind' },
      },
      want: { oneOf: [{ type: 'object' }, { type: 'string' }] },
    },
    {
      name: 'example is dropped by default (Ajv strict mode rejects unknown keywords)',
      given: { type: 'string', example: 'pat_123', description: 'An id' },
      want: { type: 'string' },
    },
    {
      name: 'example becomes examples when annotations are kept',
      given: { type: 'string', example: 'pat_123', description: 'An id' },
      options: { annotations: true } as Partial<typeof request>,
      want: { type: 'string', description: 'An id', examples: ['pat_123'] },
    },
    {
      name: 'format: date stays a string with the date format',
      given: { type: 'string', format: 'date' },
      want: { type: 'string', format: 'date' },
    },
    {
      name: 'formats unknown to ajv-formats are dropped',
      given: { type: 'integer', format: 'unix-time' },
      want: { type: 'integer' },
    },
    {
      name: 'boolean exclusiveMinimum/Maximum become numeric',
      given: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10 },
      want: { type: 'number', exclusiveMinimum: 0, maximum: 10 },
    },
    {
      name: 'component refs point at $ids; deep refs keep their fragment',
      given: { $ref: '#/components/schemas/Plain/properties/a' },
      want: { $ref: 'urn:openapi:schema:Plain#/properties/a' },
    },
    {
      name: 'a componentId option decides the emitted $ref',
      given: { $ref: '#/components/schemas/Plain' },
      options: { componentId: (name: string) => `x:${name}` } as Partial<typeof request>,
      want: { $ref: 'x:Plain' },
    },
    {
      name: 'extensions, xml, externalDocs and deprecated are dropped',
      given: { type: 'string', 'x-internal': true, xml: { name: 'a' }, deprecated: true },
      want: { type: 'string' },
    },
    {
      name: 'additionalProperties schema is converted too',
      given: { type: 'object', additionalProperties: { type: 'string', nullable: true } },
      want: {
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
    },
  ];
  for (const { name, given, options, want } of table) {
    it(name, () => {
      expect(convertSchema(given, { ...request, ...options })).toEqual(want);
    });
  }

  it('inlines a reference that is not a component schema', () => {
    const doc = {
      ...document,
      paths: { '/a': { get: { x: { type: 'boolean', nullable: true } } } },
    };
    expect(convertSchema({ $ref: '#/paths/~1a/get/x' }, { ...response, document: doc })).toEqual({
      anyOf: [{ type: 'boolean' }, { type: 'null' }],
    });
  });

  it('names the node when a reference points at nothing', () => {
    expect(() => convertSchema({ $ref: '#/nowhere' }, request, '#/paths/~1a')).toThrow(
      /points at nothing/,
    );
  });
});

describe('directionalComponents', () => {
  it('marks schemas with readOnly/writeOnly and those referring to them', () => {
    expect([...directionalComponents(document)].sort()).toEqual(['HasPatient', 'Patient', 'Stamp']);
  });

  it('gives directional schemas one $id per direction', () => {
    expect(componentSchemaId('Patient', 'request')).toBe('urn:openapi:request:Patient');
    expect(componentSchemaId('Plain', null)).toBe('urn:openapi:schema:Plain');
  });
});

describe('converted schemas under Ajv strict mode', () => {
  const ajv = createAjv();
  const compile = (schema: unknown, direction: Direction) =>
    ajv.compile(convertSchema(schema, { direction, document }) as object);
  const directional = directionalComponents(document);
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    const variants = directional.has(name) ? (['request', 'response'] as const) : [null];
    for (const variant of variants) {
      const converted = convertSchema(schema, { direction: variant ?? 'response', document });
      ajv.addSchema(converted as object, componentSchemaId(name, variant));
    }
  }

  it('accepts null for nullable and rejects other types', () => {
    const validate = compile({ type: 'string', nullable: true }, 'request');
    expect(validate(null)).toBe(true);
    expect(validate('x')).toBe(true);
    expect(validate(1)).toBe(false);
  });

  it('keeps a date a string and checks its shape', () => {
    const validate = compile({ type: 'string', format: 'date' }, 'request');
    expect(validate('1990-02-28')).toBe(true);
    expect(validate('1990-02-30')).toBe(false);
  });

  it('checks a discriminated payload against the branch its tag names', () => {
    const validate = compile(
      {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } },
      },
      'response',
    );
    expect(validate({ kind: 'cat' })).toBe(true);
    expect(validate({ kind: 'cow' })).toBe(false);
    expect(validate({})).toBe(false);
  });
});
