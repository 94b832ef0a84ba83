/**
 * `npm run dev` when its service cannot start (here: another server holds the SQLite file):
 * the loop says the service could not start, and never that it is serving.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { lockSqliteForServer } from '../../server/db/server-lock.js';
import { startDevLoop } from '../../tooling/dev/loop.js';
import { Reporter } from '../../tooling/dev/report.js';
import { freePort } from '../../tooling/node/ports.js';

const ROOT = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'dev-start-failure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run dev with a service that cannot start', () => {
  it('reports the failed start and does not claim to serve', { timeout: 180_000 }, async () => {
    cpSync(join(ROOT, 'spec/openapi.yaml'), join(dir, 'spec/openapi.yaml'));
    cpSync(join(ROOT, 'spec/guides'), join(dir, 'spec/guides'), { recursive: true });
    cpSync(join(ROOT, 'server/handlers'), join(dir, 'handlers'), { recursive: true });
    const database = join(dir, 'service.db');
    const lock = lockSqliteForServer(database);
    const output: string[] = [];
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n')));
    const port = await freePort();
    const loop = startDevLoop({
      root: ROOT,
      specFile: join(dir, 'spec/openapi.yaml'),
      outDir: join(dir, 'generated'),
      handlersDir: join(dir, 'handlers'),
      remakeCommand: 'npm run dev',
      configPath: join(ROOT, 'redocly.yaml'),
      codeDirs: [join(dir, 'handlers')],
      ruleDirs: [],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${database}`,
        LOG_LEVEL: 'error',
        WORKER: 'off',
      },
      reporter: new Reporter(sink),
    });
    try {
      await loop.ready;
      const failed = output.filter((line) => line.includes('could not start'));
      expect(failed, output.join('\n')).toHaveLength(1);
      expect(failed[0]).toMatch(
        /^✗ the service could not start \(exit code 1; its reason is printed above\) · not serving; fix that, then save a file under .*handlers\/ to start it again$/,
      );
      expect(output.filter((line) => /serving \d+ operation/.test(line))).toEqual([]);
      expect(output.join('\n')).not.toMatch(/fix the code/);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      await loop.close();
      lock.release();
    }
  });
});
