/**
 * `modifyDoc` (server/repos/modify-doc.ts) is the only way a stored document is rewritten, and
 * a second writer of a row decides only after the first one committed, on what it wrote.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { planAppointmentUpdate } from '../../server/domain/appointment-update.js';
import { isApiError } from '../../server/errors.js';
import { newId } from '../../server/ids.js';
import { modifyDoc } from '../../server/repos/modify-doc.js';
import { insertRecord, modifyRecord } from '../../server/repos/records.js';
import { PATIENT, type StoredPatient } from '../../server/resources/patient.js';
import { canonicalJson, findSerialOrder } from '../../tooling/concurrency/serial-history.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const SERVER = new URL('../../server/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

it('rewrites documents only in the generic repository, behind modifyDoc', () => {
  const texts = sourceFiles(SERVER).map((file) => ({
    file: relative(SERVER, file),
    text: readFileSync(file, 'utf8'),
  }));
  // By name: only the column beside an endpoint's document (its bound key), never the document.
  const named = texts.filter(({ text }) =>
    /UPDATE\s+(patients|appointments|claims|webhooks)\s+SET/.test(text),
  );
  expect(named.map(({ file }) => file)).toEqual(['repos/webhooks.ts']);
  expect(named[0]?.text).not.toMatch(/UPDATE\s+webhooks\s+SET[^`]*data\s*=/);
  // Generically: one writer, handed to modifyDoc; nothing exported replaces a row.
  const generic = texts.filter(({ text }) => /UPDATE \$\{resource\.table\} SET/.test(text));
  expect(generic.map(({ file }) => file)).toEqual(['repos/records.ts']);
  expect(generic[0]?.text).toContain('modifyDoc');
  expect(generic[0]?.text).not.toMatch(/export (async )?function (update|write)/);
});

it('finds no serial order for two accepted moves out of one status', () => {
  const booked = { id: 'appt_1', status: 'booked', start: 100, end: 200, metadata: {} };
  const apply = (state: typeof booked, body: { status: string }) => {
    try {
      const plan = planAppointmentUpdate(state as never, body as never, 1);
      return { ok: true as const, state: plan.appointment as unknown as typeof booked };
    } catch (error) {
      if (isApiError(error)) return { ok: false as const, code: error.code };
      throw error;
    }
  };
  const key = (s: object) => canonicalJson(s, new Set(['updated']));
  const requests = [{ status: 'noshow' }, { status: 'arrived' }];
  const check = (outcomes: Parameters<typeof findSerialOrder>[0]['outcomes'], final: object) =>
    findSerialOrder({ initial: booked, requests, outcomes, final, apply, key } as never);
  const noshow = { ...booked, status: 'noshow' };
  const arrived = { ...booked, status: 'arrived' };
  // Both acknowledged: no serial order gives both a 200.
  expect(
    check(
      [
        { ok: true, reply: noshow },
        { ok: true, reply: arrived },
      ],
      arrived,
    ),
  ).toBe(undefined);
  // One won, the other got the 400 it would get after it: explained, in that order.
  expect(
    check(
      [
        { ok: true, reply: noshow },
        { ok: false, code: 'status_transition_invalid' },
      ],
      noshow,
    ),
  ).toEqual([0, 1]);
});

await describeEachDatabase('modifyDoc', (dialect) => {
  const ctx = useTestDb(dialect);

  it('makes a second writer of a row decide after the first committed, on its result', async () => {
    const created = 1_800_000_000;
    const patient = {
      id: newId('pat'),
      object: 'patient',
      livemode: false,
      created,
      updated: created,
      metadata: {} as Record<string, string>,
    };
    await ctx.db.transaction((tx) => insertRecord(PATIENT, tx, patient as StoredPatient));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const seen: string[][] = [];
    const first = ctx.db.transaction(async (tx) => {
      const done = await modifyRecord(PATIENT, tx, patient.id, false, (p) => {
        seen.push(Object.keys(p.metadata));
        return { ...p, metadata: { ...p.metadata, a: '1' } };
      });
      // Still inside the first transaction: the row stays locked until it commits.
      await gate;
      return done;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = modifyDoc<typeof patient, typeof patient>(
      ctx.db,
      'patients',
      patient.id,
      false,
      (p) => {
        seen.push(Object.keys(p.metadata));
        return { ...p, metadata: { ...p.metadata, b: '2' } };
      },
      async (tx, next) => {
        await tx.run('UPDATE patients SET data = $1 WHERE id = $2', [
          JSON.stringify(next),
          next.id,
        ]);
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The second writer has not decided yet: it waits for the first one's lock.
    expect(seen).toEqual([[]]);
    open();
    await first;
    await second;
    expect(seen).toEqual([[], ['a']]);
    const stored = await ctx.db.get<{ data: string }>('SELECT data FROM patients WHERE id = $1', [
      patient.id,
    ]);
    expect(JSON.parse(stored!.data).metadata).toEqual({ a: '1', b: '2' });
  });

  it('returns undefined for a row of the other mode, and writes nothing when told so', async () => {
    const created = 1_800_000_000;
    const patient = { id: newId('pat'), object: 'patient', livemode: false, created, updated: 1 };
    await ctx.db.transaction((tx) => insertRecord(PATIENT, tx, patient as StoredPatient));
    expect(await modifyRecord(PATIENT, ctx.db, patient.id, true, (p) => p)).toBeUndefined();
    const same = await modifyRecord(PATIENT, ctx.db, patient.id, false, (p) => p);
    expect(same).toEqual({ current: patient, change: undefined });
  });
});
