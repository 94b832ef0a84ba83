/**
 * The README walk's receiver (tooling/webhook-receiver/): a delivery signed with the endpoint's
 * secret is answered 200 and reported verified; one signed with another secret, or unsigned,
 * is answered 400 and reported refused with the reason; a GET is a readiness probe, answered
 * 204 and not reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookPayload } from '../../contract/webhook-signature.js';
import { type Delivery, startWebhookReceiver } from '../../tooling/webhook-receiver/receiver.js';

describe('the local webhook receiver', () => {
  const deliveries: Delivery[] = [];
  let close: () => void;
  let url: string;

  beforeAll(async () => {
    const { server, port } = await startWebhookReceiver({
      secret: 'whsec_walk',
      port: 0,
      onDelivery: (delivery) => deliveries.push(delivery),
    });
    close = () => server.close();
    url = `http://127.0.0.1:${port}/`;
  });
  afterAll(() => close?.());

  const body = JSON.stringify({ id: 'evt_walk', type: 'patient.updated' });
  const post = (headers: Record<string, string>) =>
    fetch(url, { method: 'POST', headers, body }).then((res) => res.status);
  const now = () => Math.floor(Date.now() / 1000);

  it('verifies a delivery signed with the secret', async () => {
    expect(
      await post({ 'patientcare-signature': signWebhookPayload(body, 'whsec_walk', now()) }),
    ).toBe(200);
    expect(deliveries.at(-1)).toEqual({ verified: true, type: 'patient.updated', id: 'evt_walk' });
  });

  it('refuses one signed with another secret, and one without a signature', async () => {
    expect(
      await post({ 'patientcare-signature': signWebhookPayload(body, 'whsec_other', now()) }),
    ).toBe(400);
    expect(deliveries.at(-1)).toEqual({
      verified: false,
      reason: expect.stringMatching(/^signature_mismatch: /),
    });
    expect(await post({})).toBe(400);
    expect(deliveries.at(-1)).toEqual({
      verified: false,
      reason: expect.stringMatching(/^signature_header_missing: /),
    });
  });

  it('answers a GET with 204 and reports nothing', async () => {
    const before = deliveries.length;
    const res = await fetch(url);
    expect(res.status).toBe(204);
    expect(deliveries).toHaveLength(before);
  });
});
