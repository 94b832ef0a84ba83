import { isIP } from 'node:net';
import { isActor } from '../../contract/actor.js';

/** What happened to the request that touched PHI. */
export type AuditOutcome = 'success' | 'denied' | 'error' | 'not_found';

/**
 * One audit row: who (key id), what (operation, object ids), when, from where — never the
 * PHI itself. Every field has a shape that cannot carry free text, and `checkAuditEntry`
 * enforces it, so a name or a birth date cannot slip in by mistake.
 */
export interface AuditEntry {
  keyId: string | null;
  /** The spec's operationId, e.g. `retrievePatient`. */
  operationId: string;
  /** Ids of the objects touched (`pat_…`, `appt_…`, …). Include the patient's id for its appointments and claims. */
  objectIds: readonly string[];
  requestId: string | null;
  clientIp: string | null;
  outcome: AuditOutcome;
  /** Milliseconds since the epoch; default now. */
  at?: number;
  /** The dated API version the request was served in (`YYYY-MM-DD`); null or absent: unknown. */
  apiVersion?: string | null;
  /**
   * The person or system acting (the request's `PatientCare-Actor`, or the actor an ephemeral
   * key was minted for): an opaque id, never PHI. Null or absent: none was named.
   */
  actor?: string | null;
}

const OBJECT_ID = /^[a-z]{1,12}_[0-9A-HJKMNP-TV-Z]{26}$/;
const OPERATION_ID = /^[A-Za-z][A-Za-z0-9]{0,79}$/;
const API_VERSION = /^\d{4}-\d{2}-\d{2}$/;
const OUTCOMES: readonly string[] = ['success', 'denied', 'error', 'not_found'];

/**
 * Throws `TypeError` when a field could hold something other than what it names. The
 * message names the field only, never the value (which might be the PHI being kept out).
 */
export function checkAuditEntry(entry: AuditEntry): void {
  if (entry.keyId !== null && !OBJECT_ID.test(entry.keyId)) fail('keyId');
  if (!OPERATION_ID.test(entry.operationId)) fail('operationId');
  if (entry.objectIds.length > 100) fail('objectIds');
  for (const id of entry.objectIds) if (!OBJECT_ID.test(id)) fail('objectIds');
  if (entry.requestId !== null && !OBJECT_ID.test(entry.requestId)) fail('requestId');
  if (entry.clientIp !== null && isIP(entry.clientIp) === 0) fail('clientIp');
  if (!OUTCOMES.includes(entry.outcome)) fail('outcome');
  if (entry.at !== undefined && !Number.isSafeInteger(entry.at)) fail('at');
  if (entry.apiVersion != null && !API_VERSION.test(entry.apiVersion)) fail('apiVersion');
  if (entry.actor != null && !isActor(entry.actor)) fail('actor');
}

function fail(field: string): never {
  throw new TypeError(`audit entry field ${field} is not in its expected form`);
}
