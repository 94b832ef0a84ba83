/**
 * Type tests for the generated handler map: wrong statuses, bodies, parameters and missing
 * handlers must not compile; readOnly/writeOnly and `format: date` come out as the spec says.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { HandlerMap } from '../../contract/route-types.js';
import type { OperationTypes } from '../../generated/routes.js';
import type { AppHandler } from '../../server/handlers/types.js';
import type { HandlerContext } from '../../server/http/context.js';

type Patient = OperationTypes['retrievePatient']['responses'][200];
type NewPatient = Extract<OperationTypes['createPatient']['body'], { name: unknown }>;

describe('generated OperationTypes', () => {
  it('types the path parameters, and only the spec’s', () => {
    expectTypeOf<OperationTypes['retrievePatient']['params']>().toEqualTypeOf<{ id: string }>();
    const handler: AppHandler<'retrievePatient'> = async (request) => {
      // @ts-expect-error retrievePatient has no `patientId` path parameter
      request.params.patientId;
      return { status: 404, body: notFound };
    };
    expectTypeOf(handler).toBeFunction();
  });

  it('leaves readOnly fields out of request bodies and keeps them in responses', () => {
    expectTypeOf<Patient>().toHaveProperty('id');
    expectTypeOf<Patient['id']>().toEqualTypeOf<string>();
    expectTypeOf<NewPatient>().not.toHaveProperty('id');
    expectTypeOf<NewPatient>().not.toHaveProperty('created');
  });

  it('keeps format: date a string', () => {
    expectTypeOf<Patient['birth_date']>().toEqualTypeOf<string | null>();
  });

  it('lower-cases header names as Node delivers them', () => {
    expectTypeOf<OperationTypes['createPatient']['headers']>().toHaveProperty('idempotency-key');
  });
});

const notFound = {
  error: {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: 'No such patient.',
    param: 'id',
    doc_url: 'http://127.0.0.1:4010/docs/errors#resource_missing',
    request_id: 'req_01JD0000000000000000000000',
  },
} as const;

describe('handlers', () => {
  it('reject a status the operation does not list', () => {
    // @ts-expect-error 418 is not a status of retrievePatient
    const wrong: AppHandler<'retrievePatient'> = async () => ({ status: 418, body: notFound });
    expectTypeOf(wrong).toBeFunction();
  });

  it('reject a body that does not match its status', () => {
    // @ts-expect-error a 404 must carry the error envelope, not a patient-shaped object
    const wrong: AppHandler<'retrievePatient'> = async () => ({ status: 404, body: { id: 1 } });
    expectTypeOf(wrong).toBeFunction();
  });

  it('accept the 501 stub reply for any operation', () => {
    const stub: AppHandler<'listPatients'> = async () => ({
      status: 501,
      body: {
        error: {
          type: 'api_error',
          code: 'not_implemented',
          message: 'Not implemented.',
          param: null,
          doc_url: 'http://127.0.0.1:4010/docs/errors#not_implemented',
          request_id: null,
        },
      },
    });
    expectTypeOf(stub).toBeFunction();
  });

  it('a handler map missing an operation does not compile', () => {
    const { retrievePatient: _dropped, ...rest } = {} as HandlerMap<OperationTypes, HandlerContext>;
    // @ts-expect-error retrievePatient is missing
    const map: HandlerMap<OperationTypes, HandlerContext> = rest;
    expectTypeOf(map).toBeObject();
  });
});
