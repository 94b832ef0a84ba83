/**
 * A test app listening on a loopback port, with a secret key and one patient: what the tests
 * that send bodies over real sockets (expensive-body, hostile-memory) start from.
 */
import { buildTestApp, type TestApp } from '../../support/app.js';
import { makeKey } from '../../support/keys.js';

export interface ListeningApp {
  t: TestApp;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** A test secret key. */
  key: string;
  /** A patient created through the API. */
  patient: string;
}

export async function listeningAppWithPatient(): Promise<ListeningApp> {
  const t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const key = (await makeKey(t.db)).secret;
  const created = await fetch(`${base}/v1/patients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: { family: 'Steady' }, birth_date: '1970-01-01' }),
  });
  const patient = ((await created.json()) as { id: string }).id;
  return { t, base, key, patient };
}
