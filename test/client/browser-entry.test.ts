import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

// The browser entry (`client/index.ts`, what generated/client.ts imports) must not reach
// Node-only modules; webhook verification (node:crypto) stays in its own module.
test('client/index.ts reaches no node: import and not the webhook module', () => {
  const root = new URL('../../client/', import.meta.url);
  const seen = new Set<string>();
  const imports: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(new URL(file, root), 'utf8');
    for (const [, spec] of text.matchAll(/from '([^']+)'/g)) {
      if (!spec) continue;
      imports.push(spec);
      if (spec.startsWith('./')) visit(spec.slice(2).replace(/\.js$/, '.ts'));
    }
  };
  visit('index.ts');
  expect(seen.size).toBeGreaterThan(5);
  expect(imports.filter((spec) => spec.startsWith('node:'))).toEqual([]);
  expect(seen.has('webhook.ts')).toBe(false);
});
