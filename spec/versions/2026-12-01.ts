/**
 * 2026-12-01: appointment `start`/`end` are RFC 3339 date-times with an offset instead of unix
 * seconds, in request bodies, responses, events and webhooks. Before this date they were
 * integers (unix seconds); this module says so, and converts between the two. What a
 * 2026-11-01 time may be (an integer from 0 to 9999-12-31T23:59:59Z) is its document's to say:
 * the request is validated by it before the converter sees it.
 */
import { MAX_DATE_TIME_SECONDS, secondsToDateTime } from '../../contract/date-time.js';
import {
  defineVersion,
  type Json,
  type JsonObject,
  type RequestParts,
} from '../../contract/version-change.js';

const TIMES = ['start', 'end'] as const;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time → unix seconds (what 2026-11-01 returned). */
function toSeconds(value: Json): Json {
  return typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) / 1000 : value;
}

/** The times of an object (an appointment, or `previous_attributes`) as unix seconds. */
function timesDown(object: JsonObject): JsonObject {
  const out = { ...object };
  for (const field of TIMES) {
    const value = out[field];
    if (value !== undefined) out[field] = toSeconds(value);
  }
  return out;
}

/** A 2026-11-01 time (unix seconds, validated by its document) as a date-time. */
function timeUp(value: unknown): unknown {
  return typeof value === 'number' ? secondsToDateTime(value) : value;
}

function bodyTimesUp(parts: RequestParts): RequestParts {
  const body = parts.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return parts;
  const out: Record<string, unknown> = { ...body };
  for (const field of TIMES) if (field in out) out[field] = timeUp(out[field]);
  return { ...parts, body: out };
}

/**
 * An example as 2026-11-01's showed it: any `start`/`end` date-time as seconds, and no
 * `practitioner_id` (its appointments never had one).
 */
function exampleTimesDown(value: Json): Json {
  if (Array.isArray(value)) return value.map(exampleTimesDown);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'practitioner_id') continue;
    out[key] =
      (key === 'start' || key === 'end') && typeof child === 'string'
        ? toSeconds(child)
        : exampleTimesDown(child);
  }
  return out;
}

/**
 * A 2026-11-01 request time, with every bound the server applies to it: an instant after
 * 9999-12-31T23:59:59Z cannot be stored as a date-time, so its document says so.
 */
const REQUEST_SECONDS: Json = {
  type: 'integer',
  format: 'int64',
  minimum: 0,
  maximum: MAX_DATE_TIME_SECONDS,
  description: `Unix time in seconds (UTC), from 0 to ${MAX_DATE_TIME_SECONDS} (9999-12-31T23:59:59Z).`,
  example: 1793577600,
};

function storedTimeSchema(description: string): Json {
  return { type: 'integer', format: 'int64', minimum: 0, nullable: true, description };
}

/**
 * An appointment as 2026-11-01 showed it: without `practitioner_id`, which its closed schema
 * never had (the field came with Practitioner, after this release).
 */
function withoutPractitionerId(appointment: JsonObject): JsonObject {
  if (!('practitioner_id' in appointment)) return appointment;
  const { practitioner_id: _dropped, ...rest } = appointment;
  return rest;
}

const eventTimesDown = (event: JsonObject): JsonObject => {
  const data = event.data as JsonObject | undefined;
  const previous = data?.previous_attributes;
  if (typeof previous !== 'object' || previous === null || Array.isArray(previous)) return event;
  return { ...event, data: { ...data, previous_attributes: timesDown(previous) } };
};

/**
 * The versioning guide (`spec/guides/versioning.md`, bundled into the Versioning tag's
 * description) as released with 2026-11-01, paragraph by paragraph: each pair is the text the
 * latest guide has and the text 2026-11-01's had in its place.
 */
