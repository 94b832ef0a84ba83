/** What each bad fixture must produce: its rule, and what the messages and locations name. */
export interface BadFixtureCase {
  file: string;
  ruleId: string;
  /** Each string must appear in some problem's message. */
  messageMentions: string[];
  /** Each JSON pointer must be the location of some problem. */
  pointers: string[];
}

const dir = 'test/fixtures/lint';

export const validFixture = `${dir}/valid.yaml`;

export const badFixtures: BadFixtureCase[] = [
  {
    file: `${dir}/bad-operation-scopes.yaml`,
    ruleId: 'patient-care/operation-scopes',
    messageMentions: [
      'GET /v1/patients (listPatients)',
      '"patients:browse"',
      'GET /v1/patients/{id} (retrievePatient) does not declare x-key-kinds',
      'POST /v1/tokens (createToken) has empty x-scopes',
    ],
    pointers: [
      '#/paths/~1v1~1patients/get/x-scopes',
      '#/paths/~1v1~1patients~1{id}/get',
      '#/paths/~1v1~1tokens/post/x-key-kinds',
    ],
  },
  {
    file: `${dir}/bad-operation-error-responses.yaml`,
    ruleId: 'patient-care/operation-error-responses',
    messageMentions: [
      'GET /v1/patients (listPatients) does not document error response(s) 429',
      'POST /v1/patients (createPatient) does not document error response(s) 409',
      'components.responses.Forbidden',
      "$ref: '#/components/schemas/Error'",
    ],
    pointers: [
      '#/paths/~1v1~1patients/get/responses',
      '#/paths/~1v1~1patients/post/responses',
      '#/components/responses/Forbidden/content/application~1json/schema',
    ],
  },
  {
    file: `${dir}/bad-examples-present.yaml`,
    ruleId: 'patient-care/examples-present',
    messageMentions: [
      'components.schemas.Token has no example',
      'request body of POST /v1/patients (createPatient)',
      '200 response of GET /v1/patients/{id} (retrievePatient)',
    ],
    pointers: [
      '#/components/schemas/Token',
      '#/paths/~1v1~1patients/post/requestBody/content/application~1json',
      '#/paths/~1v1~1patients~1{id}/get/responses/200/content/application~1json',
    ],
  },
  {
    file: `${dir}/bad-no-phi-in-url.yaml`,
    ruleId: 'patient-care/no-phi-in-url',
    messageMentions: [
      'Query parameter "family_name" of GET /v1/patients (listPatients)',
      'Query parameter "birthDate"',
      'Query parameter "filter[email]"',
      'Path parameter "mrn" of GET /v1/patients/{mrn} (retrievePatient)',
      'Parameter "given" of GET /v1/patients (listPatients) is marked x-fhir-search-phi, which only a query parameter of a /fhir/R4 operation may be',
    ],
    pointers: [
      '#/paths/~1v1~1patients/get/parameters/3/name',
      '#/paths/~1v1~1patients/get/parameters/4/name',
      '#/paths/~1v1~1patients/get/parameters/5/x-fhir-search-phi',
      '#/components/parameters/PatientId/name',
    ],
  },
  {
    file: `${dir}/bad-post-idempotency-key.yaml`,
    ruleId: 'patient-care/post-idempotency-key',
    messageMentions: ['POST /v1/tokens (createToken) does not accept the Idempotency-Key header'],
    pointers: ['#/paths/~1v1~1tokens/post'],
  },
  {
    file: `${dir}/bad-operation-actor-header.yaml`,
    ruleId: 'patient-care/operation-actor-header',
    messageMentions: [
      'POST /v1/tokens (createToken) does not accept the PatientCare-Actor header',
      'components.parameters.Actor',
      'never PHI',
    ],
    pointers: ['#/paths/~1v1~1tokens/post/parameters', '#/components/parameters/Actor'],
  },
  {
    file: `${dir}/bad-post-idempotency-key-length.yaml`,
    ruleId: 'patient-care/post-idempotency-key',
    messageMentions: ['components.parameters.IdempotencyKey', 'maxLength: 255'],
    pointers: ['#/components/parameters/IdempotencyKey'],
  },
  {
    file: `${dir}/bad-response-request-id.yaml`,
    ruleId: 'patient-care/response-request-id',
    messageMentions: [
      'The 200 response of GET /v1/patients/{id} (retrievePatient) does not declare the Request-Id header',
      'components.responses.InternalError',
    ],
    pointers: [
      '#/paths/~1v1~1patients~1{id}/get/responses/200',
      '#/components/responses/InternalError',
    ],
  },
];
