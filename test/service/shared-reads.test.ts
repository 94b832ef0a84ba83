/**
 * Reads batched per event loop turn (server/db/read-batch.ts) through the whole service, on a
 * SQLite file as `npm start` runs it (the other service tests use an in-memory database, which
 * has no read connection): concurrent identical lists share one statement, yet every caller
 * sees only its own mode's data, every read is audited, and a write acknowledged before a read
 * is always seen by it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDb } from '../../server/db/open.js';
import { SqliteDb } from '../../server/db/sqlite.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey, type TestKey } from '../support/keys.js';
import { createPatient, patientFields } from './support/fixtures.js';

let dir: string;
let db: SqliteDb;
let t: TestApp;
let test: TestKey;
let live: TestKey;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shared-reads-'));
  const opened = await openDb(`sqlite:${join(dir, 'service.db')}`);
  if (!(opened instanceof SqliteDb)) throw new Error('expected the SQLite adapter');
  db = opened;
  t = await buildTestApp({ db });
  test = await makeKey(db);
  live = await makeKey(db, { livemode: true });
});

afterEach(async () => {
  await t.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const ids = (body: { data: Array<{ id: string }> }) => body.data.map((p) => p.id);

it('answers concurrent identical lists with one read, each mode with its own patients', async () => {
  const testIds: string[] = [];
  const liveIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    testIds.unshift((await createPatient(t, test.secret, patientFields(i))).body.id);
    liveIds.unshift((await createPatient(t, live.secret, patientFields(10 + i))).body.id);
  }
  const before = { ...db.readStats };
  const auditedBefore = t.audit.entries.length;
  const list = (key: string) => t.request({ method: 'GET', url: '/v1/patients', key });
  const answers = await Promise.all([
    ...Array.from({ length: 6 }, () => list(test.secret)),
    ...Array.from({ length: 6 }, () => list(live.secret)),
  ]);
  for (const res of answers.slice(0, 6)) expect(ids(res.body)).toEqual(testIds);
  for (const res of answers.slice(6)) expect(ids(res.body)).toEqual(liveIds);
  // Twelve lists, but only one statement per mode for the page (the key lookups are cached).
  expect(db.readStats.coalesced - before.coalesced).toBeGreaterThanOrEqual(10);
  // Sharing a read does not share its audit: one entry per request, naming its own mode's ids.
  const audited = t.audit.entries.slice(auditedBefore);
  expect(audited).toHaveLength(12);
  for (const entry of audited) {
    expect([testIds, liveIds]).toContainEqual([...entry.objectIds]);
  }
});

it('keeps lists with different parameters apart in one batch', async () => {
  for (let i = 0; i < 4; i++) await createPatient(t, test.secret, patientFields(i));
  const [two, three, all] = await Promise.all([
    t.request({ method: 'GET', url: '/v1/patients?limit=2', key: test.secret }),
    t.request({ method: 'GET', url: '/v1/patients?limit=3', key: test.secret }),
    t.request({ method: 'GET', url: '/v1/patients', key: test.secret }),
  ]);
  expect(ids(two.body)).toHaveLength(2);
  expect(two.body.has_more).toBe(true);
  expect(ids(three.body)).toEqual(ids(all.body).slice(0, 3));
  expect(ids(all.body)).toHaveLength(4);
  expect(all.body.has_more).toBe(false);
});

it('shows a client its own write at once: create, then list and retrieve', async () => {
  for (let round = 0; round < 5; round++) {
    const created = await createPatient(t, test.secret, patientFields(round));
    const [listed, retrieved] = await Promise.all([
      t.request({ method: 'GET', url: '/v1/patients?limit=1', key: test.secret }),
      t.request({ method: 'GET', url: `/v1/patients/${created.body.id}`, key: test.secret }),
    ]);
    expect(ids(listed.body)).toEqual([created.body.id]);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body.id).toBe(created.body.id);
  }
});
