import { describe, expect, test } from 'vitest';
import {
  type ClientSourceDocument,
  collectOperations,
  generateClient,
} from '../../generators/client.js';
import { camelCase, derivedOperationId } from '../../tooling/openapi/names.js';

const options = {
  header: '// made by test',
  typesImport: './types.js',
  runtimeImport: '../client/index.js',
};
const envelope = {
  type: 'object',
  properties: {
    object: { type: 'string' },
    has_more: { type: 'boolean' },
    data: { type: 'array', items: {} },
  },
};
const ok = (schema: unknown) => ({
  '200': { description: 'ok', content: { 'application/json': { schema } } },
});

describe('names', () => {
  test.each([
    ['listPatients', 'listPatients'],
    ['GetCustomers', 'getCustomers'],
    ['repos/list-for-org', 'reposListForOrg'],
    ['admin-api-keys-list', 'adminApiKeysList'],
    ['list_models', 'listModels'],
    ['HTTPGet', 'httpGet'],
    ['URL', 'url'],
    ['V1Things', 'v1Things'],
    ['2fa/enable', 'op2faEnable'],
    ['  spaced  name ', 'spacedName'],
    ['!!!', ''],
    ['', ''],
  ])('camelCase(%j) → %j', (given, want) => {
    expect(camelCase(given)).toBe(want);
  });

  test.each([
    ['get', '/v1/patients/{id}', 'getV1PatientsById'],
    ['post', '/v1/patients/search', 'postV1PatientsSearch'],
    ['delete', '/', 'delete'],
    ['get', '/repos/{owner}/{repo}', 'getReposByOwnerByRepo'],
  ])('derivedOperationId(%s, %s) → %s', (method, path, want) => {
    expect(derivedOperationId(method, path)).toBe(want);
  });

  test('clashing, reserved and missing operationIds get unique, valid names', () => {
    const doc: ClientSourceDocument = {
      paths: {
        '/a': { get: { operationId: 'get-thing' }, post: { operationId: 'getThing' } },
        '/b': {
          get: { operationId: 'getThing2' },
          put: { operationId: 'raw' },
          delete: { operationId: 'then' },
        },
        '/c': { get: {}, post: { operationId: '***' } },
      },
    };
    const names = Object.fromEntries(
      collectOperations(doc).map((op) => [`${op.method} ${op.path}`, op.name]),
    );
    expect(names).toEqual({
      'get /a': 'getThing',
      'post /a': 'getThing3',
      'get /b': 'getThing2',
      'put /b': 'raw2',
      'delete /b': 'then2',
      'get /c': 'getC',
      'post /c': 'postC',
    });
  });
});

describe('lists and cursors', () => {
  const list = (extra: object) => ({
    responses: ok({ $ref: '#/components/schemas/List' }),
    ...extra,
  });
  const doc: ClientSourceDocument = {
    paths: {
      '/query': {
        parameters: [{ $ref: '#/components/parameters/Cursor' }],
        get: list({ operationId: 'pathLevelCursor' }),
      },
      '/after': {
        get: list({ operationId: 'afterCursor', parameters: [{ name: 'after', in: 'query' }] }),
      },
      '/body': {
        post: list({
          operationId: 'bodyCursor',
          requestBody: {
            content: {
              'application/json': {
                schema: { properties: { starting_after: { type: 'string' } } },
              },
            },
          },
        }),
      },
      '/none': { get: list({ operationId: 'noCursor' }) },
      '/allof': {
        get: {
          operationId: 'allOfList',
          parameters: [{ name: 'starting_after', in: 'query' }],
          responses: ok({
            allOf: [{ $ref: '#/components/schemas/List' }, { properties: { url: {} } }],
          }),
        },
      },
      '/array': {
        get: { operationId: 'arrayResponse', responses: ok({ type: 'array', items: {} }) },
      },
      '/nodata': {
        get: { operationId: 'noData', responses: ok({ properties: { has_more: {} } }) },
      },
      '/vendor': {
        get: {
          operationId: 'vendorJson',
          parameters: [{ name: 'starting_after', in: 'query' }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/vnd.x+json': { schema: envelope } },
            },
          },
        },
      },
      '/ref-response': {
        get: {
          operationId: 'refResponse',
          parameters: [{ name: 'starting_after', in: 'query' }],
          responses: { '200': { $ref: '#/components/responses/ListResponse' } },
        },
      },
    },
    components: {
      schemas: { List: envelope },
      parameters: { Cursor: { name: 'starting_after', in: 'query' } },
      responses: {
        ListResponse: { description: 'ok', content: { 'application/json': { schema: envelope } } },
      },
    },
  };

  test.each([
    ['pathLevelCursor', true, { in: 'query', name: 'starting_after' }],
    ['afterCursor', true, { in: 'query', name: 'after' }],
    ['bodyCursor', true, { in: 'body', name: 'starting_after' }],
    ['noCursor', true, undefined],
    ['allOfList', true, { in: 'query', name: 'starting_after' }],
    ['arrayResponse', false, undefined],
    ['noData', false, undefined],
    ['vendorJson', true, { in: 'query', name: 'starting_after' }],
    ['refResponse', true, { in: 'query', name: 'starting_after' }],
  ])('%s: list %s, cursor %j', (name, list, cursor) => {
    const op = collectOperations(doc).find((o) => o.name === name);
    expect(op?.list).toBe(list);
    expect(op?.cursor).toEqual(cursor);
  });
});

