/**
 * The gate compares a base revision whatever its shape: it reads both documents through the
 * model's path-item reader, tolerant (`readPathItem` with `strict: false`), which skips what is
 * not an object where the strict reading (`listOperations`) refuses it.
 */
import { describe, expect, it } from 'vitest';
import { diffSpecs } from '../../../tooling/breaking/diff-specs.js';
import type { OpenApiDocument } from '../../../tooling/breaking/types.js';
import { listOperations } from '../../../tooling/openapi/operations.js';
import { api, body, obj, ok, summarize } from './helpers.js';

const P = '/paths/~1v1~1patients';
const str = { type: 'string' };

/** `api()` with `/v1/patients` replaced by `item`. */
const withItem = (item: unknown): OpenApiDocument =>
  ({ ...api(), paths: { '/v1/patients': item } }) as never;

describe('a malformed base revision is compared, not refused', () => {
  it('a null operation counts as absent: the head operation is added', () => {
    const base = withItem({ post: null });
    expect(() => listOperations(base)).toThrow('An Operation must be an object.');
    expect(summarize(diffSpecs(base, api()))).toEqual([`operation-added ok ${P}/post`]);
    expect(summarize(diffSpecs(api(), base))).toEqual([`operation-removed BREAKING ${P}/post`]);
  });

  it('a Path Item that is not an object has no operations', () => {
    for (const item of ['see the guide', 42, null, [api().paths['/v1/patients']]]) {
      const base = withItem(item);
      expect(() => listOperations(base)).toThrow('A Path Item must be an object.');
      expect(summarize(diffSpecs(base, api()))).toEqual([`operation-added ok ${P}/post`]);
    }
  });

  it('a webhook whose operation is not an object is skipped, the others compared', () => {
    const hooks = (post: unknown, put: unknown) =>
      api({}, {}, { 'x-webhooks': { 'patient.created': { post, put } } });
    const payload = (props: Record<string, unknown>) => body(obj(props)).requestBody;
    const base = hooks({ requestBody: payload({ id: str, type: str }) }, 'broken');
    const head = hooks({ requestBody: payload({ id: str }) }, { requestBody: payload({}) });
    expect(summarize(diffSpecs(base, head))).toEqual([
      'property-removed BREAKING /x-webhooks/patient.created/post/requestBody/content/application~1json/schema/properties/type',
    ]);
  });

  it("reports a Path Item's operations in method order, pairing by method", () => {
    const op = (operationId: string, extra: Record<string, unknown> = {}) => ({
      operationId,
      responses: {},
      ...extra,
    });
    const base = withItem({ delete: op('remove'), get: op('read', ok(obj({ id: str }))) });
    const head = withItem({ post: op('create'), get: op('read', ok(obj({}))) });
    expect(diffSpecs(base, head).map((c) => `${c.kind} ${c.operation}`)).toEqual([
      'property-removed GET /v1/patients',
      'operation-added POST /v1/patients',
      'operation-removed DELETE /v1/patients',
    ]);
  });
});
