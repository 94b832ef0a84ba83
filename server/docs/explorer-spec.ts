/**
 * The spec as the explorer (RapiDoc 9.3) reads it. RapiDoc shows a `style: deepObject` query
 * parameter (`created`) as one JSON text box and, while building the request URL (on load and
 * on every operation shown, for the curl line), runs `JSON.parse` on it: an empty box logs
 * "RapiDoc: unable to parse %s into object" each time. Here each such parameter becomes one
 * plain query parameter per property (`created[gt]`, `created[gte]`, …): the same query string
 * on the wire, a field per bound, and nothing to parse.
 *
 * It also reads a media type's single `example` that is an object as a map of named examples
 * (looking for `.value` in each property), so an example with a `null` property (an error's
 * `param: null`) throws "Cannot read properties of null" while it renders the responses. Each
 * such `example` moves to `examples: { example: { value } }`, which it reads as meant.
 * `/openapi.*` and `/docs` keep the document as written.
 */

import { getAtPointer } from '../../contract/pointer.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows a local `$ref` (`#/components/…`) one step; anything else as it is. */
function deref(spec: Json, value: unknown): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string' || !value.$ref.startsWith('#/'))
    return value;
  return getAtPointer(spec, value.$ref) ?? value;
}

/** One parameter, or its per-property replacements when it is a deepObject query object. */
function flatten(spec: Json, parameter: unknown): unknown[] {
  const resolved = deref(spec, parameter);
  if (!isObject(resolved) || resolved.in !== 'query' || resolved.style !== 'deepObject')
    return [parameter];
  const schema = deref(spec, resolved.schema);
  if (!isObject(schema) || !isObject(schema.properties)) return [parameter];
  const name = String(resolved.name);
  return Object.entries(schema.properties).map(([property, propertySchema]) => {
    const resolvedProperty = deref(spec, propertySchema);
    const description = isObject(resolvedProperty) ? resolvedProperty.description : undefined;
    return {
      name: `${name}[${property}]`,
      in: 'query',
      required: false,
      ...(typeof description === 'string' ? { description } : {}),
      schema: propertySchema,
    };
  });
}

/** Every media type object under a `content` key: `example` → `examples.example.value`. */
function namedExamples(node: unknown, underContent = false): unknown {
  if (Array.isArray(node)) return node.map((item) => namedExamples(item));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (underContent && isObject(value) && 'example' in value && !('examples' in value)) {
      const { example, ...rest } = value;
      out[key] = namedExamples({ ...rest, examples: { example: { value: example } } });
    } else out[key] = namedExamples(value, key === 'content');
  }
  return out;
}

export function explorerSpec(spec: Json): Json {
  return flattenDeepObjects(namedExamples(spec) as Json);
}

function flattenDeepObjects(spec: Json): Json {
  const paths = isObject(spec.paths) ? spec.paths : {};
  const flattenAll = (parameters: unknown) =>
    Array.isArray(parameters)
      ? parameters.flatMap((parameter) => flatten(spec, parameter))
      : parameters;
  const newPaths = Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      if (!isObject(item)) return [path, item];
      const newItem: Json = { ...item };
      for (const [key, value] of Object.entries(item)) {
        if (key === 'parameters') newItem.parameters = flattenAll(value);
        else if (isObject(value) && Array.isArray(value.parameters))
          newItem[key] = { ...value, parameters: flattenAll(value.parameters) };
      }
      return [path, newItem];
    }),
  );
  return { ...spec, paths: newPaths };
}
