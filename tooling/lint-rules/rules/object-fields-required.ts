import type { Location, Oas3Rule, UserContext } from '@redocly/openapi-core';
import { deref, type SpecNode } from '../lib/nodes.js';

/** Options in `redocly.yaml`: `Schema.property` names that may be absent, each a documented exception. */
interface Options {
  allowAbsent?: unknown;
}

/** The one `object` value a schema's `object` property allows (`patient`), or undefined. */
function objectType(ctx: UserContext, schema: SpecNode, at: Location): string | undefined {
  const property = deref(ctx, schema?.properties?.object, at).node;
  const values = property?.enum;
  if (!Array.isArray(values) || values.length !== 1 || typeof values[0] !== 'string') return;
  return values[0] === 'list' ? undefined : values[0];
}

/**
 * `patient-care/object-fields-required`: every property of an API object's schema (a component
 * schema whose `object` property is one type name, `patient`, not `list`) is in its `required`
 * list. The house rule is "every field present, unset ones null": an unset field is `null`,
 * never absent, and a row stored before a field was added answers its `null` or `default`
 * (server/repos/stored-shape.ts fills only required nullable fields and fields with a
 * `default`). A field added as merely optional would be absent from older rows and present in
 * newer ones. `allowAbsent` lists the documented exceptions as `Schema.property`.
 */
export const ObjectFieldsRequired: Oas3Rule = (options: Options) => {
  const allowed = new Set(
    Array.isArray(options.allowAbsent) ? options.allowAbsent.map(String) : [],
  );
  return {
    NamedSchemas: {
      enter(schemas: SpecNode, ctx: UserContext) {
        if (!schemas || typeof schemas !== 'object') return;
        for (const name of Object.keys(schemas)) {
          const { node: schema, location } = deref(ctx, schemas[name], ctx.location.child([name]));
          const type = objectType(ctx, schema, location);
          if (type === undefined || !schema.properties || typeof schema.properties !== 'object')
            continue;
          const required = new Set(Array.isArray(schema.required) ? schema.required : []);
          for (const property of Object.keys(schema.properties)) {
            if (required.has(property) || allowed.has(`${name}.${property}`)) continue;
            ctx.report({
              message: `Property "${property}" of ${name} (the "${type}" object) is optional, which breaks the house rule "every field present, unset ones null": objects stored before a field existed would answer without it. Add "${property}" to the schema's required list and give it nullable: true (or a default), so every row answers it.`,
              location: location.child(['properties', property]).key(),
            });
          }
        }
      },
    },
  };
};