const guideWas = (textNow: string[], textWas: string[]) => ({
  tag: 'Versioning',
  at: '/description',
  textNow: textNow.join('\n'),
  textWas: textWas.join('\n'),
});
const GUIDE_EDITS = [
  guideWas(['(the current one is `2026-12-01`)'], ['(the current one is `2026-11-01`)']),
  guideWas(
    [
      '## The versions',
      '',
      '| Version | What it changed |',
      '|---|---|',
      '| `2026-12-01` (current) | Appointment `start` and `end` are RFC 3339 date-times with an offset (`2026-11-04T10:00:00+01:00`) in request bodies, responses, events and webhooks; responses give them in UTC (`Z`). |',
      '| `2026-11-01` | The first dated version: appointment times are unix seconds. Still served. |',
      '',
      'Both versions read and write the same records: an appointment booked in one is read in the',
      'other, each in its own shape. The changelog says why each change was made and how to move.',
      'The document of each version is served: `/openapi.json` (or `.yaml`) is the current one,',
      '`/openapi.json?version=2026-11-01` the older one, with `info.version` set to its date. The',
      'reference in `/docs` has a picker with a link per version.',
      '',
      '## Which version a request gets',
      '',
      '1. The `PatientCare-Version` header, when the request sends one.',
      '2. Else the version the account is pinned to. An account is pinned to the current version',
      '   when its first key is created, so a client that never sends the header keeps the shape',
      '   it was written against; an account that had keys before dated versions were served is',
      "   pinned to `2026-11-01`. The server's operator shows and moves the pin with",
      '   `npm run keys -- version` (shows it and the supported versions) and',
      '   `npm run keys -- version 2026-12-01` (moves it; a running server follows within a',
      '   second). Moving the pin changes the shape for every client that sends no header, at once:',
      '   do it after they are ready.',
      '3. Else the current version.',
      '',
      'The same rule gives the version of every answer, refusals included: a request without the',
      'header that is refused before it reaches its operation (no key or a bad one, a scope, key',
      'kind, address or browser origin the key does not allow, an unknown path, the rate limit, a',
      "CORS preflight, a request the HTTP parser cannot read) is answered in the account's pin too,",
      'in the `PatientCare-Version` header and in the body.',
      '',
      'An unknown or future date is refused with `400 parameter_invalid` (`param`:',
      '`PatientCare-Version`; the message lists the supported versions) rather than silently served',
      'in another shape.',
      '',
      '## Pinning your version',
    ],
    ['## Pinning your version'],
  ),
  guideWas(
    ['  -H "PatientCare-Version: 2026-12-01"', '# PatientCare-Version: 2026-12-01'],
    ['  -H "PatientCare-Version: 2026-11-01"', '# PatientCare-Version: 2026-11-01'],
  ),
  guideWas(
    [
      "the client is how you upgrade. `npm run generate` makes the current version's types and",
      'client; `npm run generate -- --version 2026-11-01` makes types, routes and a client for an',
      "older version (in `generated/versions/2026-11-01/`), whose types keep that version's shapes",
      'and whose client sends that date. To try another version with a client you have, pass it',
    ],
    ['the client is how you upgrade. To test a newer version before switching, pass it'],
  ),
  guideWas(
    [
      '## Webhooks have their own version',
      '',
      'An endpoint receives every event rendered in its `api_version`, whichever version the',
      'request that caused the event was sent in; `api_version` is in each delivered event too. It',
      'is set when the endpoint is created (default: the version of the create request) and cannot',
      'be changed afterwards: a retried delivery keeps the shape of its first attempt, and a',
      'receiver never gets a shape it was not deployed for. Upgrade endpoints one at a time: create',
      'a second endpoint with the new `api_version`, deploy code that handles both shapes, then',
      'delete the old endpoint.',
    ],
    [
      'An unknown date is refused with `400 parameter_invalid` (`param`: `PatientCare-Version`)',
      'rather than silently served in another shape.',
      '',
      '## Webhooks have their own version',
      '',
      'An endpoint receives events in its `api_version`, set when it is created (default: the',
      'current version). Upgrade endpoints one at a time: create a second endpoint with the new',
      '`api_version`, deploy code that handles both shapes, then delete the old endpoint.',
    ],
  ),
  guideWas(
    [
      '4. Deploy with the new header, move webhook endpoints as above, then move the account pin',
      '   (`npm run keys -- version DATE`) if clients without the header remain.',
    ],
    ['4. Deploy, then move webhook endpoints as above.'],
  ),
];

