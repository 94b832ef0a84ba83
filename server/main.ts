/**
 * Starts the service: `npm start` (or `node build/server/main.js` in a production install).
 * Reads and checks every setting first (a bad one: one line naming it, exit 2, nothing opened);
 * takes the one-server lock of a SQLite file; opens the database (running migrations);
 * creates the first test key on a fresh database; listens on HOST:PORT and then prints where
 * the API and its docs are, with a ready-to-paste request using the new key. While up, it
 * purges expired rows on the retention schedule (server/retention/). Shuts down gracefully on
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish (closing the app also stops
 * the retention schedule), flush the audit trail, close the database.
 */

import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { openAuditWriter } from './audit/index.js';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { DEFAULT_DATABASE_URL, openDb, prepareSqliteFolder, sqlitePathOf } from './db/open.js';
import { explainOpenError } from './db/open-errors.js';
import { lockSqliteForServer, type ServerLock, ServerLockError } from './db/server-lock.js';
import type { Db } from './db/types.js';
import { builtSiteDir, readPreparedDocs } from './docs/prepared.js';
import { setErrorDocBase } from './errors.js';
import { bufferedDestination } from './http/log-destination.js';
import { ensureInitialTestKey } from './keys/index.js';
import { releaseAbandonedClaims } from './repos/idempotency.js';
import { type AppBuilder, serviceHost } from './service-host.js';
import {
  type BackgroundConfig,
  loadBackgroundConfig,
  startBackgroundWork,
} from './webhooks/background.js';

