/**
 * The client as integrators get it: `build:client` output, packed with `npm pack`, installed
 * from the tarball into an empty project, which type-checks a small TypeScript file against the
 * package's declarations (`tsc`, strict) and runs it against the service listening on
 * 127.0.0.1. The browser entry's import graph must not reach a Node built-in.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookPayload } from '../../contract/webhook-signature.js';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { createKey } from '../../server/keys/store.js';
import { versions } from '../../server/versioning/index.js';
import { importGraph, isNodeBuiltin } from '../../tooling/build/client-package.js';
import { freePort } from '../../tooling/node/ports.js';
import { type BuiltPackage, buildPackageForTest } from './support/build.js';

const run = promisify(execFile);
const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
const TSC = resolve('node_modules/typescript/bin/tsc');

// The consumer: strict TypeScript using both entries, with one deliberate type error that
// must be caught (so the declarations are real types, not `any`).
const CONSUMER = `import {
  apiVersion,
  createPatientCareClient,
  type PatientCareClient,
  type RequestSchemas,
  type Schemas,
} from '@patient-care/client';
import { signWebhookPayload, verifyWebhook } from '@patient-care/client/webhooks';

const baseUrl = process.env.PC_BASE_URL;
const apiKey = process.env.PC_API_KEY;
if (!baseUrl || !apiKey) throw new Error('PC_BASE_URL and PC_API_KEY are required');
const client: PatientCareClient = createPatientCareClient({ apiKey, baseUrl });

const params: RequestSchemas['PatientCreateParams'] = { name: { family: 'Consumer' } };
const created = await client.createPatient({ body: params });
if (created.error) throw new Error('createPatient failed: ' + created.error.error.code);
const patient: Schemas['Patient'] = created.data;
const read = await client.retrievePatient({ params: { path: { id: patient.id } } });
const missing = await client.retrievePatient({
  params: { path: { id: 'pat_00000000000000000000000000' } },
});
const wrongParam = () =>
  // @ts-expect-error: the path parameter is \`id\`
  client.retrievePatient({ params: { path: { patient: patient.id } } });
void wrongParam;

const body = JSON.stringify({ id: 'evt_1', type: 'patient.created' });
const header = signWebhookPayload(body, 'whsec_consumer', Math.floor(Date.now() / 1000));
const verified = verifyWebhook(body, header, 'whsec_consumer');

console.log(
  JSON.stringify({
    apiVersion,
    createdId: patient.id,
    readStatus: read.response.status,
    readFamily: read.data?.name.family,
    missingCode: missing.error?.error.code,
    webhookEvent: verified.event?.id,
  }),
);
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    outDir: 'out',
    types: ['node'],
    // @types/node of the repository: the consumer needs `process`, nothing of ours does.
    typeRoots: [resolve('node_modules/@types')],
  },
  // broken.ts is the consumer without its @ts-expect-error line: one tsc run checks both
  // (tsc still emits consumer.js next to the expected error). readme-*.ts are the guide's
  // TypeScript blocks, each a module of its own.
  files: ['consumer.ts', 'broken.ts'],
  include: ['readme-*.ts'],
};

/** The fenced blocks of one language in a README, in order. */
const fencedBlocks = (markdown: string, language: 'js' | 'ts') =>
  [...markdown.matchAll(new RegExp(`^\`\`\`${language}\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (match) => match[1] ?? '',
  );

describe('the client package', () => {
  let built: BuiltPackage;
  let project: string;
  let tarball: string;
  let db: Db;
  let app: FastifyInstance;
  let baseUrl: string;
  let secret: string;
  let tscOutput: string;
  let tsBlocks: string[] = [];

  beforeAll(async () => {
    built = await buildPackageForTest('package');
    project = await mkdtemp(join(tmpdir(), 'pc-client-consumer-'));
    const { stdout } = await run('npm', [
      'pack',
      built.dir,
      '--json',
      '--pack-destination',
      project,
    ]);
    tarball = join(project, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await run('npm', ['install', tarball, ...NPM_FLAGS], { cwd: project });
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    // The guide's TypeScript blocks, from the installed package's README.
    const guide = await readFile(
      join(project, 'node_modules', '@patient-care', 'client', 'README.md'),
      'utf8',
    );
    tsBlocks = fencedBlocks(guide, 'ts');
    for (const [index, block] of tsBlocks.entries()) {
      await writeFile(join(project, `readme-${index}.ts`), block);
    }
    await writeFile(join(project, 'consumer.ts'), CONSUMER);
    await writeFile(
      join(project, 'broken.ts'),
      CONSUMER.replace(/\s*\/\/ @ts-expect-error[^\n]*/, ''),
    );
    tscOutput = await run(process.execPath, [TSC, '-p', project]).then(
      ({ stdout }) => stdout,
      (error: { stdout: string }) => error.stdout,
    );

    db = await openDb('sqlite::memory:');
    ({ secret } = await createKey(db, { kind: 'secret', livemode: false }));
    app = await buildApp({ db });
    await app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 240_000);

  afterAll(async () => {
    await app?.close();
    await db?.close();
    if (project) await rm(project, { recursive: true, force: true });
    await built?.remove();
  });

  it('is named and versioned from info.version, with an exports map', async () => {
    const manifest = JSON.parse(await readFile(join(built.dir, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@patient-care/client');
    expect(manifest.version).toBe(versions.latest.replace(/-0?/g, '.'));
    expect(manifest.type).toBe('module');
    expect(Object.keys(manifest.exports)).toEqual(['.', './webhooks', './package.json']);
    expect(manifest.exports['.'].types).toBe('./dist/index.d.ts');
    expect(Object.keys(manifest.dependencies)).toContain('openapi-fetch');
    expect(tarball.endsWith(`patient-care-client-${manifest.version}.tgz`)).toBe(true);
  });

  it('has a browser entry whose import graph reaches no Node built-in', async () => {
    const browser = await importGraph(join(built.dir, 'dist/index.js'));
    expect(browser.files.length).toBeGreaterThan(5);
    expect(browser.bare).toEqual(['openapi-fetch']);
    expect(browser.files.some((file) => file.endsWith('webhook.js'))).toBe(false);
    // The scan does see Node imports where they are: the server entry.
    const server = await importGraph(join(built.dir, 'dist/webhooks.js'));
    expect(server.bare.filter(isNodeBuiltin)).toEqual(['node:crypto']);
  });

  it('type-checks a consumer that uses both entries (and catches a wrong parameter)', async () => {
    const errors = tscOutput.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors.filter((line) => !line.includes('broken.ts('))).toEqual([]);
    // Without the @ts-expect-error line, the wrong parameter is the one compile error.
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/broken\.ts\(\d+,\d+\): error TS\d+: .*'patient'/);
  });

  describe('README snippets, run as written', () => {
    let blocks: string[];
    beforeAll(async () => {
      const installed = join(project, 'node_modules', '@patient-care', 'client', 'README.md');
      blocks = fencedBlocks(await readFile(installed, 'utf8'), 'js');
      await writeFile(join(project, 'readme-call.mjs'), blocks[0] ?? '');
      await writeFile(join(project, 'readme-webhooks.mjs'), blocks[1] ?? '');
    });

    it('the package README shows the path from build to install', async () => {
      const text = await readFile(join(built.dir, 'README.md'), 'utf8');
      expect(text).toContain('npm run build:client');
      expect(text).toContain('npm pack ./build/client');
      expect(text).toContain(`npm install /path/to/patient-care-client-${built.version}.tgz`);
      expect(blocks).toHaveLength(2);
    });

    it('the server-side call with a secret key runs against the service', async () => {
      const { stdout } = await run(process.execPath, ['readme-call.mjs'], {
        cwd: project,
        env: { ...process.env, PATIENT_CARE_API_KEY: secret, PATIENT_CARE_URL: baseUrl },
      });
      expect(stdout.trim()).toMatch(
        /^created pat_[0-9A-HJKMNP-TV-Z]{26} · patients on the first page: [1-9]\d*$/,
      );
    }, 60_000);

    it('the guide is client/README.md, with the package version filled in', async () => {
      const source = await readFile('client/README.md', 'utf8');
      const installed = await readFile(join(built.dir, 'README.md'), 'utf8');
      expect(installed.split('\n')[0]).toBe(`# @patient-care/client ${built.version}`);
      expect(fencedBlocks(installed, 'ts')).toEqual(fencedBlocks(source, 'ts'));
      expect(fencedBlocks(installed, 'js')).toEqual(fencedBlocks(source, 'js'));
    });

    it('its TypeScript blocks type-check (strict) and run against the service', {
      timeout: 120_000,
    }, async () => {
      // Auth, errors, retries and idempotency, pagination, versions: at least one block each.
      expect(tsBlocks.length).toBeGreaterThanOrEqual(5);
      const errors = tscOutput.split('\n').filter((line) => line.includes('readme-'));
      expect(errors).toEqual([]);
      const outputs: string[] = [];
      for (const index of tsBlocks.keys()) {
        const { stdout } = await run(
          process.execPath,
          [join(project, 'out', `readme-${index}.js`)],
          {
            cwd: project,
            env: { ...process.env, PATIENT_CARE_API_KEY: secret, PATIENT_CARE_URL: baseUrl },
          },
        );
        outputs.push(stdout.trim());
      }
      const all = outputs.join('\n');
      expect(all).toMatch(/^pat_[0-9A-HJKMNP-TV-Z]{26} pending 2026-12-14T08:00:00Z$/m);
      expect(all).toMatch(/^no such patient 404 http:\/\/\S+\/docs\/errors#resource_missing$/m);
      expect(all).toContain('no answer after 1 attempt(s)');
      expect(all).toMatch(/^true true$/m);
      expect(all).toMatch(/^patients: [1-9]\d* · has_more: (true|false) (200)?$/m);
      expect(all).toContain(`${versions.latest} ${versions.latest}`);
    });

    it('the webhook receiver accepts a signed delivery and refuses a forged one', async () => {
      const port = await freePort();
      const receiver = spawn(process.execPath, ['readme-webhooks.mjs'], {
        cwd: project,
        env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: 'whsec_readme' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      receiver.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      receiver.stderr.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      try {
        const body = JSON.stringify({ id: 'evt_readme', type: 'patient.created' });
        const post = (signature: string) =>
          fetch(`http://127.0.0.1:${port}/`, {
            method: 'POST',
            headers: { 'patientcare-signature': signature },
            body,
          });
        const signed = signWebhookPayload(body, 'whsec_readme', Math.floor(Date.now() / 1000));
        let accepted: Response | undefined;
        for (let i = 0; i < 200 && accepted === undefined; i++) {
          if (receiver.exitCode !== null) throw new Error(`receiver exited:\n${out}`);
          accepted = await post(signed).catch(async () => {
            await new Promise((r) => setTimeout(r, 100));
            return undefined;
          });
        }
        expect(accepted?.status, out).toBe(200);
        const forged = await post(
          signWebhookPayload(body, 'whsec_other', Math.floor(Date.now() / 1000)),
        );
        expect(forged.status).toBe(400);
        for (let i = 0; i < 50 && !out.includes('evt_readme'); i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(out.trim()).toBe('patient.created evt_readme');
      } finally {
        receiver.kill();
      }
    }, 60_000);
  });

  it('runs against the local service', async () => {
    const { stdout } = await run(process.execPath, [join(project, 'out/consumer.js')], {
      cwd: project,
      env: { ...process.env, PC_BASE_URL: baseUrl, PC_API_KEY: secret },
    });
    const result = JSON.parse(stdout.trim());
    expect(result).toEqual({
      apiVersion: versions.latest,
      createdId: expect.stringMatching(/^pat_[0-9A-HJKMNP-TV-Z]{26}$/),
      readStatus: 200,
      readFamily: 'Consumer',
      missingCode: 'resource_missing',
      webhookEvent: 'evt_1',
    });
  }, 60_000);
});
