import { describe, expect, it } from 'vitest';
import { diffSpecs } from '../../../tooling/breaking/diff-specs.js';
import type { OpenApiDocument } from '../../../tooling/breaking/types.js';
import { api, body, OP, obj, ok, REQ, RES, summarize } from './helpers.js';

interface Row {
  rule: string;
  base: OpenApiDocument;
  head: OpenApiDocument;
  /** Every change expected, as `kind BREAKING|ok pointer`. */
  want: string[];
}

const str = { type: 'string' };
const P = '/paths/~1v1~1patients';
const Q = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  in: 'query',
  schema: str,
  ...extra,
});

const operations: Row[] = [
  {
    rule: 'operation removed',
    base: api(),
    head: {
      ...api(),
      paths: { '/v1/patients': { get: { operationId: 'listPatients', responses: {} } } },
    },
    want: [`operation-removed BREAKING ${OP}`, `operation-added ok ${P}/get`],
  },
  {
    rule: 'path removed or renamed',
    base: api(),
    head: {
      ...api(),
      paths: { '/v1/people': api().paths['/v1/patients'] ?? {} },
    },
    want: [`path-removed BREAKING ${P}`, 'path-added ok /paths/~1v1~1people'],
  },
  {
    rule: 'new operation and new path are additions',
    base: api(),
    head: {
      ...api(),
      paths: { ...(api().paths as object), '/v1/claims': { get: { responses: {} } } },
    },
    want: ['path-added ok /paths/~1v1~1claims'],
  },
  {
    rule: 'operationId renamed (generated method renamed)',
    base: api(),
    head: api({ operationId: 'addPatient' }),
    want: [`operation-id-changed BREAKING ${OP}/operationId`],
  },
  {
    rule: 'docs-only edits',
    base: api({ summary: 'Create', description: 'a' }),
    head: api({ summary: 'Create a patient', description: 'b', tags: ['Patients'] }),
    want: [`docs-changed ok ${OP}`],
  },
];

const parameters: Row[] = [
  {
    rule: 'parameter removed',
    base: api({ parameters: [Q('expand')] }),
    head: api(),
    want: [`parameter-removed BREAKING ${OP}/parameters/0`],
  },
  {
    rule: 'new required parameter',
    base: api(),
    head: api({ parameters: [Q('mode', { required: true })] }),
    want: [`parameter-added-required BREAKING ${OP}/parameters/0`],
  },
  {
    rule: 'new optional parameter',
    base: api(),
    head: api({ parameters: [Q('mode')] }),
    want: [`parameter-added ok ${OP}/parameters/0`],
  },
  {
    rule: 'optional parameter made required',
    base: api({ parameters: [Q('mode')] }),
    head: api({ parameters: [Q('mode', { required: true })] }),
    want: [`parameter-required BREAKING ${OP}/parameters/0`],
  },
  {
    rule: 'required parameter made optional',
    base: api({ parameters: [Q('mode', { required: true })] }),
    head: api({ parameters: [Q('mode')] }),
    want: [`parameter-optional ok ${OP}/parameters/0`],
  },
  {
    rule: 'parameter serialisation changed',
    base: api({ parameters: [Q('created', { style: 'deepObject' })] }),
    head: api({ parameters: [Q('created', { style: 'form' })] }),
    want: [`parameter-style-changed BREAKING ${OP}/parameters/0`],
  },
  {
    rule: 'parameter range narrowed',
    base: api({ parameters: [Q('limit', { schema: { type: 'integer', maximum: 100 } })] }),
    head: api({ parameters: [Q('limit', { schema: { type: 'integer', maximum: 50 } })] }),
    want: [`constraint-changed BREAKING ${OP}/parameters/0/schema`],
  },
  {
    rule: 'header parameter names are case-insensitive',
    base: api({ parameters: [{ name: 'Idempotency-Key', in: 'header', schema: str }] }),
    head: api({ parameters: [{ name: 'idempotency-key', in: 'header', schema: str }] }),
    want: [],
  },
];

