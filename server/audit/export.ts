/**
 * `npm run audit -- export`: the audit trail for a SIEM, as one JSON object per row or as FHIR
 * R4 `AuditEvent` resources in the shape of IHE BALP (Basic Audit Log Patterns), streamed in
 * pages so memory stays constant however many rows there are.
 *
 * The cursor is the chain place (`chain_seq`, server/audit/chain.ts). Places are taken under
 * the chain head's lock in commit order, so once a reader sees place N every place below it is
 * already committed and visible: exporting `--after N` never skips a row that commits later
 * with a smaller place, and never repeats one (docs/design.md#audit-export).
 */
import type { Db } from '../db/types.js';
import { ID_PREFIXES, toFhirId } from '../fhir/ids.js';
import type { AuditOutcome } from './entry.js';

/** One exported row: what is stored, times in ISO 8601, the ids as a list. */
export interface ExportedRow {
  id: string;
  /** The row's place in the hash chain; null for rows from before it (migration 0010). */
  chain_seq: number | null;
  at: string;
  key_id: string | null;
  operation_id: string;
  object_ids: string[];
  request_id: string | null;
  client_ip: string | null;
  outcome: AuditOutcome;
  api_version: string | null;
  batch_id: string | null;
  /** The chain hash: a SIEM that keeps it can later tell a rewritten trail (`audit verify`). */
  hash: string | null;
  /** The acting person (`PatientCare-Actor`), where the column exists (migration 0009). */
  actor?: string | null;
}

export interface ExportOptions {
  /** Rows at or after this time (ms since the epoch); default: all. */
  sinceMs?: number;
  /** Only chained rows past this place (the cursor printed by the last export). */
  after?: number;
  format: 'jsonl' | 'fhir';
  /** Rows per page read. Default 1000. */
  pageSize?: number;
}

export interface ExportResult {
  rows: number;
  /** The place to pass as `--after` next time. */
  cursor: number;
}

/** Receives each line; a promise makes the export wait (a full pipe). */
export type LineSink = (line: string) => unknown;

// With migration 0009's `actor` column, `actor` joins this list; `exported` and `auditEvent`
// already carry it through.
const COLUMNS =
  'id, chain_seq, at, key_id, operation_id, object_ids, request_id, client_ip, outcome, api_version, actor, batch_id, hash';

/**
 * Writes every row of the window, oldest first: without `after`, first the rows from before the
 * chain (by id), then the chained rows by place; with `after`, only chained rows past it.
 */
