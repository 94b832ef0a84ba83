/**
 * The string formats (OpenAPI 3.0.3 §4.7.24 `format`) every validator of this project knows:
 * ajv-formats' set, which covers OpenAPI's own `int32`, `int64`, `float`, `double`, `byte`,
 * `binary` and `password`. The conversion keeps exactly these (others, such as `unix-time`, are
 * dropped so Ajv's strict mode accepts the schema) and the Ajv factory registers them: one list,
 * so what the converter keeps is what a validator can check.
 */
import type { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext the default import is its `module.exports`, the
// plugin function, which also carries itself as `.default` (typed so).
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addAjvFormats: FormatsPlugin = addFormatsModule.default;

/** Formats a validator checks; a converted schema keeps `format` only for these. */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  'date',
  'time',
  'date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
]);

/**
 * OpenAPI's integer formats, by range. `int64` also demands an exactly representable value:
 * ajv-formats checks only `Number.isInteger`, which `1e23` and `9007199254740993` (read as
 * …992) pass, and no database would store them as sent. So `int64` here is ±(2^53 − 1).
 */
const INTEGER_FORMATS = {
  int32: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1,
  int64: (n: number) => Number.isSafeInteger(n),
};

/** Registers every format of {@link KNOWN_FORMATS} with `ajv`. */
export function addFormats(ajv: Ajv): Ajv {
  addAjvFormats(ajv);
  for (const [name, validate] of Object.entries(INTEGER_FORMATS)) {
    ajv.addFormat(name, { type: 'number', validate });
  }
  return ajv;
}
