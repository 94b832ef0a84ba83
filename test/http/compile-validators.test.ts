/**
 * `compileValidators: 'first-use'` (what `npm run dev`'s host passes, so a save's new app is
 * built sooner) judges requests exactly as the default eager compile: the same refusals with
 * the same envelope, the same acceptances, a route's first request included.
 */
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';

type Answer = { status: number; error?: unknown; object?: unknown };

async function answers(compileValidators: 'eager' | 'first-use'): Promise<Answer[]> {
  const t = await buildTestApp({ compileValidators });
  try {
    const key = (await makeKey(t.db)).secret;
    const sent = [
      // The route's first request is a refusal: the body lacks `name` and has an unknown key.
      { method: 'POST', url: '/v1/patients', key, body: { birth_date: '1990-01-01', x: 1 } },
      { method: 'POST', url: '/v1/patients', key, body: { name: { family: 'Lee' } } },
      { method: 'GET', url: '/v1/patients?limit=1000', key },
      { method: 'GET', url: '/v1/patients?limit=2', key },
      { method: 'GET', url: '/v1/appointments/not-an-id', key },
    ] as const;
    const out: Answer[] = [];
    for (const request of sent) {
      const res = await t.request({ ...request });
      const body = res.body as { error?: { request_id?: string }; object?: string };
      const error = body.error === undefined ? undefined : { ...body.error, request_id: null };
      out.push({ status: res.status, error, object: body.object });
    }
    return out;
  } finally {
    await t.close();
  }
}

describe('compileValidators', () => {
  it('first-use answers every request as eager does', async () => {
    const eager = await answers('eager');
    expect(eager.map((a) => a.status)).toEqual([400, 200, 400, 200, 400]);
    expect(await answers('first-use')).toEqual(eager);
  });
});
