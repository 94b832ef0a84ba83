import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffSpecs } from '../../../tooling/breaking/diff-specs.js';
import type { OpenApiDocument } from '../../../tooling/breaking/types.js';
import { runBreakingCheck } from '../../../tooling/spec-gate/breaking-step.js';
import { mentionFiles, mentionsIn } from '../../../tooling/spec-gate/current-version.js';
import { worktreeReader } from '../../../tooling/spec-gate/git-base.js';
import { loadSpec } from '../../../tooling/spec-gate/load-spec.js';
import { api, body, obj, ok } from '../breaking/helpers.js';

const root = new URL('../../../', import.meta.url).pathname;
const spec = async () =>
  (await loadSpec('spec/openapi.yaml', { root, read: worktreeReader(root) })).document;

type Obj = Record<string, unknown>;
const at = (node: unknown, ...keys: string[]) =>
  keys.reduce<Obj>((n, k) => (n as Obj)[k] as Obj, node as Obj);

describe('the breaking-change report names every operation a shared component reaches', () => {
  it('components/parameters/Limit max 100 → 50 lists the seven list operations that use it', async () => {
    const head = await spec();
    at(head, 'components', 'parameters', 'Limit', 'schema').maximum = 50;
    const changes = diffSpecs(await spec(), head).filter((c) => c.breaking);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ pointer: '/components/parameters/Limit/schema' });
    expect(changes[0]?.operations).toEqual([
      'GET /v1/patients',
      'GET /v1/appointments',
      'GET /v1/practitioners',
      'GET /v1/claims',
      'GET /v1/webhooks',
      'GET /v1/webhooks/{id}/deliveries',
      'GET /v1/events',
    ]);
  });

  it('follows nesting: a change inside B reaches operations using B and those using A ∋ B', () => {
    const B = obj({ code: { type: 'string' } }, ['code']);
    const A = obj({ b: { $ref: '#/components/schemas/B' } });
    const ops = (schemas: Obj): OpenApiDocument => {
      const doc = api(ok({ $ref: '#/components/schemas/A' }), schemas);
      const paths = doc.paths as Obj;
      paths['/v1/things'] = {
        get: { operationId: 'listThings', ...ok({ $ref: '#/components/schemas/B' }) },
        put: { operationId: 'putThing', ...ok({ $ref: '#/components/schemas/A' }) },
      };
      paths['/v1/other'] = { post: { operationId: 'other', ...body({ type: 'string' }) } };
      return doc;
    };
    const headB = obj({ code: { type: 'string' } }, []);
    const changes = diffSpecs(ops({ A, B }), ops({ A, B: headB }));
    const change = changes.find((c) => c.kind === 'property-optional');
    expect(change?.pointer).toBe('/components/schemas/B/properties/code');
    expect(change?.operations).toEqual(['POST /v1/patients', 'GET /v1/things', 'PUT /v1/things']);
  });

  it('a shared parameter changed outside its schema is reported once with every operation', () => {
    const limit = { name: 'limit', in: 'query', schema: { type: 'integer' } };
    const doc = (required: boolean): OpenApiDocument => {
      const d = api({ parameters: [{ $ref: '#/components/parameters/Limit' }] });
      (d.paths as Obj)['/v1/things'] = {
        get: { parameters: [{ $ref: '#/components/parameters/Limit' }], responses: {} },
      };
      (d.components as Obj).parameters = { Limit: { ...limit, required } };
      return d;
    };
    const changes = diffSpecs(doc(false), doc(true)).filter((c) => c.breaking);
    expect(changes.map((c) => [c.kind, c.operations])).toEqual([
      ['parameter-required', ['POST /v1/patients', 'GET /v1/things']],
    ]);
  });

  it('prints every operation in the gate report and accepts any of them in the changelog', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spec-gate-reach-'));
    try {
      cpSync(join(root, 'spec'), join(dir, 'spec'), { recursive: true });
      // The version-change rule has its own tests (test/versions/gate.test.ts); this one is
      // about the report, so the copy has no modules and the plain changelog rule applies.
      rmSync(join(dir, 'spec/versions'), { recursive: true, force: true });
      const text = readFileSync(join(root, 'spec/openapi.yaml'), 'utf8');
      const limited = text.replace(/(\n {4}Limit:\n(?: {6}.*\n)*? {8}maximum: )100/, '$150');
      expect(limited).not.toBe(text);
      writeFileSync(join(dir, 'spec/openapi.yaml'), limited);
      const check = () =>
        runBreakingCheck({
          root: dir,
          spec: 'spec/openapi.yaml',
          changelog: 'spec/CHANGELOG.md',
          baseFile: join(root, 'spec/openapi.yaml'),
        });
      const failed = await check();
      expect(failed.status).toBe('fail');
      const line = failed.details.find((d) => d.startsWith('BREAKING'));
      expect(line).toMatch(
        /^BREAKING \S+ \/components\/parameters\/Limit\/schema \(7 operations: GET \/v1\/patients, GET \/v1\/appointments, GET \/v1\/practitioners, GET \/v1\/claims, GET \/v1\/webhooks, GET \/v1\/webhooks\/\{id\}\/deliveries, GET \/v1\/events\): /,
      );
      writeFileSync(
        join(dir, 'spec/openapi.yaml'),
        limited.replace(/(\n {2}version: )'?[\d-]+'?/, "$1'2099-01-01'"),
      );
      writeFileSync(
        join(dir, 'spec/CHANGELOG.md'),
        '## 2099-01-01\n\n- `GET /v1/events` returns at most 50 objects per page.\n',
      );
      // The prose naming the current version follows info.version (the gate checks it).
      for (const file of mentionFiles(dir)) {
        const path = join(dir, file);
        let prose = readFileSync(path, 'utf8');
        for (const mention of mentionsIn(prose)) {
          prose = prose.replace(mention.text, mention.text.replace(mention.date, '2099-01-01'));
        }
        writeFileSync(path, prose);
      }
      expect(await check()).toMatchObject({ status: 'pass' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
