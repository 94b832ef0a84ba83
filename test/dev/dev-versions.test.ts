/**
 * `npm run dev` serves every version with its own contract, without a restart: in a copy of the
 * repository (its own `spec/versions/`), the loop runs while the owner narrows `limit` to 50
 * and ships it with `npm run spec:version -- 2027-01-01`. A client pinned to 2026-12-01 keeps
 * `limit=80` (its version's table judges it), 2027-01-01 gets 400, the older document is
 * served with its own bound, and editing the module is served at once too. Each save says in
 * one line whether the contract breaks the latest release and what `spec:version` would write.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../server/db/open.js';
import type { DevLoop, DevOptions } from '../../tooling/dev/loop.js';
import type { Reporter } from '../../tooling/dev/report.js';
import { freePort } from '../../tooling/node/ports.js';
import { makeKey } from '../support/keys.js';
import { copyRepository, runInCopy } from '../support/repo-copy.js';

const ROOT = process.cwd();
const NEW = '2027-01-01';
const WAIT_MS = 240_000;

async function until<T>(what: () => string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((wait) => setTimeout(wait, 200));
  }
}

describe('npm run dev with a version shipped while it runs', () => {
  let copy: string;
  let base: string;
  let key: string;
  let loop: DevLoop;
  const output: string[] = [];

  /** The status and error `param` of `GET /v1/patients?limit=N` pinned to `version`. */
  const limit = async (version: string, n: number) => {
    const response = await fetch(`${base}/v1/patients?limit=${n}`, {
      headers: { authorization: `Bearer ${key}`, 'PatientCare-Version': version },
    });
    const body = (await response.json()) as { error?: { param?: string } };
    return `${response.status} ${body.error?.param ?? ''}`.trim();
  };
  const printed = (pattern: RegExp) =>
    until(
      () => `output matching ${pattern}; printed:\n${output.join('\n')}`,
      async () => output.find((line) => pattern.test(line)),
    );
  let last = '';
  const served = (version: string, n: number, expected: string) =>
    until(
      () => `${version} limit=${n} → ${expected} (last: ${last}); printed:\n${output.join('\n')}`,
      async () => {
        last = await limit(version, n);
        return last === expected ? true : undefined;
      },
    );

  beforeAll(async () => {
    copy = copyRepository(ROOT, 'dev-versions-');
    const databaseUrl = `sqlite:${join(copy, 'service.db')}`;
    const db = await openDb(databaseUrl);
    key = (await makeKey(db)).secret;
    await db.close();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n')));
    // The copy's own loop: its modules, its spec, its generated/ (nothing here is touched).
    const { startDevLoop } = (await import(join(copy, 'tooling/dev/loop.ts'))) as {
      startDevLoop: (options: DevOptions) => DevLoop;
    };
    const { Reporter: CopyReporter } = (await import(join(copy, 'tooling/dev/report.ts'))) as {
      Reporter: new (out: NodeJS.WritableStream) => Reporter;
    };
    loop = startDevLoop({
      root: copy,
      specFile: join(copy, 'spec/openapi.yaml'),
      outDir: join(copy, 'generated'),
      handlersDir: join(copy, 'server/handlers'),
      remakeCommand: 'npm run generate',
      configPath: join(copy, 'redocly.yaml'),
      codeDirs: [join(copy, 'server'), join(copy, 'client')],
      ruleDirs: [],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'error',
        WORKER: 'off',
      },
      reporter: new CopyReporter(sink),
    });
    await loop.ready;
    await until(
      () => 'the service',
      async () => ((await fetch(`${base}/openapi.json`)).ok ? true : undefined),
    );
  }, 300_000);

  afterAll(async () => {
    await loop?.close();
    rmSync(copy, { recursive: true, force: true });
  }, 60_000);

  it('narrow limit, spec:version, edit the module: each version judged by its own table', async () => {
    expect(await limit('2026-12-01', 80)).toBe('200');
    expect(await limit(NEW, 80)).toBe('400 PatientCare-Version');

    const specFile = join(copy, 'spec/openapi.yaml');
    const text = readFileSync(specFile, 'utf8');
    const at = text.indexOf('maximum: 100', text.indexOf('    Limit:\n'));
    writeFileSync(specFile, `${text.slice(0, at)}maximum: 50${text.slice(at + 12)}`);
    const breaking = await printed(/breaking vs released 2026-12-01/);
    expect(breaking).toContain('/components/parameters/Limit/schema');
    expect(breaking).toContain('npm run spec:version -- <date> would write 1 document edit');
    await served('2026-12-01', 80, '400 limit');

    const shipped = runInCopy(copy, ['scripts/spec-version.ts', NEW]);
    expect(shipped.code, shipped.output).toBe(0);
    await served(NEW, 80, '400 limit');
    await served('2026-12-01', 80, '200');
    expect(await printed(/✓ compatible with released 2026-12-01 \(through/)).toContain(NEW);
    // The docs picker and documents follow: the newest is 2027-01-01, the older keeps 100.
    const newest = (await (await fetch(`${base}/openapi.json`)).json()) as {
      info: { version: string };
    };
    expect(newest.info.version).toBe(NEW);
    const older = (await (await fetch(`${base}/openapi.json?version=2026-12-01`)).json()) as {
      components: { parameters: { Limit: { schema: { maximum: number } } } };
    };
    expect(older.components.parameters.Limit.schema.maximum).toBe(100);

    // The module edited: served at once, still without a restart.
    const moduleFile = join(copy, `spec/versions/${NEW}.ts`);
    writeFileSync(
      moduleFile,
      readFileSync(moduleFile, 'utf8').replace(
        "at: '/schema/maximum', was: 100",
        "at: '/schema/maximum', was: 70",
      ),
    );
    await served('2026-12-01', 80, '400 limit');
    expect(await limit('2026-12-01', 70)).toBe('200');
    expect(output.some((line) => line.includes('↻'))).toBe(false);
  }, 600_000);
});
