/**
 * When a failed delivery is tried again (spec: "Delivery" in the introduction). Test mode:
 * 3 retries after 5 s, 15 s and 45 s. Live mode: starting at 1 minute, doubling, capped at
 * 6 hours, for as long as the retries stay within 3 days of the first attempt. After the last
 * retry fails the endpoint is disabled. Each delay gets a little random jitter so endpoints
 * that failed together do not all come back in the same instant.
 */

/** Delays (ms) before retry 1, 2, …; the number of retries is the length. */
export interface RetrySchedule {
  test: readonly number[];
  live: readonly number[];
  /** Fraction of each delay added or removed at random (0.1 = ±10 %). */
  jitter: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Live retries: 1 min doubling, capped at 6 h, while the total stays within 3 days. */
export function liveDelays(first = MINUTE, cap = 6 * HOUR, window: number = 72 * HOUR): number[] {
  const delays: number[] = [];
  let next = first;
  let total = 0;
  while (total + next <= window) {
    delays.push(next);
    total += next;
    next = Math.min(next * 2, cap);
  }
  return delays;
}

export const DEFAULT_SCHEDULE: RetrySchedule = {
  test: [5 * SECOND, 15 * SECOND, 45 * SECOND],
  live: liveDelays(),
  jitter: 0.1,
};

/**
 * The time of the next try after `attemptsMade` failed attempts, or `null` when the schedule
 * is exhausted (the endpoint is then disabled).
 */
export function nextRetryAt(
  schedule: RetrySchedule,
  livemode: boolean,
  attemptsMade: number,
  nowMs: number,
  random: () => number = Math.random,
): number | null {
  const delays = livemode ? schedule.live : schedule.test;
  const base = delays[attemptsMade - 1];
  if (base === undefined) return null;
  const factor = 1 + schedule.jitter * (2 * random() - 1);
  return nowMs + Math.max(0, Math.round(base * factor));
}

const UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR };

function parseDelays(text: string, name: string): number[] {
  return text.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(part);
    const unit = match === null ? undefined : UNITS[match[2] ?? 'ms'];
    if (match === null || unit === undefined)
      throw new Error(`${name}: "${part.trim()}" is not a delay (e.g. 500ms, 5s, 1m)`);
    return Math.round(Number(match[1]) * unit);
  });
}

/**
 * Reads `WEBHOOK_SCHEDULE`: one list for both modes (`100ms,200ms,400ms`), or per mode
 * (`test=1s,2s;live=1m,2m`, a missing mode keeps its default), optionally `jitter=0.1`.
 * Bare numbers are milliseconds. Empty: the spec's schedule.
 */
export function parseSchedule(text: string | undefined, name = 'WEBHOOK_SCHEDULE'): RetrySchedule {
  if (text === undefined || text.trim() === '') return DEFAULT_SCHEDULE;
  if (!text.includes('=')) {
    const delays = parseDelays(text, name);
    return { ...DEFAULT_SCHEDULE, test: delays, live: delays };
  }
  const schedule = { ...DEFAULT_SCHEDULE };
  for (const section of text.split(';')) {
    if (section.trim() === '') continue;
    const [key, value = ''] = section.split('=').map((s) => s.trim());
    if (key === 'test' || key === 'live') schedule[key] = parseDelays(value, name);
    else if (key === 'jitter' && /^\d+(\.\d+)?$/.test(value) && Number(value) < 1) {
      schedule.jitter = Number(value);
    } else {
      throw new Error(`${name}: expected test=…, live=… or jitter=<0..1>, got "${section.trim()}"`);
    }
  }
  return schedule;
}