const responses: Row[] = [
  {
    rule: 'response status removed',
    base: api({ responses: { '200': { description: 'OK' }, '409': { description: 'Conflict' } } }),
    head: api(),
    want: [`response-removed BREAKING ${OP}/responses/409`],
  },
  {
    rule: 'response status added',
    base: api(),
    head: api({ responses: { '200': { description: 'OK' }, '429': { description: 'Slow down' } } }),
    want: [`response-added ok ${OP}/responses/429`],
  },
  {
    rule: 'response header removed',
    base: api({
      responses: { '200': { description: 'OK', headers: { 'Request-Id': { schema: str } } } },
    }),
    head: api(),
    want: [`response-header-removed BREAKING ${OP}/responses/200/headers/Request-Id`],
  },
  {
    rule: 'response media type removed',
    base: api(ok(str)),
    head: api({
      responses: { '200': { description: 'OK', content: { 'text/plain': { schema: str } } } },
    }),
    want: [
      `media-type-removed BREAKING ${OP}/responses/200/content/application~1json`,
      `media-type-added ok ${OP}/responses/200/content/text~1plain`,
    ],
  },
];

const properties: Row[] = [
  {
    rule: 'response property removed or renamed',
    base: api(ok(obj({ email: str, phone: str }))),
    head: api(ok(obj({ phone: str, email_address: str }))),
    want: [
      `property-removed BREAKING ${RES}/properties/email`,
      `property-added ok ${RES}/properties/email_address`,
    ],
  },
  {
    rule: 'request property removed: server rejects unknown fields → breaking',
    base: api(body(obj({ email: str, phone: str }))),
    head: api(body(obj({ phone: str }))),
    want: [`property-removed BREAKING ${REQ}/properties/email`],
  },
  {
    rule: 'request property removed while unknown fields stay allowed → not breaking',
    base: api(body(obj({ email: str, phone: str }, [], { additionalProperties: true }))),
    head: api(body(obj({ phone: str }, [], { additionalProperties: true }))),
    want: [`property-removed ok ${REQ}/properties/email`],
  },
  {
    rule: 'new required request property',
    base: api(body(obj({ phone: str }))),
    head: api(body(obj({ phone: str, email: str }, ['email']))),
    want: [`property-added-required BREAKING ${REQ}/properties/email`],
  },
  {
    rule: 'new optional request property',
    base: api(body(obj({ phone: str }))),
    head: api(body(obj({ phone: str, email: str }))),
    want: [`property-added ok ${REQ}/properties/email`],
  },
  {
    rule: 'optional request property made required',
    base: api(body(obj({ email: str }))),
    head: api(body(obj({ email: str }, ['email']))),
    want: [`property-required BREAKING ${REQ}/properties/email`],
  },
  {
    rule: 'required response property made optional',
    base: api(ok(obj({ email: str }, ['email']))),
    head: api(ok(obj({ email: str }))),
    want: [`property-optional BREAKING ${RES}/properties/email`],
  },
  {
    rule: 'new response property',
    base: api(ok(obj({ id: str }))),
    head: api(ok(obj({ id: str, livemode: { type: 'boolean' } }))),
    want: [`property-added ok ${RES}/properties/livemode`],
  },
  {
    rule: 'readOnly properties are not part of the request',
    base: api(body(obj({ id: { type: 'string', readOnly: true }, email: str }))),
    head: api(body(obj({ email: str }))),
    want: [],
  },
  {
    rule: 'a property turned readOnly leaves the request',
    base: api(body(obj({ created: { type: 'integer' } }))),
    head: api(body(obj({ created: { type: 'integer', readOnly: true } }))),
    want: [`property-removed BREAKING ${REQ}/properties/created`],
  },
  {
    rule: 'nested array item property removed from a response',
    base: api(ok(obj({ data: { type: 'array', items: obj({ id: str, name: str }) } }))),
    head: api(ok(obj({ data: { type: 'array', items: obj({ id: str }) } }))),
    want: [`property-removed BREAKING ${RES}/properties/data/items/properties/name`],
  },
  {
    rule: 'metadata map values narrowed in a request',
    base: api(body(obj({ metadata: { type: 'object', additionalProperties: str } }))),
    head: api(
      body(
        obj({
          metadata: { type: 'object', additionalProperties: { type: 'string', maxLength: 500 } },
        }),
      ),
    ),
    want: [`constraint-changed BREAKING ${REQ}/properties/metadata/additionalProperties`],
  },
];

