/**
 * Webhook subscriptions are bound by the key's read scopes (issue 22, item 3): a key may only
 * subscribe an endpoint to the families it may read, and the endpoint stays answerable to
 * that key: revoked, the endpoint is disabled; narrowed, the families it lost are not sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { revokeKey } from '../../server/keys/index.js';
import { toKeyRecord } from '../../server/keys/record.js';
import { deliveryAttempts } from '../../server/repos/webhook-deliveries.js';
import { type Bindings, bindingVerdict } from '../../server/webhooks/key-binding.js';
import { type DeliveryWorker, startDeliveryWorker } from '../../server/webhooks/worker.js';
import {
  createPatient,
  errorOf,
  LOCAL_HOOK_URL,
  patientFields,
  useService,
} from '../service/support/fixtures.js';
import { makeKey } from '../support/keys.js';
import { deliveriesOf } from './support/fixtures.js';
import { type Receiver, startReceiver, waitFor } from './support/receiver.js';

const fx = useService();

function hookRequest(key: string, body: Record<string, unknown>, id?: string) {
  return fx().t.request({
    method: 'POST',
    url: id === undefined ? '/v1/webhooks' : `/v1/webhooks/${id}`,
    key,
    body: id === undefined ? { url: LOCAL_HOOK_URL, ...body } : body,
  });
}

function restricted(scopes: string[]) {
  return makeKey(fx().t.db, { kind: 'restricted', scopes });
}

function messageOf(res: { body: unknown }): string {
  return (res.body as { error: { message: string } }).error.message;
}

async function boundKey(id: string): Promise<string | null> {
  const row = await fx().t.db.get<{ bound_key_id: string | null }>(
    'SELECT bound_key_id FROM webhooks WHERE id = $1',
    [id],
  );
  return row?.bound_key_id ?? null;
}

describe('subscribing needs the read scope of every family', () => {
  it('refuses "*" and patient events to a key holding only webhooks:write, naming the scopes', async () => {
    const key = await restricted(['webhooks:write']);
    const all = await hookRequest(key.secret, { enabled_events: ['*'] });
    expect(errorOf(all)).toEqual({
      status: 403,
      code: 'insufficient_scope',
      param: 'enabled_events',
    });
    for (const scope of ['patients:read', 'appointments:read', 'billing:read']) {
      expect(messageOf(all)).toContain(`\`${scope}\``);
    }
    // webhooks:write grants webhooks:read, so that family is not missing.
    expect(messageOf(all)).not.toContain('`webhooks:read`');
    const patients = await hookRequest(key.secret, { enabled_events: ['patient.created'] });
    expect(errorOf(patients).status).toBe(403);
    expect(messageOf(patients)).toContain('`patients:read`');
    expect(messageOf(patients)).not.toContain('billing');
    const own = await hookRequest(key.secret, { enabled_events: ['webhook.disabled'] });
    expect(own.status).toBe(200);
    // Nothing was created by the refused requests.
    const rows = await fx().t.db.all('SELECT id FROM webhooks');
    expect(rows).toHaveLength(1);
  });

  it('accepts the families the key reads (write implies read) and binds the endpoint to it', async () => {
    const key = await restricted(['webhooks:write', 'patients:read', 'billing:write']);
    const res = await hookRequest(key.secret, {
      enabled_events: ['patient.created', 'claim.paid'],
    });
    expect(res.status).toBe(200);
    expect(await boundKey(res.body.id)).toBe(key.id);
    // A secret key holds every scope: its endpoints stand on the account, not on the key.
    const bySecret = await hookRequest(fx().test.secret, { enabled_events: ['*'] });
    expect(bySecret.status).toBe(200);
    expect(await boundKey(bySecret.body.id)).toBeNull();
  });

  it('checks an update that changes where or what is sent, and rebinds to its key', async () => {
    const { test } = fx();
    const created = await hookRequest(test.secret, { enabled_events: ['*'] });
    const id = created.body.id as string;
    const narrow = await restricted(['webhooks:write', 'patients:read']);
    // Harmless changes pass: description, metadata, pausing.
    expect((await hookRequest(narrow.secret, { description: 'EHR' }, id)).status).toBe(200);
    expect((await hookRequest(narrow.secret, { status: 'disabled' }, id)).status).toBe(200);
    expect(await boundKey(id)).toBeNull();
    // Re-enabling or redirecting an endpoint that receives everything does not.
    for (const body of [{ status: 'enabled' }, { url: 'http://127.0.0.1:10/other' }]) {
      const res = await hookRequest(narrow.secret, body, id);
      expect(errorOf(res)).toMatchObject({ status: 403, param: 'enabled_events' });
      expect(messageOf(res)).toContain('`billing:read`');
    }
    // Narrowing to what the key reads is allowed, and the endpoint is now bound to it.
    const narrowed = await hookRequest(
      narrow.secret,
      { enabled_events: ['patient.created'], status: 'enabled' },
      id,
    );
    expect(narrowed.status).toBe(200);
    expect(await boundKey(id)).toBe(narrow.id);
    expect((await hookRequest(narrow.secret, { enabled_events: ['*'] }, id)).status).toBe(403);
    // The secret key takes it back for the account.
    expect((await hookRequest(test.secret, { enabled_events: ['*'] }, id)).status).toBe(200);
    expect(await boundKey(id)).toBeNull();
  });
});

describe('at send time, the bound key is checked again', () => {
  let receiver: Receiver | undefined;
  let worker: DeliveryWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await receiver?.close();
    receiver = undefined;
  });

  async function setUp(scopes: string[], events: string[]) {
    const { t } = fx();
    receiver = await startReceiver();
    const key = await restricted(scopes);
    const hook = await hookRequest(key.secret, {
      url: receiver.url('/hook'),
      enabled_events: events,
    });
    expect(hook.status).toBe(200);
    receiver.secrets.set('/hook', hook.body.secret);
    worker = startDeliveryWorker({ db: t.db, allowPrivateTargets: true, pollIntervalMs: 10 });
    return { key, id: hook.body.id as string, r: receiver };
  }

  it('disables the endpoint of a revoked key without sending, and re-enabling rebinds it', async () => {
    const { t, test } = fx();
    const { key, id, r } = await setUp(['webhooks:write', 'patients:read'], ['patient.created']);
    await createPatient(t, test.secret);
    await waitFor(() => r.received.length === 1, 5_000, 'the first delivery');
    await revokeKey(t.db, key.id);
    await createPatient(t, test.secret, patientFields(2));
    await waitFor(async () => (await deliveriesOf(t.db, id)).some((d) => d.status === 'failed'));
    const failed = (await deliveriesOf(t.db, id)).find((d) => d.status === 'failed')!;
    expect(await deliveryAttempts(t.db, failed.id)).toEqual([
      { attempt: 1, status_code: null, succeeded: 0, error: 'key_revoked' },
    ]);
    const hook = await t.request({ method: 'GET', url: `/v1/webhooks/${id}`, key: test.secret });
    expect(hook.body.status).toBe('disabled');
    expect(r.received).toHaveLength(1);
    // Re-enabled by a key that may read the family, it delivers again, bound to that key.
    const again = await hookRequest(test.secret, { status: 'enabled' }, id);
    expect(again.status).toBe(200);
    expect(await boundKey(id)).toBeNull();
    await createPatient(t, test.secret, patientFields(3));
    await waitFor(() => r.received.length === 2, 5_000, 'a delivery after re-enabling');
  });

  it('does not send a family the key can no longer read, and keeps the endpoint enabled', async () => {
    const { t, test } = fx();
    const { key, id, r } = await setUp(
      ['webhooks:write', 'patients:read', 'billing:read'],
      ['patient.created', 'patient.updated'],
    );
    // A key's scopes are fixed today (keys are revoked, not edited); this stands for a store
    // that changes them, so the worker's check is per family, not only per key.
    await t.db.run(`UPDATE api_keys SET scopes = '["webhooks:write"]' WHERE id = $1`, [key.id]);
    const patient = await createPatient(t, test.secret);
    await waitFor(async () => (await deliveriesOf(t.db, id)).some((d) => d.status === 'failed'));
    const [row] = await deliveriesOf(t.db, id);
    expect(await deliveryAttempts(t.db, row!.id)).toEqual([
      { attempt: 1, status_code: null, succeeded: 0, error: 'scope_missing' },
    ]);
    expect(r.received).toHaveLength(0);
    const hook = await t.request({ method: 'GET', url: `/v1/webhooks/${id}`, key: test.secret });
    expect(hook.body.status).toBe('enabled');
    expect(patient.status).toBe(200);
  });

  it('judges each event by its family against the bound key', async () => {
    const key = await restricted(['webhooks:write', 'billing:read']);
    const record = (await fx().t.db.get<Record<string, unknown>>(
      'SELECT * FROM api_keys WHERE id = $1',
      [key.id],
    ))!;
    const bindings: Bindings = new Map([
      ['wh_bound', toKeyRecord(record)],
      ['wh_gone', null],
    ]);
    const now = Date.now();
    expect(bindingVerdict(bindings, 'wh_bound', 'claim.paid', now)).toBe('send');
    expect(bindingVerdict(bindings, 'wh_bound', 'webhook.disabled', now)).toBe('send');
    expect(bindingVerdict(bindings, 'wh_bound', 'patient.created', now)).toBe('scope_missing');
    expect(bindingVerdict(bindings, 'wh_gone', 'claim.paid', now)).toBe('key_revoked');
    expect(bindingVerdict(bindings, 'wh_account', 'patient.created', now)).toBe('send');
    const expired = { ...toKeyRecord(record), expiresAt: Math.floor(now / 1000) - 1 };
    expect(bindingVerdict(new Map([['wh', expired]]), 'wh', 'claim.paid', now)).toBe('key_revoked');
  });
});
