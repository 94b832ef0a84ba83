/**
 * Checks that every example in an OpenAPI 3.0 document is valid against the schema it
 * illustrates, with OpenAPI 3.0 semantics rather than plain JSON Schema:
 * - `nullable: true` adds `null` to `type` only when `type` is given (OpenAPI 3.0.3 §4.7.24);
 *   it does not add `null` to an `enum`.
 * - `discriminator` picks the `oneOf`/`anyOf` member by the tag property: the tag is required,
 *   must be a mapped (or implicit, by schema name) value, and the chosen schema must validate.
 * - `readOnly` properties may not appear in request examples, `writeOnly` ones not in response
 *   examples (and neither is then required). Webhook payloads under `x-webhooks` are sent by
 *   the server, so their request bodies count as responses and their responses as requests.
 * - `format` is checked (ajv-formats: date, date-time, email, uri, int64, ...); `example`,
 *   `xml` and `externalDocs` are known keywords; `x-` extensions are ignored.
 * - `$ref`s to `#/components/...` are resolved, also for `examples` entries.
 * Pure: takes the parsed document, returns the problems; the caller decides what to print.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** One example that does not match its schema, or a schema that could not be compiled. */
export interface ExampleProblem {
  /** JSON Pointer (RFC 6901) of the example in the document, e.g. `/components/schemas/Patient/example`. */
  readonly pointer: string;
  readonly message: string;
}

type Json = unknown;
type JsonObject = { [key: string]: Json };
type Direction = 'request' | 'response' | 'none';

type FormatsPlugin = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS: under NodeNext its default import may be the module object.
const formatsModule = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = formatsModule.default ?? formatsModule;

