/**
 * `npm run worker`: webhook delivery and the test clearinghouse without the HTTP server (run
 * the server with `WORKER=off` then, or on PostgreSQL run as many of both as you like).
 * Reads DATABASE_URL, WEBHOOK_SCHEDULE, CLEARINGHOUSE_DELAY_MS, WEBHOOK_CONCURRENCY,
 * WEBHOOK_ALLOW_PRIVATE_TARGETS (and HOST, its default).
 */
import { openDb } from '../server/db/open.js';
import { loadBackgroundConfig, startBackgroundWork } from '../server/webhooks/background.js';

async function main(): Promise<void> {
  const config = { ...loadBackgroundConfig(), enabled: true };
  const db = await openDb(process.env.DATABASE_URL?.trim() || undefined);
  const log = {
    error: (obj: object, message: string) =>
      process.stderr.write(`${JSON.stringify({ level: 'error', msg: message, ...obj })}\n`),
  };
  const work = startBackgroundWork({ db, config, log });
  process.stdout.write('patient-care worker: delivering webhooks\n');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await work.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(
    `patient-care worker: could not start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
