/**
 * The service under test, as `npm start` runs it: `server/main.ts` in a child process on
 * 127.0.0.1 and a free port, on a fresh database — a new SQLite file, or a new schema in a
 * PostgreSQL database — with the webhook worker off (no outbound calls) and rate limits high
 * enough that the fuzzer never meets a 429. Its keys are made in the database before it
 * starts: a test secret key and a test publishable key (createToken takes only that kind).
 */
import { spawn } from 'node:child_process';
import { openDb } from '../../server/db/open.js';
import type { Dialect } from '../../server/db/types.js';
import { setAccountApiVersion } from '../../server/keys/account.js';
import { createKey } from '../../server/keys/index.js';
import { advanceClaim } from '../../server/webhooks/clearinghouse.js';
import { stopChild, waitForHttp } from '../node/child-process.js';
import { freePort } from '../node/ports.js';
import { type ScratchDatabase, scratchDatabase } from '../node/scratch-database.js';

/** Where the service keeps its data. */
export interface DatabaseChoice {
  dialect: Dialect;
  /** PostgreSQL only: the database in which a fresh schema is made (and dropped after). */
  postgresUrl?: string;
  /** Environment overrides for the service (e.g. a low `RATE_LIMIT_TEST` to see a 429). */
  env?: Readonly<Record<string, string>>;
  /** Pin the account to this version (a client pinned by its account, not only by header). */
  pin?: string;
}

/** A running service. */
export interface Service {
  dialect: Dialect;
  baseUrl: string;
  port: number;
  secret: string;
  publishable: string;
  /** Sent as `PatientCare-Version` on every request when set (a run pinned to a version). */
  apiVersion?: string;
  /**
   * Moves a test claim one step as the clearinghouse simulator would (the service runs with
   * `WORKER=off`), so set-up can have claims with a ClaimResponse (every status but `submitted`).
   */
  advanceClaim(id: string): Promise<void>;
  /** Everything the process printed so far. */
  output(): string;
  /** Whether the process has exited (a crash, if before `stop`). */
  exited(): boolean;
  stop(): Promise<void>;
}

const HIGH_RATE = '1000000';

/** A fresh database for `choice`: its URL, and how to remove it afterwards. */
async function freshDatabase(choice: DatabaseChoice): Promise<ScratchDatabase> {
  if (choice.dialect === 'sqlite') return scratchDatabase('fuzz');
  try {
    return await scratchDatabase('fuzz', choice.postgresUrl ?? 'postgres://127.0.0.1:5432/test');
  } catch (error) {
    throw new Error(`${(error as Error).message}; set FUZZ_DATABASES=sqlite to fuzz without it`);
  }
}

/** Starts the service on a fresh database; `root` is the repository. */
export async function startService(
  root: string,
  choice: DatabaseChoice = { dialect: 'sqlite' },
): Promise<Service> {
  const { url: databaseUrl, drop } = await freshDatabase(choice);
  const db = await openDb(databaseUrl);
  const secret = (await createKey(db, { kind: 'secret', livemode: false })).secret;
  const publishable = (await createKey(db, { kind: 'publishable', livemode: false })).secret;
  if (choice.pin !== undefined) await setAccountApiVersion(db, choice.pin, Date.now());
  await db.close();

  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_TEST: HIGH_RATE,
      RATE_LIMIT_LIVE: HIGH_RATE,
      RATE_LIMIT_ANONYMOUS: HIGH_RATE,
      WORKER: 'off',
      LOG_LEVEL: 'warn',
      ...choice.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${baseUrl}/v1/patients`, 90_000, () => !exited());
  } catch (error) {
    await stopChild(child);
    await drop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return {
    dialect: choice.dialect,
    baseUrl,
    port,
    secret,
    publishable,
    async advanceClaim(id: string) {
      const db = await openDb(databaseUrl);
      try {
        await advanceClaim(db, id, Date.now(), 'submitted');
      } finally {
        await db.close();
      }
    },
    output: () => output,
    exited,
    async stop() {
      await stopChild(child);
      await drop();
    },
  };
}
