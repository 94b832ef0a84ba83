/**
 * `npm run dev`'s live reload in a real browser (headless Debian Chromium driven by
 * playwright-core). `npm run dev -- --spec … --out … --handlers …` runs as its own process on a
 * copy of the spec in a temp folder (the repository's spec, generated/ and server/handlers/ are
 * never touched); /docs (Redoc) and /docs/explorer (RapiDoc) stay open while the test saves the
 * copy:
 *
 * 1. both pages load with no request leaving 127.0.0.1 and no CSP violation;
 * 2. a new operation: both pages reload themselves (the page script's `location.reload()`, seen
 *    as a new load event whose navigation type is `reload`; the test never reloads or
 *    navigates them) and then show the operation. The time from the save to each reloaded page
 *    is printed, not asserted;
 * 3. a lint error, then YAML that does not parse: the banner with the finding appears on both
 *    pages without a reload, and the service still answers the last good contract;
 * 4. the spec fixed: the banner goes away, still without a reload;
 * 5. a page whose event stream opens only after a newer contract was swapped in (the stream
 *    held back by the test) still reloads, knowing which contract it was rendered from.
 *
 * Every wait is on a page event, a selector or a line the loop prints, with generous limits
 * for a loaded 2-core machine. Skipped, with a notice, only where /usr/bin/chromium is missing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../server/db/open.js';
import { replaceOnce, withSampleOperation } from '../../tooling/dev/sample-edit.js';
import { freePort } from '../../tooling/node/ports.js';
import { makeKey } from '../support/keys.js';
import {
  haveChromium,
  type LaunchedChromium,
  launchChromium,
  requestsElsewhere,
  warnIfNoChromium,
} from './support/chromium.js';

const ROOT = resolve('.');
const OUTPUT = resolve('test/output');
/** Limit of each wait: a save is about a second on an idle 2-core machine. */
const WAIT_MS = 90_000;
const EVENTS_PATH = '/docs/dev/events';
const BANNER = '#dev-spec-problem';
warnIfNoChromium('test/browser/dev-reload');

const SCOPES = '      x-scopes:\n        - patients:read\n';

/** What `npm run dev` prints, line by line, with a wait for a line to come. */
class Output {
  readonly lines: string[] = [];
  private partial = '';
  private readonly waiters = new Set<() => void>();

  push(chunk: Buffer): void {
    const parts = (this.partial + chunk.toString('utf8')).split('\n');
    this.partial = parts.pop()!;
    this.lines.push(...parts);
    for (const waiter of this.waiters) waiter();
  }