describe('output', () => {
  const doc: ClientSourceDocument = {
    info: { title: 'Patient-Care API', version: "it's \\ 1" },
    servers: [{ url: 'https://api.example.test/' }],
    paths: {
      "/o'dd/{id}": {
        get: { operationId: 'odd', summary: 'Ends a comment */ early\nsecond line' },
      },
      '/old': { get: { operationId: 'old', deprecated: true } },
    },
  };
  const text = generateClient(doc, options);

  test('starts with the header, imports types and runtime, exports the factory', () => {
    const lines = text.split('\n');
    expect(lines[0]).toBe('// made by test');
    expect(lines[1]).toBe("import type { paths } from './types.js';");
    expect(text).toContain("from '../client/index.js';");
    expect(text).toContain(
      'export function createPatientCareClient(options: ClientOptions): PatientCareClient {',
    );
    expect(text).toContain('export const createClient = createPatientCareClient;');
  });

  test('a header without comment marker is made a comment', () => {
    expect(generateClient(doc, { ...options, header: 'made by test' }).split('\n')[0]).toBe(
      '// made by test',
    );
  });

  test('strings are escaped; summaries cannot close the doc comment', () => {
    expect(text).toContain("export const apiVersion: string | undefined = 'it\\'s \\\\ 1';");
    expect(text).toContain(
      "export const defaultBaseUrl: string | undefined = 'https://api.example.test';",
    );
    expect(text).toContain(
      "odd: { method: 'get', path: '/o\\'dd/{id}', operationId: 'odd', list: false },",
    );
    expect(text).toContain('/** Ends a comment *\\/ early */');
    expect(text).toContain('/** @deprecated */');
  });

  test('servers with variables or relative URLs give no default', () => {
    for (const url of ['https://{region}.example.test', '/api']) {
      const out = generateClient({ ...doc, servers: [{ url }] }, options);
      expect(out).toContain('export const defaultBaseUrl: string | undefined = undefined;');
    }
  });

  test('deterministic: the order of paths and methods in the document does not matter', () => {
    const paths = doc.paths ?? {};
    const reversed = { ...doc, paths: Object.fromEntries(Object.entries(paths).reverse()) };
    expect(generateClient(reversed, options)).toBe(text);
  });

  test('a document without paths gives an empty table that still compiles', () => {
    expect(generateClient({}, options)).toContain('export const operations = {\n} as const;');
  });
});

describe('names and version header come from the document', () => {
  const list = { description: 'ok', content: { 'application/json': { schema: envelope } } };
  const stripeLike: ClientSourceDocument = {
    info: { title: 'Stripe API', version: '2024-06-20' },
    paths: {
      '/v1/charges': {
        get: {
          operationId: 'GetCharges',
          parameters: [{ name: 'Stripe-Version', in: 'header', schema: { type: 'string' } }],
          responses: { '200': list },
        },
      },
    },
  };

  test('another document gets neutral names and its own version header', () => {
    const text = generateClient(stripeLike, options);
    expect(text).toContain('export function createClient(options: ClientOptions): ApiClient {');
    expect(text).toContain("export const versionHeader: string | null = 'Stripe-Version';");
    expect(text).toContain('await client.getCharges(init);');
    expect(text).not.toMatch(/PatientCare|listPatients/);
  });

  test('a document that declares no version header sends none', () => {
    const { info, paths } = stripeLike;
    const plain = { info, paths: { '/ping': { get: { operationId: 'ping' } } } };
    const text = generateClient(plain, options);
    expect(text).toContain('export const versionHeader: string | null = null;');
    expect(text).not.toContain('PatientCare');
    expect(paths).toBeDefined();
  });

  test('ours keeps its names and PatientCare-Version', () => {
    const ours = { ...stripeLike, info: { title: 'Patient-Care API', version: '1' }, paths: {} };
    const text = generateClient(ours, options);
    expect(text).toContain("export const versionHeader: string | null = 'PatientCare-Version';");
    expect(text).toContain('export const createClient = createPatientCareClient;');
  });
});
