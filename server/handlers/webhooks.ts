/**
 * Webhook endpoints (docs/design.md#webhooks, spec: Webhooks tag). The signing secret is made here
 * and returned once, in the create response; the repository keeps it out of the stored document,
 * so retrieve, list, update and events cannot return it. URLs pass the webhooks helper's
 * guard (scheme per mode, no credentials or fragment, no private or loopback targets unless
 * the operator allows them).
 * Endpoint changes emit no event (the spec lists none); only the delivery worker's
 * disabling does (`webhook.disabled`).
 *
 * A subscription is bound by the key's read scopes (`webhooks/key-binding.ts`): creating one,
 * or changing where and what it sends (`url`, `enabled_events`, re-enabling), needs the read
 * scope of every family it receives, and binds the endpoint to that key.
 */
import { randomBytes } from 'node:crypto';
import type { components, Readable } from '../../generated/types.js';
import type { CURRENT_API_VERSION } from '../config.js';
import { listEnvelope, listParams } from '../domain/list.js';
import { checkMetadata, nowSeconds, resourceMissing } from '../domain/serialize.js';
import { applyWebhookUpdate } from '../domain/webhook-update.js';
import { ApiError } from '../errors.js';
import { getRecord, listRecords, modifyRecord, newDocInfo } from '../repos/records.js';
import { listWebhookDeliveries as listDeliveries } from '../repos/webhook-delivery-list.js';
import * as repo from '../repos/webhooks.js';
import { WEBHOOK } from '../resources/webhook.js';
import { bindWebhook, checkSubscriptionScopes } from '../webhooks/key-binding.js';
import { checkWebhookUrl } from '../webhooks/url-guard.js';
import type { AppHandler, HandlerContext } from './types.js';

/** A webhook endpoint as the API returns it (without `secret` except on create). */
type Webhook = Readable<components['schemas']['Webhook']>;
type EnabledEvents = Webhook['enabled_events'];

/** `whsec_` and 48 hex characters (192 random bits). */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

/** The URL as stored, or `400 parameter_invalid` naming `url` (messages name no address). */
async function checkedUrl(raw: string, ctx: HandlerContext): Promise<string> {
  const verdict = await checkWebhookUrl(raw, {
    livemode: ctx.livemode,
    allowPrivate: ctx.allowPrivateWebhookTargets,
  });
  if (!verdict.ok)
    throw new ApiError('parameter_invalid', { param: 'url', message: verdict.message });
  return raw;
}

/** `*` means every type, so listing it next to others is a contradiction the spec refuses. */
function checkedEvents(events: EnabledEvents): EnabledEvents {
  if (events.includes('*') && events.length > 1) {
    throw new ApiError('parameter_invalid', {
      param: 'enabled_events',
      message: 'enabled_events: "*" cannot be combined with other event types.',
    });
  }
  return [...events];
}

/** GET /v1/webhooks */
export const listWebhooks: AppHandler<'listWebhooks'> = async (request, ctx) => {
  const page = await listRecords(WEBHOOK, ctx.db, {
    ...listParams(request.query),
    livemode: ctx.livemode,
  });
  return { status: 200, body: listEnvelope('/v1/webhooks', page) };
};

/** POST /v1/webhooks */
export const createWebhook: AppHandler<'createWebhook'> = async (request, ctx) => {
  const body = request.body;
  // Outside the transaction: the guard may resolve the host name, which can take a while.
  const url = await checkedUrl(body.url, ctx);
  const enabledEvents = checkedEvents(body.enabled_events);
  checkSubscriptionScopes(ctx.key, enabledEvents);
  const metadata = checkMetadata(body.metadata);
  return ctx.write(async (tx) => {
    const info = newDocInfo(WEBHOOK, ctx);
    const webhook: Webhook = {
      id: info.id,
      object: 'webhook',
      livemode: info.livemode,
      created: info.nowSeconds,
      updated: info.nowSeconds,
      url,
      enabled_events: enabledEvents,
      description: body.description ?? null,
      status: 'enabled',
      // The version the request speaks, as an account's first key pins the latest.
      api_version: body.api_version ?? (ctx.apiVersion as typeof CURRENT_API_VERSION),
      metadata: { ...metadata },
    };
    const secret = newSecret();
    await repo.insertWebhook(tx, webhook, secret);
    await bindWebhook(tx, webhook.id, ctx.key);
    return { status: 200, body: { ...webhook, secret } };
  });
};

/** GET /v1/webhooks/{id} */
export const retrieveWebhook: AppHandler<'retrieveWebhook'> = async (request, ctx) => {
  const webhook = await getRecord(WEBHOOK, ctx.db, request.params.id, ctx.livemode);
  if (webhook === undefined) throw resourceMissing('webhook');
  return { status: 200, body: webhook };
};

/** POST /v1/webhooks/{id} */
export const updateWebhook: AppHandler<'updateWebhook'> = async (request, ctx) => {
  const { id } = request.params;
  const body = request.body;
  const url = body.url === undefined ? undefined : await checkedUrl(body.url, ctx);
  const enabledEvents =
    body.enabled_events === undefined ? undefined : checkedEvents(body.enabled_events);
  return ctx.write(async (tx) => {
    // Merged into the endpoint read under the row's lock, so a concurrent update of other
    // fields (or the worker disabling it) is kept, not overwritten with a stale copy.
    const changes = { ...body, url, enabled_events: enabledEvents };
    let resubscribed = false;
    const done = await modifyRecord(WEBHOOK, tx, id, ctx.livemode, (stored) => {
      const next = applyWebhookUpdate(stored, changes, nowSeconds(ctx));
      // Where events go and which ones: the key making that choice must be able to read
      // them all. Decided on the locked row, so a concurrent change cannot slip past it.
      resubscribed =
        next.url !== stored.url ||
        JSON.stringify(next.enabled_events) !== JSON.stringify(stored.enabled_events) ||
        (next.status === 'enabled' && stored.status !== 'enabled');
      if (resubscribed) checkSubscriptionScopes(ctx.key, next.enabled_events);
      return next;
    });
    if (done === undefined) throw resourceMissing('webhook');
    if (done.change !== undefined && resubscribed) await bindWebhook(tx, id, ctx.key);
    return { status: 200, body: done.change ?? done.current };
  });
};

/** DELETE /v1/webhooks/{id} */
export const deleteWebhook: AppHandler<'deleteWebhook'> = async (request, ctx) => {
  const { id } = request.params;
  return ctx.write(async (tx) => {
    // Its deliveries go with it (foreign key ON DELETE CASCADE in the schema).
    if (!(await repo.deleteWebhook(tx, id, ctx.livemode))) throw resourceMissing('webhook');
    return { status: 200, body: { id, object: 'webhook', deleted: true } };
  });
};

/** GET /v1/webhooks/{id}/deliveries */
export const listWebhookDeliveries: AppHandler<'listWebhookDeliveries'> = async (request, ctx) => {
  const { id } = request.params;
  // Another mode's endpoint is as missing as an unknown one.
  const webhook = await getRecord(WEBHOOK, ctx.db, id, ctx.livemode);
  if (webhook === undefined) throw resourceMissing('webhook');
  const page = await listDeliveries(ctx.db, {
    ...listParams(request.query),
    webhookId: id,
    livemode: ctx.livemode,
  });
  return { status: 200, body: listEnvelope(`/v1/webhooks/${id}/deliveries`, page) };
};