export async function exportAudit(
  db: Db,
  options: ExportOptions,
  write: LineSink,
): Promise<ExportResult> {
  const pageSize = options.pageSize ?? 1000;
  const since = options.sinceMs ?? 0;
  const render = options.format === 'fhir' ? auditEvent : (row: ExportedRow) => row;
  let rows = 0;
  const emit = async (row: Record<string, unknown>) => {
    const pending = write(JSON.stringify(render(exported(row))));
    if (pending instanceof Promise) await pending;
    rows++;
  };
  if (options.after === undefined) {
    let lastId = '';
    for (;;) {
      const page = await db.all<Record<string, unknown>>(
        `SELECT ${COLUMNS} FROM audit_log WHERE chain_seq IS NULL AND id > $1 AND at >= $2
          ORDER BY id LIMIT ${pageSize}`,
        [lastId, since],
      );
      for (const row of page) await emit(row);
      if (page.length < pageSize) break;
      lastId = String(page.at(-1)?.id);
    }
  }
  let cursor = options.after ?? 0;
  for (;;) {
    const page = await db.all<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM audit_log WHERE chain_seq > $1 AND at >= $2
        ORDER BY chain_seq LIMIT ${pageSize}`,
      [cursor, since],
    );
    for (const row of page) await emit(row);
    if (page.length > 0) cursor = Number(page.at(-1)?.chain_seq);
    if (page.length < pageSize) break;
  }
  return { rows, cursor };
}

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function exported(row: Record<string, unknown>): ExportedRow {
  return {
    id: String(row.id),
    chain_seq: row.chain_seq === null ? null : Number(row.chain_seq),
    at: new Date(Number(row.at)).toISOString(),
    key_id: text(row.key_id),
    operation_id: String(row.operation_id),
    object_ids: JSON.parse(String(row.object_ids)) as string[],
    request_id: text(row.request_id),
    client_ip: text(row.client_ip),
    outcome: String(row.outcome) as AuditOutcome,
    api_version: text(row.api_version),
    batch_id: text(row.batch_id),
    hash: text(row.hash),
    ...(row.actor === undefined ? {} : { actor: text(row.actor) }),
  };
}

/** Code systems of the AuditEvent shape (HL7 terminology, DICOM, IHE BALP). */
const SYSTEMS = {
  eventType: 'http://terminology.hl7.org/CodeSystem/audit-event-type',
  interaction: 'http://hl7.org/fhir/restful-interaction',
  dicom: 'http://dicom.nema.org/resources/ontology/DCM',
  participation: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType',
  sourceType: 'http://terminology.hl7.org/CodeSystem/security-source-type',
  entityType: 'http://terminology.hl7.org/CodeSystem/audit-entity-type',
  objectRole: 'http://terminology.hl7.org/CodeSystem/object-role',
  balpEntity: 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType',
} as const;

/** Identifier systems of our own ids (URNs: nothing to resolve). */
export const ID_SYSTEMS = {
  key: 'urn:patient-care:api-key',
  /** The `PatientCare-Actor` of the request (its column arrives with migration 0009). */
  actor: 'urn:patient-care:actor',
  object: 'urn:patient-care:id',
  operation: 'urn:patient-care:operation',
} as const;

/** The FHIR interaction and action of an operation, by its verb (BALP: read, query, create, update). */
function interactionOf(operationId: string): { code: string; action: 'C' | 'R' | 'U' | 'D' | 'E' } {
  if (/^(retrieve|read)/.test(operationId)) return { code: 'read', action: 'R' };
  if (/^(list|search)/.test(operationId)) return { code: 'search-type', action: 'E' };
  if (/^(create|submit)/.test(operationId)) return { code: 'create', action: 'C' };
  if (/^update/.test(operationId)) return { code: 'update', action: 'U' };
  if (/^delete/.test(operationId)) return { code: 'delete', action: 'D' };
  return { code: 'operation', action: 'E' };
}

/** AuditEvent.outcome: 0 success, 4 minor failure (refused, not found), 8 serious failure. */
const OUTCOME_CODES: Readonly<Record<AuditOutcome, '0' | '4' | '8'>> = {
  success: '0',
  denied: '4',
  not_found: '4',
  error: '8',
};

/** The FHIR type an object id is served as, if any (`pat_` is a Patient, …). */
const FHIR_TYPES = new Map<string, string>(
  Object.entries(ID_PREFIXES)
    .filter(([type]) => type !== 'ClaimResponse')
    .map(([type, prefix]) => [prefix, type]),
);

/** One object as an AuditEvent entity: a patient as BALP's patient entity, others as data. */
function entityOf(id: string): Record<string, unknown> {
  const type = FHIR_TYPES.get(id.slice(0, id.indexOf('_')));
  const what =
    type === undefined
      ? { identifier: { system: ID_SYSTEMS.object, value: id } }
      : { reference: `${type}/${toFhirId(id)}` };
  const patient = type === 'Patient';
  return {
    what,
    type: {
      system: SYSTEMS.entityType,
      code: patient ? '1' : '2',
      display: patient ? 'Person' : 'System Object',
    },
    role: {
      system: SYSTEMS.objectRole,
      code: patient ? '1' : '4',
      display: patient ? 'Patient' : 'Domain Resource',
    },
  };
}

/**
 * An exported row as a FHIR R4 AuditEvent in BALP's shape: a RESTful event whose subtype is
 * the interaction (and our operation id), the key as the client agent (with the client's
 * address), the acting person as a second agent when the row names one, the objects as
 * entities (patients in the patient role), the request id as BALP's `XrequestId` entity.
 */
export function auditEvent(row: ExportedRow): Record<string, unknown> {
  const interaction = interactionOf(row.operation_id);
  const actor = row.actor ?? null;
  const agents: Record<string, unknown>[] = [
    {
      type: { coding: [{ system: SYSTEMS.dicom, code: '110153', display: 'Source Role ID' }] },
      who:
        row.key_id === null
          ? { display: 'no API key' }
          : { identifier: { system: ID_SYSTEMS.key, value: row.key_id } },
      // The key is the requestor unless a person is named as acting through it.
      requestor: actor === null,
      ...(row.client_ip === null ? {} : { network: { address: row.client_ip, type: '2' } }),
    },
  ];
  if (actor !== null) {
    agents.push({
      type: {
        coding: [{ system: SYSTEMS.participation, code: 'IRCP', display: 'information recipient' }],
      },
      who: { identifier: { system: ID_SYSTEMS.actor, value: actor } },
      requestor: true,
    });
  }
  return {
    resourceType: 'AuditEvent',
    id: toFhirId(row.id),
    type: { system: SYSTEMS.eventType, code: 'rest', display: 'RESTful Operation' },
    subtype: [
      { system: SYSTEMS.interaction, code: interaction.code },
      { system: ID_SYSTEMS.operation, code: row.operation_id },
    ],
    action: interaction.action,
    recorded: row.at,
    outcome: OUTCOME_CODES[row.outcome],
    outcomeDesc: row.outcome,
    agent: agents,
    source: {
      observer: { display: 'Patient-Care API' },
      type: [{ system: SYSTEMS.sourceType, code: '4', display: 'Application Server' }],
    },
    entity: [
      ...row.object_ids.map(entityOf),
      ...(row.request_id === null
        ? []
        : [
            {
              what: { identifier: { value: row.request_id } },
              type: { system: SYSTEMS.balpEntity, code: 'XrequestId' },
            },
          ]),
    ],
  };
}