  /** The first line from `from` on that matches `pattern`. */
  line(pattern: RegExp, from = 0): Promise<string> {
    return new Promise((resolveLine, reject) => {
      const check = () => {
        const found = this.lines.slice(from).find((line) => pattern.test(line));
        if (found === undefined) return;
        cleanup();
        resolveLine(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`npm run dev printed no line matching ${pattern}:\n${this.text()}`));
      }, WAIT_MS);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  text(): string {
    return [...this.lines, this.partial].join('\n');
  }
}

/**
 * Ctrl-C to the process group `npm run dev` leads (npm, the loop, the service), as in a
 * terminal, and waits until no member is left, so the temp folder goes after them. SIGKILL
 * after 20 s; after 30 s it stops waiting (a member nobody reaps still counts as there).
 */
async function stopGroup(leader: number): Promise<void> {
  const signal = (name: NodeJS.Signals | 0) => {
    try {
      process.kill(-leader, name);
      return true;
    } catch {
      return false; // no process of the group is left
    }
  };
  if (!signal('SIGINT')) return;
  const started = Date.now();
  let killed = false;
  while (signal(0) && Date.now() - started < 30_000) {
    if (!killed && Date.now() - started > 20_000) killed = signal('SIGKILL');
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

describe.skipIf(!haveChromium)('npm run dev: the docs pages reload in headless Chromium', () => {
  let dir: string;
  let specFile: string;
  let good: string;
  let base: string;
  let key: string;
  let dev: ChildProcess | undefined;
  let browser: LaunchedChromium | undefined;
  let docs: Page;
  let explorer: Page;
  const output = new Output();
  const requested: string[] = [];
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  /** Load events of each page, with when they happened (`performance.now()` here). */
  const loads = new Map<Page, number[]>();

  const api = (path: string) =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const servedPaths = async () =>
    ((await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> })
      .paths;

  /** Goes to `path` and resolves once the page's live-reload stream has answered. */
  async function open(page: Page, path: string): Promise<void> {
    const listening = page.waitForResponse(
      (response) => new URL(response.url()).pathname === EVENTS_PATH,
      { timeout: WAIT_MS },
    );
    await page.goto(`${base}${path}`, { timeout: WAIT_MS });
    expect((await listening).status()).toBe(200);
  }

  /**
   * The page's next load event, and its live-reload stream answering again after it. Set up
   * before the save that should cause it.
   */
  function reloadOf(page: Page): Promise<number> {
    const count = loads.get(page)!.length;
    const listening = page.waitForResponse(
      (response) => new URL(response.url()).pathname === EVENTS_PATH,
      { timeout: WAIT_MS },
    );
    return page.waitForEvent('load', { timeout: WAIT_MS }).then(async () => {
      await listening;
      return loads.get(page)![count]!;
    });
  }

  /** How the page's current document was reached: `navigate`, `reload`, … (run in the page). */
  const navigationType = (page: Page) =>
    page.evaluate<string>("performance.getEntriesByType('navigation')[0].type");

  /** A flag on the page's window: gone after any navigation, there as long as the page stays. */
  const mark = (page: Page) =>
    page.evaluate(() => {
      (globalThis as { devReloadMark?: boolean }).devReloadMark = true;
    });
  const marked = (page: Page) =>
    page.evaluate(() => (globalThis as { devReloadMark?: boolean }).devReloadMark === true);

  const save = (text: string) => {
    const at = performance.now();
    writeFileSync(specFile, text);
    return at;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dev-reload-'));
    specFile = join(dir, 'spec/openapi.yaml');
    cpSync(join(ROOT, 'spec/openapi.yaml'), specFile);
    cpSync(join(ROOT, 'spec/guides'), join(dir, 'spec/guides'), { recursive: true });
    cpSync(join(ROOT, 'server/handlers'), join(dir, 'handlers'), { recursive: true });
    const databaseUrl = `sqlite:${join(dir, 'service.db')}`;
    const db = await openDb(databaseUrl);
    key = (await makeKey(db)).secret;
    await db.close();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;

    const child = spawn(
      'npm',
      [
        'run',
        'dev',
        '--',
        '--spec',
        specFile,
        '--out',
        join(dir, 'generated'),
        '--handlers',
        join(dir, 'handlers'),
      ],
      {
        cwd: ROOT,
        detached: true, // its own process group: npm, the loop and the service stop together
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: databaseUrl,
          LOG_LEVEL: 'error',
          WORKER: 'off',
          NO_COLOR: '1',
        },
      },
    );
    dev = child;
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));

    await output.line(/^✓ serving \d+ operations/);
    // The loop prints once the contract is ready; the service may still be starting.
    const answering = () =>
      fetch(`${base}/openapi.json`).then(
        (response) => response.ok,
        () => false,
      );
    const deadline = Date.now() + WAIT_MS;
    while (!(await answering())) {
      if (Date.now() > deadline)
        throw new Error(`the service never answered /openapi.json:\n${output.text()}`);
      if (child.exitCode !== null) throw new Error(`npm run dev exited:\n${output.text()}`);
      await new Promise((wait) => setTimeout(wait, 100));
    }
    good = withSampleOperation(readFileSync(specFile, 'utf8'));

    mkdirSync(OUTPUT, { recursive: true });
    browser = await launchChromium();
    const { context } = browser;
    // Every request of every page, including ones the CSP then blocks.
    context.on('request', (request) => {
      requested.push(request.url());
    });
    docs = context.pages()[0] ?? (await context.newPage());
    explorer = await context.newPage();
    for (const page of [docs, explorer]) {
      loads.set(page, []);
      page.on('load', () => loads.get(page)!.push(performance.now()));
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
      });
      page.on('pageerror', (error) => pageErrors.push(error.message));
    }
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    if (dev?.pid !== undefined) await stopGroup(dev.pid);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('opens /docs and /docs/explorer, both listening for the contract', async () => {
    await open(docs, '/docs');
    await docs.locator('a[href*="/operation/"]').first().waitFor({ timeout: WAIT_MS });
    await open(explorer, '/docs/explorer');
    await explorer
      .locator('rapi-doc [id="link-get-/v1/patients"]')
      .first()
      .waitFor({ timeout: WAIT_MS });

    for (const page of [docs, explorer]) {
      expect(await navigationType(page)).toBe('navigate');
      expect(await page.locator(BANNER).count()).toBe(0);
    }
    expect(await docs.locator('a[href*="/operation/listReferrals" i]').count()).toBe(0);
    expect(Object.keys(await servedPaths())).not.toContain('/v1/referrals');
  }, 180_000);

