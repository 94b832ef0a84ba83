/**
 * Where the service's log lines go: standard output, written in blocks.
 *
 * pino's default destination issues one `write` per line as soon as the last one finished, so
 * a busy server pays a thread-pool write and its completion for nearly every request. Here
 * lines are collected until 4 KiB are waiting, and whatever is waiting is written at least
 * every `flushMs`, so a quiet server's lines still show up promptly. pino writes what is left
 * synchronously when the process exits (graceful stop, `process.exit`, an uncaught error);
 * only a kill -9 can lose the last `flushMs` of lines.
 */
import pino from 'pino';
import type { LogStream } from './logging.js';

/** Bytes collected before a write. */
const BLOCK_BYTES = 4096;

export interface LogDestination {
  readonly stream: LogStream;
  /** Writes what is waiting, synchronously (used before exiting). */
  flushSync(): void;
  /** Stops the periodic flush (the destination stays usable). */
  stop(): void;
}

/** A buffered destination on a file descriptor (default: standard output). */
export function bufferedDestination(
  options: { fd?: number | string; flushMs?: number } = {},
): LogDestination {
  const dest = pino.destination({
    dest: options.fd ?? 1,
    minLength: BLOCK_BYTES,
    sync: false,
  });
  let closed = false;
  dest.once('close', () => {
    closed = true;
  });
  const timer = setInterval(() => {
    // With a write already in flight, `flush` just lets it finish; it throws only once closed.
    if (!closed) dest.flush();
  }, options.flushMs ?? 250);
  timer.unref();
  return {
    stream: dest,
    flushSync() {
      if (!closed) dest.flushSync();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
