import type { Plugin } from '@redocly/openapi-core';
import { ExamplesPresent } from './rules/examples-present.js';
import { HeaderExamples } from './rules/header-examples.js';
import { NoPhiInUrl } from './rules/no-phi-in-url.js';
import { ObjectFieldsRequired } from './rules/object-fields-required.js';
import { OperationActorHeader } from './rules/operation-actor-header.js';
import { OperationErrorResponses } from './rules/operation-error-responses.js';
import { OperationScopes } from './rules/operation-scopes.js';
import { PostIdempotencyKey } from './rules/post-idempotency-key.js';
import { ResponseRequestId } from './rules/response-request-id.js';
import { TagsInGroups } from './rules/tags-in-groups.js';

/**
 * Redocly CLI 2.x plugin with the Patient-Care API house rules. Redocly prefixes each rule id
 * with the plugin id: `patient-care/operation-scopes`, and so on; `redocly.yaml` enables them
 * and loads this module through `plugin.js`.
 */
export function patientCarePlugin(): Plugin {
  return {
    id: 'patient-care',
    rules: {
      oas3: {
        'operation-scopes': OperationScopes,
        'operation-actor-header': OperationActorHeader,
        'operation-error-responses': OperationErrorResponses,
        'examples-present': ExamplesPresent,
        'header-examples': HeaderExamples,
        'no-phi-in-url': NoPhiInUrl,
        'object-fields-required': ObjectFieldsRequired,
        'post-idempotency-key': PostIdempotencyKey,
        'response-request-id': ResponseRequestId,
        'tags-in-groups': TagsInGroups,
      },
    },
  };
}
