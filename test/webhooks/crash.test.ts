import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTestDb } from '../support/databases.js';
import { addWebhook, deliveriesOf } from './support/fixtures.js';
import { type Receiver, startReceiver, waitFor } from './support/receiver.js';

const CHILD = join(import.meta.dirname, 'support', 'service-child.ts');

/** Starts the stand-in service process and waits until it is ready. */
async function startService(url: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, DATABASE_URL: url, WEBHOOK_SCHEDULE: '50,100,200', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('service did not start in 30 s')), 30_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`service exited early (${code})`)));
  });
  return child;
}

/** Commits `n` events in the child; resolves with their ids once committed. */
function emitIn(child: ChildProcess, n: number): Promise<string[]> {
  return new Promise((resolve) => {
    child.once('message', (message: { ids: string[] }) => resolve(message.ids));
    child.send({ emit: n });
  });
}

function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('kill -9 between commit and delivery', () => {
  const ctx = useTestDb('sqlite', { fresh: 'each' });
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const child of children.splice(0)) await kill9(child);
    await receiver.close();
  });

  it('delivers events committed just before the crash after the restart', async () => {
    const hook = await addWebhook(ctx.db, receiver.url('/a'));
    receiver.secrets.set('/a', hook.secret);
    // The crash comes after the commit and before any worker ran.
    const first = await startService(ctx.url, { WORKER: 'off' });
    children.push(first);
    const ids = await emitIn(first, 5);
    await kill9(first);
    expect(receiver.received).toHaveLength(0);

    const second = await startService(ctx.url, { WORKER: 'on' });
    children.push(second);
    await waitFor(() => receiver.received.length >= 5, 20_000, 'deliveries after restart');
    expect(receiver.received.map((r) => r.eventId).sort()).toEqual([...ids].sort());
    expect(receiver.received.every((r) => r.verified)).toBe(true);
  }, 90_000);

  it('sends again a delivery that was in flight when the process died', async () => {
    const hook = await addWebhook(ctx.db, receiver.url('/a'));
    receiver.secrets.set('/a', hook.secret);
    receiver.delayMs = 60_000; // the receiver reads it but has not answered when the crash comes
    const first = await startService(ctx.url, { WORKER: 'on' });
    children.push(first);
    const [id] = await emitIn(first, 1);
    await waitFor(() => receiver.received.length === 1, 20_000, 'the first attempt');
    await kill9(first);
    receiver.delayMs = 0;

    const second = await startService(ctx.url, { WORKER: 'on' });
    children.push(second);
    await waitFor(async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'succeeded');
    // Delivered again after the restart: a duplicate of the same event id, nothing else.
    expect(receiver.received.map((r) => r.eventId)).toEqual([id, id]);
  }, 90_000);
});
