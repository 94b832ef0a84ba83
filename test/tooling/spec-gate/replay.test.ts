import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { versions } from '../../../server/versioning/index.js';
import { versionChanges } from '../../../spec/versions/index.js';
import { worktreeReader } from '../../../tooling/spec-gate/git-base.js';
import { loadSpec } from '../../../tooling/spec-gate/load-spec.js';
import { exampleRequests } from '../../../tooling/spec-gate/replay-requests.js';
import { replayProblem, runReplayCheck } from '../../../tooling/spec-gate/replay-step.js';
import { parseSteps } from '../../../tooling/spec-gate/run-spec-check.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const spec = 'spec/openapi.yaml';

// biome-ignore lint/suspicious/noExplicitAny: a bundled document edited in place by the fixtures.
type Node = Record<string, any>;

// The loader imports spec/versions/index.ts with a `?mtime=` query, which vitest's transform
// takes for JavaScript; the list is filled here from the same modules instead.
vi.mock('../../../tooling/openapi/version-list.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../tooling/openapi/version-list.js')>();
  return {
    ...real,
    withVersionLists: async (document: unknown) => {
      real.applyVersionLists(document, [...versions.supported].sort());
    },
  };
});

async function head(): Promise<Node> {
  return (await loadSpec(spec, { root, read: worktreeReader(root) })).document as Node;
}

describe('spec:check replay', () => {
  it('is a step of the gate, runnable alone', () => {
    expect(parseSteps('replay')).toEqual(['replay']);
  });

  it("accepts every older version's example requests on today's spec", async () => {
    const outcome = await runReplayCheck({ root, spec });
    expect(outcome.details).toEqual([]);
    expect(outcome.status).toBe('pass');
    expect(outcome.summary).toMatch(/^\d+ example request\(s\) of 2026-11-01 replayed/);
  }, 60_000);

  it('fails, naming the operation, when the latest narrows a request constraint without a version edit', async () => {
    const document = await head();
    // A body bound: the 2026-11-01 example searches for "riv".
    document.components.schemas.PatientSearchParams.properties.family_name.minLength = 4;
    // A query parameter: the example lists claims with status=paid.
    const status = (document.paths['/v1/claims'].get.parameters as Node[]).find(
      (p) => p.name === 'status',
    );
    if (status === undefined) throw new Error('listClaims has no status parameter');
    status.schema = { type: 'string', enum: ['submitted'] };
    const outcome = await runReplayCheck({ root, spec, document });
    expect(outcome.status).toBe('fail');
    const lines = outcome.details.join('\n');
    expect(lines).toMatch(/^replay FAIL 2026-11-01 searchPatients: 400 parameter_invalid /m);
    expect(lines).toMatch(
      /^replay FAIL 2026-11-01 listClaims: 400 parameter_invalid .*status=paid/m,
    );
    // Only the two narrowed operations are refused.
    expect(new Set(outcome.details.map((l) => l.split(' ')[3]))).toEqual(
      new Set(['searchPatients:', 'listClaims:']),
    );
  }, 60_000);

  it("passes the same narrowing once the newer version's module restores the old bound", async () => {
    const document = await head();
    document.components.schemas.PatientSearchParams.properties.family_name.minLength = 4;
    const modules = versionChanges.map((change) =>
      change.date === versions.latest
        ? {
            ...change,
            document: [
              ...change.document,
              { schema: 'PatientSearchParams', at: '/properties/family_name/minLength', was: 1 },
            ],
          }
        : change,
    );
    const outcome = await runReplayCheck({ root, spec, document, versionChanges: modules });
    expect(outcome.details).toEqual([]);
    expect(outcome.status).toBe('pass');
  }, 60_000);

  it('makes requests from parameter and body examples, the version header left to the replay', async () => {
    const requests = exampleRequests(await head());
    const search = requests.find((r) => r.operationId === 'searchPatients');
    expect(search?.body).toMatchObject({ family_name: 'riv' });
    expect(requests.some((r) => r.url === '/v1/claims?status=paid')).toBe(true);
    expect(requests.every((r) => !('patientcare-version' in r.headers))).toBe(true);
  });

  it('judges answers: validation refusals, unreached validation and 5xx fail; a missing object passes', () => {
    expect(replayProblem(404, 'resource_missing')).toBe(false);
    expect(replayProblem(400, 'idempotency_key_reused')).toBe(false);
    expect(replayProblem(400, 'parameter_unknown')).toBe(true);
    expect(replayProblem(400, 'body_invalid_json')).toBe(true);
    expect(replayProblem(401, 'api_key_missing')).toBe(true);
    expect(replayProblem(500, undefined)).toBe(true);
  });
});