function readSettings(): { config: ServerConfig; background: BackgroundConfig } {
  const config = loadConfig();
  try {
    return { config, background: loadBackgroundConfig() };
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The listening socket as a URL, for the banner and its curl (what reaches this process from
 * this machine, whatever PUBLIC_URL says): a wildcard host is reached as localhost.
 */
function listenUrl(config: ServerConfig, port: number): string {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Listens and answers the bound port (PORT=0 picks a free one). */
async function listenPort(
  app: FastifyInstance,
  address: { host: string; port: number },
): Promise<number> {
  await app.listen(address);
  const bound = app.server.address();
  return typeof bound === 'object' && bound ? bound.port : address.port;
}

/** The server lock (SQLite) and the open, migrated database; a bad DATABASE_URL: ConfigError. */
async function openDatabase(
  databaseUrl: string,
  sqlitePath: string | undefined,
): Promise<{ lock: ServerLock | undefined; db: Db }> {
  try {
    // The lock file sits beside the database: its folder first (made only for the default).
    prepareSqliteFolder(databaseUrl);
    const lock =
      sqlitePath !== undefined && sqlitePath !== ':memory:' && sqlitePath !== ''
        ? lockSqliteForServer(sqlitePath)
        : undefined;
    return { lock, db: await openDb(databaseUrl) };
  } catch (error) {
    const explained = explainOpenError(error, databaseUrl);
    throw explained === undefined ? error : new ConfigError(explained);
  }
}

/**
 * A failed listen, in one line: an address HOST cannot take is a setting to fix (exit 2); a
 * port in use is the machine's state (exit 1). `undefined` for other errors.
 */
function explainListenError(error: unknown): { message: string; exitCode: number } | undefined {
  const { code, syscall, hostname, address, port } = (error ?? {}) as {
    code?: string;
    syscall?: string;
    hostname?: string;
    address?: string;
    port?: number;
  };
  if (syscall === 'getaddrinfo') {
    return {
      message: `HOST ${hostname ?? ''} does not resolve to an address (${code})`,
      exitCode: 2,
    };
  }
  if (syscall !== 'listen') return undefined;
  if (code === 'EADDRINUSE') {
    return {
      message: `could not listen on ${address}:${port}: the port is in use by another process (set PORT, or stop that process)`,
      exitCode: 1,
    };
  }
  if (code === 'EADDRNOTAVAIL') {
    return { message: `HOST ${address} is not an address of this machine`, exitCode: 2 };
  }
  if (code === 'EACCES') {
    return {
      message: `PORT ${port} needs privileges this process lacks (use 1024 or above)`,
      exitCode: 2,
    };
  }
  return undefined;
}

async function main(): Promise<void> {
  const { config, background: backgroundConfig } = readSettings();
  const databaseUrl = config.databaseUrl ?? DEFAULT_DATABASE_URL;
  const sqlitePath = sqlitePathOf(databaseUrl);
  const { lock, db } = await openDatabase(databaseUrl, sqlitePath);
  // One server per SQLite file (the lock above): claims still `running` belong to a process
  // that died.
  if (db.dialect === 'sqlite') await releaseAbandonedClaims(db);
  const audit = openAuditWriter(db, {
    onError: (err) => app.log.error({ err }, 'audit batch failed; will retry'),
  });
  const logs = bufferedDestination();
  const appOptions = {
    db,
    config,
    audit,
    logger: { level: config.logLevel, stream: logs.stream },
    // Expired idempotency records, tokens and idle rate buckets are deleted while the app is
    // up; on PostgreSQL one process at a time does it (server/retention/).
    retention: config.retention,
    docs: {
      load: () => readPreparedDocs(builtSiteDir()),
      publicUrl: config.publicUrl,
      staticDir: 'build/docs',
    },
  };
  // `npm run dev` installs a host that builds the app on the contract it is serving (and its
  // docs prepared in memory) and swaps in a new app when the spec changes.
  const host = serviceHost();
  const build: AppBuilder = (overrides = {}) =>
    buildApp({
      ...appOptions,
      ...overrides,
      config: { ...appOptions.config, ...overrides.config },
      docs: { ...appOptions.docs, ...overrides.docs },
    });
  const app = host ? await host.start(build) : await build();
  // Webhook delivery and the test-mode clearinghouse (WORKER=off leaves them to `npm run worker`).
  const background = startBackgroundWork({ db, config: backgroundConfig, log: app.log });

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    try {
      await (host ? host.close() : app.close());
      await background.stop();
      await audit.close();
      await db.close();
      lock?.release();
      logs.flushSync();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  const address = { host: config.host, port: config.port };
  const port = host
    ? await host.listen(address, { ...config, db })
    : await listenPort(app, address);
  const base = listenUrl(config, port);
  // doc_url links are for clients, who reach the service at PUBLIC_URL when it is set.
  setErrorDocBase(config.publicUrl ?? base);
  // Created only once listening: a start that fails (port taken, say) must not make the one
  // key whose secret is shown only at creation and then print it nowhere.
  const secret = await ensureInitialTestKey(db);
  const lines = [`Patient-Care API listening on ${base}`];
  if (config.publicUrl !== undefined) {
    lines.push(
      `  Public:   ${config.publicUrl} (PUBLIC_URL: the server in /openapi.*, doc_url links)`,
    );
  }
  lines.push(`  Docs:     ${base}/docs`);
  if (secret !== null) {
    // Printed once: only its hash is stored, so this is the one chance to copy it.
    lines.push(
      `  Created the first test secret key (shown once, keep it): ${secret}`,
      `  Try it:   curl -H "Authorization: Bearer ${secret}" ${base}/v1/patients`,
    );
  } else {
    lines.push(
      '  Keys:     npm run keys -- create (a new test secret key), npm run keys -- list; in a production install, node build/cli.js keys …',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`patient-care: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof ServerLockError) {
    process.stderr.write(`patient-care: ${err.message}\n`);
    process.exit(1);
  }
  const listen = explainListenError(err);
  if (listen !== undefined) {
    process.stderr.write(`patient-care: ${listen.message}\n`);
    process.exit(listen.exitCode);
  }
  // No stack here: a driver error message can name the database URL; the log has details.
  process.stderr.write(
    `patient-care: could not start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
