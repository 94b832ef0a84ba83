import type { Db } from '../db/types.js';
import { type DocChange, type Modified, modifyDoc } from './modify-doc.js';
import { type ListParams, type Page, paginate } from './pagination.js';
import { bool, getDoc, parseData } from './rows.js';

/** The fields of a stored webhook endpoint this repository reads; the rest is kept as given. */
export interface WebhookDoc {
  id: string;
  livemode: boolean;
  created: number;
  updated?: number;
  url: string;
  status: string;
  enabled_events: readonly string[];
}

/** A webhook with the signing secret, which is stored as given (it must sign deliveries). */
export interface WebhookWithSecret<T> {
  webhook: T;
  secret: string;
}

export interface WebhookListParams extends ListParams {
  livemode: boolean;
}

/**
 * Stores a new endpoint. The secret goes in its own column, never into the JSON document,
 * so reads of the object cannot return it by accident.
 */
export async function insertWebhook<T extends WebhookDoc>(
  tx: Db,
  doc: T,
  secret: string,
): Promise<T> {
  const stored = withoutSecret(doc);
  await tx.run(
    `INSERT INTO webhooks (id, livemode, created, updated, status, url, secret, enabled_events, data)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      doc.id,
      doc.livemode,
      doc.created,
      doc.updated ?? doc.created,
      doc.status,
      doc.url,
      secret,
      JSON.stringify(doc.enabled_events),
      JSON.stringify(stored),
    ],
  );
  return doc;
}

/**
 * Changes a stored endpoint (the secret stays) through `modifyDoc`: `change` gets it read
 * under a row lock and returns the endpoint to store, or `undefined` (or the same object) to
 * leave it. `undefined` when there is none.
 */
export function modifyWebhook<T extends WebhookDoc>(
  db: Db,
  id: string,
  livemode: boolean,
  change: DocChange<T, T>,
): Promise<Modified<T, T> | undefined> {
  return modifyDoc<T, T>(
    db,
    'webhooks',
    id,
    livemode,
    async (current) => {
      const next = await change(current);
      return next === current ? undefined : next;
    },
    writeWebhook,
  );
}

async function writeWebhook(tx: Db, doc: WebhookDoc): Promise<void> {
  await tx.run(
    `UPDATE webhooks SET updated = $1, status = $2, url = $3, enabled_events = $4, data = $5
      WHERE id = $6 AND livemode = $7`,
    [
      doc.updated ?? doc.created,
      doc.status,
      doc.url,
      JSON.stringify(doc.enabled_events),
      JSON.stringify(withoutSecret(doc)),
      doc.id,
      doc.livemode,
    ],
  );
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

/** The stored endpoint, without its secret. */
export async function getWebhook<T = WebhookDoc>(
  db: Db,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  return getDoc<T>(db, 'webhooks', id, livemode);
}

/** The stored endpoint with its secret, for signing. */
export async function getWebhookWithSecret<T = WebhookDoc>(
  db: Db,
  id: string,
): Promise<WebhookWithSecret<T> | undefined> {
  const row = await db.get('SELECT data, secret FROM webhooks WHERE id = $1', [id]);
  return row ? { webhook: parseData<T>(row), secret: String(row.secret) } : undefined;
}

/** Endpoints newest first. */
export function listWebhooks<T = WebhookDoc>(db: Db, params: WebhookListParams): Promise<Page<T>> {
  return paginate(db, {
    from: 'webhooks',
    select: 'data',
    filters: [(p) => `livemode = ${p.add(params.livemode)}`],
    list: params,
    map: parseData<T>,
  });
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

function withoutSecret<T extends object>(doc: T): Omit<T, 'secret'> {
  const { secret: _secret, ...rest } = doc as T & { secret?: unknown };
  return rest;
}

/**
 * Records the restricted key an endpoint's subscription stands on, or NULL for the account
 * (`server/webhooks/key-binding.ts`). A column beside the document, never part of it: the
 * document is what the API returns.
 */
export async function setWebhookBoundKey(tx: Db, id: string, keyId: string | null): Promise<void> {
  await tx.run('UPDATE webhooks SET bound_key_id = $1 WHERE id = $2', [keyId, id]);
}
