/**
 * Spectral's `spectral:oas` ruleset, a second linter by another vendor, on the bundled spec:
 * no errors. It judges what Redocly and the schema check do not all agree on: the document
 * against the OpenAPI 3.0 schema (`oas3-schema`) and every example against its schema
 * (`oas3-valid-media-example`, `oas3-valid-schema-example`, Spectral's own Ajv setup). Here
 * and not in `npm run lint:spec`: it costs ~9 s of CPU on our spec, too slow for every save of
 * the dev loop (docs/design.md, Toolchain).
 */
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { readDocument } from '../../tooling/openapi/load.js';

const { Document, Spectral } = spectralCore;
// 0 is Spectral's (and LSP's) "error" severity.
const ERROR = 0;

async function spectralOas(document: unknown) {
  const spectral = new Spectral();
  spectral.setRuleset(oas as RulesetDefinition);
  const text = JSON.stringify(document, null, 2);
  return spectral.run(new Document(text, spectralParsers.Json, 'spec/openapi.yaml (bundled)'));
}

describe('spectral:oas', () => {
  it('finds no error in spec/openapi.yaml, bundled', { timeout: 300_000 }, async () => {
    const { bundled } = await readDocument('spec/openapi.yaml');
    const errors = (await spectralOas(bundled)).filter((result) => result.severity === ERROR);
    expect(errors.map((e) => `${e.code} #/${e.path.join('/')}: ${e.message}`)).toEqual([]);
  });

  it('does find required: [] (oas3-schema) and examples judged against it', {
    timeout: 300_000,
  }, async () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 'T', version: '1', description: 'd', contact: { name: 'c' } },
      servers: [{ url: 'https://api.example' }],
      tags: [{ name: 'pets', description: 'p' }],
      paths: {
        '/pets': {
          get: {
            operationId: 'listPets',
            description: 'd',
            tags: ['pets'],
            responses: {
              '200': {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: { $ref: '#/components/schemas/Pet' },
                    example: { name: 'Rex' },
                  },
                },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Pet: { type: 'object', required: [], properties: { name: { type: 'string' } } },
        },
      },
    };
    const codes = (await spectralOas(document))
      .filter((result) => result.severity === ERROR)
      .map((result) => `${result.code} ${result.path.join('/')}`);
    expect(codes).toContain('oas3-schema components/schemas/Pet/required');
    expect(codes.some((code) => code.startsWith('oas3-valid-media-example'))).toBe(true);
  });
});
