/**
 * PostgreSQL backups through PostgreSQL's own tools, `pg_dump` and `pg_restore` in their
 * custom format (compressed, restorable table by table), run as child processes. The password
 * of the URL goes to them in `PGPASSWORD`, never on a command line another user can list.
 * `pg_dump` reads one snapshot, so writes go on while it runs.
 */
import { spawn } from 'node:child_process';
import { CommandFailure } from '../cli/command.js';

/** What the tools need from a `postgres://` URL of ours. */
export interface PgTarget {
  /** The URL without its password, for `--dbname`. */
  readonly dbname: string;
  readonly env: Readonly<Record<string, string>>;
  /** The schema `?options=-c search_path=NAME` names, if any. */
  readonly schema: string | undefined;
}

/** Splits a `postgres://` URL into what `pg_dump`/`pg_restore` take. */
export function pgTarget(url: string): PgTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The URL may hold a password: never echoed.
    throw new CommandFailure('the PostgreSQL URL does not parse');
  }
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  const options = parsed.searchParams.get('options') ?? '';
  const schema = /search_path\s*=\s*"?([^\s,"]+)/.exec(options)?.[1];
  return {
    dbname: libpqQuery(parsed).toString(),
    env: password === '' ? {} : { PGPASSWORD: password },
    schema,
  };
}

/** The same database with `search_path` set to `schema` (for the checks after a restore). */
export function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return libpqQuery(parsed).toString();
}

/**
 * `url` with its query percent-encoded throughout: URLSearchParams writes a space as `+`,
 * which node-postgres reads as a space and libpq (the tools) as a plus sign.
 */
function libpqQuery(url: URL): URL {
  const query = [...url.searchParams]
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  url.search = query === '' ? '' : `?${query}`;
  return url;
}

/**
 * Runs a PostgreSQL client tool; resolves with its stdout, or fails in one line: the tool
 * missing, or the first line it printed on stderr.
 */
export function runPgTool(
  tool: 'pg_dump' | 'pg_restore',
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new CommandFailure(
          error.code === 'ENOENT'
            ? `${tool} is not installed (Debian: apt-get install postgresql-client, the server's major version or newer)`
            : `${tool} could not start (${error.code ?? error.message})`,
        ),
      );
    });
    child.once('close', (code) => {
      if (code === 0) return resolve(stdout);
      const first = stderr
        .split('\n')
        .map((line) => line.trim())
        .find((line) => line !== '');
      reject(new CommandFailure(`${tool} failed (exit ${code}): ${first ?? 'no message'}`));
    });
  });
}

/** Writes a custom-format dump of the database (or the URL's schema) to `file`. */
export async function dumpPostgres(url: string, file: string): Promise<void> {
  const target = pgTarget(url);
  await runPgTool(
    'pg_dump',
    [
      '--format=custom',
      `--file=${file}`,
      ...(target.schema === undefined ? [] : [`--schema=${target.schema}`]),
      `--dbname=${target.dbname}`,
    ],
    target.env,
  );
}

/** The schemas holding tables in the dump `file` (its table of contents). */
export async function dumpSchemas(file: string): Promise<string[]> {
  const list = await runPgTool('pg_restore', ['--list', file], {});
  const schemas = new Set<string>();
  // Entries read `ID; CATALOG OID TABLE SCHEMA NAME OWNER` (and `TABLE DATA SCHEMA …` for rows).
  for (const match of list.matchAll(/^\d+; \d+ \d+ TABLE (?!DATA )(\S+) \S+/gm))
    if (match[1] !== undefined) schemas.add(match[1]);
  return [...schemas];
}

/**
 * Restores the dump `file` into the database of `url`, in one transaction (all or nothing).
 * Owners and grants are left out: the restoring role owns what it restores, so a dump restores
 * on another server whose roles differ. `replace` drops the dump's objects first.
 */
export async function restorePostgres(url: string, file: string, replace: boolean): Promise<void> {
  const target = pgTarget(url);
  await runPgTool(
    'pg_restore',
    [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--single-transaction',
      ...(replace ? ['--clean', '--if-exists'] : []),
      `--dbname=${target.dbname}`,
      file,
    ],
    target.env,
  );
}
