/**
 * Start-up failures that come from what `DATABASE_URL` says rather than from the code: a SQLite
 * file whose folder does not exist or cannot be used, a PostgreSQL `search_path` schema that does not exist. Each
 * becomes one line naming `DATABASE_URL` and what to change; `undefined` for anything else.
 * Only the SQLite path and the schema name are quoted, never the URL (it may hold a password).
 */
import { sqlitePathOf } from './open.js';

const FILE_REASONS: Readonly<Record<string, string>> = {
  ENOTDIR: 'a part of its folder is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOENT:
    'its folder does not exist (create it first; only the default, ./data, is made on first start)',
  EISDIR: 'it is a folder',
  SQLITE_CANTOPEN: 'SQLite cannot open it',
};

/** The schema a `postgres://…?options=-c search_path=NAME` URL selects, if any. */
function searchPathOf(url: string): string | undefined {
  try {
    const options = new URL(url).searchParams.get('options') ?? '';
    return /(?:^|\s)-c\s*search_path=([^\s,]+)/.exec(options)?.[1];
  } catch {
    return undefined;
  }
}

function codesOf(error: unknown): string[] {
  const e = error as { code?: unknown; driverCode?: unknown } | null;
  return [e?.code, e?.driverCode].filter((code): code is string => typeof code === 'string');
}

export function explainOpenError(error: unknown, url: string): string | undefined {
  const codes = codesOf(error);
  if (
    (codes.includes('POOL_SIZE') || codes.includes('DATABASE_PREPARE')) &&
    error instanceof Error
  ) {
    return error.message;
  }
  const path = sqlitePathOf(url);
  if (path !== undefined) {
    const reason = codes.map((code) => FILE_REASONS[code]).find((text) => text !== undefined);
    if (reason === undefined) return undefined;
    return `DATABASE_URL names the SQLite file ${path}, which cannot be created or opened: ${reason}`;
  }
  // 3F000 invalid_schema_name: nothing to create tables in ("no schema has been selected").
  if (codes.includes('3F000')) {
    const schema = searchPathOf(url);
    return schema === undefined
      ? 'DATABASE_URL selects no existing schema to create tables in; set search_path to one that exists (?options=-c search_path=NAME)'
      : `DATABASE_URL selects the schema "${schema}" (search_path), which does not exist: create it (CREATE SCHEMA "${schema}") or name another`;
  }
  return undefined;
}
