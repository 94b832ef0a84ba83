/**
 * Headless Debian Chromium for the browser tests, driven by playwright-core (no browser
 * download). Each launch gets a throw-away profile; the flags keep Chromium from calling home
 * (updates, sync, background networking), so tests can assert that nothing leaves 127.0.0.1.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where `.ci/run` installs Chromium (`apt-get install -y chromium`). */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether Chromium is installed here. */
export const haveChromium = existsSync(CHROMIUM);

/** Prints why a browser test is skipped, when Chromium is missing; returns whether it is. */
export function warnIfNoChromium(testName: string): boolean {
  if (!haveChromium) {
    console.warn(
      `[${testName}] SKIPPED: ${CHROMIUM} not found. Install it with ` +
        '`apt-get install -y chromium` to run this browser test.',
    );
  }
  return !haveChromium;
}

/** A launched browser context and how to close it (and remove its profile). */
export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile. */
export async function launchChromium(
  viewport: { width: number; height: number } = { width: 1280, height: 900 },
): Promise<LaunchedChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'pc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The requested URLs that left `base`'s host (data: and blob: URLs stay in the page). */
export function requestsElsewhere(requested: readonly string[], base: string): string[] {
  const local = new URL(base).host;
  return requested.filter((url) => {
    const parsed = new URL(url);
    if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') return false;
    return parsed.host !== local;
  });
}
