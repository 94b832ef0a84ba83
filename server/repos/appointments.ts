import type { Db } from '../db/types.js';
import { type DocChange, type Modified, modifyDoc } from './modify-doc.js';
import { type ListParams, type Page, paginate } from './pagination.js';
import { getDoc, parseData } from './rows.js';

/** The fields of a stored appointment this repository indexes; the rest is kept as given. */
export interface AppointmentDoc {
  id: string;
  livemode: boolean;
  created: number;
  updated?: number;
  patient: string;
  status: string;
  start?: number | null;
}

export interface AppointmentListParams extends ListParams {
  livemode: boolean;
  patient?: string;
  status?: string;
}

/** Stores a new appointment. The patient must exist (foreign key). */
export async function insertAppointment<T extends AppointmentDoc>(tx: Db, doc: T): Promise<T> {
  await tx.run(
    `INSERT INTO appointments (id, livemode, created, updated, patient_id, status, start_at, data)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      doc.id,
      doc.livemode,
      doc.created,
      doc.updated ?? doc.created,
      doc.patient,
      doc.status,
      doc.start ?? null,
      JSON.stringify(doc),
    ],
  );
  return doc;
}

/**
 * Changes a stored appointment through `modifyDoc`: `change` gets it read under a row lock
 * (so a state machine move is judged on the status it replaces) and returns the appointment
 * to store, or `undefined` (or the same object) to leave it. `undefined` when there is none.
 */
export function modifyAppointment<T extends AppointmentDoc>(
  db: Db,
  id: string,
  livemode: boolean,
  change: DocChange<T, T>,
): Promise<Modified<T, T> | undefined> {
  return modifyDoc<T, T>(
    db,
    'appointments',
    id,
    livemode,
    async (current) => {
      const next = await change(current);
      return next === current ? undefined : next;
    },
    writeAppointment,
  );
}

async function writeAppointment(tx: Db, doc: AppointmentDoc): Promise<void> {
  await tx.run(
    `UPDATE appointments SET updated = $1, status = $2, start_at = $3, data = $4
      WHERE id = $5 AND livemode = $6`,
    [
      doc.updated ?? doc.created,
      doc.status,
      doc.start ?? null,
      JSON.stringify(doc),
      doc.id,
      doc.livemode,
    ],
  );
}

/** The stored appointment, or `undefined`. */
export async function getAppointment<T = AppointmentDoc>(
  db: Db,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  return getDoc<T>(db, 'appointments', id, livemode);
}

/** Appointments newest first, optionally for one patient and/or in one status. */
export function listAppointments<T = AppointmentDoc>(
  db: Db,
  params: AppointmentListParams,
): Promise<Page<T>> {
  return paginate(db, {
    from: 'appointments',
    select: 'data',
    filters: [
      (p) => `livemode = ${p.add(params.livemode)}`,
      (p) => (params.patient === undefined ? undefined : `patient_id = ${p.add(params.patient)}`),
      (p) => (params.status === undefined ? undefined : `status = ${p.add(params.status)}`),
    ],
    list: params,
    map: parseData<T>,
  });
}
