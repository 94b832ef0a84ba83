/**
 * Webhook subscriptions are bound by the read scopes of the key behind them
 * (docs/design.md#webhooks, spec: Webhooks tag). An event carries its object whole, so an
 * endpoint subscribed to a family receives what a read of that family returns: creating or
 * changing a subscription needs the read scope of every family it names (`*`: all of them),
 * and the restricted key that did it stays answerable for it. Before each send the worker
 * looks that key up again: revoked or expired disables the endpoint, and an event of a family
 * the key can no longer read is not sent. A secret key holds every scope for the account, so
 * an endpoint it set up is bound to the account, not to the key (rotating the secret key must
 * not silence every endpoint).
 */

import { scopeGranted } from '../../contract/scopes.js';
import type { Db } from '../db/types.js';
import {
  EVENT_FAMILY_SCOPES,
  type EventFamily,
  eventFamily,
  eventFamilyScope,
} from '../domain/event-visibility.js';
import { ApiError } from '../errors.js';
import type { AuthenticatedKey } from '../http/auth.js';
import { keyState } from '../keys/record.js';
import type { Bindings } from '../repos/delivery-facts.js';
import { setWebhookBoundKey } from '../repos/webhooks.js';

export type { Bindings };

/** The read scopes a subscription needs, in the order of `EVENT_FAMILY_SCOPES`. */
function subscriptionScopes(enabledEvents: readonly string[]): string[] {
  const families = enabledEvents.includes('*')
    ? (Object.keys(EVENT_FAMILY_SCOPES) as EventFamily[])
    : enabledEvents.map(eventFamily);
  const scopes = families.map((family) => eventFamilyScope(family) ?? `${family}:read`);
  return [...new Set(scopes)];
}

/**
 * `403 insufficient_scope` (`param`: `enabled_events`) naming every read scope the key lacks
 * for `enabledEvents`; nothing for a secret key, which holds them all.
 */
export function checkSubscriptionScopes(
  key: Pick<AuthenticatedKey, 'kind' | 'scopes'>,
  enabledEvents: readonly string[],
): void {
  if (key.kind === 'secret') return;
  const missing = subscriptionScopes(enabledEvents).filter(
    (scope) => !scopeGranted(key.scopes, scope),
  );
  if (missing.length === 0) return;
  const names = missing.map((scope) => `\`${scope}\``).join(', ');
  throw new ApiError('insufficient_scope', {
    param: 'enabled_events',
    message: `Events carry their objects whole: subscribing to these events needs the read scope of each family (${names} missing; a \`write\` scope also grants \`read\`).`,
  });
}

/** Records which key the endpoint's subscription stands on (NULL: the account's secret key). */
export async function bindWebhook(
  tx: Db,
  webhookId: string,
  key: Pick<AuthenticatedKey, 'id' | 'kind'>,
): Promise<void> {
  await setWebhookBoundKey(tx, webhookId, key.kind === 'secret' ? null : key.id);
}

/** What the worker does with one event for one endpoint. */
export type BindingVerdict = 'send' | 'key_revoked' | 'scope_missing';

/**
 * `send`, or why not: `key_revoked` (the bound key is revoked, expired or gone: the endpoint
 * is disabled) or `scope_missing` (it may no longer read this event's family: this event is
 * not sent, the others still are).
 */
export function bindingVerdict(
  bindings: Bindings,
  webhookId: string,
  eventType: string,
  nowMs: number,
): BindingVerdict {
  if (!bindings.has(webhookId)) return 'send';
  const key = bindings.get(webhookId) ?? null;
  if (key === null || keyState(key, nowMs) !== 'active') return 'key_revoked';
  if (key.kind === 'secret') return 'send';
  const scope = eventFamilyScope(eventFamily(eventType));
  return scope !== undefined && scopeGranted(key.scopes, scope) ? 'send' : 'scope_missing';
}
