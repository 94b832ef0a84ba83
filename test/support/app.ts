/**
 * A service instance for tests: an in-memory SQLite database, `buildApp` with a fixed clock
 * and generous rate limits (tests send many requests in one "second"), an audit sink that
 * keeps entries in memory, and the checked request function of `inject.ts`.
 *
 * @example
 * const t = await buildTestApp();
 * const key = await makeKey(t.db);
 * const res = await t.request({ method: 'GET', url: '/v1/patients', key: key.secret });
 * await t.close();
 */
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import type { AuditEntry, AuditSink } from '../../server/http/store.js';
import { createInjector, type Inject, type RouteTable } from './inject.js';

/** An audit sink that keeps what it is given. */
export class MemoryAudit implements AuditSink {
  readonly entries: AuditEntry[] = [];
  push(entry: AuditEntry): boolean {
    this.entries.push(entry);
    return true;
  }
  record(entry: AuditEntry): Promise<void> {
    this.entries.push(entry);
    return Promise.resolve();
  }
}

/** A clock tests can move. */
export interface TestClock {
  now: number;
  (): number;
}

/**
 * A clock starting at `start` ms (default: the real time now, so keys created or revoked with
 * the real clock are in its past) that moves only when told (`clock.now += 1000`).
 */
export function testClock(start = Date.now()): TestClock {
  const clock = (() => clock.now) as TestClock;
  clock.now = start;
  return clock;
}

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  audit: MemoryAudit;
  clock: TestClock;
  request: Inject;
  close(): Promise<void>;
}

/** Options: anything `buildApp` takes, plus a route table for the response checks. */
export interface TestAppOptions extends Partial<AppOptions> {
  /** The table the app serves; also what responses are checked against. Default: generated. */
  table?: RouteTable;
}

/** Builds the app on a fresh in-memory database. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await openDb('sqlite::memory:'));
  const audit = new MemoryAudit();
  const clock = testClock();
  const { table, ...rest } = options;
  const app = await buildApp({
    audit,
    clock,
    ...rest,
    ...(table ? { routes: table.routes, componentSchemas: table.componentSchemas } : {}),
    db,
    config: {
      // Like a development server on loopback: webhook receivers run on this machine.
      allowPrivateWebhookTargets: true,
      ...rest.config,
      rateLimits: {
        liveRps: 10_000,
        testRps: 10_000,
        anonymousRps: 10_000,
        ...rest.config?.rateLimits,
      },
    },
  });
  const request = await createInjector(app, table);
  return {
    app,
    db,
    audit,
    clock,
    request,
    async close() {
      await app.close();
      if (options.db === undefined) await db.close();
    },
  };
}
