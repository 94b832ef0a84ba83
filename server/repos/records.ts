/**
 * The storage of every resource, generic over its description (server/resources/,
 * docs/design.md#resources): insert, change under a row lock (`modifyDoc`), read one, list
 * and search. A resource's table, columns and criteria come from its module; nothing here
 * names a resource.
 */
import { runDeferred } from '../db/deferred.js';
import type { Db, SqlValue } from '../db/types.js';
import type { Resource, StoredDoc } from '../resources/resource.js';
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

/** The criteria a query sets, by name (an absent or `undefined` one is not applied). */
export type Criteria<F extends string> = Partial<Record<F, unknown>>;

/** A list or search: the mode, the page and the criteria set. */
export type RecordQuery<F extends string> = ListParams & { livemode: boolean } & Criteria<F>;

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

function documentText<T extends StoredDoc>(resource: Resource<T>, doc: T): string {
  return JSON.stringify(resource.document?.(doc) ?? doc);
}

/**
 * Stores a new document: its columns and its JSON. `extra` adds columns that are not part of
 * the document (a webhook's signing secret). Call inside a transaction.
 */
export async function insertRecord<T extends StoredDoc>(
  resource: Resource<T>,
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
  await resource.children?.write(tx, doc);
  return doc;
}

async function writeRecord<T extends StoredDoc>(
  resource: Resource<T>,
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
    await resource.children.clear(tx, doc);
    await resource.children.write(tx, doc);
  }
}

/**
 * Changes a stored document (same id and mode) through `modifyDoc`: `change` gets it read
 * under a row lock (so a state machine move is judged on the status it replaces) and returns
 * the document to store, or `undefined` (or the same object) to leave it. `undefined` when
 * there is none.
 */
export function modifyRecord<T extends StoredDoc>(
  resource: Resource<T>,
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
export function getRecord<T extends StoredDoc>(
  resource: Resource<T>,
  db: Db,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  return getDoc<T>(db, resource.table, id, livemode);
}

/** The query of a list or search: the mode, then each criterion set, in the table's order. */
function pageQuery<T extends StoredDoc, F extends string, R>(
  resource: Resource<T, F>,
  db: Db,
  query: RecordQuery<F>,
  read: RowRead<R>,
): PageQuery<R> {
  const filters: Filter[] = [(p) => `livemode = ${p.add(query.livemode)}`];
  for (const [name, criterion] of Object.entries(resource.criteria) as [
    F,
    Resource<T, F>['criteria'][F],
  ][]) {
    const value = query[name];
    if (value !== undefined)
      filters.push((p) => criterion.op(criterion.column, value, p, db.dialect));
  }
  return { from: resource.table, select: read.select, filters, list: query, map: read.map };
}

/** Documents newest first matching every criterion set. */
export function listRecords<T extends StoredDoc, F extends string, R = T>(
  resource: Resource<T, F>,
  db: Db,
  query: RecordQuery<F>,
  read: RowRead<R> = parsed<R>(),
): Promise<Page<R>> {
  return paginate(db, pageQuery(resource, db, query, read));
}

/** As `listRecords`, with the number of all matches (FHIR's `total`), or that count alone. */
export function searchRecords<T extends StoredDoc, F extends string, R = T>(
  resource: Resource<T, F>,
  db: Db,
  query: RecordQuery<F>,
  countOnly: boolean,
  read: RowRead<R> = parsed<R>(),
): Promise<CountedPage<R>> {
  return paginateCounted(db, pageQuery(resource, db, query, read), countOnly);
}
