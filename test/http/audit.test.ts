import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { buildTestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';

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

  it('refuses to answer a read whose audit entry is refused: 503 with Retry-After', async () => {
    const refusing = await buildTestApp({ audit: { push: () => false, record: () => undefined } });
    try {
      const key = await makeKey(refusing.db);
      const res = await refusing.request({ method: 'GET', url: '/v1/patients', key: key.secret });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toMatchObject({ error: { code: 'service_unavailable' } });
    } finally {
      await refusing.close();
    }
  });

  it('answers a read only once its audit row is committed, and 503 when the batch fails', async () => {
    const gate: { settle?: { resolve: () => void; reject: (err: unknown) => void } } = {};
    const waiting = await buildTestApp({
      audit: {
        push: () => true,
        record: () =>
          new Promise<void>((resolve, reject) => {
            gate.settle = { resolve, reject };
          }),
      },
    });
    const next = async () => {
      while (gate.settle === undefined) await new Promise((r) => setTimeout(r, 1));
      const settle = gate.settle;
      gate.settle = undefined;
      return settle;
    };
    try {
      const key = await makeKey(waiting.db);
      const request = () =>
        waiting.request({ method: 'GET', url: '/v1/patients', key: key.secret });
      let answered = false;
      const first = request().then((res) => {
        answered = true;
        return res;
      });
      const commit = await next();
      // The handler is done; only the commit is missing, and the answer waits for it.
      await new Promise((r) => setTimeout(r, 20));
      expect(answered).toBe(false);
      commit.resolve();
      expect((await first).status).toBe(200);

      const second = request();
      (await next()).reject(new Error('database down'));
      const res = await second;
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toMatchObject({ error: { code: 'service_unavailable' } });
    } finally {
      await waiting.close();
    }
  });
});
