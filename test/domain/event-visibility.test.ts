import { describe, expect, it } from 'vitest';
import { componentSchemas, routes } from '../../generated/routes.js';
import {
  canReadEventFamily,
  EVENT_FAMILY_SCOPES,
  eventFamily,
  readableEventFamilies,
} from '../../server/domain/event-visibility.js';

describe('event visibility', () => {
  it("gives each family the scope of its object's retrieve operation in the spec", () => {
    const retrieveOf = {
      patient: 'retrievePatient',
      practitioner: 'retrievePractitioner',
      appointment: 'retrieveAppointment',
      claim: 'retrieveClaim',
      webhook: 'retrieveWebhook',
    } as const;
    for (const [family, operationId] of Object.entries(retrieveOf)) {
      const route = routes.find((r) => r.operationId === operationId);
      expect(route?.scopes).toEqual([
        EVENT_FAMILY_SCOPES[family as keyof typeof EVENT_FAMILY_SCOPES],
      ]);
    }
    expect(Object.keys(EVENT_FAMILY_SCOPES).sort()).toEqual(Object.keys(retrieveOf).sort());
  });

  it('covers every event type of the spec', () => {
    const schema = componentSchemas.find((s) => String(s.$id).endsWith(':EventType'));
    const types = schema?.enum as string[];
    expect(types.length).toBeGreaterThan(0);
    for (const type of types) expect(Object.keys(EVENT_FAMILY_SCOPES)).toContain(eventFamily(type));
  });

  it('secret keys read all; restricted keys by scope (write implies read); ephemeral none', () => {
    expect(readableEventFamilies({ kind: 'secret', scopes: [] })).toBe('all');
    expect(readableEventFamilies({ kind: 'restricted', scopes: ['events:read'] })).toEqual([]);
    expect(
      readableEventFamilies({ kind: 'restricted', scopes: ['events:read', 'billing:write'] }),
    ).toEqual(['claim']);
    expect(canReadEventFamily({ kind: 'ephemeral', scopes: ['patients:read'] }, 'patient')).toBe(
      false,
    );
    expect(canReadEventFamily({ kind: 'restricted', scopes: ['patients:read'] }, 'unknown')).toBe(
      false,
    );
    expect(canReadEventFamily({ kind: 'secret', scopes: [] }, 'unknown')).toBe(true);
  });
});