const types: Row[] = [
  {
    rule: 'request type narrowed (number → integer)',
    base: api(body({ type: 'number' })),
    head: api(body({ type: 'integer' })),
    want: [`type-changed BREAKING ${REQ}`],
  },
  {
    rule: 'request type widened (integer → number)',
    base: api(body({ type: 'integer' })),
    head: api(body({ type: 'number' })),
    want: [`type-changed ok ${REQ}`],
  },
  {
    rule: 'response type widened (integer → number)',
    base: api(ok({ type: 'integer' })),
    head: api(ok({ type: 'number' })),
    want: [`type-changed BREAKING ${RES}`],
  },
  {
    rule: 'response type narrowed (number → integer)',
    base: api(ok({ type: 'number' })),
    head: api(ok({ type: 'integer' })),
    want: [`type-changed ok ${RES}`],
  },
  {
    rule: 'type replaced (string → integer)',
    base: api(ok(str)),
    head: api(ok({ type: 'integer' })),
    want: [`type-changed BREAKING ${RES}`],
  },
  {
    rule: 'nullable removed from a response field: readers of null unaffected',
    base: api(ok({ type: 'string', nullable: true })),
    head: api(ok(str)),
    want: [`nullable-removed ok ${RES}`],
  },
  {
    rule: 'nullable added to a response field',
    base: api(ok(str)),
    head: api(ok({ type: 'string', nullable: true })),
    want: [`nullable-added BREAKING ${RES}`],
  },
  {
    rule: 'nullable removed from a request field',
    base: api(body({ type: 'string', nullable: true })),
    head: api(body(str)),
    want: [`nullable-removed BREAKING ${REQ}`],
  },
];

const enums: Row[] = [
  {
    rule: 'request enum value removed',
    base: api(body({ type: 'string', enum: ['male', 'female', 'other'] })),
    head: api(body({ type: 'string', enum: ['male', 'female'] })),
    want: [`enum-value-removed BREAKING ${REQ}`],
  },
  {
    rule: 'request enum value added',
    base: api(body({ type: 'string', enum: ['a'] })),
    head: api(body({ type: 'string', enum: ['a', 'b'] })),
    want: [`enum-value-added ok ${REQ}`],
  },
  {
    rule: 'response enum value added: not breaking by policy (clients tolerate unknown values)',
    base: api(ok({ type: 'string', enum: ['booked'] })),
    head: api(ok({ type: 'string', enum: ['booked', 'waitlist'] })),
    want: [`enum-value-added ok ${RES}`],
  },
  {
    rule: 'response enum value removed',
    base: api(ok({ type: 'string', enum: ['a', 'b'] })),
    head: api(ok({ type: 'string', enum: ['a'] })),
    want: [`enum-value-removed ok ${RES}`],
  },
  {
    rule: 'response enum dropped altogether',
    base: api(ok({ type: 'string', enum: ['a'] })),
    head: api(ok(str)),
    want: [`enum-removed BREAKING ${RES}`],
  },
  {
    rule: 'request enum introduced',
    base: api(body(str)),
    head: api(body({ type: 'string', enum: ['a'] })),
    want: [`enum-added BREAKING ${REQ}`],
  },
];

