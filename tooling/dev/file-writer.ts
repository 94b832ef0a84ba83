/**
 * Writes what the loop generated, only where the text differs from the disk, and remembers what
 * it wrote, so the code watcher can tell the loop's own writes (handler stubs, the handler
 * index) from a person's edits and does not restart the service for them.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class FileWriter {
  private readonly written = new Map<string, string>();

  /** Writes every file whose text changed; returns the paths written. */
  writeChanged(files: ReadonlyMap<string, string>): string[] {
    const changed: string[] = [];
    for (const [path, text] of files) {
      if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
      mkdirSync(dirname(path), { recursive: true });
      this.written.set(path, digest(text));
      writeFileSync(path, text);
      changed.push(path);
    }
    return changed;
  }

  /** True when `path` holds exactly what this writer last put there. */
  isOwnWrite(path: string): boolean {
    const expected = this.written.get(path);
    if (expected === undefined || !existsSync(path)) return false;
    return digest(readFileSync(path, 'utf8')) === expected;
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
