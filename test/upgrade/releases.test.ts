/**
 * The upgrade tier (`npm run test:upgrade`, part of the integration tier): for each earlier
 * release users may run, on each database, that release — its own tree and dependencies —
 * takes what its API accepted (the fuzzer's valid bodies from its own schemas, and its edge
 * values: milliseconds-style times, the largest integers, empty and odd-Unicode text), is
 * stopped, and today's build opens the same database (migrating it) and must:
 *
 * - answer every read, list, search, event and FHIR read of that data in every supported
 *   version with 200, each answer valid by that version's document (the injector checks it);
 * - deliver every webhook delivery the release queued, each body valid by its endpoint's
 *   version's `Event` schema, none left pending;
 * - report rows whose values today's rules no longer accept (`npm run doctor`'s checks) and
 *   let each be corrected through the API, after which the check finds nothing to repair.
 *
 * A release is added here when it is cut. The commits must be in the clone's history (CI uses
 * a full clone); a shallow clone fails with one line saying to fetch it.
 */
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAjv } from '../../contract/ajv.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { runDoctor } from '../../server/doctor/checks.js';
import { isReschedulable } from '../../server/domain/appointment-status.js';
import { toFhirId } from '../../server/fhir/ids.js';
import { versions } from '../../server/versioning/index.js';
import { advanceClaim } from '../../server/webhooks/clearinghouse.js';
import type { RetrySchedule } from '../../server/webhooks/schedule.js';
import { type DeliveryWorker, startDeliveryWorker } from '../../server/webhooks/worker.js';
import type { RouteTable } from '../../tooling/fuzz/response-checker.js';
import { installedRelease } from '../../tooling/releases/release-tree.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { availableDialects, openTestDb, type TestDb } from '../support/databases.js';
import { versionTable } from '../support/inject.js';
import { type Receiver, startReceiver, waitFor } from '../webhooks/support/receiver.js';
import { type OldService, startOldService } from './support/old-release.js';
import { type Seeded, seedRelease } from './support/seed.js';

/** Earlier releases users may run: the first release, and the last before dated versions. */
const RELEASES = [
  { commit: '6cc14ed', what: 'the first release' },
  { commit: '7c7001d', what: 'the last release before dated versions' },
];

const ROOT = process.cwd();
const FAST: RetrySchedule = { test: [50, 100], live: [50, 100], jitter: 0 };
const LATEST = versions.latest;

type Page = { data: { id: string }[]; has_more: boolean };

