/**
 * The plan behind `npm run spec:version` (tooling/spec-gate/version-plan.ts) and the one-source
 * rule for "the current version" in prose (tooling/spec-gate/current-version.ts), on the
 * released 2026-12-01 contract edited in memory.
 */
import { describe, expect, it } from 'vitest';
import { type JsonObject, todo, todosOf } from '../../../contract/version-change.js';
import { mentionsIn, moveMentions } from '../../../tooling/spec-gate/current-version.js';
import { readReleased } from '../../../tooling/spec-gate/released.js';
import { planVersion } from '../../../tooling/spec-gate/version-plan.js';

/** The parts of the document these cases edit. */
interface Doc {
  components: {
    parameters: { Limit: { schema: { maximum: number } } };
    schemas: { Patient: { properties: Record<string, unknown>; required: string[] } };
  };
}
const released = readReleased(process.cwd(), '2026-12-01');

describe('planVersion', () => {
  it('writes a request-side narrowing as a document edit only', () => {
    const head = structuredClone(released) as unknown as Doc;
    head.components.parameters.Limit.schema.maximum = 50;
    const plan = planVersion(released, head as never);
    expect(plan.changes.map((c) => c.pointer)).toEqual(['/components/parameters/Limit/schema']);
    expect(plan.edits).toEqual([
      { target: { parameter: 'Limit' }, at: '/schema/maximum', was: 100 },
    ]);
    expect(plan.converters).toEqual([]);
  });

  it('gives a response change its edit and a converter TODO per object type it reaches', () => {
    const head = structuredClone(released) as unknown as Doc;
    const patient = head.components.schemas.Patient;
    delete patient.properties.phone;
    patient.required = patient.required.filter((name) => name !== 'phone');
    const plan = planVersion(released, head as never);
    expect(plan.edits).toContainEqual({
      target: { schema: 'Patient' },
      at: '/properties/phone',
      was: (released as unknown as Doc).components.schemas.Patient.properties.phone,
    });
    expect(plan.converters.map((c) => `${c.group}.${c.name}`)).toContain('objects.patient');
  });

  it('finds nothing when the head is the release', () => {
    expect(planVersion(released, structuredClone(released)).changes).toEqual([]);
  });
});

describe('todo converters', () => {
  it('pass values through and are listed until written', () => {
    const stub = todo('down to 2026-12-01: phone removed');
    expect(stub({ a: 1 })).toEqual({ a: 1 });
    const change = {
      date: '2027-01-01',
      description: 'x',
      changelog: [],
      document: [],
      requests: {},
      objects: { patient: stub, claim: (v: JsonObject) => v },
      events: {},
      todo: ['restore /paths/x'],
    };
    expect(todosOf(change)).toEqual([
      'restore /paths/x',
      'objects.patient: down to 2026-12-01: phone removed',
    ]);
  });
});

describe('current-version mentions', () => {
  const guide = [
    'a date (the current one is `2026-12-01`). The',
    '| `2026-12-01` (current) | Times are date-times. |',
    '| `2026-11-01` | First. |',
    'the current version is',
    '`2026-12-01`, and `-H "PatientCare-Version: 2026-12-01"` is an example.',
  ].join('\n');

  it('finds every mention, across a line break, and not the examples', () => {
    expect(mentionsIn(guide).map((m) => [m.line, m.date])).toEqual([
      [1, '2026-12-01'],
      [2, '2026-12-01'],
      [4, '2026-12-01'],
    ]);
  });

  it('moves them to the new date, with a table row of its own', () => {
    const moved = moveMentions(guide, '2026-12-01', '2027-01-01', 'Limit is 50.');
    expect(moved.split('\n')).toEqual([
      'a date (the current one is `2027-01-01`). The',
      '| `2027-01-01` (current) | Limit is 50. |',
      '| `2026-12-01` | Times are date-times. |',
      '| `2026-11-01` | First. |',
      'the current version is',
      '`2027-01-01`, and `-H "PatientCare-Version: 2026-12-01"` is an example.',
    ]);
    expect(mentionsIn(moved).every((m) => m.date === '2027-01-01')).toBe(true);
  });
});
