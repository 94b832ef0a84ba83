/**
 * A document Redocly's lint passes but the official OpenAPI 3.0 schema refuses
 * (test/fixtures/specs/required-empty.yaml: `required: []`) fails every command that reads a
 * spec, each naming the line: `npm run lint:spec`, `npm run generate` (writing nothing) and
 * `npm run spec:check`. The dev loop's refusal is in test/dev/dev-loop.test.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const FIXTURE = 'test/fixtures/specs/required-empty.yaml';
const LINE = `${FIXTURE}:293:17`;
const out = mkdtempSync(join(tmpdir(), 'required-empty-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function node(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { timeout: 180_000 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const TS = ['--import', './tooling/node/ts-resolve.mjs'];

describe.concurrent('required: [] is refused by every command, naming the line', {
  timeout: 240_000,
}, () => {
  it('npm run lint:spec: Redocly passes it, the OpenAPI 3.0 schema check does not', async () => {
    const { code, output } = await node([...TS, 'scripts/lint-spec.ts', FIXTURE]);
    expect(code).toBe(1);
    expect(output).toContain('Your API description is valid');
    expect(output).toContain(
      `${LINE}  error  openapi-3.0-schema  \`required\` must NOT have fewer than 1 items`,
    );
  });

  it('npm run generate: refuses and writes nothing', async () => {
    const dir = join(out, 'generated');
    const { code, output } = await node([
      ...TS,
      'scripts/generate.ts',
      '--spec',
      FIXTURE,
      '--out',
      dir,
    ]);
    expect(code).toBe(1);
    expect(output).toMatch(
      new RegExp(`error {2}${LINE} {2}#/components/schemas/PatientCreateParams/required {2}`),
    );
    expect(output).toContain('nothing was generated');
    expect(existsSync(dir)).toBe(false);
  });

  it('npm run spec:check: the lint step fails with the line', async () => {
    const { code, output } = await node([
      '--import',
      'tsx',
      'scripts/spec-check.ts',
      '--only',
      'lint',
      '--spec',
      FIXTURE,
    ]);
    expect(code).toBe(1);
    expect(output).toMatch(/^lint +FAIL/m);
    expect(output).toContain(`${LINE}  error  openapi-3.0-schema`);
    expect(output).toContain('spec:check FAILED: lint');
  });

  it('and each passes the same document without the mistake', async () => {
    const { code, output } = await node([
      ...TS,
      'scripts/lint-spec.ts',
      'test/fixtures/lint/valid.yaml',
    ]);
    expect(code, output).toBe(0);
    expect(output).toContain('valid against the official OpenAPI 3.0 schema');
  });
});
