/**
 * File watching for the dev loop: `fs.watch` on a few folders, with the events of one save
 * (editors write, rename and touch in quick succession) gathered into one batch.
 *
 * Folders are watched one by one, not with `{ recursive: true }`: on Linux, Node's recursive
 * watcher keeps a watch per file, and a file replaced by rename (`sed -i`, editors' atomic
 * "safe write") is never seen again after the first such save. A watch on the folder itself
 * reports every later save of the new file. Folders created after the start are not watched.
 */
import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';

/** `dir` and every folder below it (skipping `node_modules` and dot-folders). */
function foldersUnder(dir: string): string[] {
  const found = [dir];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name.startsWith('.')) {
      continue;
    }
    found.push(...foldersUnder(join(dir, entry.name)));
  }
  return found;
}

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
  const folders = targets.flatMap((target) =>
    (target.recursive && statSync(target.path).isDirectory()
      ? foldersUnder(target.path)
      : [target.path]
    ).map((path) => ({ path, filter: target.filter })),
  );
  const watchers: FSWatcher[] = folders.map((folder) =>
    watch(folder.path, (_event, name) => {
      const file = name === null ? folder.path : join(folder.path, name.toString());
      if (folder.filter && !folder.filter(file)) return;
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
