/**
 * The browser flow of docs/design.md#keys in headless Chromium, across origins: a page served from
 * its own origin on 127.0.0.1 loads the built client package (bundled for the browser), tokenizes a
 * patient intake with a `pk_test_` key that allows that origin; the test's server side (Node,
 * secret key, no `Origin`) creates the patient from the token and mints an ephemeral key; the
 * page reads that patient with it (200) and is refused another patient (403). A secret key used
 * from the page is 403 `secret_key_required`; the publishable key from an origin it does not
 * list is refused. Every request is recorded: none leaves 127.0.0.1.
 *
 * Skipped, with a notice, only where /usr/bin/chromium is missing.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPatientCareClient, type PatientCareClient } from '../../generated/client.js';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { createKey } from '../../server/keys/store.js';
import { versions } from '../../server/versioning/index.js';
import { type BuiltPackage, buildPackageForTest } from '../package/support/build.js';
import {
  haveChromium,
  type LaunchedChromium,
  launchChromium,
  warnIfNoChromium,
} from './support/chromium.js';
import { bundleClientForBrowser, type PageServer, servePages } from './support/pages.js';

warnIfNoChromium('test/browser/cors');

const INTAKE = { name: { family: 'Intake', given: ['Page'] } };

/** What the page's functions (support/intake-page.js) return. */
interface PageResult {
  status?: number;
  token?: string | null;
  family?: string | null;
  code?: string | null;
  message?: string | null;
  requestId?: string | null;
  rateLimitLimit?: string | null;
  version?: string | null;
  failed?: string;
}

interface PageApi {
  tokenize(baseUrl: string, apiKey: string, patient: unknown): Promise<PageResult>;
  readPatient(baseUrl: string, apiKey: string, id: string): Promise<PageResult>;
}
// What the page script puts on `window` (the callbacks of page.evaluate run in the page).
declare const window: { patientCare: PageApi; patientCareReady?: boolean };

