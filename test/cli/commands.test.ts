/**
 * Every command-line entry point (each npm script that runs a file of `scripts/` or `bench/`,
 * plus the benches `npm run bench` runs) answers `--help` with usage and exit 0, and a bad
 * flag with one line on stderr, exit 2 and no side effect: no database file appears.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'pc-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** npm script (or bench file) → the file it runs. */
const COMMANDS: Readonly<Record<string, string>> = {
  build: 'scripts/build.ts',
  start: 'scripts/start.ts',
  dev: 'scripts/dev.ts',
  generate: 'scripts/generate.ts',
  'lint:spec': 'scripts/lint-spec.ts',
  docs: 'scripts/docs.ts',
  'spec:check': 'scripts/spec-check.ts',
  'spec:release': 'scripts/spec-release.ts',
  'spec:version': 'scripts/spec-version.ts',
  keys: 'scripts/keys.ts',
  audit: 'scripts/audit.ts',
  doctor: 'scripts/doctor.ts',
  worker: 'scripts/worker.ts',
  'webhooks:receive': 'scripts/receive-webhooks.ts',
  'build:client': 'scripts/build-client.ts',
  'test:fuzz': 'scripts/fuzz.ts',
  bench: 'scripts/bench.ts',
  'bench:generate': 'bench/generate.ts',
  'bench:corpus': 'bench/generate-corpus.ts',
  'bench:dev': 'bench/dev.ts',
  'bench:spec-check': 'bench/spec-check.ts',
  'bench:webhooks': 'bench/webhooks.ts',
  'bench:server': 'bench/server.ts',
  'bench:ceiling': 'bench/ceiling.ts',
  'bench:concurrency': 'bench/concurrency.ts',
  'bench:fhir': 'bench/fhir.ts',
  'bench:versions': 'bench/versions.ts',
  'bench:retention': 'bench/retention.ts',
  'bench:audit-verify': 'bench/audit-verify.ts',
  'bench:audit-wait': 'bench/audit-wait.ts',
  'bench:hostile': 'bench/hostile.ts',
  'bench/audit.ts': 'bench/audit.ts',
  'bench/db.ts': 'bench/db.ts',
};

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function invoke(file: string, args: string[], database: string): Promise<Outcome> {
  // scripts/start.ts is plain Node (it must run without dev tools); the rest run through tsx.
  const loader = file === 'scripts/start.ts' ? [] : ['--import', 'tsx'];
  try {
    const { stdout, stderr } = await run(process.execPath, [...loader, file, ...args], {
      env: { ...process.env, DATABASE_URL: `sqlite:${database}`, FORCE_COLOR: '0' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the command table', () => {
  it('covers every npm script that runs a file of scripts/ or bench/', () => {
    const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<
      string,
      string
    >;
    const entryScripts = Object.entries(scripts)
      .filter(([, command]) => /\b(?:scripts|bench)\/[\w-]+\.ts\b/.test(command))
      .map(([name]) => name);
    expect(entryScripts.filter((name) => COMMANDS[name] === undefined)).toEqual([]);
  });
});

// Concurrent: each case is a process start (~2-3 s under tsx); they share nothing.
describe.concurrent.each(Object.entries(COMMANDS))('%s', (name, file) => {
  // Generous: several process starts at once on a shared machine take a while.
  it('--help and -h print usage and exit 0', { timeout: 120_000 }, async () => {
    for (const flag of ['--help', '-h']) {
      const database = join(dir, `${name.replace(/\W/g, '_')}-help.db`);
      const res = await invoke(file, [flag], database);
      expect(res.code, `${flag}: ${res.stderr}`).toBe(0);
      expect(res.stdout).toMatch(/^Usage: /);
      expect(existsSync(database)).toBe(false);
    }
  });

  it('a bad flag is one line on stderr, exit 2, no stack, nothing opened', {
    timeout: 120_000,
  }, async () => {
    const database = join(dir, `${name.replace(/\W/g, '_')}-bad.db`);
    const res = await invoke(file, ['--no-such-flag'], database);
    expect(res.code, res.stderr).toBe(2);
    const lines = res.stderr.trim().split('\n');
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/no-such-flag/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(database)).toBe(false);
  });
});
