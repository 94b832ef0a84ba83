import type { Oas3Rule, UserContext } from '@redocly/openapi-core';
import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv } from '../../../contract/ajv.js';
import { convertComponentSchemas, convertSchema } from '../../openapi/json-schema.js';
import { deref, pointerLabel, type SpecNode } from '../lib/nodes.js';

/**
 * `patient-care/header-examples`: every `example` and `examples` entry of a Header Object
 * (response headers, `components/headers`) matches the header's schema. Redocly's
 * `no-invalid-*-examples` rules check schemas, media types and parameters but no header, so this
 * is the one example check of our own; it judges with the same conversion and Ajv as the
 * server's validation (tooling/openapi), in the response direction, where headers are read.
 */
export const HeaderExamples: Oas3Rule = () => {
  let root: SpecNode;
  let ajv: Ajv | undefined;
  const compiled = new Map<unknown, ValidateFunction>();

  const validatorFor = (schema: unknown): ValidateFunction => {
    ajv ??= createAjv({
      strict: false,
      schemas: convertComponentSchemas(root).map((component) => component.schema),
    });
    const instance = ajv;
    let validate = compiled.get(schema);
    if (!validate) {
      validate = instance.compile(convertSchema(schema, { direction: 'response', document: root }));
      compiled.set(schema, validate);
    }
    return validate;
  };

  return {
    Root: {
      enter(node: SpecNode) {
        root = node;
        ajv = undefined;
      },
    },
    Header: {
      enter(header: SpecNode, ctx: UserContext) {
        if (header?.schema === undefined) return;
        const schema = deref(ctx, header.schema, ctx.location.child(['schema'])).node;
        if (schema === undefined) return;
        const check = (value: unknown, key: (string | number)[]) => {
          let validate: ValidateFunction;
          try {
            validate = validatorFor(schema);
          } catch {
            // A schema the conversion cannot read (a `$ref` into another file of a split spec,
            // which only Redocly resolves, or an invalid schema `struct` already reports) is
            // not judged here rather than reported twice.
            return;
          }
          if (validate(value)) return;
          const why = (validate.errors ?? [])
            .map((e) => `${e.instancePath || 'value'} ${e.message ?? e.keyword}`)
            .join('; ');
          ctx.report({
            message: `Example of header ${pointerLabel(ctx.location)} does not match its schema (${why}). Fix the example or the schema.`,
            location: ctx.location.child(key),
          });
        };
        if ('example' in header) check(header.example, ['example']);
        const examples = header.examples;
        if (examples && typeof examples === 'object') {
          for (const [name, raw] of Object.entries(examples)) {
            const entry = deref(ctx, raw, ctx.location.child(['examples', name]));
            if (entry.node && typeof entry.node === 'object' && 'value' in entry.node) {
              check(entry.node.value, ['examples', name, 'value']);
            }
          }
        }
      },
    },
  };
};