for (const release of RELEASES) {
  for (const { dialect, available } of await availableDialects()) {
    describe.skipIf(!available)(
      `upgrade from ${release.commit}, ${release.what} [${dialect}]`,
      {
        timeout: 120_000,
      },
      () => {
        let database: TestDb;
        let old: OldService | undefined;
        let receiver: Receiver;
        let seeded: Seeded;
        let db: Db;
        let t: TestApp;
        let secret: string;
        const visited = new Set<string>();

        beforeAll(async () => {
          const releaseDir = installedRelease(ROOT, release.commit);
          database = await openTestDb(dialect, { migrate: false });
          receiver = await startReceiver();
          old = await startOldService(releaseDir, database.url);
          secret = old.secret;
          const table = (await import(
            /* @vite-ignore */ join(releaseDir, 'generated/routes.ts')
          )) as RouteTable;
          seeded = await seedRelease(old.baseUrl, secret, table, receiver.url, 20_261_127);
          for (const hook of seeded.webhooks) receiver.secrets.set(hook.path, hook.secret);
          console.log(
            `${release.commit} [${dialect}]: the release accepted ${seeded.patients.length} patients, ${seeded.appointments.length} appointments (${seeded.outOfRange.size} with times outside 1970..9999), ${seeded.claims.length} claims; refused ${seeded.refused.length} requests (${[...new Set(seeded.refused)].join('; ')})`,
          );
          await old.stop();
          old = undefined;
          db = await openDb(database.url);
          // Today's clearinghouse answers half the claims the release left submitted, as its
          // background work would after the upgrade: those have a FHIR ClaimResponse to read.
          for (const id of seeded.claims.slice(0, Math.ceil(seeded.claims.length / 2)))
            await advanceClaim(db, id, Date.now());
          t = await buildTestApp({ db });
          // Practitioners came after every release: one made after the upgrade, so their
          // reads are walked beside the release's data.
          const made = await t.request({
            method: 'POST',
            url: '/v1/practitioners',
            key: secret,
            body: { name: { family: 'Upgrade' }, npi: '1234567893', specialty: '207Q00000X' },
          });
          expect(made.status, made.text.slice(0, 300)).toBe(200);
        }, 600_000);

        afterAll(async () => {
          await old?.stop();
          await t?.close();
          await db?.close();
          await receiver?.close();
          await database?.dispose();
        });

        /** GET in `version`, which must answer 200 (the injector has checked the body). */
        const read = async (version: string, url: string) => {
          const res = await t.request({
            method: 'GET',
            url,
            key: secret,
            headers: { 'patientcare-version': version },
          });
          expect(res.status, `${version} GET ${url}: ${res.text.slice(0, 300)}`).toBe(200);
          if (res.operationId !== null) visited.add(res.operationId);
          return res.body;
        };

        /** Every page of a list, oldest request first. */
        const all = async (version: string, url: string): Promise<{ id: string }[]> => {
          const out: { id: string }[] = [];
          let after: string | undefined;
          for (;;) {
            const sep = url.includes('?') ? '&' : '?';
            const page = (await read(
              version,
              `${url}${sep}limit=100${after ? `&starting_after=${after}` : ''}`,
            )) as Page;
            out.push(...page.data);
            if (!page.has_more || page.data.length === 0) return out;
            after = page.data.at(-1)?.id;
          }
        };

        it('the release accepted the seeded data, edge values included', () => {
          expect(seeded.patients.length).toBeGreaterThan(5);
          expect(seeded.appointments.length).toBeGreaterThan(10);
          expect(seeded.claims.length).toBeGreaterThan(0);
          expect(seeded.webhooks).toHaveLength(2);
          // What makes this an upgrade test: times today's rules refuse, stored by the release.
          expect(seeded.outOfRange.size).toBeGreaterThan(3);
        });

        it.each(versions.supported)(
          'reads, lists and searches all of it in %s',
          async (version) => {
            const patients = await all(version, '/v1/patients');
            expect(patients.map((p) => p.id)).toEqual(expect.arrayContaining(seeded.patients));
            for (const { id } of patients) {
              await read(version, `/v1/patients/${id}`);
              await read(version, `/fhir/R4/Patient/${toFhirId(id)}`);
              await read(version, `/v1/appointments?patient=${id}`);
              await read(version, `/fhir/R4/Appointment?patient=${toFhirId(id)}`);
            }
            const appointments = await all(version, '/v1/appointments');
            expect(appointments.map((a) => a.id)).toEqual(
              expect.arrayContaining(seeded.appointments),
            );
            for (const { id } of appointments) {
              await read(version, `/v1/appointments/${id}`);
              await read(version, `/fhir/R4/Appointment/${toFhirId(id)}`);
            }
            await read(version, '/fhir/R4/Appointment');
            const claims = await all(version, '/v1/claims');
            for (const { id } of claims) {
              await read(version, `/v1/claims/${id}`);
              await read(version, `/fhir/R4/Claim/${toFhirId(id)}`);
            }
            await read(version, '/fhir/R4/Claim');
            await read(version, '/fhir/R4/Patient');
            const responses = (await read(version, '/fhir/R4/ClaimResponse')) as {
              entry?: { resource: { id: string } }[];
            };
            for (const entry of responses.entry ?? [])
              await read(version, `/fhir/R4/ClaimResponse/${entry.resource.id}`);
            const events = await all(version, '/v1/events');
            expect(events.length).toBeGreaterThan(seeded.appointments.length);
            for (const { id } of events) await read(version, `/v1/events/${id}`);
            for (const type of [
              'appointment.created',
              'appointment.updated',
              'appointment.cancelled',
            ])
              await all(version, `/v1/events?type=${type}`);
            for (const { id } of await all(version, '/v1/webhooks')) {
              await read(version, `/v1/webhooks/${id}`);
              await read(version, `/v1/webhooks/${id}/deliveries`);
            }
            for (const { id } of await all(version, '/v1/practitioners')) {
              await read(version, `/v1/practitioners/${id}`);
              await read(version, `/fhir/R4/Practitioner/${toFhirId(id)}`);
              await read(version, `/v1/appointments?practitioner_id=${id}`);
            }
            await read(version, '/fhir/R4/Practitioner');
            await read(version, '/fhir/R4/metadata');
          },
        );

        it('read every operation that reads', async () => {
          const table = await versionTable(LATEST);
          const reads = table.routes
            .filter((r) => r.method === 'GET' && !['/healthz', '/readyz'].includes(r.url))
            .map((r) => r.operationId);
          expect(reads.filter((id) => !visited.has(id))).toEqual([]);
        });

        it("delivers every webhook delivery the release queued, valid in its endpoint's version", async () => {
          const schemas = new Map<string, ValidateFunction>();
          for (const version of versions.supported) {
            const { componentSchemas } = await versionTable(version);
            const ajv = createAjv({ strict: false, schemas: Object.values(componentSchemas) });
            schemas.set(version, ajv.compile({ $ref: 'urn:openapi:response:Event' }));
          }
          const queued = await db.all<{ n: unknown }>(
            "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'",
          );
          const pending = Number(queued[0]?.n);
          expect(pending).toBeGreaterThan(seeded.appointments.length);
          let worker: DeliveryWorker | undefined = startDeliveryWorker({
            db,
            allowPrivateTargets: true,
            schedule: FAST,
            pollIntervalMs: 10,
          });
          try {
            await waitFor(
              async () =>
                Number(
                  (
                    await db.all<{ n: unknown }>(
                      "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'",
                    )
                  )[0]?.n,
                ) === 0,
              60_000,
              'no delivery pending',
            );
          } finally {
            await worker.stop();
            worker = undefined;
          }
          const statuses = await db.all<{ status: string; n: unknown }>(
            'SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status',
          );
          expect(statuses.map((s) => [s.status, Number(s.n)])).toEqual([['succeeded', pending]]);
          expect(receiver.received).toHaveLength(pending);
          for (const got of receiver.received) {
            expect(got.verified, got.error ?? '').toBe(true);
            const event = JSON.parse(got.rawBody) as { api_version: string };
            const validate = schemas.get(event.api_version);
            expect(validate, event.api_version).toBeDefined();
            expect(validate?.(event), JSON.stringify(validate?.errors)).toBe(true);
          }
        });

        it('doctor reports the rows it narrowed, and updates correct them', async () => {
          const before = await runDoctor(db, { limit: 1000 });
          const [open, ended] = before;
          expect(new Set([...(open?.ids ?? []), ...(ended?.ids ?? [])])).toEqual(seeded.outOfRange);
          for (const id of seeded.patients) {
            const res = await t.request({
              method: 'POST',
              url: `/v1/patients/${id}`,
              key: secret,
              headers: { 'patientcare-version': LATEST },
              body: { metadata: { upgraded: 'yes' } },
            });
            expect(res.status, res.text.slice(0, 300)).toBe(200);
          }
          for (const id of seeded.appointments) {
            const { status } = (await read(LATEST, `/v1/appointments/${id}`)) as { status: never };
            const body = isReschedulable(status)
              ? { start: '2026-12-01T09:00:00Z', end: '2026-12-01T09:30:00Z' }
              : { metadata: { upgraded: 'yes' } };
            const res = await t.request({
              method: 'POST',
              url: `/v1/appointments/${id}`,
              key: secret,
              headers: { 'patientcare-version': LATEST },
              body,
            });
            expect(res.status, `${id} (${status}): ${res.text.slice(0, 300)}`).toBe(200);
          }
          for (const hook of seeded.webhooks) {
            const res = await t.request({
              method: 'POST',
              url: `/v1/webhooks/${hook.id}`,
              key: secret,
              headers: { 'patientcare-version': LATEST },
              body: { description: 'upgraded' },
            });
            expect(res.status, res.text.slice(0, 300)).toBe(200);
          }
          const after = await runDoctor(db, { limit: 1000 });
          expect(after[0]?.count).toBe(0);
          expect(after[1]?.ids).toEqual(ended?.ids);
        });
      },
    );
  }
}