/** Base URI the converted component schemas are registered under, one tree per direction. */
const BASE = 'https://openapi-examples.invalid';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Keywords whose value is one schema, or a map or list of schemas, to convert recursively. */
const SCHEMA_MAPS = ['properties'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SCHEMA_SINGLES = ['items', 'not', 'additionalProperties'];

/**
 * Validates every `example` and `examples` entry of `document` (schemas, parameters, headers,
 * media types; under `paths`, `components` and `x-webhooks`) against its schema.
 * @example validateExamples(parse(readFileSync('spec/openapi.yaml', 'utf8'))) // → []
 */
export function validateExamples(document: unknown): ExampleProblem[] {
  const problems: ExampleProblem[] = [];
  if (!isObject(document)) return [{ pointer: '', message: 'the document is not an object' }];
  const ajv = new Ajv({
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: true,
    allowUnionTypes: true,
  });
  addFormats(ajv);
  ajv.addVocabulary(['example', 'xml', 'externalDocs']);

  const components = isObject(document.components) ? document.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  for (const direction of ['request', 'response', 'none'] as const) {
    for (const [name, schema] of Object.entries(schemas)) {
      const id = componentUri(direction, name);
      try {
        const converted = convert(schema, direction);
        ajv.addSchema(isObject(converted) ? { ...converted, $id: id } : {}, id);
      } catch (error) {
        if (direction === 'none') {
          problems.push({
            pointer: `/components/schemas/${escapePointer(name)}`,
            message: text(error),
          });
        }
      }
    }
  }

  // Converted schemas are new objects each time, so Ajv's own cache (by identity) misses.
  const compiled = new Map<string, ValidateFunction>();
  const check = (schema: Json, value: Json, pointer: string, direction: Direction): void => {
    let validate: ValidateFunction;
    try {
      const converted = asSchemaObject(convert(schema, direction));
      const key = JSON.stringify(converted);
      validate = compiled.get(key) ?? ajv.compile(converted);
      compiled.set(key, validate);
    } catch (error) {
      problems.push({ pointer, message: `its schema cannot be compiled: ${text(error)}` });
      return;
    }
    if (!validate(value)) {
      problems.push({ pointer, message: describe(validate.errors ?? []) });
    }
  };
  const walker = new Walker(document, check, problems);
  walker.run();
  return problems;
}

/** Walks the places an OpenAPI 3.0 document can hold examples. */
class Walker {
  constructor(
    private readonly document: JsonObject,
    private readonly check: (schema: Json, value: Json, pointer: string, d: Direction) => void,
    private readonly problems: ExampleProblem[],
  ) {}

  run(): void {
    const components = isObject(this.document.components) ? this.document.components : {};
    for (const [name, schema] of entries(components.schemas)) {
      this.schema(schema, `/components/schemas/${escapePointer(name)}`, 'none');
    }
    for (const [name, parameter] of entries(components.parameters)) {
      this.parameter(parameter, `/components/parameters/${escapePointer(name)}`);
    }
    for (const [name, header] of entries(components.headers)) {
      this.header(header, `/components/headers/${escapePointer(name)}`, 'response');
    }
    for (const [name, body] of entries(components.requestBodies)) {
      this.content(body, `/components/requestBodies/${escapePointer(name)}`, 'request');
    }
    for (const [name, response] of entries(components.responses)) {
      this.response(response, `/components/responses/${escapePointer(name)}`, 'response');
    }
    this.pathItems(this.document.paths, '/paths', false);
    this.pathItems(this.document['x-webhooks'], '/x-webhooks', true);
  }

  private pathItems(items: Json, base: string, webhook: boolean): void {
    // A webhook's body is sent by the server, so it is judged like a response.
    const bodyDirection: Direction = webhook ? 'response' : 'request';
    const replyDirection: Direction = webhook ? 'request' : 'response';
    for (const [path, item] of entries(items)) {
      if (!isObject(item) || '$ref' in item) continue;
      const itemPointer = `${base}/${escapePointer(path)}`;
      this.parameters(item.parameters, `${itemPointer}/parameters`);
      for (const method of METHODS) {
        const operation = item[method];
        if (!isObject(operation)) continue;
        const pointer = `${itemPointer}/${method}`;
        this.parameters(operation.parameters, `${pointer}/parameters`);
        if (operation.requestBody !== undefined && !isRef(operation.requestBody)) {
          this.content(operation.requestBody, `${pointer}/requestBody`, bodyDirection);
        }
        for (const [status, response] of entries(operation.responses)) {
          this.response(response, `${pointer}/responses/${escapePointer(status)}`, replyDirection);
        }
      }
    }
  }

  private parameters(list: Json, pointer: string): void {
    if (!Array.isArray(list)) return;
    list.forEach((parameter, index) => {
      if (!isRef(parameter)) this.parameter(parameter, `${pointer}/${index}`);
    });
  }

  private parameter(parameter: Json, pointer: string): void {
    if (!isObject(parameter) || isRef(parameter)) return;
    this.exampleHolder(parameter, parameter.schema, pointer, 'request');
    if (parameter.schema !== undefined)
      this.schema(parameter.schema, `${pointer}/schema`, 'request');
    this.content(parameter, pointer, 'request');
  }

  private header(header: Json, pointer: string, direction: Direction): void {
    if (!isObject(header) || isRef(header)) return;
    this.exampleHolder(header, header.schema, pointer, direction);
    if (header.schema !== undefined) this.schema(header.schema, `${pointer}/schema`, direction);
  }

  private response(response: Json, pointer: string, direction: Direction): void {
    if (!isObject(response) || isRef(response)) return;
    for (const [name, header] of entries(response.headers)) {
      this.header(header, `${pointer}/headers/${escapePointer(name)}`, direction);
    }
    this.content(response, pointer, direction);
  }

  /** The media types under `holder.content` (request body, response or parameter). */
  private content(holder: Json, pointer: string, direction: Direction): void {
    if (!isObject(holder)) return;
    for (const [mediaType, media] of entries(holder.content)) {
      if (!isObject(media)) continue;
      const mediaPointer = `${pointer}/content/${escapePointer(mediaType)}`;
      this.exampleHolder(media, media.schema, mediaPointer, direction);
      if (media.schema !== undefined)
        this.schema(media.schema, `${mediaPointer}/schema`, direction);
    }
  }

  /** `example` and `examples` of a parameter, header or media type, against `schema`. */
  private exampleHolder(holder: JsonObject, schema: Json, pointer: string, d: Direction): void {
    if (schema === undefined) return;
    if ('example' in holder) this.check(schema, holder.example, `${pointer}/example`, d);
    for (const [name, entry] of entries(holder.examples)) {
      const entryPointer = `${pointer}/examples/${escapePointer(name)}`;
      const resolved = this.resolve(entry, entryPointer);
      if (resolved === undefined || !isObject(resolved)) continue;
      // An `externalValue` is not in the document; there is nothing to check here.
      if ('value' in resolved) this.check(schema, resolved.value, entryPointer, d);
    }
  }

  /** Schema-level `example`s, at every depth of an inline schema. */
  private schema(schema: Json, pointer: string, direction: Direction): void {
    if (!isObject(schema) || isRef(schema)) return;
    if ('example' in schema) this.check(schema, schema.example, `${pointer}/example`, direction);
    for (const key of SCHEMA_MAPS) {
      for (const [name, child] of entries(schema[key])) {
        this.schema(child, `${pointer}/${key}/${escapePointer(name)}`, direction);
      }
    }
    for (const key of SCHEMA_LISTS) {
      const list = schema[key];
      if (Array.isArray(list)) {
        list.forEach((child, index) => {
          this.schema(child, `${pointer}/${key}/${index}`, direction);
        });
      }
    }
    for (const key of SCHEMA_SINGLES) {
      if (isObject(schema[key])) this.schema(schema[key], `${pointer}/${key}`, direction);
    }
  }

  /** Follows `$ref`s inside this document; reports the ones that lead nowhere. */
  private resolve(node: Json, pointer: string): Json {
    let current = node;
    for (let hops = 0; isRef(current); hops++) {
      const target = hops < 32 ? lookUp(this.document, current.$ref) : undefined;
      if (target === undefined) {
        this.problems.push({ pointer, message: `cannot resolve $ref ${current.$ref}` });
        return undefined;
      }
      current = target;
    }
    return current;
  }
}

/**
 * Turns an OpenAPI 3.0 Schema Object into JSON Schema (draft-07, as Ajv reads it) for one
 * direction of travel. Pure; returns a new object.
 */
function convert(schema: Json, direction: Direction): Json {
  if (!isObject(schema)) return schema;
  if (isRef(schema)) return { $ref: refUri(schema.$ref, direction) };
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-') || key === 'nullable' || key === 'discriminator') continue;
    if (SCHEMA_MAPS.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, convert(child, direction)]),
      );
    } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((child) => convert(child, direction));
    } else if (SCHEMA_SINGLES.includes(key) && isObject(value)) {
      out[key] = convert(value, direction);
    } else {
      out[key] = value;
    }
  }
  // OpenAPI 3.0 writes exclusive bounds as booleans beside minimum/maximum (draft-04 style).
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] === 'boolean') {
      if (out[flag] === true && typeof out[bound] === 'number') out[flag] = out[bound];
      else delete out[flag];
      if (typeof out[flag] === 'number') delete out[bound];
    }
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  applyDirection(schema, out, direction);
  applyDiscriminator(schema, out, direction);
  return out;
}

