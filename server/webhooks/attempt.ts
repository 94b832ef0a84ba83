/**
 * One delivery attempt: check the URL again (DNS rebinding), sign the exact bytes sent, POST
 * them, and describe the outcome for the attempt log.
 */
import { SIGNATURE_HEADER, signWebhookPayload } from '../../contract/webhook-signature.js';
import type { DeliveryAttempt, LeasedDelivery } from '../repos/webhook-deliveries.js';
import type { Transport } from './transport.js';
import { type Resolver, resolveDeliveryTarget } from './url-guard.js';

/** Sent with every delivery so receivers can tell our traffic apart. */
export const USER_AGENT = 'PatientCare-Webhooks/1.0 (+https://api.patientcare.example)';

/**
 * One deadline per attempt (spec: "Delivery"): name resolution, connection, headers and the
 * whole body must be done within it (`WEBHOOK_TIMEOUT_MS`).
 */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface AttemptDeps {
  transport: Transport;
  resolver?: Resolver;
  /** The operator allows loopback and private targets (`WEBHOOK_ALLOW_PRIVATE_TARGETS`). */
  allowPrivate?: boolean;
  clock: () => number;
  timeoutMs?: number;
}

/**
 * The body a delivery sends: the stored event with `pending_webhooks` as it stands now (the
 * stored count is the one at write time).
 */
export function deliveryBody(eventJson: string, pendingWebhooks: number | undefined): string {
  if (pendingWebhooks === undefined) return eventJson;
  // The outbox writes `pending_webhooks` as the last field; swap the number without a parse.
  const tail = /"pending_webhooks":\d+}$/;
  if (tail.test(eventJson))
    return eventJson.replace(tail, `"pending_webhooks":${pendingWebhooks}}`);
  const event = JSON.parse(eventJson) as Record<string, unknown>;
  event.pending_webhooks = pendingWebhooks;
  return JSON.stringify(event);
}

/** Makes one attempt; never throws (a failure is an outcome to record). */
export async function attemptDelivery(
  delivery: LeasedDelivery,
  body: string,
  deps: AttemptDeps,
): Promise<DeliveryAttempt> {
  const startedAt = deps.clock();
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): DeliveryAttempt => ({
    startedAt,
    durationMs: Math.round(performance.now() - started),
    statusCode,
    error,
    succeeded: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
  });
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const target = await withinDeadline(
    resolveDeliveryTarget(delivery.url, {
      livemode: delivery.livemode,
      allowPrivate: deps.allowPrivate === true,
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
    }),
    timeoutMs,
  );
  if (target === TIMED_OUT) return done(null, 'timeout');
  if (!target.ok)
    return done(null, target.reason === 'unresolvable' ? 'dns_failure' : 'url_refused');
  const signature = signWebhookPayload(body, delivery.secret, Math.floor(deps.clock() / 1000));
  const result = await deps.transport({
    target,
    body,
    livemode: delivery.livemode,
    // What is left of the attempt's one deadline after name resolution.
    timeoutMs: Math.max(1, Math.round(timeoutMs - (performance.now() - started))),
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: signature,
    },
  });
  return done(result.statusCode, result.error);
}

const TIMED_OUT = Symbol('timed out');

/** `work`'s result, or `TIMED_OUT` once `ms` pass first (the work is left to finish alone). */
async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
