/**
 * The write ceilings of `bench:ceiling` (bench/ceiling.ts): what one create could cost before
 * any of the service's own per-request work, on each database.
 *
 * (e) / (e-pg): one durable INSERT of a patient row per request;
 * (f) / (f-pg): the rows the service writes for `POST /v1/patients` — patient, given name,
 *     event (the events table is the outbox: deliveries are queued only for subscribed
 *     endpoints, and the bench has none), audit row and its object index row, completed
 *     idempotency record — in one durable transaction.
 *
 * SQLite goes through the service's adapter (`server/db/sqlite.ts`): its group commit is the
 * one way to reach more durable commits per second than the disk has fsyncs. PostgreSQL goes
 * through node-postgres directly, with the fewest round trips possible: (e-pg) one named
 * INSERT, (f-pg) one statement of data-modifying CTEs, committed by itself (autocommit), so
 * one round trip per request. Both use the service's pool size.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Db } from '../../server/db/types.js';
import { buildPatient } from '../../server/domain/patients.js';
import { newId } from '../../server/ids.js';

/** One create's values, as the service would store them. */
function createRows(body: unknown, idempotencyKey: string) {
  const now = Date.now();
  const fields = body as Parameters<typeof buildPatient>[0];
  const patient = buildPatient(fields, {
    id: newId('pat', now),
    livemode: false,
    nowSeconds: Math.floor(now / 1000),
  });
  const eventId = newId('evt', now);
  const patientJson = JSON.stringify(patient);
  const event = JSON.stringify({
    id: eventId,
    object: 'event',
    livemode: false,
    created: patient.created,
    type: 'patient.created',
    data: { object: patient },
    pending_webhooks: 0,
  });
  const hash = createHash('sha256').update(`POST /v1/patients\n${JSON.stringify(body)}`);
  return {
    now,
    patient,
    patientJson,
    eventId,
    event,
    auditId: newId('aud', now),
    batchId: newId('audb', now),
    idempotencyKey,
    requestHash: hash.digest('hex'),
  };
}

type Rows = ReturnType<typeof createRows>;

function patientValues(r: Rows): unknown[] {
  const p = r.patient;
  return [
    p.id,
    0,
    p.created,
    p.updated,
    1,
    p.name?.family?.toLowerCase() ?? null,
    p.birth_date,
    p.email?.toLowerCase() ?? null,
    p.phone,
    r.patientJson,
  ];
}

const INSERT_PATIENT = `INSERT INTO patients (id, livemode, created, updated, active, family_norm,
  birth_date, email_norm, phone, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

/** The write route of one variant: takes the parsed body and the Idempotency-Key. */
export type WriteRoute = (body: unknown, idempotencyKey: string) => Promise<string>;

/** (e) and (f) on SQLite through the service's adapter. */
export function sqliteWrite(db: Db, whole: boolean): WriteRoute {
  return async (body, idempotencyKey) => {
    const r = createRows(body, idempotencyKey);
    await db.transaction(async (tx) => {
      await tx.run(INSERT_PATIENT, patientValues(r) as never);
      if (!whole) return;
      const p = r.patient;
      await tx.run(
        `INSERT INTO patient_given_names (patient_id, livemode, position, given_norm)
          VALUES ($1, 0, 0, $2)`,
        [p.id, p.name?.given?.[0]?.toLowerCase() ?? ''],
      );
      await tx.run(
        `INSERT INTO events (id, livemode, created, type, object_id, request_id, idempotency_key,
          data) VALUES ($1, 0, $2, 'patient.created', $3, $4, $5, $6)`,
        [r.eventId, p.created, p.id, 'req_bench', idempotencyKey, r.event],
      );
      await tx.run(
        `INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome,
          object_ids, batch_id) VALUES ($1, $2, 'key_bench', 'createPatient', 'req_bench',
          '127.0.0.1', 'success', $3, $4)`,
        [r.auditId, r.now, JSON.stringify([p.id]), r.batchId],
      );
      await tx.run('INSERT INTO audit_batch_objects (object_id, batch_id) VALUES ($1, $2)', [
        p.id,
        r.batchId,
      ]);
      await tx.run(
        `INSERT INTO idempotency_keys (namespace, livemode, idempotency_key, request_hash, state,
          status, body, created_at, locked_at, key_id)
          VALUES ('account', 0, $1, $2, 'completed', 200, $3, $4, $4, 'key_bench')`,
        [idempotencyKey, r.requestHash, r.patientJson, r.now],
      );
    });
    return r.patientJson;
  };
}

/** (f-pg): every row of a create in one statement, so one round trip and one commit. */
const CREATE_IN_ONE = `WITH
  p AS (${INSERT_PATIENT} RETURNING 1),
  g AS (INSERT INTO patient_given_names (patient_id, livemode, position, given_norm)
    VALUES ($1, 0, 0, $11) RETURNING 1),
  e AS (INSERT INTO events (id, livemode, created, type, object_id, request_id, idempotency_key,
    data) VALUES ($12, 0, $3, 'patient.created', $1, 'req_bench', $13, $14) RETURNING 1),
  a AS (INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome,
    object_ids, batch_id) VALUES ($15, $16, 'key_bench', 'createPatient', 'req_bench',
    '127.0.0.1', 'success', $17, $18) RETURNING 1),
  o AS (INSERT INTO audit_batch_objects (object_id, batch_id) VALUES ($1, $18) RETURNING 1)
INSERT INTO idempotency_keys (namespace, livemode, idempotency_key, request_hash, state, status,
  body, created_at, locked_at, key_id)
  VALUES ('account', 0, $13, $19, 'completed', 200, $10, $16, $16, 'key_bench')`;

/** (e-pg) and (f-pg) with node-postgres, named (prepared) statements, autocommit. */
export function postgresWrite(pool: pg.Pool, whole: boolean): WriteRoute {
  return async (body, idempotencyKey) => {
    const r = createRows(body, idempotencyKey);
    if (!whole) {
      await pool.query({ name: 'ceiling_e', text: INSERT_PATIENT, values: patientValues(r) });
      return r.patientJson;
    }
    await pool.query({
      name: 'ceiling_f',
      text: CREATE_IN_ONE,
      values: [
        ...patientValues(r),
        r.patient.name?.given?.[0]?.toLowerCase() ?? '',
        r.eventId,
        idempotencyKey,
        r.event,
        r.auditId,
        r.now,
        JSON.stringify([r.patient.id]),
        r.batchId,
        r.requestHash,
      ],
    });
    return r.patientJson;
  };
}
