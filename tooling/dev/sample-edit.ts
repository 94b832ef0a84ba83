/**
 * The sample spec edit of the dev loop: a new list operation, `GET /v1/practitioners`, with
 * everything the house lint rules ask for. `npm run bench:dev` times the loop with it and the
 * dev-loop tests (test/dev, test/browser) make it, so both live outside `test/` (production
 * code and benches never import test helpers).
 */

/**
 * A list operation at `path` with everything the house rules ask for, shaped like the spec's
 * others: the Path Item's text, ready to go before another path of `paths`.
 */
export function listOperation(path: string, operationId: string): string {
  return `  ${path}:
    get:
      operationId: ${operationId}
      tags:
        - Practitioners
      summary: List practitioners
      description: The practitioners of the account.
      x-scopes:
        - patients:read
      x-key-kinds:
        - secret
      parameters:
        - $ref: '#/components/parameters/PatientCareVersion'
        - $ref: '#/components/parameters/PatientCareActor'
      responses:
        '200':
          description: The practitioners.
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
export const NEW_OPERATION = listOperation('/v1/practitioners', 'listPractitioners');

/**
 * The spec with the new operation, its tag declared and placed in a tag group: the spec groups
 * its tags (`x-tagGroups`), and Redoc leaves out an operation whose tag is in no group, which
 * is why the lint (patient-care/tags-in-groups) asks for the group.
 */
export function withPractitioners(spec: string): string {
  const tagged = replaceOnce(
    spec,
    '  - name: Appointments\n',
    '  - name: Practitioners\n    description: The people who give care. Scope `patients:read`.\n' +
      '  - name: Appointments\n',
  );
  const grouped = replaceOnce(
    tagged,
    '      - Patients\n      - Appointments\n',
    '      - Patients\n      - Appointments\n      - Practitioners\n',
  );
  return replaceOnce(grouped, '  /v1/claims/{id}:\n', `${NEW_OPERATION}  /v1/claims/{id}:\n`);
}

/** `text` with `from`, which must occur exactly once, replaced by `to`. */
export function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0)
    throw new Error(`expected ${JSON.stringify(from.slice(0, 60))} once in the spec`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}
