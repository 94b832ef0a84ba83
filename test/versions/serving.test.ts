/**
 * One service, two versions, both databases: 2026-12-01 (appointment times as RFC 3339) and
 * 2026-11-01 (unix seconds) served side by side from the same rows; the version echoed on
 * every answer; an idempotent replay in the version asked now; events and webhook deliveries
 * rendered per reader. Every answer is checked against the document of the version it names.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAjv } from '../../contract/ajv.js';
import * as latestTable from '../../generated/routes.js';
import * as oldTable from '../../generated/versions/2026-11-01/routes.js';
import { versions } from '../../server/versioning/index.js';
import { type DeliveryWorker, startDeliveryWorker } from '../../server/webhooks/worker.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey, type TestKey } from '../support/keys.js';
import { type Receiver, startReceiver, waitFor } from '../webhooks/support/receiver.js';

const NEW = { 'patientcare-version': '2026-12-01' };
const OLD = { 'patientcare-version': '2026-11-01' };

await describeEachDatabase('two versions served', (dialect) => {
  const ctx = useTestDb(dialect);
  let t: TestApp;
  let key: TestKey;
  let patient: string;

  beforeEach(async () => {
    t = await buildTestApp({ db: ctx.db });
    key = await makeKey(ctx.db);
    const res = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: key.secret,
      body: { name: { family: 'Rivera' } },
    });
    patient = res.body.id;
  });
  afterEach(async () => t.close());

  const create = (headers: Record<string, string>, body: Record<string, unknown>, idem?: string) =>
    t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: key.secret,
      headers,
      body: { patient, practitioner: 'Dr Lee', ...body },
      ...(idem ? { idempotencyKey: idem } : {}),
    });
  const get = (url: string, headers: Record<string, string>) =>
    t.request({ method: 'GET', url, key: key.secret, headers });

  it('2026-12-01 takes a date-time with any offset and answers in UTC; 2026-11-01 reads seconds', async () => {
    const made = await create(NEW, {
      start: '2026-11-04T10:00:00+01:00',
      end: '2026-11-04T04:30:00-05:00',
    });
    expect(made.status).toBe(200);
    expect(made.headers['patientcare-version']).toBe('2026-12-01');
    expect(made.body).toMatchObject({ start: '2026-11-04T09:00:00Z', end: '2026-11-04T09:30:00Z' });
    const old = await get(`/v1/appointments/${made.body.id}`, OLD);
    expect(old.headers['patientcare-version']).toBe('2026-11-01');
    expect(old.body).toMatchObject({ start: 1793782800, end: 1793784600 });
    const list = await get('/v1/appointments', OLD);
    expect(list.body.data[0]).toMatchObject({ start: 1793782800 });
  });

  it('a 2026-11-01 write is read in 2026-12-01 as date-times, and the default header is the latest', async () => {
    const made = await create(OLD, { start: 1793782800, end: 1793784600, confirm: true });
    expect(made.body).toMatchObject({ status: 'booked', start: 1793782800 });
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/appointments/${made.body.id}`,
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(res.headers['patientcare-version']).toBe(versions.latest);
    expect(JSON.parse(res.body)).toMatchObject({ start: '2026-11-04T09:00:00Z' });
  });

  it('each version refuses the other shape with 400 parameter_invalid naming the field', async () => {
    const old = await create(OLD, { start: '2026-11-04T09:00:00Z', end: '2026-11-04T09:30:00Z' });
    expect(old.status).toBe(400);
    expect(old.body.error).toMatchObject({ code: 'parameter_invalid', param: 'start' });
    const latest = await create(NEW, { start: 1793782800, end: 1793784600 });
    expect(latest.status).toBe(400);
    expect(latest.body.error).toMatchObject({ code: 'parameter_invalid', param: 'start' });
    const early = await create(NEW, { start: '1969-12-31T23:00:00Z', end: '1970-01-01T00:30:00Z' });
    expect(early.body.error).toMatchObject({ code: 'parameter_invalid', param: 'start' });
  });

  it.each([
    ['a string', '2026-11-04T09:00:00Z'],
    ['negative', -1],
    ['past 2^53', 2 ** 53 + 2],
    ['a fraction', 1.5],
    ['after 9999', 253_402_300_800],
  ])('2026-11-01 refuses %s as its document says (400 naming the field)', async (_name, start) => {
    const made = await create(NEW, { start: '2026-11-04T09:00:00Z', end: '2026-11-04T09:30:00Z' });
    const res = await t.request({
      method: 'POST',
      url: `/v1/appointments/${made.body.id}`,
      key: key.secret,
      headers: OLD,
      body: { start },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'start' });
    if (typeof start !== 'number' || !Number.isInteger(start)) {
      // The wrong form is told the form expected and the version that judged it.
      expect(res.body.error.message).toBe(
        'start must be a unix time in seconds, an integer from 0 to 253402300799, e.g. 1793577600 (PatientCare-Version 2026-11-01).',
      );
    }
  });

  it('2026-12-01 tells a client sending seconds the date-time form it takes', async () => {
    const res = await create(NEW, { start: 1793782800, end: 1793784600 });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'start must be an RFC 3339 date-time with an offset, e.g. 2026-12-04T10:00:00Z (PatientCare-Version 2026-12-01).',
    );
  });

  it('an unknown or future version is a 400 listing the supported ones', async () => {
    for (const asked of ['2027-01-01', '2026-11-15', 'latest']) {
      const res = await get('/v1/appointments', { 'patientcare-version': asked });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('PatientCare-Version');
      expect(res.body.error.message).toContain('2026-12-01, 2026-11-01');
    }
  });

  it('an idempotent replay answers in the version asked now', async () => {
    const made = await create(NEW, { start: '2026-11-04T09:00:00Z', end: '2026-11-04T09:30:00Z' });
    const update = (headers: Record<string, string>) =>
      t.request({
        method: 'POST',
        url: `/v1/appointments/${made.body.id}`,
        key: key.secret,
        headers,
        idempotencyKey: 'versions-replay-1',
        body: { reason: 'Follow-up' },
      });
    const first = await update(NEW);
    expect(first.body.start).toBe('2026-11-04T09:00:00Z');
    const replayed = await update(OLD);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toMatchObject({
      id: made.body.id,
      reason: 'Follow-up',
      start: 1793782800,
    });
    const again = await update(NEW);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.start).toBe('2026-11-04T09:00:00Z');
  });

  it('events are rendered in the version asked, previous_attributes included', async () => {
    const made = await create(NEW, { start: '2026-11-04T09:00:00Z', end: '2026-11-04T09:30:00Z' });
    await t.request({
      method: 'POST',
      url: `/v1/appointments/${made.body.id}`,
      key: key.secret,
      headers: NEW,
      body: { start: '2026-11-05T09:00:00Z', end: '2026-11-05T09:30:00Z' },
    });
    const latest = await get('/v1/events?type=appointment.updated', NEW);
    const event = latest.body.data[0];
    expect(event.api_version).toBe('2026-12-01');
    expect(event.data.object.start).toBe('2026-11-05T09:00:00Z');
    expect(event.data.previous_attributes.start).toBe('2026-11-04T09:00:00Z');
    const old = await get(`/v1/events/${event.id}`, OLD);
    expect(old.body.api_version).toBe('2026-11-01');
    expect(old.body.data.object.start).toBe(1793869200);
    expect(old.body.data.previous_attributes).toMatchObject({ start: 1793782800, end: 1793784600 });
  });

  it('a new endpoint takes the request version by default', async () => {
    const res = (headers: Record<string, string>) =>
      t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key: key.secret,
        headers,
        body: { url: 'https://hooks.example/a', enabled_events: ['*'] },
      });
    expect((await res(OLD)).body.api_version).toBe('2026-11-01');
    expect((await res(NEW)).body.api_version).toBe('2026-12-01');
  });

  it("an endpoint's api_version is fixed at creation: an update naming it is refused, nothing changes", async () => {
    const made = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: key.secret,
      headers: OLD,
      body: { url: 'https://hooks.example/a', enabled_events: ['*'] },
    });
    const url = `/v1/webhooks/${made.body.id}`;
    const update = await t.request({
      method: 'POST',
      url,
      key: key.secret,
      headers: NEW,
      body: { api_version: '2026-12-01', description: 'moved' },
    });
    expect(update.status).toBe(400);
    expect(update.body.error).toMatchObject({ code: 'parameter_unknown', param: 'api_version' });
    const after = await get(url, NEW);
    expect(after.body).toMatchObject({ api_version: '2026-11-01', description: null });
  });

  describe_deliveries();

  function describe_deliveries() {
    let receiver: Receiver;
    let worker: DeliveryWorker | undefined;
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await worker?.stop();
      await receiver.close();
    });

    it('each webhook endpoint receives events in its api_version, valid against that document', async () => {
      for (const [path, version] of [
        ['/old', '2026-11-01'],
        ['/new', '2026-12-01'],
      ] as const) {
        const hook = await t.request({
          method: 'POST',
          url: '/v1/webhooks',
          key: key.secret,
          headers: NEW,
          body: {
            url: receiver.url(path),
            enabled_events: ['appointment.created'],
            api_version: version,
          },
        });
        expect(hook.status, JSON.stringify(hook.body)).toBe(200);
        receiver.secrets.set(path, hook.body.secret);
      }
      await create(NEW, { start: '2026-11-04T09:00:00Z', end: '2026-11-04T09:30:00Z' });
      worker = startDeliveryWorker({ db: ctx.db, allowPrivateTargets: true, pollIntervalMs: 10 });
      await waitFor(() => receiver.received.length >= 2, 15_000, 'two deliveries');
      const body = (path: string) =>
        JSON.parse(receiver.received.find((r) => r.path === path)!.rawBody);
      const old = body('/old');
      const latest = body('/new');
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      expect(old).toMatchObject({
        api_version: '2026-11-01',
        data: { object: { start: 1793782800 } },
      });
      expect(latest).toMatchObject({
        api_version: '2026-12-01',
        data: { object: { start: '2026-11-04T09:00:00Z' } },
      });
      const valid = (table: typeof oldTable, event: unknown) => {
        const ajv = createAjv({ strict: false, schemas: [...table.componentSchemas] });
        const check = ajv.getSchema('urn:openapi:response:Event')!;
        return check(event) ? [] : check.errors;
      };
      expect(valid(oldTable, old)).toEqual([]);
      expect(valid(latestTable, latest)).toEqual([]);
      expect(valid(latestTable, old)).not.toEqual([]);
    });
  }
});
