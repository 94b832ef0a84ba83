/**
 * `npm run worker`: webhook delivery and the test clearinghouse without the HTTP server (run
 * the server with `WORKER=off` then, or on PostgreSQL run as many of both as you like).
 * Reads DATABASE_URL, WEBHOOK_SCHEDULE, CLEARINGHOUSE_DELAY_MS, WEBHOOK_CONCURRENCY,
 * WEBHOOK_ALLOW_PRIVATE_TARGETS (and HOST, its default).
 */
import { openDb } from '../server/db/open.js';
import { loadBackgroundConfig, startBackgroundWork } from '../server/webhooks/background.js';
import { runCommand, UsageError } from '../tooling/cli/command.js';

await runCommand(
  {
    name: 'npm run worker --',
    prefix: 'patient-care worker',
    summary:
      'Delivers webhooks and runs the test-mode clearinghouse without the HTTP server, until SIGTERM/SIGINT.',
    options: {},
    notes: [
      'Environment: DATABASE_URL, WEBHOOK_SCHEDULE, CLEARINGHOUSE_DELAY_MS, WEBHOOK_CONCURRENCY,',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS (default: on only when HOST is loopback); see README.md.',
    ],
  },
  async () => {
    let config: ReturnType<typeof loadBackgroundConfig>;
    try {
      config = { ...loadBackgroundConfig(), enabled: true };
    } catch (error) {
      // A setting the operator gave: a usage error, named in one line.
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
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
    return 0;
  },
);