const ranges: Row[] = [
  {
    rule: 'request maxLength lowered',
    base: api(body({ type: 'string', maxLength: 255 })),
    head: api(body({ type: 'string', maxLength: 100 })),
    want: [`constraint-changed BREAKING ${REQ}`],
  },
  {
    rule: 'request maxLength raised',
    base: api(body({ type: 'string', maxLength: 100 })),
    head: api(body({ type: 'string', maxLength: 255 })),
    want: [`constraint-changed ok ${REQ}`],
  },
  {
    rule: 'request minimum raised',
    base: api(body({ type: 'integer', minimum: 1 })),
    head: api(body({ type: 'integer', minimum: 5 })),
    want: [`constraint-changed BREAKING ${REQ}`],
  },
  {
    rule: 'request range added',
    base: api(body({ type: 'array', items: str })),
    head: api(body({ type: 'array', items: str, maxItems: 10 })),
    want: [`constraint-changed BREAKING ${REQ}`],
  },
  {
    rule: 'response maxLength raised',
    base: api(ok({ type: 'string', maxLength: 100 })),
    head: api(ok({ type: 'string', maxLength: 255 })),
    want: [`constraint-changed BREAKING ${RES}`],
  },
  {
    rule: 'response maximum lowered',
    base: api(ok({ type: 'integer', maximum: 100 })),
    head: api(ok({ type: 'integer', maximum: 10 })),
    want: [`constraint-changed ok ${RES}`],
  },
  {
    rule: 'pattern changed (request)',
    base: api(body({ type: 'string', pattern: '^pat_[0-9A-Z]{26}$' })),
    head: api(body({ type: 'string', pattern: '^pat_[0-9a-z]{26}$' })),
    want: [`pattern-changed BREAKING ${REQ}`],
  },
  {
    rule: 'pattern changed (response)',
    base: api(ok({ type: 'string', pattern: '^a$' })),
    head: api(ok({ type: 'string', pattern: '^b$' })),
    want: [`pattern-changed BREAKING ${RES}`],
  },
  {
    rule: 'pattern added to a request',
    base: api(body(str)),
    head: api(body({ type: 'string', pattern: '^\\+[1-9]\\d{1,14}$' })),
    want: [`pattern-changed BREAKING ${REQ}`],
  },
  {
    rule: 'format added to a response',
    base: api(ok(str)),
    head: api(ok({ type: 'string', format: 'email' })),
    want: [`format-changed ok ${RES}`],
  },
  {
    rule: 'exclusiveMinimum switched on (request)',
    base: api(body({ type: 'integer', minimum: 0 })),
    head: api(body({ type: 'integer', minimum: 0, exclusiveMinimum: true })),
    want: [`constraint-changed BREAKING ${REQ}`],
  },
];

const security: Row[] = [
  {
    rule: 'x-scopes changed',
    base: api(),
    head: api({ 'x-scopes': ['patients:admin'] }),
    want: [`scopes-changed BREAKING ${OP}/x-scopes`],
  },
  {
    rule: 'x-key-kinds lost a kind',
    base: api(),
    head: api({ 'x-key-kinds': ['secret'] }),
    want: [`key-kinds-changed BREAKING ${OP}/x-key-kinds`],
  },
  {
    rule: 'x-key-kinds gained a kind (access widened: reviewed and versioned)',
    base: api(),
    head: api({ 'x-key-kinds': ['secret', 'restricted', 'ephemeral'] }),
    want: [`key-kinds-changed BREAKING ${OP}/x-key-kinds`],
  },
  {
    rule: 'security requirement changed',
    base: api({}, {}, { security: [{ bearerAuth: [] }] }),
    head: api({ security: [] }, {}, { security: [{ bearerAuth: [] }] }),
    want: [`security-changed BREAKING ${OP}/security`],
  },
  {
    rule: 'security scheme changed',
    base: {
      ...api(),
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    },
    head: {
      ...api(),
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'basic' } } },
    },
    want: ['security-scheme-changed BREAKING /components/securitySchemes/bearerAuth'],
  },
];

const bodies: Row[] = [
  {
    rule: 'request body made required',
    base: api({ requestBody: { content: { 'application/json': { schema: str } } } }),
    head: api(body(str)),
    want: [`request-body-required BREAKING ${OP}/requestBody`],
  },
  {
    rule: 'request body removed',
    base: api(body(str)),
    head: api(),
    want: [`request-body-removed BREAKING ${OP}/requestBody`],
  },
  {
    rule: 'request default changed',
    base: api(body(obj({ limit: { type: 'integer', default: 10 } }))),
    head: api(body(obj({ limit: { type: 'integer', default: 20 } }))),
    want: [`default-changed BREAKING ${REQ}/properties/limit`],
  },
  {
    rule: 'unrecognised keyword change is flagged for review',
    base: api(body({ type: 'string', not: { enum: ['x'] } })),
    head: api(body({ type: 'string', not: { enum: ['y'] } })),
    want: [`keyword-changed BREAKING ${REQ}`],
  },
];

