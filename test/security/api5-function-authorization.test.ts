/**
 * OWASP API5:2023 Broken Function Level Authorization. `test/service/auth-matrix.test.ts`
 * drives every route × key kind × scope from the route table; this adds the combinations it
 * does not: live publishable keys, a restricted key holding every scope (scopes never grant
 * what only a key kind may do), and an ephemeral key holding every ephemeral scope on the
 * operations it may not call. Each runs a valid request, so a pass means the operation really
 * ran and a refusal really came from the kind check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject, requestFor } from './support/operations.js';
import {
  buildSecurityApp,
  keyedRoutes as routes,
  type SecurityApp,
} from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

// A fresh deletable webhook per request, so deleteWebhook can run more than once.
async function hook(): Promise<string> {
  const res = await s.t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key: s.keys.secret,
    body: { url: 'http://127.0.0.1:9/x', enabled_events: ['*'] },
  });
  return res.body.id as string;
}

describe.each(routes.map((r) => [r.operationId, r] as const))('%s', (op, route) => {
  const kinds = route.keyKinds ?? ['secret', 'restricted'];

  it('a restricted key with every scope: allowed exactly when restricted keys are listed', async () => {
    const req = requestFor(op, s.test, undefined, await hook());
    const res = await s.t.request(inject(req, s.keys.restrictedAll));
    if (kinds.includes('restricted')) expect(res.status, res.text).toBe(200);
    else {
      expect(res.status).toBe(403);
      expect(['secret_key_required', 'insufficient_scope']).toContain(res.body.error.code);
    }
  });

  it('a live publishable key: only createToken', async () => {
    const req = requestFor(op, s.live, undefined, await hook());
    const res = await s.t.request(inject(req, s.keys.livePublishable));
    if (kinds.includes('publishable')) expect(res.status, res.text).toBe(200);
    else {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('secret_key_required');
    }
  });

  it('an ephemeral key with every ephemeral scope: only its listed operations', async () => {
    const req = requestFor(op, s.test, undefined, await hook());
    const res = await s.t.request(inject(req, s.keys.ephemeral));
    if (kinds.includes('ephemeral')) expect(res.status, res.text).toBe(200);
    else expect(res.status).toBe(403);
  });
});
