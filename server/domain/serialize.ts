/**
 * Shared pieces of turning requests and stored documents into API objects. Repositories keep
 * each object as the JSON the API returns, so reading one back needs no mapping; what is
 * shared is the rules for writing them: timestamps, metadata, and the 404 of a missing id.
 */
import { ApiError } from '../errors.js';
import { toSeconds } from '../repos/rows.js';

/** A `metadata` object: string keys to string values. */
export type Metadata = Record<string, string>;

/** Unix seconds of the request's clock (`created`, `updated`, `expires_at`). */
export function nowSeconds(ctx: { now(): number }): number {
  return toSeconds(ctx.now());
}

/**
 * `404 resource_missing` for an id that does not exist in the caller's mode. Objects of the
 * other mode answer the same, so a key cannot learn that they exist.
 *
 * @example throw resourceMissing('patient', 'patient') // a body field
 */
export function resourceMissing(objectName: string, param = 'id'): ApiError {
  return new ApiError('resource_missing', { param, message: `No such ${objectName}.` });
}

const METADATA_KEY_MAX = 40;
const METADATA_KEYS_MAX = 50;

/**
 * Checks the rules OpenAPI 3.0 cannot state: keys of 1–40 characters, counted as JSON Schema
 * counts `maxLength` (code points, so an emoji is one character, not two UTF-16 units).
 * `param` is the field name (`metadata`). Returns the metadata unchanged, or `{}` when absent.
 */
export function checkMetadata(metadata: Metadata | null | undefined, param = 'metadata'): Metadata {
  const out = metadata ?? {};
  for (const key of Object.keys(out)) {
    const characters = [...key].length;
    if (characters === 0 || characters > METADATA_KEY_MAX) {
      throw new ApiError('parameter_invalid', {
        param,
        message: `Metadata keys must be 1 to ${METADATA_KEY_MAX} characters long.`,
      });
    }
  }
  return out;
}

/**
 * Applies a `MetadataUpdate`: keys with a value are set, keys set to `""` removed, keys not
 * sent kept; `null` removes every key; `undefined` keeps the stored metadata. The result may
 * have at most 50 keys (`400 parameter_invalid`).
 */
export function mergeMetadata(
  stored: Metadata | undefined,
  update: Metadata | null | undefined,
  param = 'metadata',
): Metadata {
  if (update === undefined) return { ...(stored ?? {}) };
  if (update === null) return {};
  checkMetadata(update, param);
  const out: Metadata = { ...(stored ?? {}) };
  for (const [key, value] of Object.entries(update)) {
    if (value === '') delete out[key];
    else out[key] = value;
  }
  if (Object.keys(out).length > METADATA_KEYS_MAX) {
    throw new ApiError('parameter_invalid', {
      param,
      message: `Metadata may have at most ${METADATA_KEYS_MAX} keys after the update.`,
    });
  }
  return out;
}
