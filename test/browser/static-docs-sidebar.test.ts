/**
 * `npm run docs` on our spec renders the sidebar the served `/docs` shows: each topic once.
 * Errors, Pagination, Idempotency, Versioning and Webhooks are both a section of
 * `info.description` and a tag; the page renders `reference.json` (server/docs/reference-spec.ts),
 * where those sections live inside their tags, while `openapi.json` keeps the document as written.
 * Redocly's build-docs server-renders the sidebar, so the labels are read from the page itself.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TOPICS = ['Errors', 'Pagination', 'Idempotency', 'Versioning', 'Webhooks'];

/** The sidebar entries of a rendered page, in order (each label's `data-text`). */
function sidebarLabels(html: string): string[] {
  const label = /data-testid="menu-item-label"[^>]*>(?:(?!<\/li>)[\s\S])*?data-text="([^"]*)"/g;
  return [...html.matchAll(label)].map((match) => match[1] ?? '');
}

const h1s = (text: string) => [...text.matchAll(/^# (.+)$/gm)].map((match) => match[1]?.trim());

describe('npm run docs on spec/openapi.yaml', () => {
  const out = mkdtempSync(join(tmpdir(), 'pc-docs-sidebar-'));
  let labels: string[] = [];
  beforeAll(async () => {
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/docs.ts', '--spec', 'spec/openapi.yaml', '--out', out],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    labels = sidebarLabels(readFileSync(join(out, 'index.html'), 'utf8'));
  }, 180_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('lists each topic once in the sidebar', () => {
    // The reading found the sidebar: guides, tags and their groups.
    expect(labels).toEqual(expect.arrayContaining([...TOPICS, 'Guides', 'Patients', 'Claims']));
    for (const topic of TOPICS) expect(labels.filter((entry) => entry === topic)).toHaveLength(1);
    expect(labels.filter((entry, index) => labels.indexOf(entry) !== index)).toEqual([]);
  });

  it('renders reference.json and keeps openapi.json as written', () => {
    const read = (name: string) => JSON.parse(readFileSync(join(out, name), 'utf8'));
    const written = h1s(read('openapi.json').info.description);
    const rendered = h1s(read('reference.json').info.description);
    for (const topic of TOPICS) {
      expect(written).toContain(topic);
      expect(rendered).not.toContain(topic);
    }
  });
});
