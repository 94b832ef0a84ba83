/**
 * `npm run dev` checks every answer against its version's document (tooling/dev/response-check.ts):
 * a handler answering a patient without `name` logs one warn line naming the operation and the
 * field, never a value, in the latest version and pinned to an older one; answers that match
 * log nothing. The production app (`buildApp` as `npm start` builds it) checks nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { routeTableOf } from '../../generators/route-table.js';
import { buildApp, handlerEntries } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import type { HandlerTable } from '../../server/http/register-routes.js';
import type { AppBuilder } from '../../server/service-host.js';
import { versions } from '../../server/versioning/index.js';
import { SwapHost } from '../../tooling/dev/swap-host.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';
import { SPEC_PATH } from '../spec/load-spec.js';
import { makeKey } from '../support/keys.js';

const FAMILY = 'Checkname-Qxv';

/** The handlers with `retrievePatient` answering the patient without its `name`. */
function nameless(handlers: HandlerTable): HandlerTable {
  const retrieve = handlers.retrievePatient;
  if (retrieve === undefined) throw new Error('no retrievePatient handler');
  return {
    ...handlers,
    retrievePatient: async (request, ctx) => {
      const reply = await retrieve(request, ctx);
      const { name: _name, ...rest } = reply.body as Record<string, unknown>;
      return { ...reply, body: rest };
    },
  };
}

interface LogLine {
  level: number;
  msg: string;
  operationId?: string;
  fields?: string[];
}

let db: Db | undefined;
let host: SwapHost | undefined;
afterEach(async () => {
  await host?.close();
  await db?.close();
  host = undefined;
  db = undefined;
});

/** A patient created through `app`, then read back in each version; the log lines written. */
async function exercise(
  build: (
    db: Db,
    stream: { write(line: string): void },
  ) => Promise<{
    inject: (o: object) => Promise<{ statusCode: number; json(): unknown }>;
  }>,
) {
  db = await openDb('sqlite::memory:');
  const { secret } = await makeKey(db);
  const lines: string[] = [];
  const app = await build(db, { write: (line) => lines.push(line) });
  const headers = (version: string) => ({
    authorization: `Bearer ${secret}`,
    'patientcare-version': version,
    'content-type': 'application/json',
  });
  const created = await app.inject({
    method: 'POST',
    url: '/v1/patients',
    headers: headers(versions.latest),
    payload: JSON.stringify({ name: { family: FAMILY }, birth_date: '1987-04-12' }),
  });
  expect(created.statusCode).toBe(200);
  const id = (created.json() as { id: string }).id;
  const warnings = () =>
    lines.map((line) => JSON.parse(line) as LogLine).filter((line) => line.level === 40);
  const afterCreate = warnings().length;
  const reads: unknown[] = [];
  for (const version of [versions.latest, '2026-11-01']) {
    const read = await app.inject({
      method: 'GET',
      url: `/v1/patients/${id}`,
      headers: headers(version),
    });
    expect(read.statusCode).toBe(200);
    reads.push(read.json());
  }
  return { afterCreate, warnings: warnings(), text: lines.join('\n'), reads };
}

describe('response validation in npm run dev', () => {
  it('logs one line per mismatching answer, naming the operation and field, never a value', async () => {
    // The document as the loop serves it: bundled, with its guides in the tag descriptions.
    const document = await bundleSpec(SPEC_PATH);
    const table = routeTableOf(document);
    const contract = {
      id: 'test',
      routes: table.routes,
      componentSchemas: table.componentSchemas,
      document,
    };
    const { afterCreate, warnings, text } = await exercise(async (database, stream) => {
      host = new SwapHost(Promise.resolve({ contract, problem: null }), () => {});
      // The service's own builder (`server/main.ts`), with the dev host's overrides.
      const build: AppBuilder = async (overrides = {}) => {
        const { docs: _docs, ...rest } = overrides;
        return buildApp({
          db: database,
          logger: { level: 'info', stream },
          ...rest,
          handlers: nameless(rest.handlers ?? {}),
        });
      };
      return host.start(build);
    });
    // The create's answer matches its document: nothing logged.
    expect(afterCreate).toBe(0);
    expect(warnings).toHaveLength(2);
    for (const [index, version] of [versions.latest, '2026-11-01'].entries()) {
      expect(warnings[index]).toMatchObject({
        operationId: 'retrievePatient',
        fields: ['/name required'],
      });
      expect(warnings[index]?.msg).toBe(
        `response of retrievePatient (200) does not match the ${version} document: /name required`,
      );
    }
    expect(text).not.toContain(FAMILY);
    expect(text).not.toContain('1987-04-12');
  });

  it('is off in the production app: the same answer is sent unchecked, nothing logged', async () => {
    const { handlers } = await import('../../server/handlers/index.js');
    const { warnings, reads } = await exercise((database, stream) =>
      buildApp({
        db: database,
        logger: { level: 'info', stream },
        handlers: nameless(handlerEntries(handlers)),
      }),
    );
    expect(reads.map((read) => Object.keys(read as object).includes('name'))).toEqual([
      false,
      false,
    ]);
    expect(warnings).toEqual([]);
  });
});
