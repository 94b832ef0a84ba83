/**
 * File watching for the dev loop: recursive `fs.watch` on a few folders, with the events of one
 * save (editors write, rename and touch in quick succession) gathered into one batch.
 */
import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';

/** Events closer together than this belong to one save. */
const SETTLE_MS = 20;

export interface WatchBatch {
  /** Absolute paths that changed. */
  files: string[];
  /** `performance.now()` of the batch's first event: where a save's timing starts. */
  at: number;
}

/**
 * Watches `targets` (folders recursively, or single files) and calls `onBatch` once per save.
 * Returns a function that stops watching.
 */
export function watchPaths(
  targets: readonly { path: string; recursive: boolean; filter?: (file: string) => boolean }[],
  onBatch: (batch: WatchBatch) => void,
): () => void {
  let files = new Set<string>();
  let at = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const batch = { files: [...files], at };
    files = new Set();
    onBatch(batch);
  };
  const watchers: FSWatcher[] = targets.map((target) =>
    watch(target.path, { recursive: target.recursive }, (_event, name) => {
      const file = name === null ? target.path : join(target.path, name.toString());
      if (target.filter && !target.filter(file)) return;
      if (files.size === 0) at = performance.now();
      files.add(file);
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(flush, SETTLE_MS);
    }),
  );
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