export const change = defineVersion({
  date: '2026-12-01',
  description:
    'Appointment times are RFC 3339 date-times with an offset (what FHIR, iCalendar and calendar APIs use) instead of unix seconds.',
  changelog: [
    'Breaking: appointment `start` and `end` are RFC 3339 date-times with an offset (`2026-11-04T10:00:00+01:00`) instead of unix seconds, in `/components/schemas/Appointment` (responses, and `data.object` of events and webhooks), `/components/schemas/AppointmentCreateParams` and `/components/schemas/AppointmentUpdateParams`; responses give them in UTC (`Z`); the `previous_attributes` of `appointment.updated` and `appointment.cancelled` events follow. Clients pinned to 2026-11-01 keep sending and receiving seconds. To move: send and parse date-times, then send `PatientCare-Version: 2026-12-01`.',
    'Added (compatible): `/components/schemas/DateTime`, and `2026-12-01` in `/components/schemas/ApiVersion` and the `PatientCare-Version` header.',
    'Why this change: a unix time carries no offset and cannot be read by a person, so every client converted it and scheduling across time zones (a clinic in one, a patient in another, summer time) was left to guesswork; FHIR `Appointment.start`, iCalendar and calendar APIs all exchange RFC 3339 date-times with an offset, so appointments now map one to one onto them. Instants before 1970 or after 9999-12-31T23:59:59Z are refused in every version (a 2026-11-01 request is migrated up to a date-time, which cannot write a later year).',
  ],
  document: [
    { schema: 'DateTime', didNotExist: true },
    {
      schema: 'Appointment',
      at: '/properties/start',
      was: storedTimeSchema(
        'Start time; `null` only while `proposed` (or when cancelled before a time was set).',
      ),
    },
    {
      schema: 'Appointment',
      at: '/properties/end',
      was: storedTimeSchema('End time, after `start`; `null` exactly when `start` is.'),
    },
    {
      schema: 'AppointmentCreateParams',
      at: '/properties/start',
      was: REQUEST_SECONDS,
      alwaysApplied: true,
    },
    {
      schema: 'AppointmentCreateParams',
      at: '/properties/end',
      was: REQUEST_SECONDS,
      alwaysApplied: true,
    },
    {
      schema: 'AppointmentUpdateParams',
      at: '/properties/start',
      was: REQUEST_SECONDS,
      alwaysApplied: true,
    },
    {
      schema: 'AppointmentUpdateParams',
      at: '/properties/end',
      was: REQUEST_SECONDS,
      alwaysApplied: true,
    },
    {
      info: true,
      at: '/description',
      textNow: [
        'selects the shape of requests, responses and events; the current version is',
        '`2026-12-01`, the `info.version` of this document, and `2026-11-01` is still served.',
        'Without the header, the version your account is pinned to is used (the current one when',
        'its first key was created), else the current one; an unknown version is',
        '`400 parameter_invalid` (`param`: `PatientCare-Version`; the message lists the supported',
        'ones). The document of an older version is served at `/openapi.json?version=YYYY-MM-DD`.',
      ].join('\n'),
      textWas: [
        'selects the shape of requests, responses and events; the current (and only) version is',
        '`2026-11-01`, the `info.version` of this document. Without the header, the current version',
        'is used; an unknown version is `400 parameter_invalid` (`param`: `PatientCare-Version`).',
      ].join('\n'),
    },
    ...GUIDE_EDITS,
    // An appointment's `practitioner_id` came after this release (with Practitioner): its closed
    // schemas never had the field, so 2026-11-01 neither takes nor shows it.
    { schema: 'Appointment', at: '/properties/practitioner_id', didNotExist: true },
    // …nor listed it as required.
    {
      schema: 'Appointment',
      at: '/required',
      was: [
        'id',
        'object',
        'livemode',
        'created',
        'updated',
        'patient',
        'practitioner',
        'status',
        'start',
        'end',
        'appointment_type',
        'reason',
        'location',
        'cancellation_reason',
        'cancelled_at',
        'metadata',
      ],
    },
    { schema: 'AppointmentCreateParams', at: '/properties/practitioner_id', didNotExist: true },
    { examples: exampleTimesDown },
  ],
  requests: {
    createAppointment: bodyTimesUp,
    updateAppointment: bodyTimesUp,
  },
  objects: { appointment: (appointment) => withoutPractitionerId(timesDown(appointment)) },
  events: {
    'appointment.updated': eventTimesDown,
    'appointment.cancelled': eventTimesDown,
  },
});
