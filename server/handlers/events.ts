/**
 * Events (docs/design.md#webhooks): the outbox rows the API wrote in the last 30 days, newest
 * first, as webhooks receive them. Events of the other mode are invisible (404).
 */
import type { ApiEvent } from '../domain/events.js';
import { listEnvelope, listParams } from '../domain/list.js';
import { nowSeconds, resourceMissing } from '../domain/serialize.js';
import * as repo from '../repos/events.js';
import { paginate } from '../repos/pagination.js';
import type { AppHandler } from './types.js';

/** Events are listed and retrievable for this long (the spec: "kept 30 days"). */
const EVENT_RETENTION_SECONDS = 30 * 24 * 3600;

/** GET /v1/events */
export const listEvents: AppHandler<'listEvents'> = async (request, ctx) => {
  const { type } = request.query;
  const since = nowSeconds(ctx) - EVENT_RETENTION_SECONDS;
  const list = listParams(request.query);
  // Older events may still be in the table until purged; the window is part of the contract.
  list.created = { ...list.created, gte: Math.max(list.created?.gte ?? since, since) };
  const family = type?.endsWith('.*') ? type.slice(0, -1) : undefined;
  // `repos/events.ts` filters on one exact type; a family (`claim.*`) is a range on the
  // type column, `claim.` ≤ type < `claim/` ('/' follows '.'), portable and index-friendly.
  const page =
    family === undefined
      ? await repo.listEvents<ApiEvent>(ctx.db, {
          ...list,
          livemode: ctx.livemode,
          ...(type === undefined ? {} : { type }),
        })
      : await paginate(ctx.db, {
          from: 'events e',
          idColumn: 'e.id',
          createdColumn: 'e.created',
          select: 'e.id',
          filters: [
            (p) => `e.livemode = ${p.add(ctx.livemode)}`,
            (p) => `e.type >= ${p.add(family)} AND e.type < ${p.add(`${family.slice(0, -1)}/`)}`,
          ],
          list,
          map: (row) => String(row.id),
        }).then(async (ids) => ({
          hasMore: ids.hasMore,
          data: await Promise.all(ids.data.map((id) => eventById(ctx.db, id, ctx.livemode))),
        }));
  const ids = auditIds(page.data);
  // An audit row holds at most 100 ids; a page of 100 events may name up to 200.
  for (let i = 0; i < ids.length; i += 100) ctx.audit(ids.slice(i, i + 100));
  if (ids.length === 0) ctx.audit([]);
  return { status: 200, body: listEnvelope('/v1/events', page) };
};

/** GET /v1/events/{id} */
export const retrieveEvent: AppHandler<'retrieveEvent'> = async (request, ctx) => {
  const event = await repo.getEvent<ApiEvent>(ctx.db, request.params.id, ctx.livemode);
  if (event === undefined || event.created < nowSeconds(ctx) - EVENT_RETENTION_SECONDS) {
    throw resourceMissing('event');
  }
  ctx.audit(auditIds([event]));
  return { status: 200, body: event };
};

async function eventById(
  db: Parameters<typeof repo.getEvent>[0],
  id: string,
  livemode: boolean,
): Promise<ApiEvent> {
  const event = await repo.getEvent<ApiEvent>(db, id, livemode);
  if (event === undefined) throw new Error('listed event vanished');
  return event;
}

/**
 * Events carry whole patients (and appointments and claims naming one), so reading them is a
 * PHI read: the audit row names each event and the patient it is about.
 */
function auditIds(events: readonly ApiEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    ids.add(event.id);
    const object = event.data.object as { id: string; object: string; patient?: unknown };
    if (object.object === 'patient') ids.add(object.id);
    else if (typeof object.patient === 'string') ids.add(object.patient);
  }
  return [...ids];
}
