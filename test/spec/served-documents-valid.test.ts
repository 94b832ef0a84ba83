/**
 * Every OpenAPI document the service serves is a valid OpenAPI 3.0 document as two validators
 * nobody here wrote judge it, each on the official OpenAPI 3.0 JSON Schema:
 * `@seriousme/openapi-schema-validator` (Ajv on the schema, plus `$ref` resolution) and
 * `@apidevtools/swagger-parser` (its own copy of the schema, plus rules of the specification's
 * prose such as path parameters being declared). The latest (`/openapi.json`, `.yaml`), each
 * supported dated version (`?version=`), and the explorer's reshaped copy.
 *
 * Both are called directly, not through tooling/openapi/validate-document.ts, so a mistake in
 * how our check reads their results cannot hide an invalid document here.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { versions } from '../../server/versioning/index.js';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import { buildTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
// One compiled schema for every document (compiling it is most of a validation's cost).
const seriousme = new Validator({ allErrors: true });
beforeAll(async () => {
  t = await buildTestApp({ docs: { load: () => prepareDocs('spec/openapi.yaml') } });
});
afterAll(async () => t.close());

const served = [
  '/openapi.json',
  '/openapi.yaml',
  ...versions.supported.flatMap((date) => [
    `/openapi.json?version=${date}`,
    `/openapi.yaml?version=${date}`,
  ]),
  '/docs/explorer/openapi.json',
];

async function fetchDocument(url: string): Promise<Record<string, unknown>> {
  const res = await t.app.inject({ method: 'GET', url });
  expect(res.statusCode, url).toBe(200);
  return parse(res.body) as Record<string, unknown>;
}

describe('every served OpenAPI document is valid OpenAPI 3.0', () => {
  it('covers the latest, every supported version and the explorer', () => {
    expect(versions.supported.length).toBeGreaterThanOrEqual(2);
    expect(served).toContain(`/openapi.json?version=${versions.latest}`);
  });

  it.each(served)('%s: @seriousme/openapi-schema-validator', async (url) => {
    const document = await fetchDocument(url);
    expect(String(document.openapi)).toMatch(/^3\.0\.\d+$/);
    const result = await seriousme.validate(document);
    expect(result.errors, url).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it.each(served)('%s: @apidevtools/swagger-parser', async (url) => {
    const document = await fetchDocument(url);
    // It dereferences the object it is given; the copy keeps nothing shared with the service.
    const checked = await SwaggerParser.validate(structuredClone(document) as never);
    expect((checked as { openapi?: string }).openapi).toBe(document.openapi);
  });

  it('both validators do refuse required: [] (the mistake this test guards against)', async () => {
    const document = await fetchDocument('/openapi.json');
    const schemas = (document.components as { schemas: Record<string, Record<string, unknown>> })
      .schemas;
    const name = Object.keys(schemas).find((key) => schemas[key]?.type === 'object');
    expect(name).toBeDefined();
    schemas[name!]!.required = [];
    const result = await seriousme.validate(document);
    expect(result.valid).toBe(false);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).rejects.toThrow(
      new RegExp(`${name}/required must NOT have fewer than 1 items`),
    );
  });
});
