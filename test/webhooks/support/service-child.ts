/**
 * A stand-in for the server process in crash tests: opens DATABASE_URL, starts the background
 * work as `server/main.ts` does (honouring WORKER and WEBHOOK_SCHEDULE), and on an IPC
 * `{ emit: n }` commits n events through the API's event path, answering with their ids only
 * after the commit. The parent then kills it with SIGKILL.
 */
import { openDb } from '../../../server/db/open.js';
import { type EventObject, emitEvent } from '../../../server/domain/events.js';
import { newId } from '../../../server/ids.js';
import { loadBackgroundConfig, startBackgroundWork } from '../../../server/webhooks/background.js';

const db = await openDb(process.env.DATABASE_URL);
startBackgroundWork({ db, config: loadBackgroundConfig() });

process.on('message', async (message: { emit?: number }) => {
  const ids: string[] = [];
  for (let i = 0; i < (message.emit ?? 0); i++) {
    const object = { id: newId('pat'), object: 'patient', livemode: false };
    const event = await db.transaction((tx) =>
      emitEvent(
        tx,
        { livemode: false, requestId: newId('req'), idempotencyKey: null, now: Date.now },
        { type: 'patient.created', object: object as unknown as EventObject },
      ),
    );
    ids.push(event.id);
  }
  process.send?.({ ids });
});
process.send?.({ ready: true });
