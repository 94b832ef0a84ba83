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
    const delays = liveDelays();
    expect(delays.slice(0, 4)).toEqual([MIN, 2 * MIN, 4 * MIN, 8 * MIN]);
    expect(Math.max(...delays)).toBe(6 * HOUR);
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(72 * HOUR);
    expect(total + 6 * HOUR).toBeGreaterThan(72 * HOUR); // one more would pass 3 days
    expect(DEFAULT_SCHEDULE.live).toEqual(delays);
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