describe.skipIf(!haveChromium)('browser keys across origins in headless Chromium', () => {
  let built: BuiltPackage;
  let db: Db;
  let app: FastifyInstance;
  let api: string;
  let server: PatientCareClient;
  let clinic: PageServer;
  let elsewhere: PageServer;
  let browser: LaunchedChromium;
  let clinicPage: Page;
  let elsewherePage: Page;
  let secret: string;
  let publishable: string;
  const requested: string[] = [];
  /** What the API answered, recorded on its side (the browser hides refused responses). */
  const served: {
    method: string;
    path: string;
    origin?: string;
    status: number;
    acao?: unknown;
  }[] = [];

  async function openPage(origin: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => window.patientCareReady === true);
    return page;
  }
  const tokenize = (page: Page, key: string) =>
    page.evaluate((a) => window.patientCare.tokenize(a.api, a.key, a.intake), {
      api,
      key,
      intake: INTAKE,
    });
  const readPatient = (page: Page, key: string, id: string) =>
    page.evaluate((a) => window.patientCare.readPatient(a.api, a.key, a.id), { api, key, id });

  beforeAll(async () => {
    built = await buildPackageForTest('cors');
    const bundle = await bundleClientForBrowser(built.dir);
    const script = await readFile(resolve('test/browser/support/intake-page.js'), 'utf8');
    const files = {
      '/': [
        'text/html; charset=utf-8',
        '<!doctype html><meta charset="utf-8"><title>Intake</title><script type="module" src="/intake-page.js"></script>',
      ],
      '/client.js': ['text/javascript; charset=utf-8', bundle],
      '/intake-page.js': ['text/javascript; charset=utf-8', script],
    } as const;
    clinic = await servePages(files);
    elsewhere = await servePages(files);

    db = await openDb('sqlite::memory:');
    ({ secret } = await createKey(db, { kind: 'secret', livemode: false }));
    ({ secret: publishable } = await createKey(db, {
      kind: 'publishable',
      livemode: false,
      allowedOrigins: [clinic.origin],
    }));
    app = await buildApp({ db });
    app.addHook('onResponse', async (request, reply) => {
      served.push({
        method: request.method,
        path: request.url.split('?')[0]!,
        ...(request.headers.origin === undefined ? {} : { origin: request.headers.origin }),
        status: reply.statusCode,
        acao: reply.getHeader('access-control-allow-origin'),
      });
    });
    api = await app.listen({ host: '127.0.0.1', port: 0 });
    server = createPatientCareClient({ apiKey: secret, baseUrl: api, maxRetries: 0 });

    browser = await launchChromium();
    browser.context.on('request', (request) => {
      requested.push(request.url());
    });
    clinicPage = await openPage(clinic.origin);
    elsewherePage = await openPage(elsewhere.origin);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await db?.close();
    await clinic?.close();
    await elsewhere?.close();
    await built?.remove();
  });

  it('serves the page, the API and the other page from three origins', () => {
    expect(new Set([api, clinic.origin, elsewhere.origin]).size).toBe(3);
    expect(publishable).toMatch(/^pk_test_/);
  });

  it('tokenizes in the page, creates and scopes the patient on the server, reads it in the page', async () => {
    const intake = await tokenize(clinicPage, publishable);
    expect(intake).toMatchObject({ status: 200, code: null });
    expect(intake.token).toMatch(/^tok_[0-9A-HJKMNP-TV-Z]{26}$/);
    // Exposed headers are readable by the page.
    expect(intake.requestId).toMatch(/^req_/);
    expect(intake.rateLimitLimit).toMatch(/^\d+$/);
    expect(intake.version).toBe(versions.latest);

    // The integrator's server: secret key, Node's fetch (no Origin header).
    const created = await server.createPatient({ body: { token: intake.token! } });
    expect(created.error).toBeUndefined();
    const patientId = created.data!.id;
    const other = await server.createPatient({ body: { name: { family: 'Other' } } });
    const minted = await server.createEphemeralKey({
      body: { patient: patientId, scopes: ['patients:read'] },
    });
    expect(minted.error).toBeUndefined();
    const ephemeral = minted.data!.secret;
    expect(ephemeral).toMatch(/^ek_test_/);

    const own = await readPatient(clinicPage, ephemeral, patientId);
    expect(own).toMatchObject({ status: 200, family: 'Intake' });
    expect(own.requestId).toMatch(/^req_/);

    const refused = await readPatient(clinicPage, ephemeral, other.data!.id);
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_scope', family: null });

    // Ephemeral keys are created without an origin list: any page may use one it was given.
    const fromElsewhere = await readPatient(elsewherePage, ephemeral, patientId);
    expect(fromElsewhere).toMatchObject({ status: 200, family: 'Intake' });
  }, 60_000);

  it('refuses a secret key used from the page, readably: 403 secret_key_required', async () => {
    const created = await server.createPatient({ body: { name: { family: 'Server' } } });
    const result = await readPatient(clinicPage, secret, created.data!.id);
    expect(result).toMatchObject({ status: 403, code: 'secret_key_required', family: null });
    expect(result.message).toMatch(/must not be used from a browser/);
  }, 60_000);

  it('refuses the publishable key from an origin it does not list', async () => {
    const result = await tokenize(elsewherePage, publishable);
    // The page got no answer it may read ...
    expect(result.failed).toBeDefined();
    expect(result.token).toBeUndefined();
    // ... because the API refused the request and withheld Access-Control-Allow-Origin.
    const tokens = served.filter((r) => r.method === 'POST' && r.path === '/v1/tokens');
    expect(tokens.find((r) => r.origin === elsewhere.origin)).toMatchObject({
      status: 403,
      acao: undefined,
    });
    expect(tokens.find((r) => r.origin === clinic.origin)).toMatchObject({
      status: 200,
      acao: clinic.origin,
    });
  }, 60_000);

  it('preflighted the browser calls, and the server side sent no Origin', () => {
    const preflights = served.filter((r) => r.method === 'OPTIONS');
    expect(preflights.map((r) => r.status)).toContain(204);
    expect(preflights.some((r) => r.path === '/v1/tokens')).toBe(true);
    const serverSide = served.filter((r) => r.path === '/v1/ephemeral_keys');
    expect(serverSide.length).toBe(1);
    expect(serverSide[0]!.origin).toBeUndefined();
  });

  it('made every request to 127.0.0.1', () => {
    expect(requested.length).toBeGreaterThan(6);
    const hosts = new Set(requested.map((url) => new URL(url).hostname));
    expect([...hosts]).toEqual(['127.0.0.1']);
    expect(requested.filter((url) => url.startsWith(`${api}/v1/`)).length).toBeGreaterThan(4);
  });
});
