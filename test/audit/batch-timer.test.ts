/**
 * When an audit writer's next batch goes (server/audit/batch-timer.ts): a batch that reads wait
 * for goes at the end of the event loop's turn, not after Node's minimum 1 ms timer; a paced
 * batch after its delay; a sooner request wins over a later one.
 */
import { readFile } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BatchTimer } from '../../server/audit/batch-timer.js';

/** Runs `fn` inside an I/O callback, where an immediate always runs before any timer. */
function inIoCallback(fn: () => void): void {
  readFile(import.meta.filename, () => fn());
}

describe('BatchTimer', () => {
  it('fires a 0 ms batch in this turn, before a 0 ms timeout set earlier', async () => {
    const order: string[] = [];
    await new Promise<void>((resolve) => {
      inIoCallback(() => {
        setTimeout(() => {
          order.push('timeout');
          resolve();
        }, 0);
        new BatchTimer(() => order.push('batch')).after(0);
      });
    });
    expect(order).toEqual(['batch', 'timeout']);
  });

  it('brings a paced batch forward when a waiting read asks for 0 ms, and fires once', async () => {
    let fired = 0;
    const timer = new BatchTimer(() => fired++);
    timer.after(1000);
    timer.after(0);
    timer.after(0);
    timer.after(50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fired).toBe(1);
    expect(timer.pending).toBe(false);
  });

  it('keeps the first delay when a later one is asked for, and clear() cancels', async () => {
    let fired = 0;
    const timer = new BatchTimer(() => fired++);
    timer.after(20);
    timer.after(5000);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(fired).toBe(1);
    timer.after(0);
    timer.clear();
    timer.after(20);
    timer.clear();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(fired).toBe(1);
  });
});
