import { describe, expect, test } from 'vitest';
import { parseSignatureHeader, signWebhookPayload, verifyWebhook } from '../../client/webhook.js';

const secret = 'whsec_test_secret';
const t = 1_790_000_000;
const body = JSON.stringify({
  id: 'evt_01',
  object: 'event',
  type: 'patient.created',
  data: { object: {} },
});
const signed = signWebhookPayload(body, secret, t);
const [, goodV1] = signed.split(',');
const otherV1 = signWebhookPayload(body, 'whsec_other', t).split(',')[1];

describe('verifyWebhook', () => {
  test.each([
    ['valid', body, signed, secret, t, undefined],
    ['valid, bytes body', new TextEncoder().encode(body), signed, secret, t, undefined],
    ['valid at the edge of tolerance', body, signed, secret, t + 300, undefined],
    ['valid, clock behind', body, signed, secret, t - 300, undefined],
    ['multiple v1, one matching', body, `t=${t},${otherV1},${goodV1}`, secret, t, undefined],
    ['multiple v1 and an unknown scheme', body, `t=${t},v0=abc,${goodV1}`, secret, t, undefined],
    ['tampered body', body.replace('created', 'updated'), signed, secret, t, 'signature_mismatch'],
    ['wrong secret', body, signed, 'whsec_wrong', t, 'signature_mismatch'],
    [
      'timestamp changed',
      body,
      signed.replace(`t=${t}`, `t=${t + 1}`),
      secret,
      t,
      'signature_mismatch',
    ],
    ['stale timestamp', body, signed, secret, t + 301, 'timestamp_outside_tolerance'],
    ['timestamp from the future', body, signed, secret, t - 301, 'timestamp_outside_tolerance'],
    ['no header', body, undefined, secret, t, 'signature_header_missing'],
    ['empty header', body, '  ', secret, t, 'signature_header_missing'],
    ['no t', body, goodV1, secret, t, 'signature_header_malformed'],
    ['no v1', body, `t=${t}`, secret, t, 'signature_header_malformed'],
    ['two t', body, `t=${t},t=${t},${goodV1}`, secret, t, 'signature_header_malformed'],
    ['v1 not hex', body, `t=${t},v1=${'z'.repeat(64)}`, secret, t, 'signature_header_malformed'],
    ['v1 too short', body, `t=${t},v1=abcd`, secret, t, 'signature_header_malformed'],
    ['t not a number', body, `t=now,${goodV1}`, secret, t, 'signature_header_malformed'],
    ['garbage', body, 'hello', secret, t, 'signature_header_malformed'],
  ])('%s', (_name, rawBody, header, key, now, wantCode) => {
    const { event, error } = verifyWebhook(rawBody, header, key, { now });
    expect(error?.code).toBe(wantCode);
    if (wantCode === undefined) expect(event?.id).toBe('evt_01');
    else expect(event).toBeUndefined();
  });

  test('tolerance is configurable', () => {
    expect(verifyWebhook(body, signed, secret, { now: t + 10, tolerance: 5 }).error?.code).toBe(
      'timestamp_outside_tolerance',
    );
    expect(
      verifyWebhook(body, signed, secret, { now: t + 10, tolerance: 10 }).error,
    ).toBeUndefined();
  });

  test('defaults to the system clock', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(body, signWebhookPayload(body, secret, now), secret).event?.type).toBe(
      'patient.created',
    );
    expect(verifyWebhook(body, signed, secret).error?.code).toBe('timestamp_outside_tolerance');
  });

  test('a correctly signed payload that is not an event is rejected', () => {
    for (const payload of ['not json', '[]', '{"id":1,"type":"x"}']) {
      const header = signWebhookPayload(payload, secret, t);
      expect(verifyWebhook(payload, header, secret, { now: t }).error?.code).toBe(
        'payload_invalid',
      );
    }
  });

  test('misuse throws TypeError', () => {
    expect(() => verifyWebhook(body, signed, '')).toThrow(TypeError);
    expect(() => verifyWebhook(body, signed, secret, { tolerance: -1 })).toThrow(TypeError);
    expect(() => verifyWebhook(body, signed, secret, { tolerance: Number.NaN })).toThrow(TypeError);
  });
});

describe('signWebhookPayload', () => {
  test('HMAC-SHA256 over "<t>.<body>" with the whole secret as key', async () => {
    const { createHmac } = await import('node:crypto');
    const want = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(signed).toBe(`t=${t},v1=${want}`);
  });

  test('one v1 per secret, for rotation', () => {
    const header = signWebhookPayload(body, ['whsec_old', secret], t);
    expect(parseSignatureHeader(header)?.signatures).toHaveLength(2);
    expect(verifyWebhook(body, header, secret, { now: t }).error).toBeUndefined();
    expect(verifyWebhook(body, header, 'whsec_old', { now: t }).error).toBeUndefined();
  });

  test('misuse throws TypeError', () => {
    expect(() => signWebhookPayload(body, [], t)).toThrow(TypeError);
    expect(() => signWebhookPayload(body, secret, 1.5)).toThrow(TypeError);
  });
});
