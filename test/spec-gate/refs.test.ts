import { describe, expect, it } from 'vitest';
import { diffSpecs } from '../../tooling/breaking/diff-specs.js';
import { displayPointer, loadSpec, type ReadText } from '../../tooling/spec-gate/load-spec.js';
import { api, body, obj, ok, summarize } from './helpers.js';

const str = { type: 'string' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('$ref handling', () => {
  it('compares resolved schemas and reports a shared component change once, at the component', () => {
    const base = api(
      { ...body(ref('Patient')), ...ok(ref('Patient')) },
      { Patient: obj({ email: str, phone: str }) },
    );
    const head = api(
      { ...body(ref('Patient')), ...ok(ref('Patient')) },
      { Patient: obj({ phone: str }) },
    );
    // Once per direction: a removed request field and a removed response field break differently.
    expect(summarize(diffSpecs(base, head))).toEqual([
      'property-removed BREAKING /components/schemas/Patient/properties/email',
      'property-removed BREAKING /components/schemas/Patient/properties/email',
    ]);
    const messages = diffSpecs(base, head).map((c) => c.message);
    expect(messages.some((m) => m.startsWith('request'))).toBe(true);
    expect(messages.some((m) => m.startsWith('response'))).toBe(true);
  });

  it('sees through a ref that was inlined or renamed without reporting the same shape as changed', () => {
    const base = api(ok(ref('Patient')), { Patient: obj({ id: str }) });
    const head = api(ok(obj({ id: str })), { Patient: obj({ id: str }) });
    expect(diffSpecs(base, head)).toEqual([]);
  });

  it('follows refs to parameters and responses', () => {
    const limit = (max: number) => ({
      name: 'limit',
      in: 'query',
      schema: { type: 'integer', maximum: max },
    });
    const base = api(
      {
        parameters: [{ $ref: '#/components/parameters/Limit' }],
        responses: { '404': { $ref: '#/components/responses/NotFound' } },
      },
      {},
      {},
    );
    const withComponents = (max: number, errorProps: Record<string, unknown>) => ({
      schemas: {},
      parameters: { Limit: limit(max) },
      responses: {
        NotFound: {
          description: 'x',
          content: { 'application/json': { schema: obj(errorProps) } },
        },
      },
    });
    const head = { ...base, components: withComponents(50, {}) };
    expect(
      summarize(diffSpecs({ ...base, components: withComponents(100, { code: str }) }, head)),
    ).toEqual([
      'constraint-changed BREAKING /components/parameters/Limit/schema',
      'property-removed BREAKING /components/responses/NotFound/content/application~1json/schema/properties/code',
    ]);
  });

  it('terminates on recursive schemas and still finds changes inside the cycle', () => {
    const node = (extra: Record<string, unknown>) =>
      obj({ children: { type: 'array', items: ref('Node') }, parent: ref('Node'), ...extra });
    const base = api(ok(ref('Node')), { Node: node({ label: str }) });
    const head = api(ok(ref('Node')), { Node: node({}) });
    expect(summarize(diffSpecs(base, head))).toEqual([
      'property-removed BREAKING /components/schemas/Node/properties/label',
    ]);
  });

  it('terminates on a ref loop (A → B → A) and an allOf cycle', () => {
    const loop = { A: ref('B'), B: ref('A'), C: { allOf: [ref('C'), obj({ x: str })] } };
    const base = api({ ...body(ref('A')), ...ok(ref('C')) }, loop);
    const head = api(
      { ...body(ref('A')), ...ok(ref('C')) },
      { ...loop, C: { allOf: [ref('C'), obj({})] } },
    );
    expect(summarize(diffSpecs(base, head))).toEqual([
      'property-removed BREAKING /components/schemas/C/allOf/1/properties/x',
    ]);
  });

  it('merges allOf so moving a property into a shared base schema is not a change', () => {
    const base = api(ok(obj({ id: str, email: str }, ['id'])), { Base: obj({ id: str }, ['id']) });
    const head = api(ok({ allOf: [ref('Base'), obj({ email: str })] }), {
      Base: obj({ id: str }, ['id']),
    });
    expect(diffSpecs(base, head).filter((c) => c.breaking)).toEqual([]);
  });
});

describe('loadSpec (split files)', () => {
  const files: Record<string, string> = {
    'spec/openapi.yaml': [
      'openapi: 3.0.3',
      'info: {title: T, version: "2026-11-01"}',
      'paths:',
      '  /v1/patients/{id}:',
      '    $ref: "./paths/patient.yaml"',
      'components:',
      '  schemas:',
      '    Patient: {$ref: "./schemas/patient.yaml#/Patient"}',
    ].join('\n'),
    'spec/paths/patient.yaml': [
      'get:',
      '  operationId: retrievePatient',
      '  responses:',
      '    "200":',
      '      description: OK',
      '      content: {application/json: {schema: {$ref: "../schemas/patient.yaml#/Patient"}}}',
    ].join('\n'),
    'spec/schemas/patient.yaml': [
      'Patient:',
      '  type: object',
      '  properties:',
      '    email: {type: string}',
      '    contacts: {type: array, items: {$ref: "#/Patient"}}',
      '    link: {$ref: "../openapi.yaml#/components/schemas/Patient"}',
    ].join('\n'),
  };
  const read = (p: string) => files[p];

  it('bundles referenced files under x-bundled and rewrites every ref to a local one', () => {
    const doc = loadSpec('spec/openapi.yaml', read);
    expect(Object.keys(doc['x-bundled'] as object).sort()).toEqual([
      'paths/patient.yaml',
      'schemas/patient.yaml',
    ]);
    expect(JSON.stringify(doc)).not.toMatch(/\.yaml#|"\.\.?\//);
    const schema = (
      doc['x-bundled'] as Record<string, { Patient: { properties: Record<string, unknown> } }>
    )['schemas/patient.yaml']!;
    expect(schema.Patient.properties.contacts).toEqual({
      type: 'array',
      items: { $ref: '#/x-bundled/schemas~1patient.yaml/Patient' },
    });
    expect(schema.Patient.properties.link).toEqual({ $ref: '#/components/schemas/Patient' });
  });

  it('bundles a Markdown description as its text, and a guide edit is not breaking', () => {
    const withGuide = (guide: string): ReadText => {
      const texts: Record<string, string> = {
        'spec/openapi.yaml': [
          'openapi: 3.0.3',
          'info: {title: T, version: "2026-11-01"}',
          'tags:',
          '  - {name: Errors, description: {$ref: "./guides/errors.md"}}',
          'paths: {}',
        ].join('\n'),
        'spec/guides/errors.md': guide,
      };
      return (p) => texts[p];
    };
    const base = loadSpec('spec/openapi.yaml', withGuide('`code` tells what went wrong.\n'));
    expect((base['x-bundled'] as Record<string, unknown>)['guides/errors.md']).toBe(
      '`code` tells what went wrong.\n',
    );
    const head = loadSpec(
      'spec/openapi.yaml',
      withGuide('# Errors\n\n- `code`: what went wrong\n'),
    );
    expect(diffSpecs(base, head).filter((c) => c.breaking)).toEqual([]);
  });

  it('diffs across split files, cycles included, and shows the file in the pointer', () => {
    const base = loadSpec('spec/openapi.yaml', read);
    const head = loadSpec('spec/openapi.yaml', (p) =>
      p === 'spec/schemas/patient.yaml'
        ? files[p]!.replace('    email: {type: string}\n', '')
        : files[p],
    );
    const changes = diffSpecs(base, head);
    expect(summarize(changes)).toEqual([
      'property-removed BREAKING /x-bundled/schemas~1patient.yaml/Patient/properties/email',
    ]);
    expect(displayPointer(changes[0]!.pointer)).toBe(
      'schemas/patient.yaml#/Patient/properties/email',
    );
    expect(changes[0]!.operation).toBe('GET /v1/patients/{id}');
  });

  it('says which file is missing', () => {
    expect(() =>
      loadSpec('spec/openapi.yaml', (p) => (p.includes('paths/') ? undefined : files[p])),
    ).toThrow('spec/paths/patient.yaml not found');
  });
});
