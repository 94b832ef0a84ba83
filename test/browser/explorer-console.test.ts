/**
 * The explorer (`/docs/explorer`, RapiDoc) in headless Chromium loads and opens operations
 * without a console error or warning, and schema descriptions show in full with no stray `↘`
 * (RapiDoc's expand toggle).
 */
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import {
  haveChromium,
  type LaunchedChromium,
  launchChromium,
  warnIfNoChromium,
} from './support/chromium.js';

const SPEC = resolve('spec/openapi.yaml');
warnIfNoChromium('test/browser/explorer-console');

describe.skipIf(!haveChromium)('the explorer in headless Chromium', () => {
  let db: Db;
  let app: FastifyInstance;
  let origin: string;
  let browser: LaunchedChromium;
  let page: Page;
  const logged: string[] = [];

  beforeAll(async () => {
    db = await openDb('sqlite::memory:');
    app = await buildApp({ db, docs: { load: () => prepareDocs(SPEC) } });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') {
        logged.push(`${message.type()}: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => logged.push(`pageerror: ${error.stack ?? error.message}`));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await db?.close();
  });

  it('loads, opens operations with query and body parameters, and logs nothing', async () => {
    await page.goto(`${origin}/docs/explorer`);
    const explorer = page.locator('rapi-doc');
    await explorer.locator('[id="link-get-/v1/patients"]').waitFor();
    for (const id of [
      'get-/v1/patients',
      'get-/v1/appointments',
      'post-/v1/patients',
      'get-/v1/events',
    ]) {
      const link = explorer.locator(`[id="link-${id}"]`);
      if ((await link.count()) === 0) continue;
      await link.click();
      await explorer.locator(`[id="${id}"]`).first().waitFor();
    }
    await page.waitForTimeout(500);
    expect(logged).toEqual([]);
    // Schema descriptions show in full, without RapiDoc's expand toggle (an arrow turned 45°,
    // the stray `↘` beside descriptions when they start collapsed).
    await explorer.locator('.key-descr').first().waitFor();
    const toggles = explorer.locator('.descr-expand-toggle');
    expect(await toggles.count()).toBeGreaterThan(0);
    const shown = await toggles.evaluateAll(
      // An element with `display: none` has no boxes.
      (list) => list.filter((element) => element.getClientRects().length > 0).length,
    );
    expect(shown).toBe(0);
  }, 120_000);
});
