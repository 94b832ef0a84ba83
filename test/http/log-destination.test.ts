import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bufferedDestination, type LogDestination } from '../../server/http/log-destination.js';

const dirs: string[] = [];
const open: LogDestination[] = [];
afterEach(() => {
  for (const d of open.splice(0)) d.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function destinationInTempFile(flushMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-logdest-'));
  dirs.push(dir);
  const file = join(dir, 'out.log');
  const dest = bufferedDestination({ fd: file, flushMs });
  open.push(dest);
  await once(dest.stream as unknown as NodeJS.EventEmitter, 'ready');
  return { dest, read: () => readFileSync(file, 'utf8') };
}

describe('bufferedDestination', () => {
  it('holds a short line back, then writes it on the periodic flush', async () => {
    // A long period first: the line must still be waiting after the write call returns.
    const { dest, read } = await destinationInTempFile(60_000);
    dest.stream.write('{"msg":"one"}\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(read()).toBe('');
    dest.flushSync();
    expect(read()).toBe('{"msg":"one"}\n');
  });

  it('a quiet server still gets its lines out within the flush period', async () => {
    const { dest, read } = await destinationInTempFile(20);
    dest.stream.write('{"msg":"two"}\n');
    await vi.waitFor(() => expect(read()).toBe('{"msg":"two"}\n'), { timeout: 5000 });
  });

  it('writes a block as soon as 4 KiB are waiting, in order', async () => {
    const { dest, read } = await destinationInTempFile(60_000);
    const lines = Array.from({ length: 100 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(60)}"}\n`);
    for (const line of lines) dest.stream.write(line);
    await vi.waitFor(() => expect(read().length).toBeGreaterThanOrEqual(4096), { timeout: 5000 });
    dest.flushSync();
    expect(read()).toBe(lines.join(''));
  });
});
