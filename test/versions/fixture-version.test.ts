/**
 * Shipping a version with a document edit only, in a temporary copy of the repository: the
 * fixture version 2027-01-01 narrows `limit` from 100 to 50, and its module says only that the
 * previous version's maximum was 100 (no converter, no date typed into `ApiVersion` or a header
 * enum). After `npm run generate` in the copy, the copy's service (SQLite and PostgreSQL) gives
 * a client pinned to 2026-12-01 the old bound and the newest version the new one, and the gate
 * passes. Without the edit the gate fails and the pinned client loses its bound: the edit is
 * what protects it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../server/db/types.js';
import { startService } from '../../tooling/fuzz/service.js';
import { POSTGRES_URL, postgresAvailable } from '../support/databases.js';
import { copyRepository, runInCopy } from '../support/repo-copy.js';

const ROOT = process.cwd();
const NEW = '2027-01-01';
let copy: string;

const MODULE = (
  edits: string,
) => `import { defineVersion, noConversions } from '../../contract/version-change.js';

export const change = defineVersion({
  ...noConversions(),
  date: '${NEW}',
  description: 'List pages hold at most 50 objects.',
  changelog: [
    'Breaking: \`/components/parameters/Limit\` allows at most 50 objects a page (was 100). Clients pinned to 2026-12-01 keep 100.',
  ],
  document: [${edits}],
});
`;

/** Runs a Node entry point of the copy under tsx; returns its exit code and output. */
const run = (args: string[]) => runInCopy(copy, args);

/** Writes the fixture module (with or without its document edit) and regenerates the copy. */
function ship(withEdit: boolean): void {
  const edit = withEdit ? `{ parameter: 'Limit', at: '/schema/maximum', was: 100 }` : '';
  writeFileSync(join(copy, `spec/versions/${NEW}.ts`), MODULE(edit));
  const generated = run(['scripts/generate.ts']);
  expect(generated.code, generated.output).toBe(0);
}

/** The gate's breaking step in the copy, against this repository's spec as the base. */
function gate(): { code: number; output: string } {
  return run(['scripts/spec-check.ts', '--base', join(ROOT, 'spec/openapi.yaml')]);
}

async function limits(dialect: Dialect): Promise<Record<string, number>> {
  const service = await startService(copy, {
    dialect,
    ...(dialect === 'postgres' ? { postgresUrl: POSTGRES_URL } : {}),
  });
  try {
    const status = async (version: string) =>
      (
        await fetch(`${service.baseUrl}/v1/patients?limit=80`, {
          headers: { Authorization: `Bearer ${service.secret}`, 'PatientCare-Version': version },
        })
      ).status;
    return { '2026-12-01': await status('2026-12-01'), [NEW]: await status(NEW) };
  } finally {
    await service.stop();
  }
}

beforeAll(() => {
  copy = copyRepository(ROOT, 'fixture-version-');
  const spec = join(copy, 'spec/openapi.yaml');
  let text = readFileSync(spec, 'utf8').replace("  version: '2026-12-01'", `  version: '${NEW}'`);
  text = text.replace(
    'description: How many objects to return, 1 to 100.\n      required: false\n      schema:\n        type: integer\n        minimum: 1\n        maximum: 100',
    'description: How many objects to return, 1 to 50.\n      required: false\n      schema:\n        type: integer\n        minimum: 1\n        maximum: 50',
  );
  expect(text).toContain('maximum: 50');
  writeFileSync(spec, text);
  const index = join(copy, 'spec/versions/index.ts');
  writeFileSync(
    index,
    readFileSync(index, 'utf8')
      .replace(
        "import { change as v2026_12_01 } from './2026-12-01.js';",
        `import { change as v2026_12_01 } from './2026-12-01.js';\nimport { change as v2027_01_01 } from './${NEW}.js';`,
      )
      .replace('v2026_12_01]', 'v2026_12_01, v2027_01_01]'),
  );
  const changelog = join(copy, 'spec/CHANGELOG.md');
  writeFileSync(
    changelog,
    readFileSync(changelog, 'utf8').replace(
      '## 2026-12-01',
      `## ${NEW}\n\n- Breaking: \`/components/parameters/Limit\` allows at most 50 objects a page (was 100). Clients pinned to 2026-12-01 keep 100.\n\n## 2026-12-01`,
    ),
  );
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe(`a version shipped with a document edit only (${NEW})`, () => {
  it('protects the previous version on both databases, and the gate passes', async () => {
    ship(true);
    // Nothing typed into ApiVersion or the header enums: the generated types list the date.
    expect(readFileSync(join(copy, 'generated/types.ts'), 'utf8')).toContain(`"${NEW}"`);
    const old = readFileSync(join(copy, 'generated/versions/2026-12-01/routes.ts'), 'utf8');
    expect(old).toContain("limit: { type: 'integer', minimum: 1, maximum: 100 }");
    const dialects: Dialect[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
    for (const dialect of dialects) {
      expect(await limits(dialect), dialect).toEqual({ '2026-12-01': 200, [NEW]: 400 });
    }
    // The whole gate: lint, drift, types of generated/ and the breaking check (the narrowing
    // is listed in the changelog and covered by the module).
    const outcome = gate();
    expect(outcome.output).toMatch(/^breaking\s+PASS/m);
    expect(outcome.code, outcome.output).toBe(0);
  }, 600_000);

  it('without the edit the gate fails and the pinned client would lose its bound', async () => {
    ship(false);
    expect(await limits('sqlite')).toEqual({ '2026-12-01': 400, [NEW]: 400 });
    const outcome = gate();
    expect(outcome.code).not.toBe(0);
    expect(outcome.output).toMatch(/^breaking\s+FAIL/m);
    expect(outcome.output).toContain('/components/parameters/Limit');
  }, 600_000);
});
