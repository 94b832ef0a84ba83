/** `backup --to FILE [--force]` and `restore --from FILE --to DATABASE_URL [--force]`. */
import { backup, restore } from '../backup/index.js';
import { DEFAULT_DATABASE_URL } from '../db/open.js';
import { UsageError } from './command.js';
import { type OperatorCommand, processLines } from './operator.js';

const backupOptions = {
  to: { type: 'string', value: 'FILE', description: 'The backup file to write (required).' },
  force: { type: 'boolean', default: false, description: 'Replace FILE if it exists.' },
} as const;

export const backupCommand: OperatorCommand<typeof backupOptions> = {
  spec: {
    name: 'patient-care backup',
    prefix: 'backup',
    summary:
      "Backs up the database of DATABASE_URL into one file while the service keeps running: SQLite through SQLite's online backup (the file is itself a database), PostgreSQL through pg_dump's custom format (pg_dump must be installed).",
    options: backupOptions,
    notes: ['Restore with: patient-care restore --from FILE --to DATABASE_URL'],
  },
  async main({ values }) {
    if (values.to === undefined || values.to.trim() === '')
      throw new UsageError('--to FILE is required');
    const url = process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
    return backup(url, values.to, { force: values.force }, processLines);
  },
};

const restoreOptions = {
  from: { type: 'string', value: 'FILE', description: 'The backup file (required).' },
  to: {
    type: 'string',
    value: 'DATABASE_URL',
    description: 'The database to restore into: sqlite:PATH or postgres://… (required).',
  },
  force: {
    type: 'boolean',
    default: false,
    description: 'Replace a database that already holds tables (stop the service first).',
  },
} as const;

export const restoreCommand: OperatorCommand<typeof restoreOptions> = {
  spec: {
    name: 'patient-care restore',
    prefix: 'restore',
    summary:
      "Restores a backup made by `backup` into an empty database (or, with --force, over one), then checks it: schema migrations, the doctor's checks, the audit trail's append-only triggers. Exit 1 when a check fails.",
    options: restoreOptions,
  },
  async main({ values }) {
    if (values.from === undefined || values.from.trim() === '')
      throw new UsageError('--from FILE is required');
    if (values.to === undefined || values.to.trim() === '')
      throw new UsageError('--to DATABASE_URL is required');
    return restore(values.from, values.to.trim(), { force: values.force }, processLines);
  },
};
