/**
 * The service as the security suite attacks it: the real route table and handlers on
 * in-memory SQLite, the app's pino output captured line by line, and keys of every kind in
 * both modes with one patient, appointment, claim, webhook and event per mode.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteDefinition } from '../../../contract/route-types.js';
import { routes as allRoutes, componentSchemas } from '../../../generated/routes.js';
import { ALL_SCOPES } from '../../../server/keys/index.js';
import { createKey } from '../../../server/keys/store.js';
import { versions } from '../../../server/versioning/index.js';
import { buildTestApp, type TestApp, type TestAppOptions } from '../../support/app.js';
import { claimBody } from '../../support/bodies.js';

/** The `PatientCare-Version` header of the latest version, for requests that need it. */
export const LATEST = { 'patientcare-version': versions.latest };

/**
 * The routes the `/v1`-shaped files attack: the `/v1` operations and the probes. The FHIR face
 * (`/fhir/R4`, docs/design.md#fhir-r4) answers OperationOutcomes, not the envelope those files
 * assert, so its attacks live in fhir-face.test.ts (authentication, mode isolation, scopes,
 * on every FHIR operation). `allRoutes` is every route, for the inventory of what the service
 * registers.
 */
const routes = allRoutes.filter((route) => !route.path.startsWith('/fhir/'));

export { allRoutes, claimBody, componentSchemas, routes };

/** Operations that take an API key: every one but the public health probes (`security: []`). */
export const keyedRoutes = routes.filter((route) => route.public !== true);

/** Ids of the objects seeded in one mode, by id prefix. */
export type SeededIds = Record<
  'pat' | 'pat2' | 'prac' | 'appt' | 'appt2' | 'clm' | 'wh' | 'evt',
  string
>;

export interface SecurityApp {
  t: TestApp;
  /** Every line the app logged (pino JSON). */
  logs: string[];
  keys: {
    secret: string;
    live: string;
    publishable: string;
    livePublishable: string;
    /** Restricted, every scope. */
    restrictedAll: string;
    /** Ephemeral for `test.pat`, every ephemeral scope. */
    ephemeral: string;
  };
  test: SeededIds;
  live: SeededIds;
  close(): Promise<void>;
}

async function seed(t: TestApp, key: string, hookUrl: string): Promise<SeededIds> {
  const make = async (url: string, body: unknown, headers = {}): Promise<string> => {
    const res = await t.request({ method: 'POST', url, key, body, headers });
    if (res.status !== 200) throw new Error(`seeding ${url} failed: ${res.text}`);
    return res.body.id as string;
  };
  const pat = await make('/v1/patients', { name: { family: 'Seeded' } });
  const pat2 = await make('/v1/patients', { name: { family: 'Other' } });
  const prac = await make('/v1/practitioners', { name: { family: 'Lee' }, npi: '1234567893' });
  // In the latest version: the test database's account is pinned to 2026-11-01, whose
  // appointments have no practitioner_id.
  const appt = await make(
    '/v1/appointments',
    { patient: pat, practitioner: 'Dr. Lee', practitioner_id: prac },
    LATEST,
  );
  const appt2 = await make('/v1/appointments', { patient: pat2, practitioner: 'Dr. Lee' });
  const clm = await make('/v1/claims', claimBody(pat));
  const wh = await make('/v1/webhooks', { url: hookUrl, enabled_events: ['*'] });
  const events = await t.request({ method: 'GET', url: '/v1/events', key });
  const evt = events.body.data[0].id as string;
  return { pat, pat2, prac, appt, appt2, clm, wh, evt };
}

/** Builds the app, keys and seeded objects. */
export async function buildSecurityApp(options: TestAppOptions = {}): Promise<SecurityApp> {
  const logs: string[] = [];
  const t = await buildTestApp({
    logger: { level: 'debug', stream: { write: (line: string) => void logs.push(line) } },
    ...options,
  });
  const key = async (opts: Parameters<typeof createKey>[1]) =>
    (await createKey(t.db, { nowMs: t.clock.now, ...opts })).secret;
  const secret = await key({ kind: 'secret', livemode: false });
  const live = await key({ kind: 'secret', livemode: true });
  // A hosted service (no private targets) gets a public test-mode endpoint instead.
  const testHook =
    options.config?.allowPrivateWebhookTargets === false
      ? 'https://93.184.215.14/test-hooks'
      : 'http://127.0.0.1:9/hooks';
  const test = await seed(t, secret, testHook);
  const liveIds = await seed(t, live, 'https://93.184.215.14/hooks');
  const ek = await t.request({
    method: 'POST',
    url: '/v1/ephemeral_keys',
    key: secret,
    body: {
      patient: test.pat,
      scopes: ['patients:read', 'appointments:read', 'appointments:write'],
    },
  });
  return {
    t,
    logs,
    keys: {
      secret,
      live,
      publishable: await key({ kind: 'publishable', livemode: false }),
      livePublishable: await key({ kind: 'publishable', livemode: true }),
      restrictedAll: await key({ kind: 'restricted', livemode: false, scopes: [...ALL_SCOPES] }),
      ephemeral: ek.body.secret as string,
    },
    test,
    live: liveIds,
    close: () => t.close(),
  };
}

/** The id prefix a route's `{id}` takes (`pat`, `appt`, …), read from its schema's pattern. */
export function idPrefix(route: RouteDefinition): string | undefined {
  const ref = (route.schemas.params?.properties as Record<string, { $ref?: string }> | undefined)
    ?.id?.$ref;
  if (ref === undefined) return undefined;
  const schema = componentSchemas.find((s) => s.$id === ref);
  return /^\^([a-z]+)_/.exec(String(schema?.pattern))?.[1];
}

/** The app of `t`, for raw `inject` calls the response checker would refuse. */
export function rawApp(app: SecurityApp): FastifyInstance {
  return app.t.app;
}
