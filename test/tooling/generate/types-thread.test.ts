/**
 * tooling/generate/types-thread.ts: `types.ts` made in a worker thread, which keeps its pieces in
 * the cache folder it is given (written when it is closed). Run in a child Node
 * with the repository's resolve hook, as `npm run generate` runs (a worker inherits it), since
 * vitest's own module loader does not reach into a worker thread.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PIECES_FILE } from '../../../tooling/generate/pieces-cache.js';
import { typesThreadWanted } from '../../../tooling/generate/types-thread.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const run = promisify(execFile);
const folder = mkdtempSync(join(tmpdir(), 'pc-types-thread-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const moduleUrl = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);

const SCRIPT = `
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTypesThread } from ${moduleUrl('tooling/generate/types-thread.ts')};
import { generateTypes } from ${moduleUrl('generators/types.ts')};
const document = JSON.parse(process.argv[2]);
const piecesFolder = process.argv[3];
const thread = startTypesThread({ piecesFolder });
const answer = {};
try {
  const first = thread.types(document);
  answer.sameRequest = thread.types(document) === first;
  answer.sameText = (await first) === generateTypes(document);
  answer.copyUntouched = JSON.stringify(document) === process.argv[2];
  const refusing = { ...document, paths: { '/x': { parameters: 'not a list' } } };
  let inThread;
  try { generateTypes(structuredClone(refusing)); } catch (error) { inThread = error.message; }
  answer.refused = await thread.types(refusing).then(() => 'no failure', (error) => error.message);
  answer.refusedInThread = inThread;
  const pending = thread.types({ ...document, info: { title: 'pending', version: '1' } });
  await thread.close();
  answer.afterClose = await pending.then(() => 'answered', (error) => error.message);
} finally {
  await thread.close();
}
answer.piecesWritten = existsSync(join(piecesFolder, 'types-pieces.json'));
const again = startTypesThread({ piecesFolder });
try {
  answer.sameTextFromPieces = (await again.types(document)) === generateTypes(document);
} finally {
  await again.close();
}
console.log(JSON.stringify(answer));
`;

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Thread', version: '1' },
  paths: {
    '/pets/{id}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'A pet',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string', readOnly: true }, name: { type: 'string' } },
      },
    },
  },
};

describe('the types thread', () => {
  it("answers with generateTypes' text, once per document, and with its failures", async () => {
    const script = join(folder, 'thread.mjs');
    writeFileSync(script, SCRIPT);
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        './tooling/node/ts-resolve.mjs',
        script,
        JSON.stringify(DOCUMENT),
        join(folder, 'pieces'),
      ],
      { cwd: ROOT },
    );
    const answer = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(answer.sameRequest).toBe(true);
    expect(answer.sameText).toBe(true);
    expect(answer.copyUntouched).toBe(true);
    expect(typeof answer.refusedInThread).toBe('string');
    expect(answer.refused).toBe(answer.refusedInThread);
    expect(answer.afterClose).toBe('the types thread was closed');
    expect(answer.piecesWritten).toBe(true);
    expect(answer.sameTextFromPieces).toBe(true);
  }, 60_000);

  it('is used when asked, not when refused, and the generated files are the same either way', async () => {
    expect(typesThreadWanted({ PATIENT_CARE_TYPES_THREAD: 'on' })).toBe(true);
    expect(typesThreadWanted({ PATIENT_CARE_TYPES_THREAD: 'off' })).toBe(false);
    // A whole run each way, nothing cached: `--check` passes only if every file (both versions'
    // types among them) is what the repository holds. A second run each way, without the run's
    // entry, makes types.ts from the pieces the first one kept (in the thread or in this one).
    for (const setting of ['on', 'off', 'on', 'off']) {
      const cache = join(folder, `cache-${setting}`);
      for (const name of existsSync(cache) ? readdirSync(cache) : [])
        if (name !== PIECES_FILE) rmSync(join(cache, name), { recursive: true, force: true });
      const { stdout } = await run(
        process.execPath,
        ['--import', './tooling/node/ts-resolve.mjs', 'scripts/generate.ts', '--check'],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            PATIENT_CARE_CACHE_DIR: cache,
            PATIENT_CARE_TYPES_THREAD: setting,
          },
        },
      );
      expect(stdout).not.toContain('cache:');
      expect(stdout).toMatch(/check: \d+ file\(s\) up to date/);
      expect(existsSync(join(cache, PIECES_FILE))).toBe(true);
    }
  }, 120_000);
});
