import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nobody listens on right now (the OS picks it). Another process
 * may take it before the caller binds it; callers start one listener on it soon after.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
