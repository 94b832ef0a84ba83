/**
 * The sample spec edit of the dev loop: a new list operation, `GET /v1/referrals`, with
 * everything the house lint rules ask for. `npm run bench:dev` times the loop with it and the
 * dev-loop tests (test/dev, test/browser) make it, so both live outside `test/` (production
 * code and benches never import test helpers).
 *
 * The resource must be one the spec does not have: the sample used to be Practitioners, and
 * once the spec gained a real Practitioner resource (`GET /v1/practitioners` answering 200)
 * the "new" operation was no longer new.
 */

/** The sample resource: its tag, the noun in its texts, its path and its list operation. */
export const SAMPLE = {
  tag: 'Referrals',
  noun: 'referrals',
  path: '/v1/referrals',
  operationId: 'listReferrals',
  summary: 'List referrals',
  description: 'The referrals of the account.',
  /** The handler file the loop writes the stub into (named after the tag). */
  handlerFile: 'referrals.ts',
} as const;

/**
 * A list operation at `path` with everything the house rules ask for, shaped like the spec's
 * others: the Path Item's text, ready to go before another path of `paths`.
 */
export function listOperation(path: string, operationId: string): string {
  return `  ${path}:
    get:
      operationId: ${operationId}
      tags:
        - ${SAMPLE.tag}
      summary: ${SAMPLE.summary}
      description: ${SAMPLE.description}
      x-scopes:
        - patients:read
      x-key-kinds:
        - secret
      parameters:
        - $ref: '#/components/parameters/PatientCareVersion'
        - $ref: '#/components/parameters/PatientCareActor'
      responses:
        '200':
          description: The ${SAMPLE.noun}.
          headers:
            Request-Id:
              $ref: '#/components/headers/Request-Id'
          content:
            application/json:
              schema:
                type: object
                additionalProperties: false
                properties:
                  data:
                    type: array
                    items:
                      type: string
              example:
                data: []
        '400':
          $ref: '#/components/responses/BadRequest'
        '401':
          $ref: '#/components/responses/Unauthorized'
        '403':
          $ref: '#/components/responses/Forbidden'
        '429':
          $ref: '#/components/responses/TooManyRequests'
        '500':
          $ref: '#/components/responses/InternalError'
`;
}

/** The operation the dev-loop tests add. */
export const NEW_OPERATION = listOperation(SAMPLE.path, SAMPLE.operationId);

/**
 * The spec with the sample's tag declared and placed in a tag group: the spec groups its tags
 * (`x-tagGroups`), and Redoc leaves out an operation whose tag is in no group, which is why the
 * lint (patient-care/tags-in-groups) asks for the group.
 */
export function withSampleTag(spec: string): string {
  const tagged = replaceOnce(
    spec,
    '  - name: Appointments\n',
    `  - name: ${SAMPLE.tag}\n    description: Where a patient is sent for care. Scope \`patients:read\`.\n` +
      '  - name: Appointments\n',
  );
  return replaceOnce(
    tagged,
    '  - name: Clinical\n    tags:\n',
    `  - name: Clinical\n    tags:\n      - ${SAMPLE.tag}\n`,
  );
}

/** The spec with the new operation (`NEW_OPERATION`) and its tag (`withSampleTag`). */
export function withSampleOperation(spec: string): string {
  if (spec.includes(`  ${SAMPLE.path}:\n`) || spec.includes(`operationId: ${SAMPLE.operationId}\n`))
    throw new Error(`the sample edit's ${SAMPLE.path} is in the spec already: pick another`);
  return replaceOnce(
    withSampleTag(spec),
    '  /v1/claims/{id}:\n',
    `${NEW_OPERATION}  /v1/claims/{id}:\n`,
  );
}

/** `text` with `from`, which must occur exactly once, replaced by `to`. */
export function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0)
    throw new Error(`expected ${JSON.stringify(from.slice(0, 60))} once in the spec`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}