/** `readOnly` properties are not part of requests, `writeOnly` ones not of responses. */
function applyDirection(schema: JsonObject, out: JsonObject, direction: Direction): void {
  if (direction === 'none' || !isObject(schema.properties)) return;
  const hidden = direction === 'request' ? 'readOnly' : 'writeOnly';
  const properties = out.properties as JsonObject;
  const removed = new Set<string>();
  for (const [name, child] of Object.entries(schema.properties)) {
    if (isObject(child) && child[hidden] === true) {
      properties[name] = false;
      removed.add(name);
    }
  }
  if (removed.size > 0 && Array.isArray(out.required)) {
    out.required = out.required.filter((name) => !removed.has(String(name)));
  }
}

/** OpenAPI's `discriminator`: the tag property chooses which member schema applies. */
function applyDiscriminator(schema: JsonObject, out: JsonObject, direction: Direction): void {
  const discriminator = schema.discriminator;
  if (!isObject(discriminator) || typeof discriminator.propertyName !== 'string') return;
  const tag = discriminator.propertyName;
  const members = [
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
  ];
  const mapping = new Map<string, string>();
  // Without an explicit mapping, a member is chosen by its component name.
  for (const member of members) {
    if (isRef(member)) mapping.set(member.$ref.split('/').pop() ?? '', member.$ref);
  }
  if (isObject(discriminator.mapping)) {
    const explicitTargets = new Set(Object.values(discriminator.mapping));
    for (const [name, ref] of [...mapping]) if (explicitTargets.has(ref)) mapping.delete(name);
    for (const [value, ref] of Object.entries(discriminator.mapping)) {
      if (typeof ref === 'string') {
        mapping.set(value, ref.startsWith('#') ? ref : `#/components/schemas/${ref}`);
      }
    }
  }
  if (mapping.size === 0) return;
  const rules: Json[] = [
    { required: [tag], properties: { [tag]: { enum: [...mapping.keys()] } } },
    // JSON Schema `if`/`then`, built from entries: an object literal with a `then` key would
    // look like a thenable to readers and linters.
    ...[...mapping].map(([value, ref]) =>
      Object.fromEntries([
        ['if', { required: [tag], properties: { [tag]: { const: value } } }],
        ['then', { $ref: refUri(ref, direction) }],
      ]),
    ),
  ];
  out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), ...rules];
}