  it('reloads both pages on their own when a saved operation is served', async () => {
    for (const page of [docs, explorer]) await mark(page);
    const docsReload = reloadOf(docs);
    const explorerReload = reloadOf(explorer);
    const linesBefore = output.lines.length;

    const savedAt = save(good);
    const [docsLoaded, explorerLoaded] = await Promise.all([docsReload, explorerReload]);
    const operation = docs.locator('a[href*="/operation/listReferrals" i]').first();
    await operation.waitFor({ state: 'attached', timeout: WAIT_MS });
    const docsShown = performance.now();
    await explorer
      .locator('rapi-doc [id="link-get-/v1/referrals"]')
      .first()
      .waitFor({ state: 'attached', timeout: WAIT_MS });
    const explorerShown = performance.now();
    const loopLine = await output.line(/^\+ GET \/v1\/referrals/, linesBefore);

    for (const page of [docs, explorer]) {
      // A new document, reached by reloading the old one: the page script's location.reload().
      expect(await marked(page)).toBe(false);
      expect(await navigationType(page)).toBe('reload');
      expect(loads.get(page)).toHaveLength(2);
    }
    expect(await docs.getByRole('heading', { name: 'List referrals' }).count()).toBe(1);
    expect((await api('/v1/referrals')).status).toBe(501);

    const ms = (at: number) => `${Math.round(at - savedAt)} ms`;
    console.log(
      `[test/browser/dev-reload] save → reloaded: /docs load ${ms(docsLoaded)}, ` +
        `operation shown ${ms(docsShown)}; /docs/explorer load ${ms(explorerLoaded)}, ` +
        `operation shown ${ms(explorerShown)}; npm run dev printed: ${loopLine.replaceAll(dir, '<copy>')}`,
    );
    await docs.screenshot({ path: join(OUTPUT, 'dev-reload-docs.png') });
  }, 180_000);

