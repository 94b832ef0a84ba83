/**
 * `npm run dev` end to end: the loop runs on a copy of the spec (so the repository's spec,
 * generated/ and server/handlers/ are untouched) with a real service process, and the tests
 * edit the copy the way a person would and watch what the service answers.
 */
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../generated/routes.js';
import { openDb } from '../../server/db/open.js';
import { type DevLoop, startDevLoop } from '../../tooling/dev/loop.js';
import { Reporter } from '../../tooling/dev/report.js';
import { SAMPLE, withSampleOperation } from '../../tooling/dev/sample-edit.js';
import { freePort } from '../../tooling/node/ports.js';
import { makeKey } from '../support/keys.js';

const ROOT = resolve('.');
const WAIT_MS = 90_000;

/** The spec with one operation (`withSampleOperation`) and one property (`nickname` on WebhookCreateParams) added. */
function edited(original: string): string {
  const withOperation = withSampleOperation(original);
  const anchor = `        description:
          type: string
          description: Your note on what the endpoint is for.
          maxLength: 500
        api_version:`;
  expect(withOperation.includes(anchor)).toBe(true);
  return withOperation.replace(
    anchor,
    anchor.replace(
      '        api_version:',
      '        nickname:\n          type: string\n          maxLength: 40\n        api_version:',
    ),
  );
}

async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

