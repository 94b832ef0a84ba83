/**
 * The version-change modules as data: they are the one list of versions, the newest is the
 * spec's `info.version`, each derived document keeps its released contract
 * (`spec/released/<date>.json`; 2026-11-01 is the spec of commit 6cc14ed, bundled), and the
 * 2026-12-01 converters migrate requests up and responses down. No git history is read.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { getAtPointer } from '../../contract/pointer.js';
import { defineVersion } from '../../contract/version-change.js';
import { downgradeBody, upgradeRequest } from '../../server/versioning/convert.js';
import { deriveDocument, editPointer, statedBounds } from '../../server/versioning/derive.js';
import { versions } from '../../server/versioning/index.js';
import { createRegistry } from '../../server/versioning/registry.js';
import type { Json, JsonObject } from '../../server/versioning/version-change.js';
import { versionChanges } from '../../spec/versions/index.js';
import { diffSpecs } from '../../tooling/breaking/diff-specs.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';
import { readReleased, releasedVersions } from '../../tooling/spec-gate/released.js';
import { STATED_BOUNDS } from './support/stated-bounds.js';

/** Bundled, as every consumer derives it: guides (`spec/guides/*.md`) are edited text too. */
const latestSpec = await bundleSpec('spec/openapi.yaml');
/** The 2026-11-01 contract as released (bundled, guides resolved). */
async function releasedBundled(): Promise<OpenApiDocument> {
  return readReleased('.', '2026-11-01');
}

describe('the modules are the list of versions', () => {
  it('holds exactly one module per file of spec/versions/, named by its date', () => {
    const files = readdirSync('spec/versions')
      .filter((name) => /^\d{4}-\d{2}-\d{2}\.ts$/.test(name))
      .map((name) => name.slice(0, -3))
      .sort();
    expect(versionChanges.map((c) => c.date).sort()).toEqual(files);
    expect(readdirSync('spec/versions').filter((n) => n !== 'index.ts').length).toBe(files.length);
  });

  it('the newest module is the spec info.version; supported is newest first', () => {
    expect(versions.latest).toBe(latestSpec.info.version);
    expect(versions.supported).toEqual(['2026-12-01', '2026-11-01']);
    expect(versions.changesAbove('2026-12-01')).toEqual([]);
    expect(versions.changesAbove('2026-11-01').map((c) => c.date)).toEqual(['2026-12-01']);
  });

  it('refuses two modules of one date and a date that is not YYYY-MM-DD', () => {
    const one = versionChanges[0]!;
    expect(() => createRegistry([one, one])).toThrow(/two version changes dated/);
    expect(() => createRegistry([{ ...one, date: '2026-1-1' }])).toThrow(/not YYYY-MM-DD/);
  });
});

describe('derived documents', () => {
  // Compatible additions made after the release (new error codes, new paths) reach every
  // version, as Stripe's additions do; what the version changes edit must be the released text.
  it('every released contract is a supported version, and its derived document keeps it', () => {
    const released = releasedVersions('.');
    expect(released).toContain('2026-11-01');
    for (const version of released) {
      expect(versions.supported, version).toContain(version);
      const derived = deriveDocument(latestSpec, versions, version) as OpenApiDocument;
      // A bound the server always applied, now stated in the document, is a correction.
      const breaking = diffSpecs(readReleased('.', version), derived).filter(
        (c) => c.breaking && !STATED_BOUNDS.test(c.pointer),
      );
      expect(breaking, version).toEqual([]);
    }
  });

  it('2026-11-01 derived from the latest keeps the contract released at 6cc14ed', async () => {
    const released = await releasedBundled();
    const derived = deriveDocument(latestSpec, versions, '2026-11-01') as OpenApiDocument;
    const stated = STATED_BOUNDS;
    // The modules mark exactly these edits as stating an always-applied bound.
    const marked = statedBounds(latestSpec, versions, '2026-11-01');
    expect(marked).toHaveLength(4);
    for (const pointer of marked) expect(pointer).toMatch(stated);
    const breaking = diffSpecs(released, derived).filter((c) => c.breaking);
    expect(breaking.filter((c) => !stated.test(c.pointer))).toEqual([]);
    for (const change of versionChanges) {
      for (const edit of change.document) {
        if ('examples' in edit) continue;
        const at = editPointer(derived as unknown as JsonObject, edit);
        const was = getAtPointer(derived, at);
        if ('textWas' in edit) {
          expect(String(was), at).toContain(edit.textWas);
          expect(String(getAtPointer(released, at)), at).toContain(edit.textWas);
        } else if (!stated.test(at)) {
          expect(was, at).toEqual(getAtPointer(released, at));
        }
      }
    }
  });

  it('the versioning guide reads as released in 2026-11-01 and as the latest in 2026-12-01', async () => {
    const guide = (document: OpenApiDocument) =>
      (document.tags as { name: string; description?: string }[] | undefined)?.find(
        (tag) => tag.name === 'Versioning',
      )?.description;
    const derived = deriveDocument(latestSpec, versions, '2026-11-01') as OpenApiDocument;
    const released = guide(await releasedBundled());
    expect(released).toContain('the current one is `2026-11-01`');
    expect(guide(derived)).toBe(released);
    const latest = guide(latestSpec);
    expect(latest).toContain('the current one is `2026-12-01`');
    for (const told of ['npm run keys -- version', '--version 2026-11-01', '?version=', 'picker'])
      expect(latest, told).toContain(told);
  });

  it('the latest derived is the hand-written spec itself; the input is not modified', () => {
    const before = structuredClone(latestSpec);
    expect(deriveDocument(latestSpec, versions, versions.latest)).toEqual(latestSpec);
    deriveDocument(latestSpec, versions, '2026-11-01');
    expect(latestSpec).toEqual(before);
  });

  it('an edit naming a node that is not there fails loudly (the module went stale)', () => {
    const stale = createRegistry([
      versionChanges[0]!,
      {
        ...versionChanges[1]!,
        document: [{ schema: 'Nope', at: '/x', didNotExist: true }],
      },
    ]);
    expect(() => deriveDocument(latestSpec, stale, '2026-11-01')).toThrow(/does not exist/);
  });

  it('a module is checked when defined: an edit addressing a position is refused', () => {
    const base = {
      date: '2027-01-01',
      description: 'x',
      changelog: [],
      requests: {},
      objects: {},
      events: {},
    };
    expect(() =>
      defineVersion({ ...base, document: [{ tag: 'Versioning', at: '/0', was: 'x' }] }),
    ).toThrow(/position/);
    expect(() =>
      defineVersion({ ...base, document: [{ schema: 'A', tag: 'B', was: 1 } as never] }),
    ).toThrow(/exactly one/);
    expect(() => defineVersion({ ...base, date: '2027-1-1', document: [] })).toThrow(/YYYY-MM-DD/);
  });
});

