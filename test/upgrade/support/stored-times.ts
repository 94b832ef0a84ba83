/** Appointment rows as a release before 2026-11-01 could leave them, made from today's rows. */
import type { Db } from '../../../server/db/types.js';

/** Rewrites the stored times of an appointment and of its events, as an old release left them. */
export async function storeTimes(db: Db, id: string, start: number, end: number): Promise<void> {
  const row = await db.get<{ data: string }>('SELECT data FROM appointments WHERE id = $1', [id]);
  const doc = JSON.parse(String(row?.data));
  await db.run('UPDATE appointments SET data = $1, start_at = $2 WHERE id = $3', [
    JSON.stringify({ ...doc, start, end }),
    start,
    id,
  ]);
  const events = await db.all<{ id: string; data: string }>(
    'SELECT id, data FROM events WHERE object_id = $1',
    [id],
  );
  for (const event of events) {
    const data = JSON.parse(String(event.data));
    data.data.object = { ...data.data.object, start, end };
    await db.run('UPDATE events SET data = $1 WHERE id = $2', [JSON.stringify(data), event.id]);
  }
}
