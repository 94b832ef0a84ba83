/**
 * OWASP API6:2023, the retry flow: an Idempotency-Key is remembered per account and mode
 * (spec: Idempotency), not per API key, so a retry sent after the key was rotated replays the
 * first answer instead of writing a second patient. The keys a public client holds do not
 * share that namespace: a publishable key cannot claim (and so block) a key the server will
 * send, and an ephemeral key never gets a replay of another patient's answer. Run on both
 * databases, through the real routes.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { revokeKey } from '../../server/keys/index.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

await describeEachDatabase('idempotency scope', (dialect) => {
  const ctx = useTestDb(dialect);
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ db: ctx.db });
  });
  afterEach(() => t.close());

  const patients = async (key: string): Promise<number> => {
    const res = await t.request({ method: 'GET', url: '/v1/patients?limit=100', key });
    return res.body.data.length as number;
  };

  it('a retry with a rotated secret key replays: one patient, the same id', async () => {
    const old = await makeKey(t.db);
    const body = { name: { family: 'Rotation' } };
    const first = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: old.secret,
      body,
      idempotencyKey: 'rotate-1',
    });
    expect(first.status, first.text).toBe(200);
    await revokeKey(t.db, old.id);
    const rotated = await makeKey(t.db);
    const retry = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: rotated.secret,
      body,
      idempotencyKey: 'rotate-1',
    });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expect(await patients(rotated.secret)).toBe(1);
  });

  it('secret and restricted keys of one mode share records; the other mode does not', async () => {
    const secret = await makeKey(t.db);
    const restricted = await makeKey(t.db, { kind: 'restricted', scopes: ['patients:write'] });
    const live = await makeKey(t.db, { livemode: true });
    const send = (key: string, family: string) =>
      t.request({
        method: 'POST',
        url: '/v1/patients',
        key,
        body: { name: { family } },
        idempotencyKey: 'shared-1',
      });
    const first = await send(secret.secret, 'Shared');
    expect((await send(restricted.secret, 'Shared')).body.id).toBe(first.body.id);
    const other = await send(restricted.secret, 'Different');
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    const liveAnswer = await send(live.secret, 'Shared');
    expect(liveAnswer.status).toBe(200);
    expect(liveAnswer.headers['idempotent-replayed']).toBeUndefined();
    expect(liveAnswer.body.id).not.toBe(first.body.id);
  });

  it('a publishable key cannot claim a key the server will send', async () => {
    const publishable = await makeKey(t.db, { kind: 'publishable' });
    const secret = await makeKey(t.db);
    const token = await t.request({
      method: 'POST',
      url: '/v1/tokens',
      key: publishable.secret,
      body: { type: 'patient_intake', patient: { name: { family: 'Browser' } } },
      idempotencyKey: 'booking-42',
    });
    expect(token.status, token.text).toBe(200);
    const server = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: secret.secret,
      body: { name: { family: 'Server' } },
      idempotencyKey: 'booking-42',
    });
    expect(server.status, server.text).toBe(200);
    expect(server.headers['idempotent-replayed']).toBeUndefined();
  });

  it("ephemeral keys share records per patient, never with another patient's key", async () => {
    const secret = await makeKey(t.db);
    const make = async (family: string) =>
      (
        await t.request({
          method: 'POST',
          url: '/v1/patients',
          key: secret.secret,
          body: { name: { family } },
        })
      ).body.id as string;
    const a = await make('PatientA');
    const b = await make('PatientB');
    const ephemeral = async (patient: string) =>
      (
        await t.request({
          method: 'POST',
          url: '/v1/ephemeral_keys',
          key: secret.secret,
          body: { patient, scopes: ['appointments:write'] },
        })
      ).body.secret as string;
    const book = (key: string, patient: string) =>
      t.request({
        method: 'POST',
        url: '/v1/appointments',
        key,
        body: { patient, practitioner: 'Dr. Lee' },
        idempotencyKey: 'book-1',
      });
    const first = await book(await ephemeral(a), a);
    expect(first.status, first.text).toBe(200);
    // A fresh ephemeral key for the same patient (they last 15 minutes) replays.
    const again = await book(await ephemeral(a), a);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    // Patient B's key sending the very same request gets no replay of A's appointment.
    const other = await book(await ephemeral(b), a);
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('insufficient_scope');
    expect(other.text).not.toContain(first.body.id);
  });
});
