/**
 * Request bodies broken below the schema: malformed JSON, bytes that are not UTF-8 (Latin-1,
 * overlong forms, encoded surrogates, truncated sequences), the wrong
 * content type or a charset other than UTF-8, an empty body, JSON nested deeper than any
 * schema, a `__proto__` key, and a body over the 1 MiB limit. None may be accepted.
 *
 * And `hostileTexts`: JSON texts that are odd but may be valid — duplicate keys (the last
 * wins), `-0`, `__proto__` inside a map, an escaped lone surrogate, a leading byte-order
 * mark (ignored, as RFC 8259 permits) — which the caller judges with the oracle after
 * parsing (`parseJsonText`), as the service must.
 */
import fc from 'fast-check';
import type { CaseBody } from './case-types.js';

/** A broken body: what to send, its content type (null: none), and whether Prism may see it. */
export interface RawBody {
  body: CaseBody;
  contentType: string | null;
  why: string;
  bypassPrism: boolean;
}

const MALFORMED = [
  '{',
  '{"name":',
  '{"a":1,}',
  "{'a':1}",
  '[1,2',
  'NaN',
  '{"a":1}garbage',
  '{"a":1e999999}',
  '\u0000',
  '{"a":"\\uZZZZ"}',
];

/** Broken bodies for an operation whose valid JSON body text is `validText`. */
export function rawBodies(validText: fc.Arbitrary<string>): fc.Arbitrary<RawBody> {
  const malformed = fc.constantFrom(...MALFORMED).map(
    (text): RawBody => ({
      body: { raw: text },
      contentType: 'application/json',
      why: `malformed JSON ${JSON.stringify(text)}`,
      bypassPrism: true,
    }),
  );
  const notUtf8 = fc
    .tuple(validText, fc.constantFrom(...NOT_UTF8))
    .map(([text, [what, bytes]]): RawBody => {
      // Inside the first string value, so only the encoding is wrong.
      const at = text.indexOf(':"');
      const cut = at === -1 ? 1 : at + 2;
      return {
        body: {
          raw: Buffer.concat([
            Buffer.from(text.slice(0, cut)),
            Buffer.from(bytes),
            Buffer.from(text.slice(cut)),
          ]),
        },
        contentType: 'application/json',
        why: `body bytes that are not UTF-8: ${what}`,
        bypassPrism: true,
      };
    });

  const wrongType = fc
    .tuple(
      validText,
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        'application/json; charset=utf-16',
        'application/json; charset=iso-8859-1',
        'application/json; charset=windows-1252',
        'application/json; charset=nonsense',
        null,
      ),
    )
    .map(
      ([text, contentType]): RawBody => ({
        body: { raw: text },
        contentType,
        why: `content type ${contentType ?? '(none)'}`,
        // Straight to the service: these charsets are new to the run, and in the first full run
        // Prism's log missed a few requests (a verdict needs the request's log line).
        bypassPrism: contentType?.includes('charset=') ?? false,
      }),
    );
  const shapes = fc.constantFrom<RawBody>(
    {
      body: { raw: '' },
      contentType: 'application/json',
      why: 'empty body',
      bypassPrism: true,
    },
    {
      body: { raw: `${'['.repeat(5000)}${']'.repeat(5000)}` },
      contentType: 'application/json',
      why: 'arrays nested 5000 deep',
      bypassPrism: true,
    },
    {
      body: { raw: '{"__proto__":{"admin":true}}' },
      contentType: 'application/json',
      why: '__proto__ key',
      bypassPrism: true,
    },
  );
  const huge = validText.map(
    (text): RawBody => ({
      // Whitespace is valid JSON: only the size is wrong.
      body: { raw: `${' '.repeat(1024 * 1024 + 16)}${text}` },
      contentType: 'application/json',
      why: 'valid JSON padded past the 1 MiB body limit',
      bypassPrism: true,
    }),
  );
  return fc.oneof(malformed, notUtf8, wrongType, shapes, huge);
}

/** Byte sequences that are not UTF-8, each named. */
const NOT_UTF8: readonly (readonly [string, readonly number[]])[] = [
  ['Latin-1 é', [0xe9]],
  ['overlong "/"', [0xc0, 0xaf]],
  ['overlong NUL', [0xc0, 0x80]],
  ['a surrogate encoded as bytes', [0xed, 0xa0, 0x80]],
  ['a truncated sequence', [0xe2, 0x82]],
  ['0xFF', [0xff, 0xfe]],
  ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
];

/** An odd JSON text; whether it is valid is for the caller's oracle to say after parsing. */
export interface HostileText {
  text: string;
  why: string;
}

/** The kinds of odd text `hostileText` makes. */
export const HOSTILE_TEXT_KINDS = [
  'duplicate',
  'minus-zero',
  'proto-in-map',
  'lone-escape',
  'byte-order-mark',
] as const;

/** A JSON text as the spec reads it: a leading byte-order mark is ignored. */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text.startsWith('\ufeff') ? text.slice(1) : text);
}

/** An odd JSON text of `kind` made from the valid `text` (see the module comment). */
export function hostileText(text: string, kind: (typeof HOSTILE_TEXT_KINDS)[number]): HostileText {
  switch (kind) {
    case 'duplicate': {
      // The first key once more, before the real one, with another value.
      const key = /^\{("(?:[^"\\]|\\.)*"):/.exec(text)?.[1];
      return key === undefined
        ? { text, why: 'valid text (no key to duplicate)' }
        : { text: `{${key}:"duplicate",${text.slice(1)}`, why: `duplicate key ${key}` };
    }
    case 'minus-zero': {
      // Only a 0 becomes -0: the text then means the same data, so the schema's verdict on it
      // stands. Any other integer turned into -0 could break a rule between fields (an
      // appointment's `end` after its `start`) that the schema alone cannot judge, so the case's
      // verdict would be a guess (a full run found exactly that: `end` -0 before a `start`).
      const replaced = text.replace(/:0([,}\]])/, ':-0$1');
      return { text: replaced, why: replaced === text ? 'valid text (no zero)' : '-0 for 0' };
    }
    case 'proto-in-map': {
      const replaced = text.replace(/"metadata":\{(\}?)/, (_m, close: string) =>
        close === '}' ? '"metadata":{"__proto__":"x"}' : '"metadata":{"__proto__":"x",',
      );
      return {
        text: replaced,
        why: replaced === text ? 'valid text (no map)' : '__proto__ key in metadata',
      };
    }
    case 'byte-order-mark':
      return { text: `\ufeff${text}`, why: 'a leading byte-order mark' };
    default: {
      const at = text.indexOf(':"');
      return at === -1
        ? { text, why: 'valid text (no string)' }
        : {
            text: `${text.slice(0, at + 2)}\\ud800${text.slice(at + 2)}`,
            why: 'escaped lone surrogate \\ud800',
          };
    }
  }
}
