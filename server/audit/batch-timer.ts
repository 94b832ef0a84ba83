/**
 * When an audit writer's next batch goes: right after the event loop's current poll phase
 * (`setImmediate`, so every read answered in this turn joins the batch) or after a delay.
 * A delay of 0 is never a `setTimeout`: Node makes that at least 1 ms, which a read waiting
 * for its batch paid on every batch (BENCHMARKS.md, issue 43). Neither keeps a finished
 * process alive; the writers' `close()` flushes.
 */
export class BatchTimer {
  readonly #fire: () => void;
  #timeout: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;

  constructor(fire: () => void) {
    this.#fire = fire;
  }

  get pending(): boolean {
    return this.#timeout !== undefined || this.#immediate !== undefined;
  }

  /** Fires after `delayMs` (0: this turn), unless it fires as soon or sooner already. */
  after(delayMs: number): void {
    if (this.#immediate !== undefined) return;
    if (delayMs > 0) {
      if (this.#timeout !== undefined) return;
      this.#timeout = setTimeout(() => {
        this.#timeout = undefined;
        this.#fire();
      }, delayMs);
      this.#timeout.unref();
      return;
    }
    this.clear();
    this.#immediate = setImmediate(() => {
      this.#immediate = undefined;
      this.#fire();
    });
    this.#immediate.unref();
  }

  clear(): void {
    if (this.#timeout !== undefined) clearTimeout(this.#timeout);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timeout = undefined;
    this.#immediate = undefined;
  }
}
