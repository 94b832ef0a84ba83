/**
 * The acting person (issue 43, item 1): `PatientCare-Actor` is stored on every audit row of
 * the request, on `/v1` and `/fhir/R4`, reads and writes; `audit --actor` lists them (the
 * audit CLI's library driven in-process); a key created with `--require-actor` refuses
 * requests without it; an ephemeral key carries the actor it was minted for. Both databases,
 * with the real batching audit writer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AuditArgs, auditCli, parseAuditTarget } from '../../server/audit/cli.js';
import { AuditWriter } from '../../server/audit/index.js';
import { parseKeysCommand, runKeysCommand } from '../../server/keys/cli.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { describeEachDatabase, openTestDb, type TestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

const ACTOR = 'clinician:4711';

interface Listed {
  requestId: string | null;
  operationId: string;
  actor: string | null;
  keyId: string | null;
  outcome: string;
}

await describeEachDatabase('PatientCare-Actor', (dialect) => {
  // One database for the file: the tests build on the patient and key made first.
  let ctx: TestDb;
  let t: TestApp;
  let writer: AuditWriter;
  let key: { secret: string; id: string };
  let patient: string;

  beforeAll(async () => {
    ctx = await openTestDb(dialect);
    writer = new AuditWriter(ctx.db, { intervalMs: 1 });
    t = await buildTestApp({ db: ctx.db, audit: writer });
    key = await makeKey(ctx.db, { nowMs: t.clock.now });
    const made = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: key.secret,
      headers: { 'PatientCare-Actor': ACTOR },
      body: { name: { family: 'Rivera', given: ['Ana'] } },
    });
    expect(made.status, made.text).toBe(200);
    patient = made.body.id;
  });
  afterAll(async () => {
    await t.close();
    await writer.close();
    await ctx.dispose();
  });

  /** `npm run audit -- --actor ID [--patient …] --json`, in-process. */
  const auditRows = async (args: { actor?: string; patient?: string }): Promise<Listed[]> => {
    await writer.flush();
    const lines: string[] = [];
    const parsed: AuditArgs = { ...parseAuditTarget(args), limit: 1000, json: true };
    const code = await auditCli(ctx.db, parsed, { out: (l) => lines.push(l), err: () => {} });
    expect(code).toBe(0);
    return lines.map((line) => JSON.parse(line) as Listed);
  };

  const get = (url: string, headers: Record<string, string> = {}, secret = key.secret) =>
    t.request({ method: 'GET', url, key: secret, headers });

  it('every read sent with the header is listed by audit --actor, and only those', async () => {
    const actor = `reader.${dialect}@ward-3`;
    const reads = [
      `/v1/patients/${patient}`,
      '/v1/patients?limit=5',
      `/fhir/R4/Patient/${patient.replace('_', '-')}`,
      '/fhir/R4/Patient?_count=5',
    ];
    const ids: string[] = [];
    for (const url of reads) {
      const res = await get(url, { 'PatientCare-Actor': actor });
      expect(res.status, `${url}: ${res.text}`).toBe(200);
      ids.push(String(res.headers['request-id']));
    }
    // A read without the header and one by somebody else are not theirs.
    expect((await get(`/v1/patients/${patient}`)).status).toBe(200);
    expect((await get(`/v1/patients/${patient}`, { 'PatientCare-Actor': 'other' })).status).toBe(
      200,
    );

    const listed = await auditRows({ actor });
    expect(listed.map((row) => row.requestId).sort()).toEqual([...ids].sort());
    expect(new Set(listed.map((row) => row.actor))).toEqual(new Set([actor]));
    expect(listed.map((row) => row.operationId).sort()).toEqual(
      ['listPatients', 'readFhirPatient', 'retrievePatient', 'searchFhirPatients'].sort(),
    );
    // Narrowed to one patient: the reads that touched it (the lists may too).
    const theirs = await auditRows({ actor, patient });
    expect(theirs.map((row) => row.operationId)).toEqual(
      expect.arrayContaining(['retrievePatient', 'readFhirPatient']),
    );
    expect(theirs.every((row) => row.actor === actor)).toBe(true);
  });

  it('a write records its actor in the same transaction as the change', async () => {
    const rows = await auditRows({ actor: ACTOR, patient });
    expect(rows.map((row) => row.operationId)).toContain('createPatient');
  });

  it.each([
    ['a space', 'Ana Rivera'],
    ['65 characters', 'a'.repeat(65)],
    ['a slash', 'ward/3'],
    ['empty', ''],
  ])(
    'a header with %s is 400 parameter_invalid naming the header, not its value',
    async (_, value) => {
      const res = await get(`/v1/patients/${patient}`, { 'PatientCare-Actor': value });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        param: 'PatientCare-Actor',
      });
      if (value !== '') expect(res.body.error.message).not.toContain(value);
    },
  );

  it('a key created with keys create --require-actor gets 400 without the header', async () => {
    const out: string[] = [];
    const parsed = parseKeysCommand([
      'create',
      '--restricted',
      '--scopes',
      'patients:read',
      '--require-actor',
    ]);
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    expect(await runKeysCommand(ctx.db, parsed, io)).toBe(0);
    expect(out[0]).toContain('requires PatientCare-Actor');
    const secret = out.find((l) => l.startsWith('secret: '))?.slice('secret: '.length) ?? '';

    const without = await get(`/v1/patients/${patient}`, {}, secret);
    expect(without.status).toBe(400);
    expect(without.body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'PatientCare-Actor',
    });
    expect(without.body.error.message).toMatch(/requires the PatientCare-Actor header/);
    const fhir = await get(`/fhir/R4/Patient/${patient.replace('_', '-')}`, {}, secret);
    expect(fhir.status).toBe(400);

    const withIt = await get(
      `/v1/patients/${patient}`,
      { 'PatientCare-Actor': 'job:nightly' },
      secret,
    );
    expect(withIt.status, withIt.text).toBe(200);
    // The refused read handed out no PHI and was not audited as a success.
    const rows = await auditRows({ patient });
    const refused = rows.find((row) => row.requestId === without.headers['request-id']);
    expect(refused?.outcome ?? 'none').not.toBe('success');
  });

  it('--require-actor is for secret and restricted keys only', () => {
    const parsed = parseKeysCommand(['create', '--publishable', '--require-actor']);
    expect(parsed).toMatchObject({ command: 'create', options: { requireActor: true } });
    return expect(runKeysCommand(ctx.db, parsed, { out: () => {}, err: () => {} })).resolves.toBe(
      2,
    );
  });

  it('an ephemeral key carries the actor of its minting request', async () => {
    const minted = await t.request({
      method: 'POST',
      url: '/v1/ephemeral_keys',
      key: key.secret,
      headers: { 'PatientCare-Actor': 'nurse:12' },
      body: { patient, scopes: ['patients:read'] },
    });
    expect(minted.status, minted.text).toBe(200);
    const ek = minted.body.secret as string;

    const bare = await get(`/v1/patients/${patient}`, {}, ek);
    expect(bare.status, bare.text).toBe(200);
    const same = await get(`/v1/patients/${patient}`, { 'PatientCare-Actor': 'nurse:12' }, ek);
    expect(same.status).toBe(200);
    const other = await get(`/v1/patients/${patient}`, { 'PatientCare-Actor': 'nurse:13' }, ek);
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'PatientCare-Actor',
    });

    const rows = await auditRows({ actor: 'nurse:12' });
    const byRequest = new Map(rows.map((row) => [row.requestId, row]));
    expect(byRequest.get(String(minted.headers['request-id']))?.operationId).toBe(
      'createEphemeralKey',
    );
    expect(byRequest.get(String(bare.headers['request-id']))?.keyId).toBe(minted.body.id);
    expect(byRequest.has(String(same.headers['request-id']))).toBe(true);

    // Minted without an actor: the key names none, and a page cannot add one.
    const unnamed = await t.request({
      method: 'POST',
      url: '/v1/ephemeral_keys',
      key: key.secret,
      body: { patient, scopes: ['patients:read'] },
    });
    const named = await get(
      `/v1/patients/${patient}`,
      { 'PatientCare-Actor': 'nurse:12' },
      unnamed.body.secret,
    );
    expect(named.status).toBe(400);
  });

  it('a refused request records the actor on its denied row', async () => {
    const readOnly = await makeKey(ctx.db, {
      kind: 'restricted',
      scopes: ['appointments:read'],
      nowMs: t.clock.now,
    });
    const res = await get(
      `/v1/patients/${patient}`,
      { 'PatientCare-Actor': 'denied:1' },
      readOnly.secret,
    );
    expect(res.status).toBe(403);
    const rows = await auditRows({ actor: 'denied:1' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: 'denied', operationId: 'retrievePatient' });
  });
});
