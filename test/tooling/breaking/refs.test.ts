import { describe, expect, it } from 'vitest';
import { diffSpecs } from '../../../tooling/breaking/diff-specs.js';
import {
  type LoadedSpec,
  loadSpec,
  type ReadText,
  showPointer,
} from '../../../tooling/spec-gate/load-spec.js';
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

describe("loadSpec (split files, through the model's loader)", () => {
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
  const load = (read: ReadText): Promise<LoadedSpec> =>
    loadSpec('spec/openapi.yaml', { root: '/repo', read });
  type Obj = Record<string, unknown>;
  const at = (node: unknown, ...keys: string[]) =>
    keys.reduce<Obj>((n, k) => (n as Obj)[k] as Obj, node as Obj);

  it('bundles referenced files and rewrites every ref to a local one', async () => {
    const spec = await load((p) => files[p]);
    expect(JSON.stringify(spec.document)).not.toMatch(/\.yaml#|"\.\.?\//);
    // Redocly's bundle: the split file's schema becomes the component, the Path Item is inlined.
    const patient = at(spec.document, 'components', 'schemas', 'Patient', 'properties');
    expect(patient.contacts).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Patient' },
    });
    expect(patient.link).toEqual({ $ref: '#/components/schemas/Patient' });
    expect(at(spec.document, 'paths', '/v1/patients/{id}', 'get').operationId).toBe(
      'retrievePatient',
    );
  });

  it('names where each node was written: the split file and the pointer inside it', async () => {
    const spec = await load((p) => files[p]);
    expect(spec.show('/components/schemas/Patient/properties/contacts')).toBe(
      'schemas/patient.yaml#/Patient/properties/contacts',
    );
    expect(spec.show('/paths/~1v1~1patients~1{id}/get/responses/200')).toBe(
      'paths/patient.yaml#/get/responses/200',
    );
    expect(spec.show('/info/title')).toBe('/info/title');
  });

  it('bundles a Markdown description as its text, and a guide edit is not breaking', async () => {
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
    const base = await load(withGuide('`code` tells what went wrong.\n'));
    expect(at(base.document, 'tags', '0').description).toBe('`code` tells what went wrong.\n');
    const head = await load(withGuide('# Errors\n\n- `code`: what went wrong\n'));
    expect(diffSpecs(base.document, head.document).filter((c) => c.breaking)).toEqual([]);
  });

  it('diffs across split files, cycles included, and shows the file in the pointer', async () => {
    const base = await load((p) => files[p]);
    const head = await load((p) =>
      p === 'spec/schemas/patient.yaml'
        ? files[p]!.replace('    email: {type: string}\n', '')
        : files[p],
    );
    const changes = diffSpecs(base.document, head.document);
    expect(summarize(changes)).toEqual([
      'property-removed BREAKING /components/schemas/Patient/properties/email',
    ]);
    expect(showPointer(changes[0]!.pointer, head, base)).toBe(
      'schemas/patient.yaml#/Patient/properties/email',
    );
    expect(changes[0]!.operation).toBe('GET /v1/patients/{id}');
  });

  it('says which file is missing or unparseable, in one line', async () => {
    await expect(load((p) => (p.includes('paths/') ? undefined : files[p]))).rejects.toThrow(
      /^spec\/paths\/patient\.yaml not found$/,
    );
    await expect(
      load((p) => (p.includes('schemas/') ? 'Patient: {type: object' : files[p])),
    ).rejects.toThrow(/^spec\/schemas\/patient\.yaml is not valid YAML: [^\n]+$/);
  });
});
