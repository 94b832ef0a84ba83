/**
 * The project runs on Node 24 on a machine whose own Node is older, with nothing sourced:
 * `npm ci` installs Node 24 (the `node` devDependency) into node_modules/.bin, which npm puts
 * first on PATH for every script. Each case runs with the PATH a fresh shell has (this run's
 * node_modules/.bin and any use-node.sh cache folder taken out), so the machine's own `node`
 * and `npm` come first. Where that Node is older than 24 (the machine's is 20), the cases
 * about an older Node check what it does; on a machine whose Node is already 24 they say so.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** PATH without node_modules/.bin folders and without use-node.sh's cached Node. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((entry) => !entry.includes('node_modules') && !entry.includes('patient-care'))
  .join(delimiter);
const machineEnv: NodeJS.ProcessEnv = { ...process.env, PATH: machinePath, FORCE_COLOR: '0' };
for (const name of Object.keys(machineEnv)) {
  // What npm exports to the script running this test (npm_config_nodedir, npm_lifecycle_…).
  if (name.startsWith('npm_')) delete machineEnv[name];
}

async function machineNodeMajor(): Promise<number> {
  try {
    const { stdout } = await run('node', ['-p', 'process.versions.node'], { env: machineEnv });
    return Number(stdout.split('.')[0]);
  } catch {
    return 0;
  }
}
const machineMajor = await machineNodeMajor();
const machineIsOld = machineMajor > 0 && machineMajor < 24;
if (!machineIsOld) {
  console.warn(
    `node-runtime: the machine's own Node is ${machineMajor || 'missing'}, not older than 24; the older-Node cases do not apply here`,
  );
}

describe('npm scripts on a machine with an older Node', () => {
  it('npm exec and npm run use the Node 24 that npm ci installed', {
    timeout: 120_000,
  }, async () => {
    const { stdout } = await run('npm', ['exec', '--', 'node', '-p', 'process.versions.node'], {
      cwd: ROOT,
      env: machineEnv,
    });
    const [major = 0, minor = 0] = stdout.trim().split('.').map(Number);
    expect(major * 1000 + minor, stdout).toBeGreaterThanOrEqual(24_018);
    // A command that needs Node 24 (better-sqlite3 13 crashes on Node 20) runs to its usage.
    const keys = await run('npm', ['run', '-s', 'keys', '--', '--help'], {
      cwd: ROOT,
      env: machineEnv,
    });
    expect(keys.stdout).toMatch(/^Usage: /);
  });

  it('every npm script that runs our code checks the Node version first', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const runsCode = Object.entries(scripts).filter(([, command]) =>
      /\b(?:scripts|bench)\/[\w-]+\.ts\b|\bvitest run\b/.test(command),
    );
    expect(runsCode.length).toBeGreaterThan(10);
    const unguarded = runsCode
      .filter(([, command]) => !command.startsWith('node scripts/check-node.mjs && '))
      .map(([name]) => name);
    // generate runs on Node 20 too (tooling/node/ts-resolve.mjs falls back to tsx's loader).
    expect(unguarded).toEqual(['generate']);
  });

  it.skipIf(!machineIsOld)(
    'an older Node gets one line naming the version it needs, exit 1',
    async () => {
      const failure = await run('node', [join(ROOT, 'scripts', 'check-node.mjs')], {
        env: machineEnv,
      }).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure?.code).toBe(1);
      const lines = (failure?.stderr ?? '').trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/needs Node\.js 24\.18 or newer; this is v\d+/);
      expect(lines[0]).toMatch(/npm ci/);
    },
  );
});

describe('.ci/use-node.sh', () => {
  const cache = mkdtempSync(join(tmpdir(), 'pc-use-node-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  function sourceIt(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(
        'bash',
        ['-c', 'source .ci/use-node.sh >/dev/null && node -p process.versions.node'],
        { cwd: ROOT, env: { ...machineEnv, XDG_CACHE_HOME: cache } },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it.skipIf(!machineIsOld)(
    'sourced by three shells at once, all end on Node 24 and the cache is whole',
    {
      timeout: 300_000,
    },
    async () => {
      const outcomes = await Promise.all([sourceIt(), sourceIt(), sourceIt()]);
      for (const outcome of outcomes) {
        expect(outcome.code, outcome.stderr).toBe(0);
        expect(outcome.stdout.trim()).toMatch(/^24\./);
      }
      const folder = join(cache, 'patient-care');
      // One copy in place, no staging folder left behind.
      expect(readdirSync(folder).sort()).toEqual(['node-24.21.0']);
      expect(existsSync(join(folder, 'node-24.21.0', 'bin', 'node'))).toBe(true);
      // And a later shell uses the cached copy.
      const again = await sourceIt();
      expect(again.stdout.trim()).toMatch(/^24\./);
    },
  );
});
