/** Parameter identity in the model (§4.7.9, §4.7.12): name and location, header names case-insensitive. */
import { describe, expect, it } from 'vitest';
import { listOperations } from '../../../tooling/openapi/operations.js';
import { parameterKey } from '../../../tooling/openapi/path-items.js';

describe('parameterKey', () => {
  it.each([
    ['header', 'Idempotency-Key', 'header:idempotency-key'],
    ['query', 'Limit', 'query:Limit'],
    ['path', 'id', 'path:id'],
  ])('%s %s → %s', (location, name, want) => expect(parameterKey(location, name)).toBe(want));
});

describe('merging path-level and operation-level parameters', () => {
  const operation = (path: object[], own: object[]) =>
    listOperations({
      paths: { '/a': { parameters: path, get: { parameters: own, responses: {} } } },
    })[0]?.parameters.map((p) => `${p.in} ${p.name} ${p.required}`);

  it('an operation header overrides the path header whatever its case', () => {
    expect(
      operation(
        [{ name: 'X-Trace', in: 'header', required: false }],
        [{ name: 'x-trace', in: 'header', required: true }],
      ),
    ).toEqual(['header x-trace true']);
  });

  it('query names stay case-sensitive', () => {
    expect(operation([{ name: 'Limit', in: 'query' }], [{ name: 'limit', in: 'query' }])).toEqual([
      'query Limit false',
      'query limit false',
    ]);
  });
});