const variants: Row[] = [
  {
    rule: 'request oneOf variant removed',
    base: api(
      body({ oneOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] }),
      { A: str, B: str },
    ),
    head: api(body({ oneOf: [{ $ref: '#/components/schemas/A' }] }), { A: str, B: str }),
    want: [`variant-removed BREAKING ${REQ}/oneOf/1`],
  },
  {
    rule: 'response oneOf variant added with a discriminator: clients ignore unknown tags',
    base: api(
      ok({
        oneOf: [{ $ref: '#/components/schemas/A' }],
        discriminator: { propertyName: 'object' },
      }),
      { A: str, B: str },
    ),
    head: api(
      ok({
        oneOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }],
        discriminator: { propertyName: 'object' },
      }),
      { A: str, B: str },
    ),
    want: [`variant-added ok ${RES}/oneOf/1`],
  },
  {
    rule: 'response oneOf variant added without a discriminator',
    base: api(ok({ oneOf: [{ $ref: '#/components/schemas/A' }] }), { A: str, B: str }),
    head: api(
      ok({ oneOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] }),
      { A: str, B: str },
    ),
    want: [`variant-added BREAKING ${RES}/oneOf/1`],
  },
];

const document: Row[] = [
  {
    rule: 'component schema removed (generated type disappears)',
    base: api({}, { Patient: obj({}), Gone: obj({}) }),
    head: api({}, { Patient: obj({}) }),
    want: ['component-removed BREAKING /components/schemas/Gone'],
  },
  {
    rule: 'server removed',
    base: api({}, {}, { servers: [{ url: 'https://api.patientcare.example' }] }),
    head: api({}, {}, { servers: [] }),
    want: ['server-removed BREAKING /servers/0'],
  },
  {
    rule: 'webhook event removed',
    base: api({}, {}, { 'x-webhooks': { 'patient.created': { post: body(str) } } }),
    head: api(),
    want: ['webhook-removed BREAKING /x-webhooks/patient.created'],
  },
  {
    rule: 'webhook payload property removed (the API sends it: response direction)',
    base: api(
      {},
      {},
      { 'x-webhooks': { 'patient.created': { post: body(obj({ id: str, type: str })) } } },
    ),
    head: api({}, {}, { 'x-webhooks': { 'patient.created': { post: body(obj({ id: str })) } } }),
    want: [
      'property-removed BREAKING /x-webhooks/patient.created/post/requestBody/content/application~1json/schema/properties/type',
    ],
  },
  {
    rule: 'webhook event added',
    base: api(),
    head: api({}, {}, { 'x-webhooks': { 'claim.paid': { post: body(str) } } }),
    want: ['webhook-added ok /x-webhooks/claim.paid'],
  },
  {
    rule: 'identical documents',
    base: api(body(obj({ a: str })), { A: str }),
    head: api(body(obj({ a: str })), { A: str }),
    want: [],
  },
];

const tables = {
  operations,
  parameters,
  responses,
  properties,
  types,
  enums,
  ranges,
  security,
  bodies,
  variants,
  document,
};

describe('diffSpecs given/want', () => {
  for (const [table, rows] of Object.entries(tables)) {
    describe(table, () => {
      it.each(rows)('$rule', ({ base, head, want }) => {
        expect(summarize(diffSpecs(base, head))).toEqual([...want].sort());
      });
    });
  }

  it('every breaking change says why it breaks clients', () => {
    const all = Object.values(tables)
      .flat()
      .flatMap(({ base, head }) => diffSpecs(base, head));
    const breaking = all.filter((c) => c.breaking);
    expect(breaking.length).toBeGreaterThan(40);
    for (const c of breaking) expect(c.message).toMatch(/:|break|reject|403|401|404/);
  });

  it('names the operation through which a change was reached', () => {
    const [change] = diffSpecs(api(ok(obj({ a: str }))), api(ok(obj({}))));
    expect(change).toMatchObject({ operation: 'POST /v1/patients', kind: 'property-removed' });
  });
});
