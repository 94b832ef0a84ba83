/**
 * A replayed `createWebhook` carries the signing secret only to the key whose request created
 * the endpoint (issue 22): records are shared by the account's server keys, so another key's
 * replay gets the original answer without `secret`, and nothing is created twice.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_HOOK_URL, useService } from '../service/support/fixtures.js';
import { makeKey } from '../support/keys.js';

const fx = useService();

function create(key: string, idempotencyKey: string) {
  return fx().t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    headers: { 'Idempotency-Key': idempotencyKey },
    body: { url: LOCAL_HOOK_URL, enabled_events: ['claim.paid'] },
  });
}

describe('createWebhook replays', () => {
  it('return the secret to the creating key only', async () => {
    const { t, test } = fx();
    const first = await create(test.secret, 'hook-1');
    expect(first.status).toBe(200);
    expect(first.body.secret).toMatch(/^whsec_/);

    const same = await create(test.secret, 'hook-1');
    expect(same.headers['idempotent-replayed']).toBe('true');
    expect(same.body).toEqual(first.body);

    const rotated = await makeKey(t.db);
    const billing = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['webhooks:write', 'billing:read'],
    });
    for (const other of [rotated, billing]) {
      const replay = await create(other.secret, 'hook-1');
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      const { secret: _secret, ...withoutSecret } = first.body as Record<string, unknown>;
      expect(replay.body).toEqual(withoutSecret);
      expect(replay.text).not.toContain(first.body.secret);
    }
    // One endpoint: another key's retry is still a replay, not a second write.
    expect(await t.db.all('SELECT id FROM webhooks')).toHaveLength(1);
    // And the creator still gets it whole afterwards.
    expect((await create(test.secret, 'hook-1')).body.secret).toBe(first.body.secret);
  });
});
