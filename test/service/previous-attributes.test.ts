/**
 * An event's `previous_attributes` does not depend on the clock or the database (issue 31):
 * an update in the same second as the previous change left `updated` equal, so it used to be
 * missing from `previous_attributes`, while one a second later carried it. The contract smoke
 * fuzz, which sends the same requests to SQLite and PostgreSQL a moment apart, saw the two
 * databases answer differently. Here the test clock puts the update in the same second, and in
 * the next one, on both databases: both events carry `updated`.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { previousAttributes } from '../../server/domain/events.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

describe('previousAttributes', () => {
  it('carries updated whenever another field changed, equal or not', () => {
    const before = { id: 'pat_1', active: true, updated: 100 };
    expect(previousAttributes(before, { ...before, active: false })).toEqual({
      active: true,
      updated: 100,
    });
    expect(previousAttributes(before, { ...before, active: false, updated: 101 })).toEqual({
      active: true,
      updated: 100,
    });
    expect(previousAttributes(before, { ...before })).toEqual({});
  });
});

await describeEachDatabase('previous_attributes', (dialect) => {
  const ctx = useTestDb(dialect);
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await buildTestApp({ db: ctx.db });
    return () => t.close();
  });
  beforeEach(async () => {
    key = (await makeKey(ctx.db, { nowMs: t.clock.now })).secret;
  });

  const post = async (url: string, body: Record<string, unknown>) => {
    const res = await t.request({ method: 'POST', url, key, body });
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; updated: number };
  };
  const lastEvent = async (type: string) => {
    const res = await t.request({ method: 'GET', url: `/v1/events?type=${type}&limit=1`, key });
    return res.body.data[0].data.previous_attributes as Record<string, unknown>;
  };

  it.each([
    ['the same second', 0],
    ['the next second', 1000],
  ])('a patient update in %s carries updated', async (_, stepMs) => {
    const patient = await post('/v1/patients', { name: { family: 'Same', given: ['Second'] } });
    t.clock.now += stepMs;
    await post(`/v1/patients/${patient.id}`, { active: false });
    expect(await lastEvent('patient.updated')).toEqual({ active: true, updated: patient.updated });
  });

  it.each([
    ['the same second', 0],
    ['the next second', 1000],
  ])('an appointment update in %s carries updated', async (_, stepMs) => {
    const patient = await post('/v1/patients', { name: { family: 'Appt', given: ['Second'] } });
    const appointment = await post('/v1/appointments', {
      patient: patient.id,
      practitioner: 'Dr. Second',
    });
    t.clock.now += stepMs;
    await post(`/v1/appointments/${appointment.id}`, { metadata: { room: '4' } });
    expect(await lastEvent('appointment.updated')).toEqual({
      metadata: {},
      updated: appointment.updated,
    });
  });
});
