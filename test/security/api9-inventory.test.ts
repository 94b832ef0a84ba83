/**
 * OWASP API9:2023 Improper Inventory Management: the routes the service answers are the
 * spec's operations and no more. Every method on every spec path is probed: the spec's
 * operations answer (anything but route_missing), every other method is 404 route_missing.
 * Common extra paths (admin, debug, metrics, other versions, dotfiles, format suffixes) are
 * route_missing too. The app is built as `server/main.ts` builds it, docs included; the docs
 * routes are the only non-API routes, listed here by name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpMethod } from '../../contract/route-types.js';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import { allRoutes, buildSecurityApp, routes, type SecurityApp } from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp({
    docs: { load: () => prepareDocs('spec/openapi.yaml'), staticDir: 'build/docs' },
  });
});
afterAll(() => s.close());

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE'];
const paths = [...new Set(routes.map((r) => r.path))];

/** Sends without the response check: undocumented answers are exactly what is looked for. */
async function probe(method: string, url: string) {
  const res = await s.t.app.inject({
    method: method as HttpMethod,
    url,
    headers: { authorization: `Bearer ${s.keys.secret}`, 'content-type': 'application/json' },
    ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { payload: '{}' } : {}),
  });
  let code: string | undefined;
  try {
    code = (JSON.parse(res.body) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: res.statusCode, code, body: res.body };
}

/** The spec's `{id}` operation for this method refusing a segment that is no id: 400 param id. */
function idRefusal(method: string, path: string, res: { status: number; code?: string }): boolean {
  const idRoute = routes.some(
    (r) =>
      r.method === method &&
      r.path.endsWith('/{id}') &&
      new RegExp(`^${r.path.replace('{id}', '[^/]*')}$`).test(path),
  );
  return idRoute && res.status === 400 && res.code === 'parameter_invalid';
}

function concrete(path: string): string {
  const byCollection: Record<string, string> = {
    patients: s.test.pat,
    appointments: s.test.appt,
    claims: s.test.clm,
    webhooks: s.test.wh,
    events: s.test.evt,
  };
  const collection = /^\/v1\/(\w+)/.exec(path)?.[1] ?? '';
  return path.replace('{id}', byCollection[collection] ?? 'x');
}

describe('every method on every spec path', () => {
  it.each(paths)('%s', async (path) => {
    const url = concrete(path);
    for (const method of METHODS) {
      const inSpec = routes.some((r) => r.path === path && r.method === method);
      const res = await probe(method, url);
      if (inSpec) expect(res.code, `${method} ${path}`).not.toBe('route_missing');
      else if (method === 'HEAD') {
        expect(res.status, `${method} ${path}`).toBe(404); // no body to read a code from
      } else if (method === 'OPTIONS') {
        // CORS preflight: answered for browser keys, without running any operation.
        expect([204, 404], `${method} ${path}`).toContain(res.status);
      } else if (!idRefusal(method, url, res)) {
        expect(res.status, `${method} ${path}: ${res.body}`).toBe(404);
        expect(res.code, `${method} ${path}`).toBe('route_missing');
      }
    }
  });
});

const EXTRA = [
  '/v1',
  '/v1/',
  '/v2/patients',
  '/v0/patients',
  '/v1/patients.json',
  '/v1/patients/',
  '/v1/Patients',
  '/v1/admin',
  '/admin',
  '/v1/users',
  '/v1/api_keys',
  '/v1/keys',
  '/v1/audit',
  '/v1/audit_log',
  '/v1/debug',
  '/debug',
  '/debug/pprof',
  '/metrics',
  '/health',
  '/status',
  '/graphql',
  '/swagger.json',
  '/v1/openapi.json',
  '/api-docs',
  '/.env',
  '/.git/config',
  '/server-status',
  '/v1/webhooks/deliveries',
  '/v1/events/stream',
  '/v1/patients/search/export',
  '/v1/claims/search',
  '/v1/tokens/tok_x',
  '/v1/ephemeral_keys/ephkey_x',
];

describe('common extra paths', () => {
  it.each(EXTRA)(
    '%s → 404 route_missing for GET and POST (or an {id} route refusing the id)',
    async (path) => {
      for (const method of ['GET', 'POST']) {
        const res = await probe(method, path);
        // `/v1/patients/search` by GET is `retrievePatient` with an id that is not one: the
        // spec's own operation answering, 400 param id, not an extra route.
        const idRoute = routes.some(
          (r) =>
            r.method === method &&
            r.path.endsWith('/{id}') &&
            new RegExp(`^${r.path.replace('{id}', '[^/]*')}$`).test(path),
        );
        if (idRoute && res.status === 400) expect(res.code === 'parameter_invalid').toBe(true);
        else {
          expect(res.status, `${method} ${path}: ${res.body}`).toBe(404);
          expect(res.code).toBe('route_missing');
        }
      }
    },
  );
});

/** `METHOD /path` for every route Fastify registered, read from its route tree. */
function registered(): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of s.t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^(.*?)── (\S+) \(([^)]+)\)$/.exec(line);
    if (!m) continue;
    const depth = Math.floor(m[1]!.length / 4);
    stack[depth] = `${depth === 0 ? '' : (stack[depth - 1] ?? '')}${m[2] ?? ''}`;
    for (const method of (m[3] ?? '').split(', ')) out.push(`${method} ${stack[depth]}`);
  }
  return out;
}

describe('the registered routes', () => {
  it('are the spec operations, CORS preflights, and the documented docs routes only', () => {
    const all = registered();
    const api = allRoutes.map((r) => `${r.method} ${r.url}`);
    for (const route of api) expect(all).toContain(route);
    const others = all.filter(
      (r) => !api.includes(r) && !r.startsWith('OPTIONS /v1/') && !r.startsWith('OPTIONS /fhir/'),
    );
    expect(others.sort()).toEqual([
      'GET /',
      'GET /docs',
      'GET /docs/',
      'GET /docs/assets/:version/:name',
      'GET /docs/errors',
      'GET /docs/explorer',
      'GET /docs/explorer/openapi.json',
      'GET /docs/reference.json',
      'GET /docs/static',
      'GET /openapi.json',
      'GET /openapi.yaml',
    ]);
  });
});
