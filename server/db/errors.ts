/** What went wrong, independent of the driver. */
export type DbErrorCode =
  | 'unique_violation'
  | 'foreign_key_violation'
  | 'check_violation'
  | 'not_null_violation'
  | 'busy'
  | 'serialization_failure'
  | 'connection'
  | 'other';

/**
 * A driver error re-thrown without parameter values. PostgreSQL puts offending values in
 * `detail` (e.g. `Key (system, value)=(…, 12345) already exists`), which would be PHI in a log;
 * this error keeps only the code, the constraint name and a message without values.
 */
export class DbError extends Error {
  override readonly name = 'DbError';
  constructor(
    readonly code: DbErrorCode,
    message: string,
    /** The driver's own code (`SQLITE_CONSTRAINT_UNIQUE`, `23505`, ...). */
    readonly driverCode: string | undefined,
    /** Constraint or index name when the driver reports one. */
    readonly constraint?: string,
  ) {
    super(message);
  }
}

/** Whether `err` is a unique-constraint failure (optionally on a named constraint). */
export function isUniqueViolation(err: unknown): err is DbError {
  return err instanceof DbError && err.code === 'unique_violation';
}