const appointment = (start: Json, end: Json): Json => ({
  id: 'appt_01JD8A2B3C4D5E6F7G8H9J0K1M',
  object: 'appointment',
  start,
  end,
  cancelled_at: null,
});

describe('2026-12-01 converters', () => {
  it.each([
    [
      'seconds → UTC date-time',
      { start: 1793782800, end: 1793784600 },
      { start: '2026-11-04T09:00:00Z', end: '2026-11-04T09:30:00Z' },
    ],
    ['only one time', { end: 0 }, { end: '1970-01-01T00:00:00Z' }],
    ['no times: untouched', { practitioner: 'Dr Lee' }, { practitioner: 'Dr Lee' }],
  ])('request up: %s', (_name, given, want) => {
    const up = upgradeRequest(versions, '2026-11-01', 'createAppointment', {
      query: {},
      body: given,
    });
    expect(up.body).toEqual(want);
  });

  it('other operations are not touched, and the latest version converts nothing', () => {
    const parts = { query: {}, body: { start: 5 } };
    expect(upgradeRequest(versions, '2026-11-01', 'createPatient', parts)).toBe(parts);
    expect(upgradeRequest(versions, '2026-12-01', 'createAppointment', parts)).toBe(parts);
  });

  it('response down: an appointment, inside a list and inside an event with previous_attributes', () => {
    const latest = appointment('2026-11-04T09:00:00Z', null);
    expect(downgradeBody(versions, '2026-11-01', latest)).toEqual(appointment(1793782800, null));
    const list = { object: 'list', url: '/v1/appointments', has_more: false, data: [latest] };
    expect(downgradeBody(versions, '2026-11-01', list)).toEqual({
      ...list,
      data: [appointment(1793782800, null)],
    });
    const event = {
      id: 'evt_1',
      object: 'event',
      type: 'appointment.updated',
      api_version: '2026-12-01',
      data: { object: latest, previous_attributes: { start: '2026-11-05T09:00:00Z', updated: 5 } },
    };
    expect(downgradeBody(versions, '2026-11-01', event)).toEqual({
      ...event,
      api_version: '2026-11-01',
      data: {
        object: appointment(1793782800, null),
        previous_attributes: { start: 1793869200, updated: 5 },
      },
    });
    expect(downgradeBody(versions, '2026-12-01', event)).toBe(event);
  });

  it('response down leaves other objects and error envelopes alone', () => {
    const patient = { object: 'patient', id: 'pat_1', start: '2026-11-04T09:00:00Z' };
    expect(downgradeBody(versions, '2026-11-01', patient)).toEqual(patient);
    const error = { error: { code: 'parameter_invalid', param: 'start' } };
    expect(downgradeBody(versions, '2026-11-01', error)).toEqual(error);
  });
});

describe('error converters', () => {
  it('a change with an errors converter rewrites error envelopes on the way down only', () => {
    const [first, latest] = versionChanges;
    const renamed = createRegistry([
      first!,
      {
        ...latest!,
        errors: (body) => ({ ...body, error: { ...(body.error as object), param: 'old_name' } }),
      },
    ]);
    const envelope = { error: { code: 'parameter_invalid', param: 'new_name' } };
    expect(downgradeBody(renamed, '2026-11-01', envelope)).toEqual({
      error: { code: 'parameter_invalid', param: 'old_name' },
    });
    expect(downgradeBody(renamed, '2026-12-01', envelope)).toBe(envelope);
  });
});
