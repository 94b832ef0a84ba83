import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../../server/audit/index.js';
import { newId } from '../../server/ids.js';
import { openTestDb, type TestDb } from '../support/databases.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

describe('npm run audit (scripts/audit.ts via tsx)', () => {
  let test: TestDb;
  const patient = newId('pat');
  const key = newId('key');
  const request = newId('req');

  beforeAll(async () => {
    test = await openTestDb('sqlite');
    await test.db.transaction((tx) =>
      recordAudit(tx, {
        keyId: key,
        operationId: 'createPatient',
        objectIds: [patient],
        requestId: request,
        clientIp: '10.1.2.3',
        outcome: 'success',
        at: Date.UTC(2026, 10, 1, 12, 0, 0),
      }),
    );
    await test.db.transaction((tx) =>
      recordAudit(tx, {
        keyId: key,
        operationId: 'retrievePatient',
        objectIds: [patient],
        requestId: newId('req'),
        clientIp: '10.1.2.3',
        outcome: 'denied',
        actor: 'clinician:4711',
      }),
    );
  });
  afterAll(async () => test.dispose());

  const audit = (...args: string[]) =>
    run(tsx, ['scripts/audit.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: test.url },
    });

  it("prints a patient's access history, newest first", async () => {
    const { stdout } = await audit('--patient', patient);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('retrievePatient');
    expect(lines[0]).toContain('denied');
    expect(lines[1]).toContain('2026-11-01T12:00:00.000Z');
    expect(lines[1]).toContain(`key=${key}`);
    expect(lines[1]).toContain(`request=${request}`);
    expect(lines[1]).toContain('ip=10.1.2.3');
    const limited = await audit('--patient', patient, '--limit', '1');
    expect(limited.stdout.trim().split('\n')).toHaveLength(1);
  });

  it("lists one actor's requests with --actor, and shows the actor on each line", async () => {
    const { stdout } = await audit('--actor', 'clinician:4711');
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('retrievePatient');
    expect(lines[0]).toContain('actor=clinician:4711');
    const none = await audit('--actor', 'nobody', '--patient', patient);
    expect(none.stdout.trim()).toBe(`no recorded access to ${patient} by actor nobody`);
    await expect(audit('--actor', 'Ana Rivera')).rejects.toMatchObject({ code: 2 });
  });

  it('refuses a missing or malformed patient id with exit code 2', async () => {
    await expect(audit('--limit', '5')).rejects.toMatchObject({ code: 2 });
    await expect(audit('--patient', 'Anna Smith')).rejects.toMatchObject({ code: 2 });
  });
});
