/**
 * Events (docs/design.md#webhooks, spec: Events tag): the outbox rows the API wrote in the last
 * 30 days, newest first, as webhooks receive them. Events of the other mode are invisible
 * (404). An event carries its object whole, so a key sees only the events whose object it may
 * read (`domain/event-visibility.ts`).
 */
import {
  canReadEventFamily,
  eventFamily,
  eventFamilyScope,
  readableEventFamilies,
} from '../domain/event-visibility.js';
import { eventOut, type StoredEvent } from '../domain/events.js';
import { listEnvelope, listParams } from '../domain/list.js';
import { nowSeconds, resourceMissing } from '../domain/serialize.js';
import { ApiError } from '../errors.js';
import * as repo from '../repos/events.js';
import type { AppHandler } from './types.js';

const { EVENT_RETENTION_SECONDS } = repo;

/**
 * `403 insufficient_scope` when the key may not read the family's objects (an explicit
 * `type` filter, or a retrieved event): silence would read as "no such events".
 */
function refuseFamily(family: string, param: string | null): ApiError {
  const scope = eventFamilyScope(family) ?? 'events:read';
  const resource = scope.slice(0, -':read'.length);
  return new ApiError('insufficient_scope', {
    param,
    message: `Events about ${family} objects carry them whole: reading them needs the \`${scope}\` scope (or \`${resource}:write\`) as well as \`events:read\`.`,
  });
}

/** GET /v1/events */
export const listEvents: AppHandler<'listEvents'> = async (request, ctx) => {
  const { type } = request.query;
  const since = nowSeconds(ctx) - EVENT_RETENTION_SECONDS;
  const list = listParams(request.query);
  // Older events may still be in the table until purged; the window is part of the contract.
  list.created = { ...list.created, gte: Math.max(list.created?.gte ?? since, since) };
  const readable = readableEventFamilies(ctx.key);
  if (type !== undefined && readable !== 'all') {
    const family = eventFamily(type);
    // A family this build does not know has no events: an empty page, not a refusal.
    if (eventFamilyScope(family) !== undefined && !canReadEventFamily(ctx.key, family)) {
      throw refuseFamily(family, 'type');
    }
  }
  const wildcard = type?.endsWith('.*') ? type.slice(0, -1) : undefined;
  // Without a `type`, a key that may not read every family sees the events it may read.
  const typePrefixes =
    wildcard !== undefined
      ? [wildcard]
      : type === undefined && readable !== 'all'
        ? readable.map((family) => `${family}.`)
        : undefined;
  const page = await repo.listEvents<StoredEvent>(ctx.db, {
    ...list,
    livemode: ctx.livemode,
    ...(type === undefined || wildcard !== undefined ? {} : { type }),
    ...(typePrefixes === undefined ? {} : { typePrefixes }),
  });
  const ids = auditIds(page.data);
  // An audit row holds at most 100 ids; a page of 100 events may name up to 200.
  for (let i = 0; i < ids.length; i += 100) ctx.audit(ids.slice(i, i + 100));
  if (ids.length === 0) ctx.audit([]);
  return {
    status: 200,
    body: listEnvelope('/v1/events', { ...page, data: page.data.map(eventOut) }),
  };
};

/** GET /v1/events/{id} */
export const retrieveEvent: AppHandler<'retrieveEvent'> = async (request, ctx) => {
  const event = await repo.getEvent<StoredEvent>(ctx.db, request.params.id, ctx.livemode);
  if (event === undefined || event.created < nowSeconds(ctx) - EVENT_RETENTION_SECONDS) {
    throw resourceMissing('event');
  }
  const family = eventFamily(event.type);
  if (!canReadEventFamily(ctx.key, family)) {
    ctx.audit([event.id], 'denied');
    throw refuseFamily(family, null);
  }
  ctx.audit(auditIds([event]));
  return { status: 200, body: eventOut(event) };
};

/**
 * Events carry whole patients (and appointments and claims naming one), so reading them is a
 * PHI read: the audit row names each event and the patient it is about.
 */
function auditIds(events: readonly StoredEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    ids.add(event.id);
    const object = event.data.object as { id: string; object: string; patient?: unknown };
    if (object.object === 'patient') ids.add(object.id);
    else if (typeof object.patient === 'string') ids.add(object.patient);
  }
  return [...ids];
}
