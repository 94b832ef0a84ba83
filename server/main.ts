/**
 * Starts the service: `npm start`. Opens the database (running migrations), creates and prints
 * the first test key on a fresh database, listens on HOST:PORT, and shuts down gracefully on
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish, flush the audit trail, close
 * the database.
 */

import { buildApp } from './app.js';
import { openAuditWriter } from './audit/index.js';
import { ConfigError, loadConfig } from './config.js';
import { openDb } from './db/open.js';
import { bufferedDestination } from './http/log-destination.js';
import { ensureInitialTestKey } from './keys/index.js';
import { releaseAbandonedClaims } from './repos/idempotency.js';
import { type AppBuilder, serviceHost } from './service-host.js';
import { startBackgroundWork } from './webhooks/background.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDb(config.databaseUrl);
  // One server per SQLite file: claims still `running` belong to a process that died.
  if (db.dialect === 'sqlite') await releaseAbandonedClaims(db);
  const secret = await ensureInitialTestKey(db);
  if (secret !== null) {
    // Printed once: only its hash is stored, so this is the one chance to copy it.
    process.stdout.write(`Created the first test secret key (shown once, keep it): ${secret}\n`);
  }
  const audit = openAuditWriter(db, {
    onError: (err) => app.log.error({ err }, 'audit batch failed; will retry'),
  });
  const logs = bufferedDestination();
  const appOptions = {
    db,
    config,
    audit,
    logger: { level: config.logLevel, stream: logs.stream },
    docs: { specPath: 'spec/openapi.yaml', buildDir: 'build/docs' },
  };
  // `npm run dev` installs a host that swaps in a new app when the spec changes.
  const host = serviceHost();
  const build: AppBuilder = (overrides = {}) =>
    buildApp({ ...appOptions, ...overrides, docs: { ...appOptions.docs, ...overrides.docs } });
  const app = host ? await host.start(build) : await build();
  // Webhook delivery and the test-mode clearinghouse (WORKER=off leaves them to `npm run worker`).
  const background = startBackgroundWork({ db, log: app.log });

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
  await (host ? host.listen(address) : app.listen(address));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`patient-care: ${err.message}\n`);
  } else {
    // No stack here: a driver error message can name the database URL; the log has details.
    process.stderr.write(
      `patient-care: could not start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  }
  process.exit(1);
});
