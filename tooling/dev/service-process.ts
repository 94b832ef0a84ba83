/**
 * The service as a child process of the dev loop: started with the swapping host
 * (`service-entry.ts`), told about each new contract, restarted when code changes. The
 * toolchain stays loaded in this process across restarts, so a code change costs a service
 * start (about a second), not a Redocly and TypeScript load.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { ContractPayload, FromService, ProblemPayload, ToService } from './messages.js';

const ENTRY = new URL('./service-entry.ts', import.meta.url);
// SIGTERM lets in-flight requests finish (server/main.ts); past this the restart forces it.
const STOP_TIMEOUT_MS = 10_000;

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class ServiceProcess {
  private child: ChildProcess | undefined;
  private connected = false;
  private served: ContractPayload | null = null;
  private problem: ProblemPayload | null = null;
  private readonly pending = new Map<string, Pending>();
  private listening = false;
  private startWaiters: ((listening: boolean) => void)[] = [];

  constructor(
    private readonly options: {
      env: NodeJS.ProcessEnv;
      /** Resolves once the first save has run, so a new service starts on its contract. */
      firstRun: Promise<void>;
      /**
       * The service exited without being asked to: before it listened (it could not start: a
       * setting, the port, the database) or after (a code error). The loop says which.
       */
      onCrash: (code: number | null, signal: string | null, wasListening: boolean) => void;
    },
  ) {}

  /** The contract the service serves (or will, once started). */
  get current(): ContractPayload | null {
    return this.served;
  }

  start(): void {
    const child = fork(ENTRY, [], {
      env: this.options.env,
      execArgv: ['--import', 'tsx'],
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    this.connected = false;
    this.listening = false;
    child.on('message', (message: FromService) => {
      if (this.child === child) void this.receive(message);
    });
    child.once('exit', (code, signal) => {
      const expected = this.child !== child;
      const wasListening = this.listening;
      if (this.child === child) this.child = undefined;
      this.connected = false;
      this.listening = false;
      this.settleAll();
      this.settleStart(false);
      if (!expected) this.options.onCrash(code, signal, wasListening);
    });
  }

  /** Resolves true once the running service listens, false if it exits first (or none runs). */
  whenStarted(): Promise<boolean> {
    if (this.listening) return Promise.resolve(true);
    if (this.child === undefined) return Promise.resolve(false);
    return new Promise((resolve) => this.startWaiters.push(resolve));
  }

  private settleStart(listening: boolean): void {
    const waiters = this.startWaiters;
    this.startWaiters = [];
    for (const resolve of waiters) resolve(listening);
  }

  /** Stops the service (gracefully, then forcibly) and starts a new one. */
  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(force);
  }

  /**
   * Lets the service build `contract` while the toolchain lints it. Resolves once the message
   * is written to the service's pipe: the contract is larger than the pipe holds, and what
   * does not fit is written only when this process's event loop is free again, so a caller
   * that started the (synchronous) lint at once had the service wait for the lint before it
   * could even start building (the swap then took the whole build after the lint, ~120 ms of
   * each save on our spec).
   */
  candidate(contract: ContractPayload): Promise<void> {
    const child = this.child;
    if (!this.connected || child === undefined || !child.connected) return Promise.resolve();
    return new Promise((resolve) => {
      child.send({ type: 'candidate', contract } satisfies ToService, () => resolve());
    });
  }

  /** Swaps `contract` in; resolves once the service answers with it. */
  commit(contract: ContractPayload): Promise<void> {
    this.served = contract;
    this.problem = null;
    if (!this.connected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.pending.set(contract.id, { resolve, reject });
      this.send({ type: 'commit', id: contract.id });
    });
  }

  discard(id: string): void {
    this.send({ type: 'discard', id });
  }

  /** Shows (or clears) the spec's problem on the docs pages. */
  setProblem(problem: ProblemPayload | null): void {
    this.problem = problem;
    this.send({ type: 'problem', problem });
  }

  private async receive(message: FromService): Promise<void> {
    if (message.type === 'hello') {
      await this.options.firstRun;
      this.connected = true;
      this.send({ type: 'state', contract: this.served, problem: this.problem });
    } else if (message.type === 'listening') {
      this.listening = true;
      this.settleStart(true);
    } else if (message.type === 'swapped') {
      this.pending.get(message.id)?.resolve();
      this.pending.delete(message.id);
    } else if (message.type === 'build-failed') {
      this.pending.get(message.id)?.reject(new Error(message.message));
      this.pending.delete(message.id);
    }
  }

  private send(message: ToService): void {
    // With a callback, a write to a service that has just died (EPIPE: it exited between its
    // `hello` and this message) is handed to the callback instead of thrown as an uncaught
    // 'error' event; the 'exit' handler already reports the death.
    if (this.connected && this.child?.connected) this.child.send(message, () => {});
  }

  /** The service is gone: whatever it was building is moot; its successor starts on `served`. */
  private settleAll(): void {
    for (const waiter of this.pending.values()) waiter.resolve();
    this.pending.clear();
  }
}
