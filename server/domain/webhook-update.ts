/**
 * What an `updateWebhook` request does to a stored endpoint (spec: Webhooks tag): the given
 * fields replace the stored ones, `metadata` is merged, and `updated` moves only when something
 * changed. Pure, so the handler and the concurrency checks (tooling/concurrency/) apply the same
 * rule. The URL and event list arrive already checked by the handler.
 */
import type { components, Readable } from '../../generated/types.js';
import { mergeMetadata } from './serialize.js';

/** The endpoint fields an update may change. */
export interface WebhookChanges {
  url?: string | undefined;
  enabled_events?: readonly string[] | undefined;
  description?: string | null | undefined;
  status?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
}

/** The stored fields the update reads (of the generated Webhook type). */
type UpdateReads = Pick<Readable<components['schemas']['Webhook']>, 'updated' | 'metadata'>;

/** The endpoint after `changes`, or `stored` itself when nothing changed. */
export function applyWebhookUpdate<T extends UpdateReads>(
  stored: T,
  changes: WebhookChanges,
  nowSeconds: number,
): T {
  const next: T = {
    ...stored,
    ...(changes.url === undefined ? {} : { url: changes.url }),
    ...(changes.enabled_events === undefined ? {} : { enabled_events: changes.enabled_events }),
    ...(changes.description === undefined ? {} : { description: changes.description }),
    ...(changes.status === undefined ? {} : { status: changes.status }),
    metadata: mergeMetadata(stored.metadata, changes.metadata),
  };
  if (JSON.stringify(next) === JSON.stringify(stored)) return stored;
  next.updated = Math.max(nowSeconds, stored.updated);
  return next;
}