describe('npm run dev', () => {
  let dir: string;
  let specFile: string;
  let original: string;
  let base: string;
  let key: string;
  let loop: DevLoop;
  const output: string[] = [];

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
  const paths = async () =>
    Object.keys(((await (await fetch(`${base}/openapi.json`)).json()) as { paths: object }).paths);
  const printed = (pattern: RegExp) =>
    until(
      () => `output matching ${pattern}; printed:\n${output.join('\n')}`,
      async () => output.find((line) => pattern.test(line)),
    );
  /** The state the docs pages' event stream announces first. */
  const liveState = async () => {
    const response = await fetch(`${base}/docs/dev/events`);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n', text.indexOf('event: state'))) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const data = /event: state\ndata: (.*)\n/.exec(text)?.[1];
    return JSON.parse(data ?? 'null') as {
      contract: string;
      problem: { summary: string; lines: string[] } | null;
    };
  };
  /** The live state once the docs stream announces no problem. */
  const problemCleared = (what: string) =>
    until(what, async () => {
      const current = await liveState();
      return current.problem === null ? current : undefined;
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dev-loop-'));
    cpSync(join(ROOT, 'spec/openapi.yaml'), join(dir, 'spec/openapi.yaml'));
    cpSync(join(ROOT, 'spec/guides'), join(dir, 'spec/guides'), { recursive: true });
    cpSync(join(ROOT, 'server/handlers'), join(dir, 'handlers'), { recursive: true });
    specFile = join(dir, 'spec/openapi.yaml');
    original = readFileSync(specFile, 'utf8');
    const databaseUrl = `sqlite:${join(dir, 'service.db')}`;
    const db = await openDb(databaseUrl);
    key = (await makeKey(db)).secret;
    await db.close();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;

    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n')));
    loop = startDevLoop({
      root: ROOT,
      specFile,
      outDir: join(dir, 'generated'),
      handlersDir: join(dir, 'handlers'),
      remakeCommand: 'npm run dev',
      configPath: join(ROOT, 'redocly.yaml'),
      codeDirs: [],
      ruleDirs: [],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'error',
        WORKER: 'off',
      },
      reporter: new Reporter(sink),
    });
    await loop.ready;
    await until('the service', async () =>
      (await fetch(`${base}/openapi.json`)).ok ? true : undefined,
    );
  }, 180_000);

  afterAll(async () => {
    await loop?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('serves a saved edit without a restart: new operation (501), new property, /openapi.json', async () => {
    // The copy is the repository's spec, so the first contract has every operation it has.
    expect(output.some((line) => line.startsWith(`✓ serving ${routes.length} operations`))).toBe(
      true,
    );
    expect((await api(SAMPLE.path)).status).toBe(404);
    const webhook = { url: 'https://clinic.example/hooks', enabled_events: ['*'], nickname: 5 };
    const before = await api('/v1/webhooks', { method: 'POST', body: JSON.stringify(webhook) });
    expect(before.status).toBe(400);
    expect(((await before.json()) as { error: { code: string } }).error.code).toBe(
      'parameter_unknown',
    );

    writeFileSync(specFile, edited(original));
    await until('the new path in /openapi.json', async () =>
      (await paths()).includes(SAMPLE.path) ? true : undefined,
    );

    const added = await api(SAMPLE.path);
    expect(added.status).toBe(501);
    const body = (await added.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'api_error', code: 'not_implemented', param: null });
    expect(body.error.request_id).toMatch(/^req_/);

    const after = await api('/v1/webhooks', { method: 'POST', body: JSON.stringify(webhook) });
    expect(after.status).toBe(400);
    expect(
      ((await after.json()) as { error: { code: string; param: string } }).error,
    ).toMatchObject({
      code: 'parameter_invalid',
      param: 'nickname',
    });

    const line = await printed(new RegExp(`\\+ GET ${SAMPLE.path.replaceAll('/', '\\/')}`));
    expect(line).toMatch(/1 schema changed/);
    expect(line).toMatch(new RegExp(`stub added: ${SAMPLE.operationId}`));
    expect(line).toMatch(/\d+ ms$/);
    expect(readFileSync(join(dir, 'generated/routes.ts'), 'utf8')).toContain(SAMPLE.operationId);
    expect(readFileSync(join(dir, 'handlers', SAMPLE.handlerFile), 'utf8')).toContain(
      `notImplemented('${SAMPLE.operationId}')`,
    );
  }, 180_000);

  it('keeps the last good contract when the spec breaks, shows why, and recovers', async () => {
    const good = readFileSync(specFile, 'utf8');
    expect(good).toContain(`  ${SAMPLE.path}:\n`);
    const servedBefore = await liveState();
    expect(servedBefore.problem).toBeNull();

    // A lint error: two operations with one operationId.
    writeFileSync(
      specFile,
      good.replace(`operationId: ${SAMPLE.operationId}\n`, 'operationId: listPatients\n'),
    );
    const refused = await printed(/✗ \d+ lint errors? · still serving the last good contract/);
    expect(refused).toBeDefined();
    const finding = await printed(/openapi\.yaml:\d+:\d+ {2}error {2}operation-operationId-unique/);
    expect(finding).toBeDefined();
    const state = await until('the problem on the docs stream', async () => {
      const current = await liveState();
      return current.problem ? current : undefined;
    });
    expect(state.contract).toBe(servedBefore.contract);
    expect(state.problem!.lines.join('\n')).toMatch(/operation-operationId-unique/);
    expect((await api(SAMPLE.path)).status).toBe(501);
    expect(await paths()).toContain(SAMPLE.path);
    // The page names the contract it was rendered from, so it can tell it is stale even when
    // its event stream first opens after a newer contract was swapped in.
    const page = await (await fetch(`${base}/docs`)).text();
    const src = `/docs/dev/live-reload.js?contract=${servedBefore.contract}`;
    expect(page).toContain(`<script type="module" src="${src}"></script>`);
    const script = await fetch(`${base}${src}`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain("new EventSource('/docs/dev/events')");

    // Valid YAML that Redocly's lint passes but the official OpenAPI 3.0 schema refuses
    // (`required` needs at least one name): refused at its line, the contract kept.
    output.length = 0;
    const required = '      required:\n        - url\n        - enabled_events\n';
    const schema = good.indexOf('    WebhookCreateParams:\n');
    const at = good.indexOf(required, schema);
    expect(schema).toBeGreaterThan(0);
    expect(at).toBeGreaterThan(schema);
    const emptyRequired = `${good.slice(0, at)}      required: []\n${good.slice(at + required.length)}`;
    saveByRename(specFile, emptyRequired);
    const line = emptyRequired
      .slice(0, emptyRequired.indexOf('      required: []'))
      .split('\n').length;
    await printed(/✗ 1 lint error · still serving the last good contract/);
    expect(
      await printed(
        new RegExp(`openapi\\.yaml:${line}:17 {2}error {2}openapi-3\\.0-schema {2}\`required\``),
      ),
    ).toBeDefined();
    expect((await liveState()).contract).toBe(servedBefore.contract);
    expect(await paths()).toContain(SAMPLE.path);

    // YAML that does not parse: named by file, line and column. Saved the way editors' "safe
    // write" does (a new file renamed over the old), as is the fix below: the loop must still
    // see the save after the file it watched was replaced.
    output.length = 0;
    const summary = `      summary: ${SAMPLE.summary}\n`;
    const badIndent = `${summary}        indented: wrongly\n`;
    saveByRename(specFile, good.replace(summary, badIndent));
    await printed(/✗ the spec does not parse/);
    expect(await printed(/openapi\.yaml:\d+:\d+ {2}error/)).toBeDefined();
    expect(await paths()).toContain(SAMPLE.path);

    // Fixed: the banner goes away, the contract is the same one.
    saveByRename(specFile, good);
    const fixed = await problemCleared('the problem to clear');
    expect(fixed.contract).toBe(servedBefore.contract);
  }, 180_000);

  it('serves a spec whose only fault is an example, and shows the example error until fixed', async () => {
    const good = readFileSync(specFile, 'utf8');
    const servedBefore = await liveState();
    expect(servedBefore.problem).toBeNull();
    const example = `Only appointments in this status.
          required: false
          schema:
            $ref: '#/components/schemas/AppointmentStatus'
          example: booked
`;
    expect(good.split(example)).toHaveLength(2);
    output.length = 0;
    // Not one of AppointmentStatus's values: the examples' lint refuses it, nothing else does.
    saveByRename(specFile, good.replace(example, example.replace('booked', 'bookd')));
    await printed(/✗ 1 example error \(served/);
    expect(
      await printed(/openapi\.yaml:\d+:\d+ {2}error {2}no-invalid-parameter-examples/),
    ).toBeDefined();
    const state = await until('the example problem on the docs stream', async () => {
      const current = await liveState();
      return current.problem ? current : undefined;
    });
    // Served: the contract moved on (its document has the new example).
    expect(state.contract).not.toBe(servedBefore.contract);
    expect(state.problem!.summary).toMatch(/^1 example error/);
    expect(JSON.stringify(await (await fetch(`${base}/openapi.json`)).json())).toContain('bookd');

    saveByRename(specFile, good);
    const fixed = await problemCleared('the example problem to clear');
    expect(fixed.contract).toBe(servedBefore.contract);
  }, 180_000);
});

/** Saves like an editor's atomic write: the new text in a file beside it, renamed over it. */
function saveByRename(file: string, text: string): void {
  writeFileSync(`${file}.saving`, text);
  renameSync(`${file}.saving`, file);
}
