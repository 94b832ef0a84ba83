/**
 * Request bodies broken below the schema: malformed JSON, bytes that are not UTF-8, the wrong
 * content type, an empty body, JSON nested deeper than any schema, a `__proto__` key, and a
 * body over the 1 MiB limit. None may be accepted.
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
  const notUtf8 = fc.constant<RawBody>({
    body: { raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
    contentType: 'application/json',
    why: 'body bytes that are not UTF-8',
    bypassPrism: true,
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
        null,
      ),
    )
    .map(
      ([text, contentType]): RawBody => ({
        body: { raw: text },
        contentType,
        why: `content type ${contentType ?? '(none)'}`,
        bypassPrism: false,
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
