/**
 * The per-version artifacts: `generated/versions/2026-11-01/` is what `npm run generate --
 * --version 2026-11-01` makes today (drift), its types keep unix seconds where the latest has
 * date-times, and its client pins and sends 2026-11-01.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { components as Latest } from '../../generated/types.js';
import { apiVersion, createPatientCareClient } from '../../generated/versions/2026-11-01/client.js';
import type { components as Old } from '../../generated/versions/2026-11-01/types.js';
import { generate } from '../../generators/index.js';
import { deriveDocument, versions } from '../../server/versioning/index.js';
import { lintConfig, loadDocument } from '../../tooling/openapi/load.js';

describe('generated/versions/2026-11-01', () => {
  it('is what npm run generate -- --version 2026-11-01 writes today', async () => {
    const loaded = await loadDocument('spec/openapi.yaml', await lintConfig(null));
    const document = deriveDocument(loaded.bundled, versions, '2026-11-01');
    const { files } = generate(document, {
      outDir: 'generated/versions/2026-11-01',
      remakeCommand: 'npm run generate -- --version 2026-11-01',
    });
    expect([...files.keys()].sort()).toEqual([
      'generated/versions/2026-11-01/client.ts',
      'generated/versions/2026-11-01/routes.ts',
      'generated/versions/2026-11-01/types.ts',
    ]);
    for (const [path, text] of files) expect(readFileSync(path, 'utf8'), path).toBe(text);
  });

  it('types appointment times as seconds there and as date-times in the latest', () => {
    expectTypeOf<Old['schemas']['Appointment']['start']>().toEqualTypeOf<number | null>();
    expectTypeOf<Latest['schemas']['Appointment']['start']>().toEqualTypeOf<string | null>();
    expectTypeOf<
      NonNullable<Old['schemas']['AppointmentCreateParams']['end']>
    >().toEqualTypeOf<number>();
    expectTypeOf<Old['schemas']['ApiVersion']>().toEqualTypeOf<'2026-11-01'>();
  });

  it('its client pins 2026-11-01 and sends it on every request', async () => {
    expect(apiVersion).toBe('2026-11-01');
    const sent: (string | null)[] = [];
    const client = createPatientCareClient({
      apiKey: 'sk_test_x',
      baseUrl: 'http://127.0.0.1:9',
      fetch: async (request: Request) => {
        sent.push(request.headers.get('PatientCare-Version'));
        return new Response(
          '{"object":"list","url":"/v1/appointments","has_more":false,"data":[]}',
          {
            status: 200,
            headers: { 'content-type': 'application/json' },
          },
        );
      },
    });
    await client.listAppointments({});
    expect(sent).toEqual(['2026-11-01']);
  });
});
