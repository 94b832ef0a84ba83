/**
 * A temporary copy of this repository (the files git tracks or would track, with
 * `node_modules` linked), for tests that run the toolchain's commands as an owner would:
 * edit the spec, ship a version, generate, start the service, run the gate.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Copies the repository at `root` into a new temporary folder; returns the folder. */
export function copyRepository(root: string, prefix: string): string {
  const copy = mkdtempSync(join(tmpdir(), prefix));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f !== '' && !f.startsWith('node_modules/'));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    try {
      cpSync(join(root, file), join(copy, file));
    } catch {
      // a file deleted in the work tree but still listed
    }
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}

/** Runs a Node entry point of `cwd` under tsx; its exit code and output. */
export function runInCopy(cwd: string, args: string[]): { code: number; output: string } {
  try {
    const output = execFileSync(process.execPath, ['--import', 'tsx', ...args], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, output };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
