/**
 * The spec as the reference loads it (server/docs/reference-spec.ts), on our spec: a topic
 * that is both a description section and a guide becomes one guide holding both texts, and
 * the Errors guide has an anchored entry for every code of the error registry.
 */
import { describe, expect, it } from 'vitest';
import { errorCodeAnchor, referenceSpec } from '../../server/docs/reference-spec.js';
import { ERROR_CODES, errorSpec } from '../../server/errors.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';

type Json = Record<string, unknown>;
const h1s = (text: string) => [...text.matchAll(/^# (.+)$/gm)].map((match) => match[1]?.trim());

describe('referenceSpec on spec/openapi.yaml', async () => {
  const spec = (await bundleSpec('spec/openapi.yaml')) as unknown as Json;
  const before = JSON.stringify(spec);
  const shaped = referenceSpec(spec);
  const description = (document: Json) => String((document.info as Json).description);
  const tag = (document: Json, name: string) =>
    (document.tags as Json[]).find((entry) => entry.name === name) as Json;
  const tagNames = (spec.tags as Json[]).map((entry) => String(entry.name));
  const doubled = h1s(description(spec)).filter((title) => tagNames.includes(String(title)));

  it('finds the topics the sidebar showed twice', () => {
    expect(doubled).toEqual(
      expect.arrayContaining(['Errors', 'Pagination', 'Idempotency', 'Versioning']),
    );
  });

  it('keeps each doubled topic once: its section moves into its tag, after Rules', () => {
    const titles = h1s(description(shaped));
    for (const topic of doubled) {
      expect(titles).not.toContain(topic);
      const section = description(spec).split(`# ${topic}\n`)[1]?.split(/^# /m)[0]?.trim() ?? '';
      expect(section.length).toBeGreaterThan(100);
      expect(String(tag(shaped, String(topic)).description)).toContain(`**Rules**\n\n${section}`);
    }
    // Every other section stays where it was, in order.
    expect(titles).toEqual(h1s(description(spec)).filter((title) => !doubled.includes(title)));
    // The guide's own text is still first.
    const errors = String(tag(spec, 'Errors').description).trim();
    expect(String(tag(shaped, 'Errors').description).startsWith(errors)).toBe(true);
  });

  it('gives every error code an anchored entry in the Errors guide', () => {
    const text = String(tag(shaped, 'Errors').description);
    for (const code of ERROR_CODES) {
      const { status, type } = errorSpec(code);
      expect(text).toContain(
        `<a id="${errorCodeAnchor(code)}"></a>**\`${code}\`** · ${status} · \`${type}\``,
      );
    }
  });

  it('leaves the document it was given unchanged', () => {
    expect(JSON.stringify(spec)).toBe(before);
    expect(shaped.paths).toBe(spec.paths);
  });
});
