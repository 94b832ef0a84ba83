import type { Db } from '../db/types.js';
import { createKey } from './store.js';

/**
 * On a fresh database (no keys at all), creates one test-mode secret key and returns its
 * secret so the caller can print it once; otherwise returns null. Several processes
 * starting together create one key between them: the check and the insert share a
 * transaction, serialised by an advisory lock on PostgreSQL and `BEGIN IMMEDIATE` on SQLite.
 */
export async function ensureInitialTestKey(db: Db): Promise<string | null> {
  return db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') {
      await tx.run(
        `SELECT pg_advisory_xact_lock(hashtext('patient-care.initial-key.' || current_schema()))`,
      );
    }
    const any = await tx.get('SELECT id FROM api_keys LIMIT 1');
    if (any) return null;
    const { secret } = await createKey(tx, {
      kind: 'secret',
      livemode: false,
      description: 'created on first start',
    });
    return secret;
  });
}
