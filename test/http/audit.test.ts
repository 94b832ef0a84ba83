import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';

let t: FixtureApp;
beforeAll(async () => {
  t = await fixtureApp();
});
afterAll(() => t.close());

describe('audit through the handler context', () => {
  it('records a write in the write transaction (audit_log row with the request id)', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      body: { name: { family: 'Doe' } },
    });
    const row = await t.db.get<{
      key_id: string;
      operation_id: string;
      object_ids: string;
      request_id: string;
      outcome: string;
    }>('SELECT * FROM audit_log WHERE request_id = $1', [res.headers['request-id'] as string]);
    expect(row).toMatchObject({
      key_id: t.keys.secret.id,
      operation_id: 'createWidget',
      outcome: 'success',
    });
    expect(JSON.parse(row!.object_ids)).toEqual([res.body.id]);
  });

  it('sends reads to the batched writer, with key, operation, ids, request id, client IP and version', async () => {
    const made = await t.request({
      method: 'POST',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      body: { name: { family: 'Roe' } },
    });
    const res = await t.request({
      method: 'GET',
      url: `/v1/widgets/${made.body.id}`,
      key: t.keys.readOnly.secret,
      remoteAddress: '192.0.2.44',
    });
    expect(res.status).toBe(200);
    expect(t.audit.entries.at(-1)).toEqual({
      keyId: t.keys.readOnly.id,
      operationId: 'retrieveWidget',
      objectIds: [made.body.id],
      requestId: res.headers['request-id'],
      clientIp: '192.0.2.44',
      outcome: 'success',
      at: t.clock.now,
      apiVersion: res.headers['patientcare-version'],
      actor: null,
    });
  });

  it('refuses to answer a read whose audit entry is refused', async () => {
    const refusing = await fixtureApp({ audit: { push: () => false } });
    try {
      const res = await refusing.request({
        method: 'GET',
        url: '/v1/widgets',
        key: refusing.keys.secret.secret,
      });
      expect(res.status).toBe(500);
    } finally {
      await refusing.close();
    }
  });
});
