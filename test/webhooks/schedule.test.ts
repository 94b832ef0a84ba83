import { describe, expect, it } from 'vitest';
import { loadBackgroundConfig } from '../../server/webhooks/background.js';
import {
  DEFAULT_SCHEDULE,
  liveDelays,
  nextRetryAt,
  parseSchedule,
} from '../../server/webhooks/schedule.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('retry schedule', () => {
  it('test mode: 3 retries after 5 s, 15 s, 45 s', () => {
    expect(DEFAULT_SCHEDULE.test).toEqual([5000, 15_000, 45_000]);
  });

  it('live mode: from 1 minute, doubling, capped at 6 hours, within 3 days', () => {
    // Doubling from 1 min reaches 256 min after 9 delays (511 min in all); the next, 512,
    // is capped at 360. 511 + 10 × 360 = 4111 min is within 3 days (4320 min); an 11th 360
    // would make 4471. So 19 delays.
    const live = [1, 2, 4, 8, 16, 32, 64, 128, 256, ...Array<number>(10).fill(360)].map(
      (minutes) => minutes * MIN,
    );
    expect(liveDelays()).toEqual(live);
    expect(DEFAULT_SCHEDULE.live).toEqual(live);
  });

  it('times each retry from the failure: the spec schedule with jitter at its middle', () => {
    const at = 1_000_000;
    const middle = () => 0.5;
    const retry = (livemode: boolean, attempts: number) =>
      nextRetryAt(DEFAULT_SCHEDULE, livemode, attempts, at, middle);
    expect([1, 2, 3, 4].map((n) => retry(false, n))).toEqual([
      1_005_000,
      1_015_000,
      1_045_000,
      null,
    ]);
    expect(retry(true, 1)).toBe(1_060_000);
    expect(retry(true, 9)).toBe(1_000_000 + 256 * MIN);
    expect(retry(true, 10)).toBe(1_000_000 + 6 * HOUR);
    expect(retry(true, 19)).toBe(1_000_000 + 6 * HOUR);
    expect(retry(true, 20)).toBeNull();
    // ±10 %: the first live retry between 54 s and 66 s after the failure.
    expect(nextRetryAt(DEFAULT_SCHEDULE, true, 1, at, () => 0)).toBe(1_054_000);
    expect(nextRetryAt(DEFAULT_SCHEDULE, true, 1, at, () => 1)).toBe(1_066_000);
  });

  it('applies jitter within its bounds and stops after the last retry', () => {
    const schedule = { test: [1000, 2000], live: [], jitter: 0.1 };
    expect(nextRetryAt(schedule, false, 1, 0, () => 0)).toBe(900);
    expect(nextRetryAt(schedule, false, 1, 0, () => 1)).toBe(1100);
    expect(nextRetryAt(schedule, false, 2, 0, () => 0.5)).toBe(2000);
    expect(nextRetryAt(schedule, false, 3, 0)).toBeNull();
    expect(nextRetryAt(schedule, true, 1, 0)).toBeNull();
  });

  it.each([
    ['', DEFAULT_SCHEDULE.test, DEFAULT_SCHEDULE.live],
    ['100,200ms,1s', [100, 200, 1000], [100, 200, 1000]],
    ['test=50ms,1m', [50, MIN], DEFAULT_SCHEDULE.live],
    ['live=1h;test=2s', [2000], [HOUR]],
  ])('WEBHOOK_SCHEDULE=%j', (text, test, live) => {
    const schedule = parseSchedule(text);
    expect(schedule.test).toEqual(test);
    expect(schedule.live).toEqual(live);
  });

  it.each(['5 minutes', 'test=abc', 'jitter=2', 'other=1s'])('refuses %j', (text) => {
    expect(() => parseSchedule(text)).toThrow(/WEBHOOK_SCHEDULE/);
  });

  it('reads WORKER, CLEARINGHOUSE_DELAY_MS and refuses bad values by name', () => {
    expect(loadBackgroundConfig({}).enabled).toBe(true);
    expect(loadBackgroundConfig({ WORKER: 'off' }).enabled).toBe(false);
    expect(loadBackgroundConfig({ CLEARINGHOUSE_DELAY_MS: '250' }).clearinghouseDelayMs).toBe(250);
    expect(() => loadBackgroundConfig({ WORKER: 'maybe' })).toThrow(/WORKER/);
    expect(() => loadBackgroundConfig({ CLEARINGHOUSE_DELAY_MS: '-1' })).toThrow(
      /CLEARINGHOUSE_DELAY_MS/,
    );
  });

  it('reads the delivery limits with their documented defaults', () => {
    expect(loadBackgroundConfig({})).toMatchObject({
      concurrency: 32,
      endpointConcurrency: 8,
      timeoutMs: 10_000,
    });
    const set = loadBackgroundConfig({
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_TIMEOUT_MS: '1500',
    });
    expect(set).toMatchObject({ concurrency: 8, endpointConcurrency: 2, timeoutMs: 1500 });
    expect(() => loadBackgroundConfig({ WEBHOOK_TIMEOUT_MS: '10s' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
  });
});
