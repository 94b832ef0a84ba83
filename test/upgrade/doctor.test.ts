/**
 * `npm run doctor`'s checks: rows holding appointment times an earlier release accepted and
 * today's cannot write are counted and listed by id (never by value or any patient field),
 * exit 1 until an update through the API corrects them, then exit 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctorCli } from '../../server/doctor/cli.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';
import { storeTimes } from './support/stored-times.js';

const FAMILY = 'Doctorcheck-Zyx';

describe('npm run doctor', () => {
  let t: TestApp;
  let secret: string;
  const ids: string[] = [];

  const report = async (limit = 100) => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const code = await doctorCli(t.db, { limit, json: false }, io);
    const json: string[] = [];
    await doctorCli(t.db, { limit, json: true }, { out: (l) => json.push(l), err: () => {} });
    return { code, text: lines.join('\n'), findings: json.map((l) => JSON.parse(l)) };
  };

  beforeAll(async () => {
    t = await buildTestApp();
    secret = (await makeKey(t.db)).secret;
    const patient = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: secret,
      body: { name: { family: FAMILY }, birth_date: '1961-02-03' },
    });
    for (let i = 0; i < 3; i++) {
      const made = await t.request({
        method: 'POST',
        url: '/v1/appointments',
        key: secret,
        body: {
          patient: patient.body.id,
          practitioner: 'Dr Doctor',
          start: 1795747516 + i * 3600,
          end: 1795749316 + i * 3600,
          confirm: true,
        },
      });
      ids.push(made.body.id);
    }
  });
  afterAll(() => t.close());

  it('finds nothing on rows today wrote', async () => {
    const { code, text, findings } = await report();
    expect(code).toBe(0);
    expect(findings.map((f) => f.count)).toEqual([0, 0, 0, 0]);
    expect(text).toMatch(/nothing to repair/);
  });

  it('lists out-of-range rows by id and count only, until an update corrects them', async () => {
    await storeTimes(t.db, ids[0]!, 1_795_747_516_000, 1_795_749_316_000);
    // Only `end` out of range: releases before 2026-11-01 checked end > start, nothing more.
    await storeTimes(t.db, ids[2]!, 1_795_754_716, 9_000_000_000_000);
    const before = await report();
    expect(before.code).toBe(1);
    const [appointments, ended, events] = before.findings;
    expect(ended).toMatchObject({ check: 'appointment-times-ended', kind: 'info', count: 0 });
    expect(appointments).toMatchObject({ check: 'appointment-times', kind: 'repair', count: 2 });
    expect(appointments.ids).toEqual([ids[0], ids[2]].sort());
    expect(events).toMatchObject({ check: 'event-times', kind: 'info', count: 2 });
    expect(before.text).toContain(ids[0]);
    for (const secretValue of [FAMILY, '1961-02-03', '1795747516000', '9000000000000'])
      expect(before.text).not.toContain(secretValue);
    expect((await report(1)).text).toMatch(/\(and 1 more\)/);

    const fixed = await t.request({
      method: 'POST',
      url: `/v1/appointments/${ids[0]}`,
      key: secret,
      body: { start: 1795747516, end: 1795749316 },
    });
    expect(fixed.status).toBe(200);
    const after = await report();
    expect(after.findings[0]).toMatchObject({ count: 1, ids: [ids[2]] });

    // Cancelled, its times can no longer change: reported for the record, nothing to repair.
    const cancelled = await t.request({
      method: 'POST',
      url: `/v1/appointments/${ids[2]}`,
      key: secret,
      body: { status: 'cancelled' },
    });
    expect(cancelled.status).toBe(200);
    const last = await report();
    expect(last.code).toBe(0);
    expect(last.findings[1]).toMatchObject({ count: 1, ids: [ids[2]] });
  });
});
