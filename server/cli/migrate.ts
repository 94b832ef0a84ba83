/**
 * `migrate [--check]`: brings the schema of DATABASE_URL up to date, as every start of the
 * service does, so a deployment can migrate once before it starts (or restarts) its
 * processes; `--check` only says what is pending (exit 1 when anything is).
 */
import { migrate, pendingMigrations } from '../db/migrate.js';
import { connect, DEFAULT_DATABASE_URL, prepareSqliteFolder } from '../db/open.js';
import type { OperatorCommand } from './operator.js';
import { processLines } from './operator.js';

const options = {
  check: {
    type: 'boolean',
    default: false,
    description: 'Apply nothing: list pending migrations, exit 1 when there are any.',
  },
} as const;

export const migrateCommand: OperatorCommand<typeof options> = {
  spec: {
    name: 'patient-care migrate',
    prefix: 'migrate',
    summary:
      'Applies pending schema migrations to the database of DATABASE_URL (every service start does too; several at once take turns).',
    options,
  },
  async main({ values }) {
    const url = process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
    prepareSqliteFolder(url);
    const db = connect(url);
    try {
      if (values.check) {
        const hasTable = await schemaTracked(db);
        const pending = hasTable ? await pendingMigrations(db) : ['all'];
        processLines.out(
          pending.length === 0
            ? 'migrate: schema up to date'
            : `migrate: pending: ${pending.join(', ')}`,
        );
        return pending.length === 0 ? 0 : 1;
      }
      const applied = await migrate(db);
      processLines.out(
        applied.length === 0
          ? 'migrate: schema up to date'
          : `migrate: applied ${applied.join(', ')}`,
      );
      return 0;
    } finally {
      await db.close();
    }
  },
};

/** Whether the database has the table of applied migrations (a new one has not). */
async function schemaTracked(db: ReturnType<typeof connect>): Promise<boolean> {
  try {
    await db.get('SELECT 1 FROM schema_migrations LIMIT 1');
    return true;
  } catch {
    return false;
  }
}
