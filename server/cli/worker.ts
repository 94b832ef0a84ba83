/**
 * `worker`: webhook delivery, the test clearinghouse and the retention schedule without the
 * HTTP server (run the server with `WORKER=off` then, or on PostgreSQL run as many of both as
 * you like), until SIGTERM or SIGINT.
 */
import { loadRetentionConfig } from '../config.js';
import { openDb } from '../db/open.js';
import { startRetention } from '../retention/scheduler.js';
import { loadBackgroundConfig, startBackgroundWork } from '../webhooks/background.js';
import { UsageError } from './command.js';
import type { OperatorCommand } from './operator.js';

export const workerCommand: OperatorCommand = {
  spec: {
    name: 'patient-care worker',
    prefix: 'patient-care worker',
    summary:
      'Delivers webhooks, runs the test-mode clearinghouse and purges expired rows without the HTTP server, until SIGTERM/SIGINT.',
    options: {},
    notes: [
      'Environment: DATABASE_URL, WEBHOOK_SCHEDULE, CLEARINGHOUSE_DELAY_MS, WEBHOOK_CONCURRENCY,',
      'WEBHOOK_ENDPOINT_CONCURRENCY, WEBHOOK_TIMEOUT_MS,',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS (default: on only when HOST is loopback),',
      'RETENTION_INTERVAL_MS, RETENTION_BUCKET_IDLE_MS; see README.md.',
    ],
  },
  async main() {
    let config: ReturnType<typeof loadBackgroundConfig>;
    let retentionConfig: ReturnType<typeof loadRetentionConfig>;
    try {
      config = { ...loadBackgroundConfig(), enabled: true };
      retentionConfig = loadRetentionConfig();
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
    const retention = startRetention({ db, config: retentionConfig, log });
    process.stdout.write('patient-care worker: delivering webhooks\n');
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await Promise.all([work.stop(), retention.stop()]);
      await db.close();
      process.exit(0);
    };
    process.once('SIGTERM', () => void stop());
    process.once('SIGINT', () => void stop());
    return 0;
  },
};
