/**
 * Two real server processes on one PostgreSQL database (the deployment of
 * docs/design.md#processes) take bursts of conflicting updates, each burst spread over both:
 * nothing acknowledged is lost and every burst is explained by a serial order replayed through
 * server/domain's rules (tooling/concurrency/workload.ts). Integration tier: it starts two
 * service processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runRound,
  SCENARIOS,
  type Send,
  totals,
  WORKLOAD_API_VERSION,
} from '../../tooling/concurrency/workload.js';
import { type ServiceProcess, startService } from '../durability/support/service-process.js';
import { openTestDb, postgresAvailable, type TestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

const ROUNDS = 6;

describe.skipIf(!(await postgresAvailable()))('two server processes on one PostgreSQL', () => {
  let database: TestDb;
  const services: ServiceProcess[] = [];
  let senders: Send[];

  beforeAll(async () => {
    database = await openTestDb('postgres');
    const { secret } = await makeKey(database.db);
    for (let i = 0; i < 2; i++) {
      services.push(await startService({ databaseUrl: database.url, env: { WORKER: 'off' } }));
    }
    senders = services.map((service) => async (method, path, body) => {
      const res = await fetch(`${service.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${secret}`,
          'patientcare-version': WORKLOAD_API_VERSION,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json() };
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await database?.dispose();
  });

  it.each(SCENARIOS.map((s) => [s.name, s] as const))(
    '%s: nothing acknowledged lost, a legal serial history',
    async (_name, scenario) => {
      const results = [];
      for (let round = 0; round < ROUNDS; round++) {
        results.push(await runRound(senders, scenario, round));
      }
      const sum = totals(results);
      expect(sum.details).toEqual([]);
      expect([sum.lost, sum.illegal, sum.unexpected]).toEqual([0, 0, 0]);
      expect(sum.accepted).toBeGreaterThan(0);
    },
    60_000,
  );
});
