/**
 * Is a concurrent run equivalent to some serial order of its requests? Given the object before
 * the run, the requests sent at once, what each one got back and the object afterwards, this
 * searches for an order in which applying the requests one by one with the server's own domain
 * rules (`apply`, e.g. `planAppointmentUpdate`) gives every request the outcome it really got
 * (the same reply object for a 200, the same error code for a 4xx) and ends in the stored
 * object. Nothing about winners is assumed: if no such order exists, an acknowledged write was
 * lost or an illegal move was accepted.
 *
 * Depth-first over the requests still unplaced, pruned by each reply and memoised on (placed
 * set, state), so commuting requests (twenty metadata keys) are checked in linear time; a
 * search past `budget` steps counts as "no order found".
 */

/** What one request got back. */
export type Outcome<S> = { ok: true; reply: S } | { ok: false; code: string };

/** One request applied to a state by the domain rules: the next state, or the error code. */
export type Apply<S, R> = (
  state: S,
  request: R,
) => { ok: true; state: S } | { ok: false; code: string };

export interface SerialCheck<S, R> {
  initial: S;
  requests: readonly R[];
  outcomes: readonly Outcome<S>[];
  final: S;
  apply: Apply<S, R>;
  /** The comparable form of a state (timestamps the model cannot know left out). */
  key: (state: S) => string;
  budget?: number;
}

/** A serial order that explains the run (indexes into `requests`), or `undefined`. */
export function findSerialOrder<S, R>(check: SerialCheck<S, R>): number[] | undefined {
  const { requests, outcomes, apply, key } = check;
  if (requests.length !== outcomes.length) throw new Error('one outcome per request');
  if (requests.length > 30) throw new Error('at most 30 requests per check');
  const finalKey = key(check.final);
  const failed = new Set<string>();
  let steps = check.budget ?? 200_000;
  const order: number[] = [];

  const search = (state: S, placed: number): boolean => {
    if (placed === (1 << requests.length) - 1) return key(state) === finalKey;
    const memo = `${placed}:${key(state)}`;
    if (failed.has(memo)) return false;
    for (let i = 0; i < requests.length; i++) {
      if (placed & (1 << i)) continue;
      if (--steps < 0) return false;
      const got = outcomes[i];
      const request = requests[i];
      // Both arrays have `requests.length` entries (checked above); this only narrows.
      if (got === undefined || request === undefined) continue;
      const result = apply(state, request);
      let next: S;
      if (result.ok) {
        if (!got.ok || key(got.reply) !== key(result.state)) continue;
        next = result.state;
      } else {
        if (got.ok || got.code !== result.code) continue;
        next = state;
      }
      order.push(i);
      if (search(next, placed | (1 << i))) return true;
      order.pop();
    }
    failed.add(memo);
    return false;
  };
  return search(check.initial, 0) ? order : undefined;
}

/**
 * JSON with object keys sorted and the named fields left out at every depth: the comparable
 * form of an API object whose server-set timestamps a model cannot predict.
 */
export function canonicalJson(value: unknown, omit: ReadonlySet<string>): string {
  return JSON.stringify(value, (_name, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      if (!omit.has(k)) out[k] = (v as Record<string, unknown>)[k];
    }
    return out;
  });
}
