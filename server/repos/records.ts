/**
 * The storage of every resource, generic over its description (server/resources/,
 * docs/design.md#resources): insert, change under a row lock (`modifyDoc`), read one, list
 * and search. A resource's table, columns and criteria come from its module; nothing here
 * names a resource.
 */
import { runDeferred } from '../db/deferred.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Db, SqlValue } from '../db/types.js';
import { newId } from '../ids.js';
import type { DocTable, ResourcePrefix } from '../resources/index.js';
import type { NewObjectInfo, Resource, StoredDoc } from '../resources/resource.js';
import { ConflictError } from '../sql/errors.js';
import { type DocChange, type Modified, modifyDoc } from './modify-doc.js';
import {
  type CountedPage,
  type Filter,
  type ListParams,
  type Page,
  type PageQuery,
  paginate,
  paginateCounted,
} from './pagination.js';
import { getDoc, parseData, type StoredJson, storedJson } from './rows.js';

/** A resource of the registry (server/resources/index.ts), so its table is one of `DocTable`. */
export type StoredResource<T extends StoredDoc, C> = Resource<T, C> & { readonly table: DocTable };

/** A list or search: the mode, the page and the criteria set (an `undefined` one is not applied). */
export type RecordQuery<C> = ListParams & { livemode: boolean } & Partial<C>;

/**
 * The criteria a `/v1` list's query sets, by the resource's `listQuery` (the query is the
 * route's, validated against the spec, so each value has its criterion's type).
 */
export function listQueryCriteria<T extends StoredDoc, C>(
  resource: Resource<T, C>,
  query: Readonly<Record<string, unknown>>,
): Partial<C> {
  const out: Partial<Record<keyof C, unknown>> = {};
  for (const [field, criterion] of Object.entries(resource.listQuery ?? {}) as [
    string,
    keyof C,
  ][]) {
    if (query[field] !== undefined) out[criterion] = query[field];
  }
  return out as Partial<C>;
}

/** How rows are read: parsed documents, or their JSON text with their ids (spliced unparsed). */
export interface RowRead<R> {
  readonly select: string;
  readonly map: (row: Record<string, unknown>) => R;
}

/** Rows as parsed documents. */
export function parsed<T>(): RowRead<T> {
  return { select: 'data', map: parseData<T> };
}

/** Rows as JSON text with their ids (a `/v1` list is spliced from it without re-serialising). */
export const JSON_TEXT: RowRead<StoredJson> = { select: 'id, data', map: storedJson };

function documentText<T extends StoredDoc, C>(resource: Resource<T, C>, doc: T): string {
  return JSON.stringify(resource.document?.(doc) ?? doc);
}

/** The id (with the resource's prefix), mode and creation time of a new document. */
export function newDocInfo(
  resource: { readonly prefix: ResourcePrefix },
  source: { readonly livemode: boolean; now(): number },
): NewObjectInfo {
  return {
    id: newId(resource.prefix, source.now()),
    livemode: source.livemode,
    nowSeconds: Math.floor(source.now() / 1000),
  };
}

/** Writes the rows of a document's child tables (after its row; after a clear on update). */
async function writeChildren<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  tx: Db,
  doc: T,
): Promise<void> {
  for (const child of resource.children ?? []) {
    for (const row of child.rows(doc)) {
      const names = [child.parent, 'livemode', ...Object.keys(row)];
      const sql = `INSERT INTO ${child.table} (${names.join(', ')}) VALUES (${names
        .map((_, n) => `$${n + 1}`)
        .join(', ')})`;
      const values: SqlValue[] = [doc.id, doc.livemode, ...Object.values(row)];
      if (child.deferred) {
        await runDeferred(tx, sql, values);
        continue;
      }
      try {
        await tx.run(sql, values);
      } catch (err) {
        // A concurrent writer took the unique value between the resource's check and this.
        const rule = child.unique;
        if (rule !== undefined && isUniqueViolation(err))
          throw new ConflictError(rule.reason, rule.message, rule.param);
        throw err;
      }
    }
  }
}

/** Drops a document's child rows before they are written again. */
async function clearChildren<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  tx: Db,
  doc: T,
): Promise<void> {
  for (const child of resource.children ?? [])
    await tx.run(`DELETE FROM ${child.table} WHERE ${child.parent} = $1`, [doc.id]);
}

/**
 * Stores a new document: its columns and its JSON. `extra` adds columns that are not part of
 * the document (a webhook's signing secret). Call inside a transaction.
 */
