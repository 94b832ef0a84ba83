import { describe, expect, it } from 'vitest';
import {
  createPatient,
  errorOf,
  LOCAL_HOOK_URL,
  patientFields,
  useService,
} from './support/fixtures.js';

const fx = useService();

/** Creates `n` patients (one patient.created each) and updates the first (patient.updated). */
async function seedEvents(n: number): Promise<void> {
  const { t, test } = fx();
  let first: string | undefined;
  for (let i = 0; i < n; i++) {
    const res = await createPatient(t, test.secret, patientFields(i));
    first ??= res.body.id;
    t.clock.now += 1000;
  }
  await t.request({
    method: 'POST',
    url: `/v1/patients/${first}`,
    key: test.secret,
    body: { active: false },
  });
}

describe('listEvents', () => {
  it('lists newest first and filters by exact type and by family', async () => {
    const { t, test } = fx();
    await seedEvents(3);
    const all = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(all.body.url).toBe('/v1/events');
    expect(all.body.data.map((e: { type: string }) => e.type)).toEqual([
      'patient.updated',
      'patient.created',
      'patient.created',
      'patient.created',
    ]);
    const created = await t.request({
      method: 'GET',
      url: '/v1/events?type=patient.created',
      key: test.secret,
    });
    expect(created.body.data).toHaveLength(3);
    const family = await t.request({
      method: 'GET',
      url: '/v1/events?type=patient.*',
      key: test.secret,
    });
    expect(family.body.data).toHaveLength(4);
    const none = await t.request({
      method: 'GET',
      url: '/v1/events?type=claim.*',
      key: test.secret,
    });
    expect(none.body.data).toEqual([]);
    const bad = await t.request({
      method: 'GET',
      url: '/v1/events?type=patient',
      key: test.secret,
    });
    expect(errorOf(bad)).toMatchObject({ status: 400, code: 'parameter_invalid', param: 'type' });
  });

  it('pages with starting_after and ending_before, and filters on created', async () => {
    const { t, test } = fx();
    await seedEvents(5); // 6 events
    const all = await t.request({ method: 'GET', url: '/v1/events?limit=100', key: test.secret });
    const ids = all.body.data.map((e: { id: string }) => e.id);
    expect(ids).toHaveLength(6);
    const page1 = await t.request({ method: 'GET', url: '/v1/events?limit=4', key: test.secret });
    expect(page1.body.has_more).toBe(true);
    const page2 = await t.request({
      method: 'GET',
      url: `/v1/events?limit=4&starting_after=${ids[3]}`,
      key: test.secret,
    });
    expect(page2.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(4));
    expect(page2.body.has_more).toBe(false);
    const back = await t.request({
      method: 'GET',
      url: `/v1/events?limit=2&ending_before=${ids[4]}`,
      key: test.secret,
    });
    expect(back.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(2, 4));
    const first = all.body.data.at(-1).created as number;
    const range = await t.request({
      method: 'GET',
      url: `/v1/events?created[lte]=${first + 1}`,
      key: test.secret,
    });
    expect(range.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(4));
    const wrongCursor = await t.request({
      method: 'GET',
      url: '/v1/events?starting_after=pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
      key: test.secret,
    });
    expect(errorOf(wrongCursor)).toMatchObject({ status: 400, param: 'starting_after' });
  });

  it('keeps modes apart and hides events older than 30 days', async () => {
    const { t, test, live } = fx();
    await seedEvents(1);
    const liveList = await t.request({ method: 'GET', url: '/v1/events', key: live.secret });
    expect(liveList.body.data).toEqual([]);
    t.clock.now += 31 * 24 * 3600 * 1000;
    const later = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(later.body.data).toEqual([]);
  });

  it('counts the subscribed enabled endpoints of the mode in pending_webhooks', async () => {
    const { t, test, live } = fx();
    const hook = (key: string, enabled_events: string[]) =>
      t.request({
        method: 'POST',
        url: '/v1/webhooks',
        key,
        body: {
          url: key === test.secret ? LOCAL_HOOK_URL : 'https://93.184.215.14/h',
          enabled_events,
        },
      });
    await hook(test.secret, ['*']);
    await hook(test.secret, ['patient.created']);
    await hook(test.secret, ['patient.updated']);
    await hook(live.secret, ['*']);
    const disabled = await hook(test.secret, ['*']);
    await t.request({
      method: 'POST',
      url: `/v1/webhooks/${disabled.body.id}`,
      key: test.secret,
      body: { status: 'disabled' },
    });
    const patient = await createPatient(t, test.secret);
    const events = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(events.body.data[0]).toMatchObject({
      type: 'patient.created',
      data: { object: { id: patient.body.id } },
      pending_webhooks: 2,
    });
    const deliveries = await t.db.all('SELECT * FROM webhook_deliveries WHERE event_id = $1', [
      events.body.data[0].id,
    ]);
    expect(deliveries).toHaveLength(2);
  });
});

describe('retrieveEvent', () => {
  it('returns the listed event; unknown and other-mode ids are 404', async () => {
    const { t, test, live } = fx();
    await seedEvents(1);
    const list = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    const event = list.body.data[0];
    const res = await t.request({ method: 'GET', url: `/v1/events/${event.id}`, key: test.secret });
    expect(res.body).toEqual(event);
    const other = await t.request({
      method: 'GET',
      url: `/v1/events/${event.id}`,
      key: live.secret,
    });
    expect(errorOf(other)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
    const unknown = await t.request({
      method: 'GET',
      url: '/v1/events/evt_01JDA1B2C3D4E5F6G7H8J9K0MN',
      key: test.secret,
    });
    expect(errorOf(unknown)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
  });

  it('audits event reads with the patient they carry', async () => {
    const { t, test } = fx();
    const patient = await createPatient(t, test.secret);
    const list = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    await t.request({ method: 'GET', url: `/v1/events/${list.body.data[0].id}`, key: test.secret });
    const entry = t.audit.entries.find((e) => e.operationId === 'retrieveEvent');
    expect(entry?.objectIds).toEqual([list.body.data[0].id, patient.body.id]);
  });
});