  it('shows a lint error as a banner without a reload and keeps serving the last good contract', async () => {
    for (const page of [docs, explorer]) await mark(page);
    const linesBefore = output.lines.length;

    // patient-care/operation-scopes: every operation must declare x-scopes.
    const savedAt = save(
      replaceOnce(
        good,
        `      description: The referrals of the account.\n${SCOPES}`,
        '      description: The referrals of the account.\n',
      ),
    );
    for (const page of [docs, explorer]) {
      const banner = page.locator(BANNER);
      await banner.waitFor({ timeout: WAIT_MS });
      await expect
        .poll(() => banner.textContent(), { timeout: WAIT_MS })
        .toMatch(/1 lint error\. Still serving the last good contract\./);
      expect(await banner.textContent()).toMatch(
        /openapi\.yaml:\d+:\d+ {2}error {2}patient-care\/operation-scopes .*does not declare x-scopes/,
      );
      expect(await banner.getAttribute('role')).toBe('alert');
    }
    const bannerShown = performance.now();
    await output.line(/^✗ 1 lint error · still serving the last good contract/, linesBefore);

    // The last good contract: the operation as it was, scopes and all.
    const served = (await servedPaths())['/v1/referrals'] as { get: Record<string, unknown> };
    expect(served.get['x-scopes']).toEqual(['patients:read']);
    expect((await api('/v1/referrals')).status).toBe(501);
    for (const page of [docs, explorer]) {
      expect(await marked(page)).toBe(true);
      expect(loads.get(page)).toHaveLength(2);
    }
    console.log(
      `[test/browser/dev-reload] save → lint banner on both pages: ${Math.round(bannerShown - savedAt)} ms`,
    );
    await docs.screenshot({ path: join(OUTPUT, 'dev-reload-banner.png') });

    // YAML that does not parse: the banner says so instead, still without a reload.
    save(replaceOnce(good, '      summary: List referrals\n', '      summary: [unclosed\n'));
    for (const page of [docs, explorer]) {
      await expect
        .poll(() => page.locator(BANNER).textContent(), { timeout: WAIT_MS })
        .toMatch(/the spec does not parse\. Still serving the last good contract\./);
      expect(await page.locator(BANNER).textContent()).toMatch(/openapi\.yaml:\d+:\d+ {2}error/);
      expect(await marked(page)).toBe(true);
    }
    expect(Object.keys(await servedPaths())).toContain('/v1/referrals');
    expect((await api('/v1/referrals')).status).toBe(501);
  }, 180_000);

  it('takes the banner away once the spec is fixed, without a reload', async () => {
    const savedAt = save(good);
    for (const page of [docs, explorer]) {
      await page.locator(BANNER).waitFor({ state: 'detached', timeout: WAIT_MS });
    }
    const cleared = performance.now();
    for (const page of [docs, explorer]) {
      expect(await marked(page)).toBe(true);
      expect(loads.get(page)).toHaveLength(2);
    }
    expect((await api('/v1/referrals')).status).toBe(501);
    console.log(
      `[test/browser/dev-reload] save of the fix → banner gone on both pages: ${Math.round(cleared - savedAt)} ms`,
    );
  }, 180_000);

  it('reloads a page whose stream opens only after a newer contract was swapped in', async () => {
    // The page is rendered from one contract, but its event stream is held back (Playwright
    // routes it) until a save has swapped in the next: the first state the page hears already
    // names the new contract, and the page must still see that it shows an older one.
    const page = await browser!.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    let release: () => void = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    await page.route(`**${EVENTS_PATH}`, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${base}/docs`, { timeout: WAIT_MS });
      // Redoc's operation headings end in a space (before their permalink).
      const heading = (name: string) =>
        page.locator('h2').filter({ hasText: new RegExp(`^${name}\\s*$`) });
      await heading('List referrals').waitFor({ timeout: WAIT_MS });
      const linesBefore = output.lines.length;
      const reloaded = page.waitForEvent('load', { timeout: WAIT_MS });

      save(
        replaceOnce(good, '      summary: List referrals\n', '      summary: List the referrals\n'),
      );
      // Printed once the service answers with the new contract.
      await output.line(/ · \d+ ms$/, linesBefore);
      release();
      await reloaded;
      await heading('List the referrals').waitFor({ timeout: WAIT_MS });
      expect(await navigationType(page)).toBe('reload');
    } finally {
      release();
      await page.close();
    }
  }, 180_000);

  it('made no request outside 127.0.0.1, broke no CSP rule and threw no page error', () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requestsElsewhere(requested, base)).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
