/** Pagination as the operation model reads it (tooling/openapi/pagination.ts), on our spec. */
import { describe, expect, it } from 'vitest';
import { listOperations } from '../../../tooling/openapi/operations.js';
import { loadSpec } from '../../spec/load-spec.js';

const operations = listOperations(loadSpec());
const byId = new Map(operations.map((op) => [op.operationId, op]));

describe('pagination in the operation model', () => {
  it.each([
    ['listPatients', { cursor: { in: 'query', name: 'starting_after' } }],
    ['listAppointments', { cursor: { in: 'query', name: 'starting_after' } }],
    ['listEvents', { cursor: { in: 'query', name: 'starting_after' } }],
    ['searchPatients', { cursor: { in: 'body', name: 'starting_after' } }],
    ['retrievePatient', null],
    ['createPatient', null],
  ])('%s: %j', (operationId, want) => {
    expect(byId.get(operationId)?.pagination).toEqual(want);
  });

  it('the lists are the list… operations and the patient search', () => {
    const lists = operations.filter((op) => op.pagination !== null).map((op) => op.operationId);
    const named = operations
      .map((op) => op.operationId)
      .filter((id) => id.startsWith('list') || id === 'searchPatients');
    expect(lists.sort()).toEqual(named.sort());
  });
});
