import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'object-fields-required';

/** A document whose `Thing` schema is the "thing" object with `required` as given. */
const given = (required: string[], extra: Doc = {}): Doc =>
  openapi(
    {},
    {
      schemas: {
        Thing: {
          type: 'object',
          required,
          properties: {
            id: { type: 'string' },
            object: { type: 'string', enum: ['thing'] },
            nickname: { type: 'string', nullable: true },
          },
        },
        ...extra,
      },
    },
  );

describe(`patient-care/${rule}`, () => {
  it('passes an object whose every property is required', async () => {
    expect(await lintWithRule(rule, given(['id', 'object', 'nickname']))).toEqual([]);
  });

  it('refuses an optional property of an object, naming the house rule and the fix', async () => {
    const got = await lintWithRule(rule, given(['id', 'object']));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(
      /^#\/components\/schemas\/Thing\/properties\/nickname: Property "nickname" of Thing \(the "thing" object\) is optional/,
    );
    expect(got[0]).toContain('house rule "every field present, unset ones null"');
    expect(got[0]).toContain('Add "nickname" to the schema\'s required list');
  });

  it('lets through the exceptions redocly.yaml lists in allowAbsent, and only those', async () => {
    const document = given(['id', 'object']);
    expect(await lintWithRule(rule, document, { allowAbsent: ['Thing.nickname'] })).toEqual([]);
    expect(await lintWithRule(rule, document, { allowAbsent: ['Other.nickname'] })).toHaveLength(1);
  });

  it('does not judge lists, request bodies and other schemas without one object type', async () => {
    const extra = {
      ThingList: {
        type: 'object',
        properties: { object: { type: 'string', enum: ['list'] }, url: { type: 'string' } },
      },
      ThingCreateParams: { type: 'object', properties: { nickname: { type: 'string' } } },
    };
    expect(await lintWithRule(rule, given(['id', 'object', 'nickname'], extra))).toEqual([]);
  });

  it('follows a $ref to the object schema and its object property', async () => {
    const document = given(['id', 'object']);
    const schemas = (document.components as { schemas: Record<string, Doc> }).schemas;
    const thing = schemas.Thing as { properties: Doc };
    schemas.ThingType = { type: 'string', enum: ['thing'] };
    thing.properties.object = { $ref: '#/components/schemas/ThingType' };
    expect(await lintWithRule(rule, document)).toHaveLength(1);
  });
});
