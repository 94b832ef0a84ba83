import { describe, expect, it } from 'vitest';
import type { Change } from '../../../tooling/breaking/types.js';
import { isDatedVersion, isListed, parseChangelog } from '../../../tooling/spec-gate/changelog.js';
import { evaluateGate } from '../../../tooling/spec-gate/version-policy.js';

const removed: Change = {
  kind: 'property-removed',
  pointer: '/components/schemas/Patient/properties/email',
  breaking: true,
  message: 'response property `email` removed or renamed: clients reading it break',
  operation: 'GET /v1/patients/{id}',
};
const added: Change = {
  kind: 'property-added',
  pointer: '/components/schemas/Patient/properties/x',
  breaking: false,
  message: 'new optional response property `x`',
};

const changelog = (version: string, ...bullets: string[]) =>
  [
    '# Changelog',
    '',
    `## ${version}`,
    '',
    ...bullets,
    '',
    '## 2026-11-01',
    '',
    '- First public version.',
  ].join('\n');

describe('version + changelog gate', () => {
  it('passes compatible changes without a version move', () => {
    const r = evaluateGate({
      changes: [added],
      baseVersion: '2026-11-01',
      headVersion: '2026-11-01',
      changelog: changelog('2026-11-01'),
    });
    expect(r).toEqual({ ok: true, problems: [], unlisted: [] });
  });

  it('fails a breaking change without a version bump', () => {
    const r = evaluateGate({
      changes: [removed, added],
      baseVersion: '2026-11-01',
      headVersion: '2026-11-01',
      changelog: changelog('2026-11-01'),
    });
    expect(r.ok).toBe(false);
    expect(r.unlisted).toEqual([removed]);
    expect(r.problems[0]).toMatch(/info\.version is still 2026-11-01/);
  });

  it('fails a bumped version whose changelog section does not list the change', () => {
    const r = evaluateGate({
      changes: [removed],
      baseVersion: '2026-11-01',
      headVersion: '2026-12-01',
      changelog: changelog(
        '2026-12-01',
        '- `/components/schemas/Patient/properties/phone` changed',
      ),
    });
    expect(r.ok).toBe(false);
    expect(r.unlisted).toEqual([removed]);
    expect(r.problems[0]).toMatch(/not listed under "## 2026-12-01"/);
  });

  it('fails a change listed only under an older version', () => {
    const text = [
      '## 2026-12-01',
      '- nothing',
      '## 2026-11-01',
      '- `/components/schemas/Patient/properties/email`',
    ].join('\n');
    expect(
      evaluateGate({
        changes: [removed],
        baseVersion: '2026-11-01',
        headVersion: '2026-12-01',
        changelog: text,
      }).ok,
    ).toBe(false);
  });

  it.each([
    ['its pointer', '- Removed `/components/schemas/Patient/properties/email` (use `emails`).'],
    ['an ancestor pointer', '* Reworked `/components/schemas/Patient`.'],
    ['its operation', '- `GET /v1/patients/{id}` no longer returns email.'],
  ])('passes a bump with the change listed by %s', (_how, bullet) => {
    const r = evaluateGate({
      changes: [removed],
      baseVersion: '2026-11-01',
      headVersion: '2026-12-01',
      changelog: changelog('2026-12-01', bullet),
    });
    expect(r).toEqual({ ok: true, problems: [], unlisted: [] });
  });

  it('passes a bump with the change listed in the form the report shows (its split file)', () => {
    const input = {
      changes: [removed],
      baseVersion: '2026-11-01',
      headVersion: '2026-12-01',
      changelog: changelog(
        '2026-12-01',
        '- Removed `schemas/patient.yaml#/Patient/properties/email`.',
      ),
    };
    expect(evaluateGate(input).ok).toBe(false);
    const show = () => 'schemas/patient.yaml#/Patient/properties/email';
    expect(evaluateGate({ ...input, show })).toEqual({ ok: true, problems: [], unlisted: [] });
  });

  it('does not accept a one-segment pointer as a blanket entry', () => {
    const r = evaluateGate({
      changes: [removed],
      baseVersion: '2026-11-01',
      headVersion: '2026-12-01',
      changelog: changelog('2026-12-01', '- `/components`'),
    });
    expect(r.ok).toBe(false);
  });

  it('fails a version that is not a date, moves backwards or has no changelog section', () => {
    const bad = (headVersion: string, text = changelog(headVersion)) =>
      evaluateGate({ changes: [], baseVersion: '2026-11-01', headVersion, changelog: text })
        .problems;
    expect(bad('v2')).toEqual([expect.stringMatching(/not a dated version/)]);
    expect(bad('2026-02-30')).toEqual([expect.stringMatching(/not a dated version/)]);
    expect(bad('2026-10-01')).toEqual([expect.stringMatching(/moved backwards/)]);
    expect(bad('2026-12-01', changelog('2026-11-15'))).toEqual([
      expect.stringMatching(/no "## 2026-12-01" section/),
    ]);
    expect(
      evaluateGate({
        changes: [],
        baseVersion: '2026-11-01',
        headVersion: '2026-12-01',
        changelog: undefined,
      }).ok,
    ).toBe(false);
  });
});

describe('changelog format', () => {
  it('collects code spans from bullets under each dated heading', () => {
    const parsed = parseChangelog(
      [
        '# Title',
        '## 2026-12-01',
        'Prose `/ignored/not/a-bullet`.',
        '- `A` and `B`',
        '  * `C`',
        '## 2026-11-01',
        '- `D`',
      ].join('\n'),
    );
    expect([...parsed]).toEqual([
      ['2026-12-01', ['A', 'B', 'C']],
      ['2026-11-01', ['D']],
    ]);
  });

  it('matches pointers segment-wise, not by string prefix', () => {
    expect(isListed(removed, ['/components/schemas/Patient/properties/email'])).toBe(true);
    expect(isListed(removed, ['/components/schemas/Pat'])).toBe(false);
  });

  it('accepts the file form of a split-file pointer, and the bundled pointer', () => {
    const shown = 'schemas/patient.yaml#/Patient/properties/email';
    expect(isListed(removed, ['schemas/patient.yaml#/Patient'], shown)).toBe(true);
    expect(isListed(removed, ['/components/schemas/Patient'], shown)).toBe(true);
    expect(isListed(removed, ['schemas/other.yaml#/Patient'], shown)).toBe(false);
  });

  it('knows real dates', () => {
    expect(isDatedVersion('2026-11-01')).toBe(true);
    expect(isDatedVersion('2026-13-01')).toBe(false);
    expect(isDatedVersion(20261101)).toBe(false);
  });
});