export async function insertRecord<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  tx: Db,
  doc: T,
  extra: Readonly<Record<string, SqlValue>> = {},
): Promise<T> {
  await resource.beforeWrite?.(tx, doc);
  const names = [
    'id',
    'livemode',
    'created',
    'updated',
    ...resource.columns.map((c) => c.name),
    ...Object.keys(extra),
    'data',
  ];
  const values: SqlValue[] = [
    doc.id,
    doc.livemode,
    doc.created,
    doc.updated ?? doc.created,
    ...resource.columns.map((c) => c.value(doc)),
    ...Object.values(extra),
    documentText(resource, doc),
  ];
  const sql = `INSERT INTO ${resource.table} (${names.join(', ')}) VALUES (${names
    .map((_, n) => `$${n + 1}`)
    .join(', ')})`;
  if (resource.deferInsert) await runDeferred(tx, sql, values);
  else await tx.run(sql, values);
  await writeChildren(resource, tx, doc);
  return doc;
}

async function writeRecord<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  tx: Db,
  doc: T,
): Promise<void> {
  await resource.beforeWrite?.(tx, doc);
  const changing = resource.columns.filter((c) => !c.fixed);
  const names = ['updated', ...changing.map((c) => c.name), 'data'];
  const set = names.map((name, n) => `${name} = $${n + 1}`).join(', ');
  await tx.run(
    `UPDATE ${resource.table} SET ${set} WHERE id = $${names.length + 1} AND livemode = $${
      names.length + 2
    }`,
    [
      doc.updated ?? doc.created,
      ...changing.map((c) => c.value(doc)),
      documentText(resource, doc),
      doc.id,
      doc.livemode,
    ],
  );
  if (resource.children !== undefined) {
    await clearChildren(resource, tx, doc);
    await writeChildren(resource, tx, doc);
  }
}

/**
 * Changes a stored document (same id and mode) through `modifyDoc`: `change` gets it read
 * under a row lock (so a state machine move is judged on the status it replaces) and returns
 * the document to store, or `undefined` (or the same object) to leave it. `undefined` when
 * there is none.
 */
export function modifyRecord<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  db: Db,
  id: string,
  livemode: boolean,
  change: DocChange<T, T>,
): Promise<Modified<T, T> | undefined> {
  return modifyDoc<T, T>(
    db,
    resource.table,
    id,
    livemode,
    async (current) => {
      const next = await change(current);
      return next === current ? undefined : next;
    },
    (tx, doc) => writeRecord(resource, tx, doc),
  );
}

/** The stored document, or `undefined` (also when it belongs to the other mode). */
export function getRecord<T extends StoredDoc, C>(
  resource: StoredResource<T, C>,
  db: Db,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  return getDoc<T>(db, resource.table, id, livemode);
}

/** The query of a list or search: the mode, then each criterion set, in the table's order. */
function pageQuery<T extends StoredDoc, C, R>(
  resource: StoredResource<T, C>,
  db: Db,
  query: RecordQuery<C>,
  read: RowRead<R>,
): PageQuery<R> {
  const filters: Filter[] = [(p) => `livemode = ${p.add(query.livemode)}`];
  for (const name of Object.keys(resource.criteria) as (keyof C)[]) {
    const value = (query as Partial<C>)[name];
    if (value === undefined) continue;
    const criterion = resource.criteria[name];
    filters.push((p) => criterion.op(criterion.column, value as C[keyof C], p, db.dialect));
  }
  return { from: resource.table, select: read.select, filters, list: query, map: read.map };
}

/** Documents newest first matching every criterion set. */
export function listRecords<T extends StoredDoc, C, R = T>(
  resource: StoredResource<T, C>,
  db: Db,
  query: RecordQuery<C>,
  read: RowRead<R> = parsed<R>(),
): Promise<Page<R>> {
  return paginate(db, pageQuery(resource, db, query, read));
}

/** As `listRecords`, with the number of all matches (FHIR's `total`), or that count alone. */
export function searchRecords<T extends StoredDoc, C, R = T>(
  resource: StoredResource<T, C>,
  db: Db,
  query: RecordQuery<C>,
  countOnly: boolean,
  read: RowRead<R> = parsed<R>(),
): Promise<CountedPage<R>> {
  return paginateCounted(db, pageQuery(resource, db, query, read), countOnly);
}
