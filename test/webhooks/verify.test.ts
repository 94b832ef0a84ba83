import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSignatureHeader, verifyWebhook } from '../../client/webhook.js';
import { startDeliveryWorker } from '../../server/webhooks/worker.js';
import { useTestDb } from '../support/databases.js';
import { addWebhook, emit, newSecret } from './support/fixtures.js';
import { type Received, type Receiver, startReceiver, waitFor } from './support/receiver.js';

// One real delivery, captured as the receiver saw it, then checked the ways a receiver must.
describe('verifyWebhook on a real delivery', () => {
  const ctx = useTestDb('sqlite');
  let receiver: Receiver;
  let delivery: Received;
  let secret: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    const hook = await addWebhook(ctx.db, receiver.url('/a'));
    secret = hook.secret;
    receiver.secrets.set('/a', secret);
    const worker = startDeliveryWorker({
      db: ctx.db,
      pollIntervalMs: 10,
      allowPrivateTargets: true,
    });
    await emit(ctx.db);
    await waitFor(() => receiver.received.length === 1);
    await worker.stop();
    delivery = receiver.received[0]!;
  });
  afterAll(async () => receiver.close());

  const header = () => String(delivery.headers['patientcare-signature']);
  const signedAt = () => parseSignatureHeader(header())!.timestamp;

  it('accepts the delivery as sent', () => {
    const { event, error } = verifyWebhook(delivery.rawBody, header(), secret);
    expect(error).toBeUndefined();
    expect(event?.id).toBe(delivery.eventId);
  });

  it('rejects a tampered body', () => {
    const tampered = delivery.rawBody.replace('"patient.created"', '"patient.updated"');
    expect(tampered).not.toBe(delivery.rawBody);
    expect(verifyWebhook(tampered, header(), secret).error?.code).toBe('signature_mismatch');
  });

  it('rejects the body re-serialised (it must be verified as raw bytes)', () => {
    const pretty = JSON.stringify(JSON.parse(delivery.rawBody), null, 2);
    expect(verifyWebhook(pretty, header(), secret).error?.code).toBe('signature_mismatch');
  });

  it('rejects a wrong secret', () => {
    expect(verifyWebhook(delivery.rawBody, header(), newSecret()).error?.code).toBe(
      'signature_mismatch',
    );
  });

  it('rejects a stale or future timestamp, and accepts within 300 s', () => {
    const t = signedAt();
    const at = (now: number) => verifyWebhook(delivery.rawBody, header(), secret, { now }).error;
    expect(at(t + 301)?.code).toBe('timestamp_outside_tolerance');
    expect(at(t - 301)?.code).toBe('timestamp_outside_tolerance');
    expect(at(t + 300)).toBeUndefined();
  });

  it('rejects a missing or malformed header', () => {
    expect(verifyWebhook(delivery.rawBody, undefined, secret).error?.code).toBe(
      'signature_header_missing',
    );
    expect(verifyWebhook(delivery.rawBody, 'v1=abc', secret).error?.code).toBe(
      'signature_header_malformed',
    );
  });
});
