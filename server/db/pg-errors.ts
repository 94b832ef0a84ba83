/** PostgreSQL errors (SQLSTATE codes) as the driver-independent `DbError`. */
import { DbError, type DbErrorCode } from './errors.js';

const PG_CODES: Record<string, DbErrorCode> = {
  '23505': 'unique_violation',
  '23503': 'foreign_key_violation',
  '23514': 'check_violation',
  '23502': 'not_null_violation',
  '40001': 'serialization_failure',
  '40P01': 'serialization_failure',
  '55P03': 'busy',
};

/**
 * Driver errors without values: `detail` and `where` are dropped, and messages of data
 * errors (class 22, which quote the offending input) are replaced by a generic one.
 */
export function toDbError(err: unknown): unknown {
  if (err instanceof DbError || !(err instanceof Error)) return err;
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  // Socket errors (ECONNREFUSED, ...) carry no SQLSTATE; their messages hold no data.
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) {
    return new DbError('connection', err.message, typeof code === 'string' ? code : undefined);
  }
  const mapped = PG_CODES[code] ?? (code.startsWith('08') ? 'connection' : 'other');
  const message = code.startsWith('22') ? `invalid data (SQLSTATE ${code})` : err.message;
  return new DbError(
    mapped,
    message,
    code,
    typeof constraint === 'string' ? constraint : undefined,
  );
}
