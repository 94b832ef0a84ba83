/**
 * The rules every resource's `/v1` handlers share (docs/design.md#resources): a retrieve that
 * is `404 resource_missing` for an id of the other mode, the documents a write names that must
 * exist, and the ids a read records in the audit trail. Generic over the resource modules.
 */
import type { Db } from '../db/types.js';
import { getRecord, type StoredResource } from '../repos/records.js';
import { getDoc, type StoredJson } from '../repos/rows.js';
import { RESOURCES } from '../resources/index.js';
import type { StoredDoc } from '../resources/resource.js';
import { resourceMissing } from './serialize.js';

/** What a read needs of the request: its database, mode and audit trail. */
interface ReadContext {
  readonly db: Db;
  readonly livemode: boolean;
  audit(objectIds: readonly string[], outcome?: 'not_found'): void;
}

/**
 * The document `id` of `resource` in the key's mode for a `/v1` retrieve, or `404
 * resource_missing` after a `not_found` audit row (another mode's document is as missing).
 */
export async function retrieveRecord<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  ctx: ReadContext,
  id: string,
): Promise<T> {
  const doc = await getRecord(resource, ctx.db, id, ctx.livemode);
  if (doc === undefined) {
    ctx.audit([id], 'not_found');
    throw resourceMissing(resource.name);
  }
  return doc;
}

/**
 * The document `id` of `resource` in this mode, or `404 resource_missing` naming `param` (the
 * key's mode decides: a document of the other mode does not exist for this key).
 */
export async function requireRecord<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  tx: Db,
  livemode: boolean,
  id: string,
  param: string,
): Promise<T> {
  const doc = await getRecord(resource, tx, id, livemode);
  if (doc === undefined) throw resourceMissing(resource.name, param);
  return doc;
}

/** The resource whose ids carry the prefix of `id`, if any. */
function resourceOfId(id: string) {
  const prefix = id.slice(0, id.indexOf('_'));
  return RESOURCES.find((resource) => resource.prefix === prefix);
}

/**
 * `404 resource_missing` naming the field when a document a new one refers to (its
 * `references`: an appointment's patient and practitioner) does not exist in its mode.
 */
export async function requireReferences<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  tx: Db,
  doc: T,
): Promise<void> {
  for (const field of resource.references ?? []) {
    const id = doc[field];
    if (typeof id !== 'string') continue;
    const target = resourceOfId(id);
    const found =
      target === undefined ? undefined : await getDoc(tx, target.table, id, doc.livemode);
    if (target === undefined || found === undefined)
      throw resourceMissing(target?.name ?? field, field);
  }
}

/** The audit ids of some documents of `resource`, each once, in order. */
export function auditIdsOf<T extends StoredDoc>(
  resource: { readonly audited: readonly (keyof T & string)[] },
  docs: readonly T[],
): string[] {
  return [...new Set(docs.flatMap((doc) => resource.audited.map((field) => String(doc[field]))))];
}

/** As `auditIdsOf`, for documents read as JSON text: parsed only when more than the id is audited. */
export function auditIdsOfText<T extends StoredDoc>(
  resource: { readonly audited: readonly (keyof T & string)[] },
  rows: readonly StoredJson[],
): string[] {
  if (resource.audited.length === 1 && resource.audited[0] === 'id') return rows.map((r) => r.id);
  return auditIdsOf(
    resource,
    rows.map((row) => JSON.parse(row.json) as T),
  );
}
