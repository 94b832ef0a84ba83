/**
 * One fuzz case: an HTTP request for one operation, whether its input is valid, and what a
 * correct service may answer to it.
 */
import type { HttpMethod } from '../../../contract/route-types.js';
import type { FreshKind } from './world.js';

/** Which key sends the case: the secret test key, or the publishable one (createToken). */
export type KeyChoice = 'secret' | 'publishable';

/** The request body: JSON to serialise, or exact bytes (malformed JSON, bad encodings). */
export type CaseBody = { json: unknown } | { raw: string | Buffer };

/** A request and its expectation. */
export interface FuzzCase {
  operationId: string;
  /** Valid input (expect 2xx) or input broken one way (expect anything but 2xx). */
  valid: boolean;
  /** `valid`, or the one fault the input carries. */
  why: string;
  method: HttpMethod;
  /** The path with parameters filled in and percent-encoded; may hold `FRESH`. */
  path: string;
  /** The query string without `?`, already encoded. */
  query: string;
  headers: Record<string, string>;
  body?: CaseBody;
  key: KeyChoice;
  /**
   * The case names an object on purpose unknown (a random well-formed id, or an intake token
   * never issued): for valid input, 404 `resource_missing` (or, for a token, 400
   * `token_invalid`, the design's answer to an unknown token) is then correct too.
   */
  unknownReference: boolean;
  /** A fresh object made just before sending; its id replaces `FRESH` in path and body. */
  fresh?: FreshKind;
  /**
   * Sent straight to the service, not through Prism: Prism parses request bodies itself and
   * answers malformed JSON on its own (`invalid_json`) without forwarding, and the > 1 MiB
   * bodies only measure Prism's parser. Everything else goes through Prism.
   */
  bypassPrism: boolean;
}
