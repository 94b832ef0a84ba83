import type { ChildProcess } from 'node:child_process';

/**
 * Collects a child process's stdout and stderr, interleaved as they arrive (spawn it with both
 * piped); the function returned reads what has come so far.
 */
export function collectOutput(child: ChildProcess): () => string {
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return () => out;
}
