/**
 * The fuzzer's hostile-input parts, without a service: valid text full of characters that
 * break naive code, broken values the spec refuses whatever the schema (NUL, lone surrogates,
 * inexact integers, 64 KiB), odd raw bodies, the oracle's text rules and strict reading of
 * parameters, and the comparison of two databases' answers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { componentSchemas, routes } from '../../generated/versions/2026-11-01/routes.js';
import { comparable, firstDifference, timestampProperties } from '../../tooling/fuzz/compare.js';
import {
  HOSTILE_TEXT_KINDS,
  hostileText,
  parseJsonText,
  rawBodies,
} from '../../tooling/fuzz/raw-bodies.js';
import { arbitraryFor, HOSTILE_VALID_CHARACTERS } from '../../tooling/fuzz/schema-arbitrary.js';
import { brokenArbitrary } from '../../tooling/fuzz/schema-mutations.js';
import { SchemaRegistry } from '../../tooling/fuzz/schema-registry.js';
import { textRulesHold } from '../../tooling/fuzz/text-values.js';

const registry = new SchemaRegistry(Object.values(componentSchemas));
const body = (operationId: string) =>
  routes.find((r) => r.operationId === operationId)!.schemas.body!;
const query = (operationId: string) =>
  routes.find((r) => r.operationId === operationId)!.schemas.querystring!;

describe('hostile valid text', () => {
  const strings = fc.sample(
    arbitraryFor({ type: 'string', maxLength: 60 }, registry) as fc.Arbitrary<string>,
    {
      seed: 11,
      numRuns: 400,
    },
  );

  it('includes RTL overrides and control characters, never NUL, always Unicode text', () => {
    const joined = strings.join('');
    expect(joined).toContain('\u202e');
    expect(HOSTILE_VALID_CHARACTERS.filter((c) => joined.includes(c)).length).toBeGreaterThan(10);
    for (const s of strings) {
      expect(s.includes('\u0000')).toBe(false);
      expect(s.isWellFormed()).toBe(true);
    }
  });
});

describe('broken values the spec refuses whatever the schema', () => {
  it.each([
    ['createPatient', ['a NUL', 'lone high surrogate', 'lone low surrogate', '64 KiB string']],
    [
      'createAppointment',
      ['not an exact integer: 9007199254740992', 'not an exact integer: 1e+308'],
    ],
  ])('%s: %j', (operationId, kinds) => {
    const schema = body(operationId);
    const valid = arbitraryFor(schema, registry).filter((v) => registry.valid(schema, v));
    const broken = fc.sample(brokenArbitrary(schema, valid, registry), { seed: 5, numRuns: 300 });
    const whys = broken.map((b) => b.why).join('\n');
    for (const kind of kinds) expect(whys).toContain(kind);
    for (const b of broken) expect(registry.valid(schema, b.value), b.why).toBe(false);
  });
});

describe('raw bodies', () => {
  const raws = fc.sample(rawBodies(fc.constant('{"name":{"family":"A"}}')), {
    seed: 2,
    numRuns: 400,
  });

  it('send bytes a fatal UTF-8 decoder refuses, and charsets other than UTF-8', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    const notUtf8 = raws.filter((r) => r.why.startsWith('body bytes that are not UTF-8'));
    expect(new Set(notUtf8.map((r) => r.why)).size).toBeGreaterThanOrEqual(5);
    for (const r of notUtf8) expect(() => fatal.decode(r.body as never as Buffer)).toThrow();
    const charsets = raws.filter((r) => /charset=(?!utf-8)/.test(r.contentType ?? ''));
    expect(charsets.length).toBeGreaterThan(0);
  });

  it('odd texts parse, and the oracle judges them as the spec says', () => {
    const schema = body('createPatient');
    const text = '{"name":{"family":"A"},"metadata":{"k":"v"},"address":null}';
    const judged = Object.fromEntries(
      HOSTILE_TEXT_KINDS.map((kind) => {
        const odd = hostileText(text, kind);
        return [kind, registry.valid(schema, parseJsonText(odd.text))];
      }),
    );
    expect(judged).toEqual({
      duplicate: true, // the last `name` wins
      'minus-zero': true, // no integer in this body: unchanged
      'proto-in-map': false,
      'lone-escape': false,
      'byte-order-mark': true, // ignored, as RFC 8259 permits
    });
    expect(hostileText('{"limit":5,"n":0}', 'minus-zero').text).toBe('{"limit":5,"n":-0}');
    // Only a 0 becomes -0, so the text still means the data the rules were applied to.
    expect(hostileText('{"start":5,"end":9}', 'minus-zero').text).toBe('{"start":5,"end":9}');
  });
});

describe('oracle', () => {
  it('refuses NUL, lone surrogates, __proto__ keys and inexact integers', () => {
    expect(textRulesHold({ a: ['b', 1, 9007199254740991, 1.5, null] })).toBe(true);
    for (const bad of [
      'a\u0000',
      '\ud800',
      { 'k\u0000': 1 },
      JSON.parse('{"__proto__":1}'),
      2 ** 53,
      1e308,
    ]) {
      expect(textRulesHold([bad]), JSON.stringify(bad)).toBe(false);
    }
  });

  it('reads query integers strictly, as the spec says', () => {
    const schema = query('listPatients');
    expect(registry.validText(schema, { limit: '16' })).toBe(true);
    expect(registry.validText(schema, { created: { gt: '0' }, active: 'false' })).toBe(true);
    for (const limit of ['0x10', '1e1', ' 1', '+1', '01', '1.0', ['1']]) {
      expect(registry.validText(schema, { limit }), String(limit)).toBe(false);
    }
    expect(registry.validText(schema, { created: { gt: '9007199254740993' } })).toBe(false);
    expect(registry.validText(schema, { active: '1' })).toBe(false);
  });
});

describe('comparing two databases', () => {
  const times = timestampProperties(Object.values(componentSchemas));

  it('sets aside ids, timestamps and secrets, but keeps which id is which', () => {
    const a = comparable(
      200,
      '{"id":"pat_01M85T8XRMNW407Y6GR2QX7JWT","created":1,"next":"pat_01M85T8XRMNW407Y6GR2QX7JWT","secret":"whsec_abc"}',
      times,
    );
    const b = comparable(
      200,
      '{"id":"pat_01M85T8ZZZZZZZZZZZZZZZZZZZ","created":2,"next":"pat_01M85T8ZZZZZZZZZZZZZZZZZZZ","secret":"whsec_xyz"}',
      times,
    );
    expect(firstDifference(a.body, b.body)).toBeUndefined();
    const c = comparable(
      200,
      '{"id":"pat_01M85T8ZZZZZZZZZZZZZZZZZZZ","created":2,"next":"pat_01M85T8YYYYYYYYYYYYYYYYYYY","secret":"whsec_xyz"}',
      times,
    );
    expect(firstDifference(a.body, c.body)).toBe('/next: "pat_#1" vs "pat_#2"');
  });

  it('compares an error doc_url without the answering server’s address, but not its code', () => {
    const envelope = (origin: string, code: string) =>
      comparable(
        400,
        `{"error":{"code":"${code}","doc_url":"${origin}/docs/errors#${code}"}}`,
        times,
      ).body;
    const sqlite = envelope('http://127.0.0.1:40693', 'parameter_invalid');
    expect(
      firstDifference(sqlite, envelope('http://127.0.0.1:46025', 'parameter_invalid')),
    ).toBeUndefined();
    expect(firstDifference(sqlite, envelope('http://127.0.0.1:46025', 'parameter_missing'))).toBe(
      '/error/code: "parameter_invalid" vs "parameter_missing"',
    );
  });

  it('reports a different value, a missing field and a different status', () => {
    const base = comparable(200, '{"name":{"family":"A"},"limit":10}', times).body;
    expect(
      firstDifference(base, comparable(200, '{"name":{"family":"B"},"limit":10}', times).body),
    ).toBe('/name/family: "A" vs "B"');
    expect(firstDifference(base, comparable(200, '{"name":{"family":"A"}}', times).body)).toBe(
      '/limit: 10 vs undefined',
    );
    expect(comparable(500, '{}', times).status).not.toBe(comparable(200, '{}', times).status);
  });
});
