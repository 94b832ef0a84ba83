/**
 * Retention of events, their webhook deliveries and expired ephemeral keys (issue 31): one
 * purge round deletes a 31-day-old event with its deliveries and their attempts, keeps a
 * 29-day-old one with its own, goes through any number of rows batch by batch, stops between
 * batches when told, and deletes ephemeral keys a day past their expiry — on both databases.
 */
import { expect, it } from 'vitest';
import { EPHEMERAL_SCOPES } from '../../contract/scopes.js';
import type { Db, SqlValue } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { createKey } from '../../server/keys/index.js';
import { insertEvent } from '../../server/repos/events.js';
import { insertWebhook } from '../../server/repos/webhooks.js';
import type { StoredWebhook } from '../../server/resources/webhook.js';
import { runPurgeRound } from '../../server/retention/purge-round.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const DAY = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const ROUND = { nowMs: NOW, bucketIdleMs: 3600_000 };

async function webhook(db: Db): Promise<string> {
  const id = newId('wh', NOW - 40 * DAY);
  await db.transaction((tx) =>
    insertWebhook(
      tx,
      {
        id,
        object: 'webhook',
        livemode: false,
        created: Math.floor((NOW - 40 * DAY) / 1000),
        url: 'https://example.org/hook',
        status: 'enabled',
        enabled_events: ['*'],
      } as StoredWebhook,
      'whsec_test_secret',
    ),
  );
  return id;
}

/** An event created `ageMs` before NOW, queued to every endpoint, with one attempt each. */
async function event(db: Db, ageMs: number): Promise<string> {
  const atMs = NOW - ageMs;
  const id = newId('evt', atMs);
  await db.transaction(async (tx) => {
    await insertEvent(
      tx,
      {
        id,
        object: 'event',
        livemode: false,
        created: Math.floor(atMs / 1000),
        type: 'patient.created',
        api_version: '2026-11-01',
        data: { object: { id: newId('pat', atMs), object: 'patient' } },
        request: { id: null, idempotency_key: null },
      },
      atMs,
    );
    const deliveries = await tx.all<{ id: string }>(
      'SELECT id FROM webhook_deliveries WHERE event_id = $1',
      [id],
    );
    for (const delivery of deliveries) {
      await tx.run(
        `INSERT INTO webhook_delivery_attempts
          (id, delivery_id, attempt, started_at, duration_ms, status_code, error, succeeded)
          VALUES ($1, $2, 1, $3, 12, 200, NULL, 1)`,
        [newId('whda', atMs), delivery.id, atMs],
      );
    }
  });
  return id;
}

async function count(db: Db, sql: string, params: SqlValue[] = []): Promise<number> {
  return Number((await db.get<{ n: number }>(sql, params))?.n ?? 0);
}

const eventsOf = (db: Db, id: string) =>
  count(db, 'SELECT COUNT(*) AS n FROM events WHERE id = $1', [id]);
const deliveriesOf = (db: Db, id: string) =>
  count(db, 'SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id = $1', [id]);
const attemptsOf = (db: Db, id: string) =>
  count(
    db,
    `SELECT COUNT(*) AS n FROM webhook_delivery_attempts a
      JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1`,
    [id],
  );
const allAttempts = (db: Db) => count(db, 'SELECT COUNT(*) AS n FROM webhook_delivery_attempts');

await describeEachDatabase('retention of events and deliveries', (dialect) => {
  const ctx = useTestDb(dialect);

  it('one round deletes a 31-day-old event with its deliveries and keeps a 29-day-old one', async () => {
    await webhook(ctx.db);
    await webhook(ctx.db);
    const old = await event(ctx.db, 31 * DAY);
    const young = await event(ctx.db, 29 * DAY);
    expect(await deliveriesOf(ctx.db, old)).toBe(2);
    expect(await attemptsOf(ctx.db, old)).toBe(2);
    const result = await runPurgeRound(ctx.db, ROUND);
    expect(result).toMatchObject({ ran: true, events: 1, deliveries: 2 });
    expect(await eventsOf(ctx.db, old)).toBe(0);
    expect(await deliveriesOf(ctx.db, old)).toBe(0);
    expect(await allAttempts(ctx.db)).toBe(2);
    expect(await eventsOf(ctx.db, young)).toBe(1);
    expect(await deliveriesOf(ctx.db, young)).toBe(2);
    expect(await attemptsOf(ctx.db, young)).toBe(2);
    // The young one goes once it is past 30 days.
    const later = await runPurgeRound(ctx.db, { ...ROUND, nowMs: NOW + 2 * DAY });
    expect(later).toMatchObject({ ran: true, events: 1, deliveries: 2 });
    expect(await count(ctx.db, 'SELECT COUNT(*) AS n FROM events')).toBe(0);
  });

  it('purges any number of old events in batches within one round', async () => {
    await webhook(ctx.db);
    for (let i = 0; i < 7; i++) await event(ctx.db, 40 * DAY - i * 60_000);
    const young = await event(ctx.db, 30 * DAY - 60_000);
    const result = await runPurgeRound(ctx.db, { ...ROUND, eventBatchSize: 3 });
    expect(result).toMatchObject({ ran: true, events: 7, deliveries: 7 });
    expect(await count(ctx.db, 'SELECT COUNT(*) AS n FROM events')).toBe(1);
    expect(await eventsOf(ctx.db, young)).toBe(1);
  });

  it('stops the event purge between batches when told to', async () => {
    for (let i = 0; i < 5; i++) await event(ctx.db, 40 * DAY - i * 60_000);
    const stopped = new AbortController();
    stopped.abort();
    const result = await runPurgeRound(ctx.db, { ...ROUND, signal: stopped.signal });
    expect(result).toMatchObject({ ran: true, events: 0 });
    expect(await count(ctx.db, 'SELECT COUNT(*) AS n FROM events')).toBe(5);
  });

  it('deletes ephemeral keys a day past their expiry, and no other key', async () => {
    const patientId = newId('pat', NOW);
    const make = (kind: 'ephemeral' | 'secret', expiredAgoMs: number) =>
      createKey(ctx.db, {
        kind,
        livemode: false,
        ...(kind === 'ephemeral' ? { scopes: [...EPHEMERAL_SCOPES], patientId } : {}),
        nowMs: NOW - expiredAgoMs - 900_000,
        expiresInSeconds: 900,
      });
    const gone = await make('ephemeral', 2 * DAY);
    const recent = await make('ephemeral', 3600_000);
    const secret = await make('secret', 2 * DAY);
    const result = await runPurgeRound(ctx.db, ROUND);
    expect(result).toMatchObject({ ran: true, ephemeralKeys: 1 });
    const ids = await ctx.db.all<{ id: string }>('SELECT id FROM api_keys ORDER BY id');
    expect(ids.map((row) => row.id).sort()).toEqual([recent.key.id, secret.key.id].sort());
    expect(ids.map((row) => row.id)).not.toContain(gone.key.id);
  });
});
