/**
 * The reference and the explorer in a real browser (headless Debian Chromium driven by
 * playwright-core): every operation of spec/openapi.yaml appears in /docs; the explorer takes a
 * test key and gets a 200 list from GET /v1/patients of the running service; and no request of
 * either page leaves 127.0.0.1. Screenshots go to test/output/.
 *
 * Skipped, with a notice, only where /usr/bin/chromium is missing (`.ci/run` installs it).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { handlers } from '../../server/handlers/index.js';
import type { HandlerTable } from '../../server/http/register-routes.js';
import { createKey } from '../../server/keys/store.js';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';
import {
  haveChromium,
  type LaunchedChromium,
  launchChromium,
  requestsElsewhere,
  warnIfNoChromium,
} from './support/chromium.js';

const SPEC = resolve('spec/openapi.yaml');
const OUTPUT = resolve('test/output');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
warnIfNoChromium('test/browser/docs');

interface SpecOperation {
  method: string;
  path: string;
  operationId: string;
  summary: string;
  /** The first tag, under which Redoc lists the operation. */
  tag: string;
}

async function specOperations(): Promise<SpecOperation[]> {
  const doc = await bundleSpec(SPEC);
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  const operations: SpecOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as
        | { operationId?: string; summary?: string; tags?: string[] }
        | undefined;
      if (op) {
        operations.push({
          method,
          path,
          operationId: op.operationId ?? '',
          summary: op.summary ?? '',
          tag: op.tags?.[0] ?? '',
        });
      }
    }
  }
  return operations;
}

// STAND-IN (clearly marked): until the patients handler is written, `listPatients` is the
// generated stub answering 501. The test then swaps in this one handler and keeps everything
// else real: routing, API-key authentication against the database, rate limits, validation,
// response serialisation. As soon as the real handler answers, the test uses it unchanged.
const standInListPatients = async () => ({
  status: 200,
  body: { object: 'list', url: '/v1/patients', has_more: false, data: [] },
});

async function startService(db: Db, secret: string): Promise<FastifyInstance> {
  const docs = { load: () => prepareDocs(SPEC) };
  const real = await buildApp({ db, docs });
  const probe = await real.inject({
    url: '/v1/patients',
    headers: { authorization: `Bearer ${secret}` },
  });
  if (probe.statusCode !== 501) return real;
  await real.close();
  console.warn('[test/browser/docs] listPatients is still a stub: using the marked stand-in');
  const table: HandlerTable = { ...handlers, listPatients: standInListPatients } as HandlerTable;
  return buildApp({ db, docs, handlers: table });
}

describe.skipIf(!haveChromium)('docs and explorer in headless Chromium', () => {
  let db: Db;
  let app: FastifyInstance;
  let origin: string;
  let secret: string;
  let browser: LaunchedChromium;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    db = await openDb('sqlite::memory:');
    ({ secret } = await createKey(db, { kind: 'secret', livemode: false }));
    app = await startService(db, secret);
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    mkdirSync(OUTPUT, { recursive: true });
    browser = await launchChromium();
    context = browser.context;
    // Every request of every page, including ones the CSP then blocks.
    context.on('request', (request) => {
      requested.push(request.url());
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await db?.close();
  });

  it('shows every operation of the spec in /docs', async () => {
    const operations = await specOperations();
    expect(operations.length).toBeGreaterThan(10);
    await page.goto(`${origin}/docs`);
    await page
      .getByRole('heading', { name: /Patient-Care API/ })
      .first()
      .waitFor();
    // Redoc renders every operation in the page, each with a permalink
    // (`#tag/<tag>/operation/<operationId>`) and its summary as a heading.
    await page.locator('a[href*="/operation/"]').first().waitFor();
    const anchors = await page
      .locator('a[href*="/operation/"]')
      .evaluateAll((list) => list.map((a) => (a.getAttribute('href') ?? '').toLowerCase()));
    const headings = await page
      .locator('h2')
      .evaluateAll((list) => list.map((h) => (h.textContent ?? '').trim()));
    const missing = operations.filter(
      (op) =>
        !anchors.some((href) => href.endsWith(`/operation/${op.operationId.toLowerCase()}`)) ||
        !headings.includes(op.summary),
    );
    expect(missing.map((op) => `${op.method.toUpperCase()} ${op.path} ${op.operationId}`)).toEqual(
      [],
    );
    await page.screenshot({ path: join(OUTPUT, 'docs.png') });
  }, 120_000);

  it('sends GET /v1/patients from the explorer with a test key and shows a 200 list', async () => {
    await page.goto(`${origin}/docs/explorer`);
    const explorer = page.locator('rapi-doc');
    await explorer.getByText('Authentication', { exact: true }).first().click();
    await explorer.getByPlaceholder('api-token').fill(secret);
    await explorer.getByRole('button', { name: 'SET' }).click();
    await explorer.locator('[id="link-get-/v1/patients"]').click();

    const answered = page.waitForResponse(
      (response) =>
        response.request().method() === 'GET' &&
        new URL(response.url()).pathname === '/v1/patients',
    );
    await explorer.getByRole('button', { name: 'TRY' }).first().click();
    const response = await answered;
    expect(response.request().headers().authorization).toBe(`Bearer ${secret}`);
    expect(response.status()).toBe(200);
    const body = (await response.json()) as { object?: unknown; data?: unknown };
    expect(body.object).toBe('list');
    expect(Array.isArray(body.data)).toBe(true);
    await explorer.getByText(/Response Status:.*200/).waitFor();
    await page.screenshot({ path: join(OUTPUT, 'explorer.png'), fullPage: false });
  }, 120_000);

  it('made no request outside 127.0.0.1 and broke no CSP rule', () => {
    expect(requested.length).toBeGreaterThan(5);
    expect(requestsElsewhere(requested, origin)).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
