/**
 * An error's `doc_url` opened in headless Chromium lands on that code's entry: five codes'
 * links, each taken from a real error response of the service, load `/docs` with the entry
 * in the viewport (not at the top of the page). And the reference's sidebar lists each topic
 * once (server/docs/reference-spec.ts folds the description sections Errors, Pagination,
 * Idempotency and Versioning into their guides).
 *
 * Skipped, with a notice, only where /usr/bin/chromium is missing (`.ci/run` installs it).
 */
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { setErrorDocBase } from '../../server/errors.js';
import { createKey } from '../../server/keys/store.js';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import {
  haveChromium,
  type LaunchedChromium,
  launchChromium,
  warnIfNoChromium,
} from './support/chromium.js';

warnIfNoChromium('test/browser/doc-url');

// What the page callbacks read (page.evaluate runs them in the page, not in Node).
declare const window: { innerHeight: number; scrollY: number };

describe.skipIf(!haveChromium)('doc_url links in headless Chromium', () => {
  let db: Db;
  let app: FastifyInstance;
  let origin: string;
  let secret: string;
  let publishable: string;
  let browser: LaunchedChromium;
  let page: Page;

  beforeAll(async () => {
    db = await openDb('sqlite::memory:');
    ({ secret } = await createKey(db, { kind: 'secret', livemode: false }));
    ({ secret: publishable } = await createKey(db, { kind: 'publishable', livemode: false }));
    app = await buildApp({ db, docs: { load: () => prepareDocs(resolve('spec/openapi.yaml')) } });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    setErrorDocBase(origin);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  }, 120_000);

  afterAll(async () => {
    setErrorDocBase('http://127.0.0.1:4010');
    await browser?.close();
    await app?.close();
    await db?.close();
  });

  /** The `doc_url` of a real error answer. */
  async function docUrlOf(path: string, init: RequestInit = {}): Promise<string> {
    const res = await fetch(`${origin}${path}`, init);
    const body = (await res.json()) as { error: { doc_url: string } };
    return body.error.doc_url;
  }

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const cases: Array<[string, () => Promise<string>]> = [
    ['api_key_missing', () => docUrlOf('/v1/patients')],
    ['api_key_invalid', () => docUrlOf('/v1/patients', { headers: bearer('sk_test_nope') })],
    ['parameter_invalid', () => docUrlOf('/v1/patients?limit=1000', { headers: bearer(secret) })],
    [
      'resource_missing',
      () => docUrlOf('/v1/patients/pat_00000000000000000000000000', { headers: bearer(secret) }),
    ],
    ['secret_key_required', () => docUrlOf('/v1/patients', { headers: bearer(publishable) })],
  ];

  it.each(cases)(
    '%s: the doc_url shows that code’s entry in the viewport',
    {
      timeout: 60_000,
    },
    async (code, link) => {
      const url = await link();
      expect(url).toBe(`${origin}/docs/errors#${code}`);
      await page.goto(url);
      // The anchor is empty; its list item is the entry.
      const entry = page.locator(`li:has(> #error-code-${code})`);
      await entry.waitFor({ state: 'visible', timeout: 30_000 });
      await expect
        .poll(
          () =>
            entry.evaluate((node) => {
              const box = node.getBoundingClientRect();
              return box.top >= 0 && box.bottom <= window.innerHeight;
            }),
          { timeout: 10_000 },
        )
        .toBe(true);
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
      // The entry names the code it is for.
      expect(await entry.textContent()).toContain(code);
    },
  );

  it('the sidebar lists each topic once', { timeout: 60_000 }, async () => {
    await page.goto(`${origin}/docs`);
    const menu = page.locator('.menu-content');
    await menu.waitFor({ timeout: 30_000 });
    await expect.poll(() => menu.locator('label').count(), { timeout: 20_000 }).toBeGreaterThan(10);
    const labels = (await menu.locator('li > label').allTextContents()).map((text) => text.trim());
    for (const topic of ['Errors', 'Pagination', 'Idempotency', 'Versioning', 'Webhooks']) {
      expect(
        labels.filter((label) => label === topic),
        `${topic} in ${labels.join(' | ')}`,
      ).toHaveLength(1);
    }
    const duplicates = labels.filter((label, index) => labels.indexOf(label) !== index);
    expect(duplicates).toEqual([]);
  });
});
