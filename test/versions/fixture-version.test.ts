/**
 * Shipping a version with a document edit only, in a temporary copy of the repository: the
 * owner narrows `limit` from 100 to 50 and `npm run spec:version` writes the module of 2027-01-01,
 * which says only that the previous version's maximum was 100 (no converter, no date typed into
 * `ApiVersion` or a header enum), plus the prose edits that keep older documents' wording.
 * After `npm run generate` in the copy, the copy's service (SQLite and PostgreSQL) gives a client
 * pinned to 2026-12-01 the old bound and the newest version the new one, and the gate passes.
 * With the module's `Limit` edit taken out, the gate fails and the pinned client loses its
 * bound: the edit is what protects it.
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

const LIMIT_EDIT = "{ parameter: 'Limit', at: '/schema/maximum', was: 100 }";
/** The module spec:version wrote (beforeAll). */
let written: string;

/** Runs a Node entry point of the copy under tsx; returns its exit code and output. */
const run = (args: string[]) => runInCopy(copy, args);

/** Writes the module as shipped, or with its `Limit` edit taken out, and regenerates the copy. */
function ship(withEdit: boolean): void {
  const text = withEdit ? written : written.replace(`${LIMIT_EDIT},`, '').replace(LIMIT_EDIT, '');
  if (!withEdit) expect(text).not.toContain(LIMIT_EDIT);
  writeFileSync(join(copy, `spec/versions/${NEW}.ts`), text);
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
  const text = readFileSync(spec, 'utf8').replace(
    'description: How many objects to return, 1 to 100.\n      required: false\n      schema:\n        type: integer\n        minimum: 1\n        maximum: 100',
    'description: How many objects to return, 1 to 50.\n      required: false\n      schema:\n        type: integer\n        minimum: 1\n        maximum: 50',
  );
  expect(text).toContain('maximum: 50');
  writeFileSync(spec, text);
  const shipped = run(['scripts/spec-version.ts', NEW]);
  expect(shipped.code, shipped.output).toBe(0);
  written = readFileSync(join(copy, `spec/versions/${NEW}.ts`), 'utf8');
  expect(written).toContain(LIMIT_EDIT);
}, 600_000);
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
