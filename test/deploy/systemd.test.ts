/**
 * deploy/systemd's units as systemd reads them: `systemd-analyze verify` (unknown keys, bad
 * values, a missing executable), where systemd-analyze is installed; else a notice and a skip.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const UNITS = join(import.meta.dirname, '..', '..', 'deploy', 'systemd');
const SERVICE = join(UNITS, 'patient-care.service');
const WORKER = join(UNITS, 'patient-care-worker.service');

const analyze = await run('systemd-analyze', ['--version']).then(
  () => true,
  () => false,
);
if (!analyze) console.warn('NOTICE: systemd-analyze is not installed; skipping the unit check.');

describe.skipIf(!analyze)('deploy/systemd', () => {
  it('passes systemd-analyze verify, warnings included', async () => {
    const { stdout, stderr } = await run('systemd-analyze', ['verify', SERVICE, WORKER]);
    expect(`${stdout}${stderr}`).toBe('');
  });

  it('refuses a unit with a misspelt key, so the check above can fail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-units-'));
    try {
      const broken = join(dir, 'patient-care.service');
      writeFileSync(broken, readFileSync(SERVICE, 'utf8').replace('Restart=', 'Restrat='));
      const result = await run('systemd-analyze', ['verify', broken]).then(
        (r) => `${r.stdout}${r.stderr}`,
        (error: { stdout?: string; stderr?: string }) => `${error.stdout}${error.stderr}`,
      );
      expect(result).toContain('Restrat');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the service unit', () => {
  const unit = readFileSync(SERVICE, 'utf8');

  it('runs the production build as its own user, restarted on failure, with the disk read-only', () => {
    expect(unit).toMatch(/^User=patient-care$/m);
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^ProtectSystem=strict$/m);
    expect(unit).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
    expect(unit).toMatch(/^ExecStart=.*node --max-semi-space-size=16 build\/server\/main\.js$/m);
  });
});
