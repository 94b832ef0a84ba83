/**
 * The fuzzer's own parts, without a service: the schema converter makes values the spec's
 * schemas accept, the mutator makes values they refuse (and the kinds of fault it promises),
 * the Prism log parser ties violations to requests, and the verdict rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { componentSchemas, routes } from '../../generated/versions/2026-11-01/routes.js';
import type { FuzzCase } from '../../tooling/fuzz/case-types.js';
import { acceptableForValid, checkAnswer } from '../../tooling/fuzz/checks.js';
import { luhnDigit } from '../../tooling/fuzz/luhn.js';
import { parsePrismLog } from '../../tooling/fuzz/prism.js';
import { serializeQuery } from '../../tooling/fuzz/request-parts.js';
import type { ResponseChecker } from '../../tooling/fuzz/response-checker.js';
import { arbitraryFor } from '../../tooling/fuzz/schema-arbitrary.js';
import { brokenArbitrary } from '../../tooling/fuzz/schema-mutations.js';
import { SchemaRegistry } from '../../tooling/fuzz/schema-registry.js';

const registry = new SchemaRegistry(Object.values(componentSchemas));
const bodyRoutes = routes.filter((r) => r.schemas.body !== undefined);

describe('schema → arbitrary', () => {
  it.each(bodyRoutes.map((r) => [r.operationId, r] as const))(
    'mostly makes bodies the %s schema accepts',
    (_id, route) => {
      const schema = route.schemas.body!;
      const values = fc.sample(arbitraryFor(schema, registry), { seed: 7, numRuns: 40 });
      const valid = values.filter((v) => registry.valid(schema, v)).length;
      // The run filters the rest (a value matching two oneOf branches, pattern + maxLength).
      expect(valid / values.length).toBeGreaterThan(0.6);
    },
  );

  it('honours bounds, enums and formats of a hand-written schema', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 3, maximum: 5 },
        e: { type: 'string', enum: ['a', 'b'] },
        d: { type: 'string', format: 'date' },
        s: { type: 'string', maxLength: 2 },
      },
      required: ['n', 'e', 'd', 's'],
      additionalProperties: false,
    };
    for (const v of fc.sample(arbitraryFor(schema, registry), { seed: 1, numRuns: 100 })) {
      expect(registry.valid(schema, v), JSON.stringify(v)).toBe(true);
    }
  });
});

describe('the oracle', () => {
  it('refuses an int64 beyond ±(2^53 − 1) and an int32 beyond its range, as the server does', () => {
    const schema = { type: 'integer', format: 'int64' } as const;
    expect(registry.valid(schema, 2 ** 53 - 1)).toBe(true);
    expect(registry.valid(schema, 2 ** 53 + 2)).toBe(false);
    expect(registry.valid({ type: 'integer', format: 'int32' }, 2 ** 31)).toBe(false);
  });
});

describe('broken values', () => {
  const route = routes.find((r) => r.operationId === 'createPatient')!;
  const schema = route.schemas.body!;
  const valid = arbitraryFor(schema, registry).filter((v) => registry.valid(schema, v));
  const broken = fc.sample(brokenArbitrary(schema, valid, registry), { seed: 3, numRuns: 300 });

  it('are all refused by the schema', () => {
    for (const b of broken) expect(registry.valid(schema, b.value), b.why).toBe(false);
  });

  it('cover each kind of fault', () => {
    const whys = broken.map((b) => b.why).join('\n');
    for (const kind of [
      'missing required',
      'unknown field',
      'wrong type',
      'longer than maxLength',
      'outside the enum',
      'not a valid date',
      'huge string',
      'maxItems + 1',
    ]) {
      expect(whys).toContain(kind);
    }
  });
});

describe('Prism log', () => {
  it('ties each violation to the request it follows, by side', () => {
    const log = [
      '{"level":"info","name":"CLI","msg":"Prism is listening"}',
      '{"level":"info","name":"HTTP SERVER","input":{"method":"post","url":{"path":"/v1/patients"}},"msg":"Request received"}',
      '{"level":"error","name":"VALIDATOR","msg":"Violation: request.body Request body must have required property \'name\'"}',
      '{"level":"info","name":"HTTP SERVER","input":{"method":"get","url":{"path":"/v1/claims"}},"msg":"Request received"}',
      '{"level":"error","name":"VALIDATOR","msg":"Violation: response.body Response body must NOT have additional properties"}',
      '{"level":"info","name":"HTTP SER',
    ].join('\n');
    expect(parsePrismLog(log)).toEqual([
      {
        method: 'post',
        path: '/v1/patients',
        violations: [
          {
            side: 'request',
            message: "request.body Request body must have required property 'name'",
          },
        ],
      },
      {
        method: 'get',
        path: '/v1/claims',
        violations: [
          {
            side: 'response',
            message: 'response.body Response body must NOT have additional properties',
          },
        ],
      },
    ]);
  });
});

describe('verdicts', () => {
  const base: FuzzCase = {
    operationId: 'retrievePatient',
    valid: true,
    why: 'valid',
    method: 'GET',
    path: '/v1/patients/pat_x',
    query: '',
    headers: {},
    key: 'secret',
    unknownReference: false,
    bypassPrism: false,
  };
  const passing = { check: () => {} } as unknown as ResponseChecker;
  const answer = (status: number, code?: string) => ({
    status,
    headers: {},
    text: '',
    body: code === undefined ? {} : { error: { code } },
  });

  it('refuses invalid input accepted, valid input rejected, and any 5xx', () => {
    expect(checkAnswer(passing, { ...base, valid: false, why: 'x' }, '/', answer(200))).toEqual([
      'invalid input accepted (x)',
    ]);
    expect(checkAnswer(passing, base, '/', answer(400, 'parameter_invalid'))).toEqual([
      'valid input rejected: 400 parameter_invalid',
    ]);
    expect(checkAnswer(passing, { ...base, valid: false }, '/', answer(500))).toEqual([
      'server error 500',
    ]);
    expect(checkAnswer(passing, base, '/', answer(200))).toEqual([]);
  });

  it('accepts 404 for valid input only when the case named an unknown object', () => {
    expect(acceptableForValid(base, 404, 'resource_missing')).toBe(false);
    expect(acceptableForValid({ ...base, unknownReference: true }, 404, 'resource_missing')).toBe(
      true,
    );
    const token = { ...base, operationId: 'createPatient', unknownReference: true };
    expect(acceptableForValid(token, 400, 'token_invalid')).toBe(true);
    expect(acceptableForValid(token, 400, 'parameter_invalid')).toBe(false);
  });

  it('reports a failing response check', () => {
    const failing = {
      check: () => {
        throw new Error('Response does not match the spec (x): body invalid\n{}');
      },
    } as unknown as ResponseChecker;
    expect(checkAnswer(failing, base, '/', answer(200))).toEqual([
      'Response does not match the spec (x): body invalid',
    ]);
  });
});

describe('helpers', () => {
  it('computes the NPI Luhn digit over 80840 + nine digits', () => {
    expect(luhnDigit('80840123456789')).toBe(3);
  });

  it('serialises deepObject and repeated query parameters', () => {
    expect(serializeQuery({ limit: ['1', '2'], created: { gt: '5' }, q: 'a b' })).toBe(
      'limit=1&limit=2&created[gt]=5&q=a%20b',
    );
  });
});
