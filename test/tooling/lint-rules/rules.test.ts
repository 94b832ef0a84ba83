import { describe, expect, it } from 'vitest';
import { phiWord } from '../../../tooling/lint-rules/lib/phi-words.js';
import { badFixtures, validFixture } from './fixture-cases.js';
import { type LintProblem, lintFiles } from './run-redocly.js';

// One CLI process lints every fixture: each run costs about a second of start-up.
const fixtureRun = lintFiles([validFixture, ...badFixtures.map((c) => c.file)]);

function problemsOf(file: string): LintProblem[] {
  const problems = fixtureRun.problemsByFile.get(file);
  if (!problems) throw new Error(`Redocly produced no report for ${file}:\n${fixtureRun.stderr}`);
  return problems;
}

function summary(problems: LintProblem[]): string {
  return problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`).join('\n');
}

describe('redocly.yaml', () => {
  it('loads without config problems (no unknown or misspelled rule names)', () => {
    expect(fixtureRun.stderr).not.toMatch(/Unused rules found|Failed to load|Your config has/);
    expect(fixtureRun.problemsByFile.size).toBe(badFixtures.length + 1);
  });
});

describe('lint fixtures', () => {
  it('valid.yaml passes every rule with zero problems', () => {
    const problems = problemsOf(validFixture);
    expect(summary(problems)).toBe('');
  });

  it('the CLI exits non-zero when a fixture fails', () => {
    expect(fixtureRun.status).not.toBe(0);
  });

  describe.each(badFixtures)('$file', (fixture) => {
    const problems = () => problemsOf(fixture.file);

    it(`fails only ${fixture.ruleId}, at error level`, () => {
      expect(problems().length).toBeGreaterThan(0);
      expect(problems().map((p) => `${p.ruleId}/${p.severity}`)).toEqual(
        problems().map(() => `${fixture.ruleId}/error`),
      );
    });

    it.each(fixture.messageMentions)('has a message naming %s', (mention) => {
      const messages = problems().map((p) => p.message);
      expect(
        messages.some((m) => m.includes(mention)),
        summary(problems()),
      ).toBe(true);
    });

    it.each(fixture.pointers)('reports at %s', (pointer) => {
      const pointers = problems().map((p) => p.location[0]?.pointer);
      expect(pointers, summary(problems())).toContain(pointer);
    });

    it('says how to fix each problem', () => {
      for (const problem of problems()) {
        expect(problem.message).toMatch(/\b(add|use|replace|remove|take it|must)\b/i);
      }
    });
  });
});

describe('PHI word matching', () => {
  it.each([
    'limit',
    'starting_after',
    'ending_before',
    'created',
    'created[gt]',
    'id',
    'patient',
    'status',
    'active',
    'practitioner',
    'Idempotency-Key',
  ])('%s is not PHI', (name) => {
    expect(phiWord(name)).toBeUndefined();
  });

  it.each([
    ['name', 'name'],
    ['family_name', 'family'],
    ['givenName', 'given'],
    ['birth_date', 'birth'],
    ['birthdate', 'birthdate'],
    ['dob', 'dob'],
    ['email', 'email'],
    ['Phone-Number', 'phone'],
    ['identifier[value]', 'identifier'],
    ['MRN', 'mrn'],
    ['ssn', 'ssn'],
    ['address', 'address'],
    ['postal_code', 'postal'],
    ['zipcode', 'zipcode'],
    ['lastname', 'lastname'],
  ])('%s is PHI (word %s)', (name, word) => {
    expect(phiWord(name)).toBe(word);
  });
});

// THE REAL SPEC. This is expected to fail while spec/openapi.yaml is still being written;
// it must pass before the spec is done. Run `npm run lint:spec` for the readable report.
describe('spec/openapi.yaml (the real spec)', () => {
  it('lints clean: zero errors and zero warnings', () => {
    const run = lintFiles(['spec/openapi.yaml']);
    const problems = run.problemsByFile.get('spec/openapi.yaml');
    expect(problems, `Redocly did not lint the spec:\n${run.stderr}`).toBeDefined();
    expect(summary(problems ?? [])).toBe('');
    expect(run.status).toBe(0);
  });
});
