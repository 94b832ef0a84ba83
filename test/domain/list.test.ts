import { describe, expect, it } from 'vitest';
import { listEnvelope, listEnvelopeText } from '../../server/domain/list.js';

// Documents as the repositories store them: JSON.stringify of the built object.
const docs = [
  { id: 'pat_01KAB00000000000000000000A', object: 'patient', name: { given: ['Ada'] }, n: 1.5 },
  { id: 'pat_01KAB00000000000000000000B', object: 'patient', note: 'quote " and \\ and \u2028' },
];
const stored = docs.map((d) => ({ id: d.id, json: JSON.stringify(d) }));

describe('listEnvelopeText', () => {
  it.each([
    ['two documents, more to come', stored, true],
    ['one document, last page', stored.slice(0, 1), false],
    ['an empty page', [], false],
  ])('is the text JSON.stringify makes of listEnvelope: %s', (_name, data, hasMore) => {
    const text = listEnvelopeText('/v1/patients', { data, hasMore });
    const parsed = { data: data.map((d) => JSON.parse(d.json) as unknown), hasMore };
    expect(text).toBe(JSON.stringify(listEnvelope('/v1/patients', parsed)));
  });
});
