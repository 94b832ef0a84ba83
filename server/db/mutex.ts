/**
 * A FIFO lock for async code. SQLite has one writer connection per process, so a transaction
 * that awaits between statements must keep every other writer out until it commits.
 */
export class Mutex {
  #busy = false;
  readonly #waiting: Array<() => void> = [];

  /** True while someone holds the lock. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Takes the lock synchronously when it is free; returns false otherwise. */
  tryAcquire(): boolean {
    if (this.#busy) return false;
    this.#busy = true;
    return true;
  }

  /** Resolves once the caller holds the lock. */
  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the lock to the next waiter, in arrival order. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = false;
  }
}
