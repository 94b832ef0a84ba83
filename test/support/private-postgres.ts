/**
 * A private PostgreSQL cluster for tests that stop and restart the database (the shared one at
 * 127.0.0.1:5432 serves other suites and must never go down): `initdb` into a temporary
 * folder, `pg_ctl` on a free port of 127.0.0.1, run as the `postgres` user when the tests run
 * as root (PostgreSQL refuses to run as root). Durability is off (`fsync=off`): these tests
 * stop the server cleanly, they do not crash the machine.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../tooling/node/ports.js';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: open connections are closed, the server is gone when it resolves. */
  stop(): Promise<void>;
  /** Stops the server (if running) and deletes the folder. */
  dispose(): Promise<void>;
}

/** The newest installed PostgreSQL's `bin` folder, or undefined when none is installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** The `postgres` user's uid and gid from /etc/passwd, or undefined without one. */
export function postgresUser(): { uid: number; gid: number } | undefined {
  const passwd = existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8') : '';
  const fields = /^postgres:[^:]*:(\d+):(\d+):/m.exec(passwd);
  return fields === null ? undefined : { uid: Number(fields[1]), gid: Number(fields[2]) };
}

/** Why a private cluster cannot be made here, or undefined when it can. */
export function privatePostgresMissing(): string | undefined {
  if (postgresBin() === undefined) return 'no PostgreSQL server binaries in /usr/lib/postgresql';
  if (userInfo().uid === 0 && postgresUser() === undefined) {
    return 'running as root and there is no postgres user to run the server as';
  }
  return undefined;
}

/** Creates (initdb) and starts a private cluster. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error('no PostgreSQL server binaries');
  const dir = mkdtempSync(join(tmpdir(), 'patient-care-pg-'));
  const data = join(dir, 'data');
  // PostgreSQL refuses to run as root: as root, the folder and the server are postgres's.
  const owner = userInfo().uid === 0 ? postgresUser() : undefined;
  const asRoot = owner !== undefined;
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args])
      : run(join(bin, tool), args);
  await pg('initdb', [
    '-D',
    data,
    '--auth=trust',
    '--username=postgres',
    '--no-sync',
    '--encoding=UTF8',
    '--locale=C',
  ]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      running = true;
    },
    async stop() {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async dispose() {
      if (running) await cluster.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
