import type { Db } from '../db/types.js';
import { type StoredWebhook, WEBHOOK } from '../resources/webhook.js';
import { insertRecord } from './records.js';
import { bool, parseData } from './rows.js';

/**
 * Stores a new endpoint with its signing secret. The secret goes in its own column, never
 * into the JSON document, so reads of the object cannot return it by accident.
 */
export function insertWebhook(tx: Db, doc: StoredWebhook, secret: string): Promise<StoredWebhook> {
  return insertRecord(WEBHOOK, tx, doc, { secret });
}

/** Deletes an endpoint and its pending deliveries; false when there is none. */
export async function deleteWebhook(tx: Db, id: string, livemode: boolean): Promise<boolean> {
  const result = await tx.run('DELETE FROM webhooks WHERE id = $1 AND livemode = $2', [
    id,
    livemode,
  ]);
  return result.changes > 0;
}

/**
 * Locks an endpoint's row until `tx` ends and returns its mode, or `undefined` when there is
 * none. Background work that changes an endpoint and its deliveries takes this first: the
 * endpoint, then its deliveries, is the order `deleteWebhook` takes them in (the row, then
 * the deliveries' cascade), so on PostgreSQL the two wait for each other instead of
 * deadlocking. `NO KEY` as in `modifyDoc`; SQLite's single writer needs no clause.
 */
export async function lockWebhook(tx: Db, id: string): Promise<boolean | undefined> {
  const lock = tx.dialect === 'postgres' ? ' FOR NO KEY UPDATE' : '';
  const row = await tx.get<{ livemode: unknown }>(
    `SELECT livemode FROM webhooks WHERE id = $1${lock}`,
    [id],
  );
  return row === undefined ? undefined : bool(row.livemode);
}

/** A webhook with the signing secret, which is stored as given (it must sign deliveries). */
export interface WebhookWithSecret<T> {
  webhook: T;
  secret: string;
}

/** The stored endpoint with its secret, for signing. */
export async function getWebhookWithSecret<T = StoredWebhook>(
  db: Db,
  id: string,
): Promise<WebhookWithSecret<T> | undefined> {
  const row = await db.get('SELECT data, secret FROM webhooks WHERE id = $1', [id]);
  return row ? { webhook: parseData<T>(row), secret: String(row.secret) } : undefined;
}

/** Ids of the enabled endpoints of a mode subscribed to `eventType` (or to `*`). */
export async function subscribedWebhookIds(
  db: Db,
  livemode: boolean,
  eventType: string,
): Promise<string[]> {
  const rows = await db.all<{ id: string; enabled_events: string }>(
    `SELECT id, enabled_events FROM webhooks WHERE livemode = $1 AND status = 'enabled'`,
    [livemode],
  );
  return rows
    .filter((row) => {
      const events = JSON.parse(row.enabled_events) as string[];
      return events.includes('*') || events.includes(eventType);
    })
    .map((row) => row.id);
}

/**
 * Records the restricted key an endpoint's subscription stands on, or NULL for the account
 * (`server/webhooks/key-binding.ts`). A column beside the document, never part of it: the
 * document is what the API returns.
 */
export async function setWebhookBoundKey(tx: Db, id: string, keyId: string | null): Promise<void> {
  await tx.run('UPDATE webhooks SET bound_key_id = $1 WHERE id = $2', [keyId, id]);
}
