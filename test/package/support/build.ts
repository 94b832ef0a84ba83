/**
 * Builds the client package for a test into its own folder under `build/` (inside the
 * repository, so the build's type resolution works), so test files running in parallel never
 * share an output.
 */
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildClientPackage } from '../../../tooling/build/client-package.js';

/** A built package and how to remove it. */
export interface BuiltPackage {
  /** The package folder (with `package.json` and `dist/`). */
  dir: string;
  version: string;
  remove(): Promise<void>;
}

/** Runs `build:client` into `build/test-<name>-<pid>/client`. */
export async function buildPackageForTest(name: string): Promise<BuiltPackage> {
  const root = resolve('.');
  const base = join(root, 'build', `test-${name}-${process.pid}`);
  const dir = join(base, 'client');
  const version = await buildClientPackage(root, dir);
  return { dir, version, remove: () => rm(base, { recursive: true, force: true }) };
}
