/**
 * Shared set-up of the service tests of patients, tokens, ephemeral keys, events and webhooks:
 * an app on in-memory SQLite (responses checked against the spec by `test/support`), a test
 * and a live secret key, and small builders for the objects most tests need.
 */
import { afterEach, beforeEach } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/app.js';
import type { CheckedResponse, InjectRequest } from '../../support/inject.js';
import { makeKey, type TestKey } from '../../support/keys.js';

/** What each test gets. */
export interface ServiceFixture {
  t: TestApp;
  /** `sk_test_…` */
  test: TestKey;
  /** `sk_live_…` */
  live: TestKey;
}

/**
 * Registers `beforeEach`/`afterEach` hooks that build a fresh app and keys per test; read the
 * fixture inside tests (`fx().t`).
 */
export function useService(): () => ServiceFixture {
  let current: ServiceFixture | undefined;
  beforeEach(async () => {
    const t = await buildTestApp();
    current = {
      t,
      test: await makeKey(t.db),
      live: await makeKey(t.db, { livemode: true }),
    };
  });
  afterEach(async () => {
    await current?.t.close();
    current = undefined;
  });
  return () => {
    if (current === undefined) throw new Error('useService fixture used outside a test');
    return current;
  };
}

/** Fields of a valid patient; `n` varies the name and MRN. */
export function patientFields(n = 1, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: `MRN${n}` }],
    name: { family: `Family${n}`, given: [`Given${n}`] },
    birth_date: '1980-01-01',
    ...extra,
  };
}

/** Creates a patient and returns the response (expects 200). */
export async function createPatient(
  t: TestApp,
  key: string,
  body: Record<string, unknown> = patientFields(),
  extra: Partial<InjectRequest> = {},
): Promise<CheckedResponse> {
  const res = await t.request({ method: 'POST', url: '/v1/patients', key, body, ...extra });
  if (res.status !== 200) throw new Error(`createPatient failed: ${res.text}`);
  return res;
}

/** The error `code` and `param` of an error response, for compact assertions. */
export function errorOf(res: CheckedResponse): { status: number; code: string; param: unknown } {
  const error = (res.body as { error?: { code: string; param: unknown } }).error;
  return { status: res.status, code: error?.code ?? '(none)', param: error?.param ?? null };
}

/** A public-looking https URL with an IP literal, so the URL guard needs no DNS lookup. */
export const PUBLIC_HOOK_URL = 'https://93.184.215.14/hooks/patient-care';
/** The test-mode local URL (no DNS: an IP literal). */
export const LOCAL_HOOK_URL = 'http://127.0.0.1:9/hooks';

/** Audit rows written in write transactions (the table), for one operation. */
export async function writeAuditRows(
  t: TestApp,
  operationId: string,
): Promise<Array<{ objectIds: string[]; outcome: string; requestId: string | null }>> {
  const rows = await t.db.all<{ object_ids: string; outcome: string; request_id: string | null }>(
    'SELECT object_ids, outcome, request_id FROM audit_log WHERE operation_id = $1 ORDER BY id',
    [operationId],
  );
  return rows.map((r) => ({
    objectIds: JSON.parse(r.object_ids) as string[],
    outcome: r.outcome,
    requestId: r.request_id,
  }));
}
