/**
 * The webhook endpoint resource (docs/design.md#resources): its table, columns and audit
 * facts. The signing secret has a column of its own and is never part of the stored document
 * (server/repos/webhooks.ts reads it for signing), so reads of the object cannot return it.
 */
import type { components, Readable } from '../../generated/types.js';
import { resource } from './resource.js';

/** An endpoint as stored and returned (schema `Webhook`; `secret` only in the create answer). */
export type StoredWebhook = Readable<components['schemas']['Webhook']>;

function withoutSecret(doc: StoredWebhook): Omit<StoredWebhook, 'secret'> {
  const { secret: _secret, ...rest } = doc;
  return rest;
}

export const WEBHOOK = resource<StoredWebhook, Record<never, never>>()({
  name: 'webhook',
  table: 'webhooks',
  prefix: 'wh',
  readScope: 'webhooks:read',
  columns: [
    { name: 'status', value: (w) => w.status },
    { name: 'url', value: (w) => w.url },
    { name: 'enabled_events', value: (w) => JSON.stringify(w.enabled_events) },
  ],
  criteria: {},
  // Endpoints hold no PHI: their reads are not audited.
  audited: [],
  events: ['webhook.disabled'],
  document: withoutSecret,
});
