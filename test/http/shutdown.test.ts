import { describe, expect, it } from 'vitest';
import { fixtureApp } from '../fixtures/http/app.js';

describe('graceful close', () => {
  it('lets an in-flight request finish before close resolves', async () => {
    const t = await fixtureApp();
    t.state.writeDelayMs = 300;
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const pending = fetch(`${address}/v1/widgets`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.keys.secret.secret}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: { family: 'Late' } }),
      });
      // Wait until the handler is inside its write, then close.
      while ((t.state.executions.createWidget ?? 0) === 0) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const closing = t.app.close();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: unknown }).name).toEqual({ family: 'Late' });
      await closing;
      const stored = await t.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM fixture_widgets');
      expect(Number(stored?.n)).toBe(1);
    } finally {
      await t.db.close();
    }
  });
});