/** Where a local `$ref` points once component schemas are registered with Ajv. */
function refUri(ref: string, direction: Direction): string {
  const match = /^#\/components\/schemas\/([^/]+)(\/.*)?$/.exec(ref);
  if (!match) return ref;
  const name = unescapePointer(match[1] ?? '');
  return `${componentUri(direction, name)}${match[2] ? `#${match[2]}` : ''}`;
}

function componentUri(direction: Direction, name: string): string {
  return `${BASE}/${direction}/components/schemas/${encodeURIComponent(name)}`;
}

/** Ajv's errors as one line: `/name/family: must NOT have fewer than 1 characters; ...`. */
function describe(errors: ErrorObject[]): string {
  const lines = errors
    // `if` failures only repeat the `then` error that follows them.
    .filter((error) => error.keyword !== 'if')
    .map((error) => {
      const where = error.instancePath === '' ? '(root)' : error.instancePath;
      if (error.keyword === 'false schema') {
        return `${where}: must not appear here (readOnly in requests, writeOnly in responses)`;
      }
      const extra =
        error.keyword === 'additionalProperties' ? ` (${error.params.additionalProperty})` : '';
      return `${where}: ${error.message ?? error.keyword}${extra}`;
    });
  return [...new Set(lines)].join('; ');
}

function lookUp(document: JsonObject, ref: string): Json {
  if (!ref.startsWith('#')) return undefined;
  let current: Json = document;
  for (const part of ref
    .slice(1)
    .split('/')
    .filter((p) => p !== '')) {
    if (!isObject(current) && !Array.isArray(current)) return undefined;
    current = (current as JsonObject)[unescapePointer(decodeURIComponent(part))];
  }
  return current;
}

function asSchemaObject(schema: Json): JsonObject | boolean {
  return isObject(schema) || typeof schema === 'boolean' ? schema : {};
}

function entries(node: Json): [string, Json][] {
  return isObject(node) ? Object.entries(node) : [];
}

function isObject(node: Json): node is JsonObject {
  return typeof node === 'object' && node !== null && !Array.isArray(node);
}

function isRef(node: Json): node is { $ref: string } {
  return isObject(node) && typeof node.$ref === 'string';
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
