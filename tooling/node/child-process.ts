/**
 * Child processes of the fuzzer and the benches that serve HTTP: wait until one answers, stop
 * one and wait for it.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Polls `url` until it answers, or throws after `timeoutMs` or once `alive()` is false (the
 * process exited during start-up). With `ok`, only a 200 counts (e.g. an authenticated list,
 * so the database is open too); `headers` go with every poll.
 */
export async function waitForHttp(
  url: string,
  timeoutMs: number,
  alive: () => boolean,
  { headers = {}, ok = false }: { headers?: Record<string, string>; ok?: boolean } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`process behind ${url} exited during start-up`);
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (!ok || res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing answered${ok ? ' 200' : ''} at ${url} within ${timeoutMs} ms`);
}

/** Whether `child` is still running. */
export function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Stops a child with SIGTERM (SIGKILL after `graceMs`) and waits for it. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (!running(child)) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
}
