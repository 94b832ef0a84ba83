/**
 * The `Prefer` request header (RFC 7240 §2):
 *
 *   Prefer     = 1#preference
 *   preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] )
 *   parameter  = token [ BWS "=" BWS word ]
 *   word       = token / quoted-string
 *
 * No runtime dependency parses it (`structured-headers` is RFC 8941, another grammar, which
 * refuses `handling=strict` with `;` parameters written the RFC 7240 way), so this is a small
 * one. Its rules, from §2: preference and parameter names compare case-insensitively, values
 * case-sensitively, quoted or not (`handling="strict"` is `handling=strict`; `handling=STRICT`
 * is a value this server does not know); an empty value is no value; a preference given twice
 * counts the first time only; a `;` parameter belongs to its preference and is never one
 * itself. Several `Prefer` fields are one comma-separated list. A preference that breaks the
 * grammar (an unclosed quote, a stray character) is skipped as a whole, as a preference the
 * server does not understand is: it is a hint, never a reason to refuse the request.
 * One pass over the text: the header is bounded by Node's header limit, never quadratic.
 */

/** One preference: its value (unquoted; undefined when none or empty) and its parameters. */
export interface Preference {
  readonly value: string | undefined;
  /** By lower-cased name; the first of a name counts. */
  readonly parameters: ReadonlyMap<string, string | undefined>;
}

/** tchar (RFC 9110 §5.6.2). */
function isTokenChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || // 0-9
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    "!#$%&'*+-.^_`|~".includes(String.fromCharCode(code))
  );
}

/** A cursor over the header text; each reader advances `at` past what it read. */
class Reader {
  at = 0;
  constructor(readonly text: string) {}

  done(): boolean {
    return this.at >= this.text.length;
  }

  peek(): string {
    return this.text[this.at] ?? '';
  }

  /** OWS / BWS: spaces and horizontal tabs. */
  skipSpace(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.at++;
  }

  /** A token, or '' when none starts here. */
  token(): string {
    const start = this.at;
    while (this.at < this.text.length && isTokenChar(this.text.charCodeAt(this.at))) this.at++;
    return this.text.slice(start, this.at);
  }

  /** A quoted-string's content with its quoted-pairs undone; undefined when it never closes. */
  quoted(): string | undefined {
    let out = '';
    this.at++; // the opening quote
    while (this.at < this.text.length) {
      const char = this.text[this.at++];
      if (char === '"') return out;
      if (char === '\\') {
        if (this.at >= this.text.length) return undefined;
        out += this.text[this.at++];
      } else out += char;
    }
    return undefined;
  }

  /** `[ BWS "=" BWS word ]`: the value ('' is none); null when the grammar breaks. */
  optionalValue(): string | undefined | null {
    const before = this.at;
    this.skipSpace();
    if (this.peek() !== '=') {
      this.at = before;
      return undefined;
    }
    this.at++;
    this.skipSpace();
    const value = this.peek() === '"' ? this.quoted() : this.token();
    if (value === undefined) return null;
    return value === '' ? undefined : value;
  }

  /** Moves past the next comma outside a quoted-string (or to the end): a broken element. */
  skipElement(): void {
    let quoted = false;
    while (this.at < this.text.length) {
      const char = this.text[this.at++];
      if (quoted && char === '\\') this.at++;
      else if (char === '"') quoted = !quoted;
      else if (char === ',' && !quoted) return;
    }
  }
}

/** One preference at the cursor, or null when it breaks the grammar (the cursor then stops anywhere). */
function readPreference(reader: Reader): { name: string; preference: Preference } | null {
  const name = reader.token().toLowerCase();
  if (name === '') return null;
  const value = reader.optionalValue();
  if (value === null) return null;
  const parameters = new Map<string, string | undefined>();
  for (;;) {
    reader.skipSpace();
    if (reader.peek() !== ';') break;
    reader.at++;
    reader.skipSpace();
    // `;` may be followed by nothing (`a=1;`, `a=1; , b`).
    if (reader.done() || reader.peek() === ',' || reader.peek() === ';') continue;
    const parameter = reader.token().toLowerCase();
    if (parameter === '') return null;
    const parameterValue = reader.optionalValue();
    if (parameterValue === null) return null;
    if (!parameters.has(parameter)) parameters.set(parameter, parameterValue);
  }
  reader.skipSpace();
  if (!reader.done() && reader.peek() !== ',') return null;
  return { name, preference: { value, parameters } };
}

/**
 * The preferences of `Prefer` field values, by lower-cased name, the first of each name.
 *
 * @example parsePrefer('return=minimal, Handling="strict"').get('handling')?.value // 'strict'
 */
export function parsePrefer(
  header: string | readonly string[] | undefined,
): Map<string, Preference> {
  const preferences = new Map<string, Preference>();
  if (header === undefined) return preferences;
  const reader = new Reader(typeof header === 'string' ? header : header.join(','));
  while (!reader.done()) {
    // Empty list elements are allowed (`, ,a`), with any whitespace around them.
    reader.skipSpace();
    if (reader.peek() === ',') {
      reader.at++;
      continue;
    }
    if (reader.done()) break;
    const start = reader.at;
    const read = readPreference(reader);
    if (read === null) {
      reader.at = start;
      reader.skipElement();
      continue;
    }
    if (!preferences.has(read.name)) preferences.set(read.name, read.preference);
    reader.at++; // the comma, or past the end
  }
  return preferences;
}

/** The value of preference `name` (lower case), or undefined when it is absent or has none. */
export function preferenceValue(
  header: string | readonly string[] | undefined,
  name: string,
): string | undefined {
  // The header is rare on the hot path; without it nothing is parsed.
  if (header === undefined || header === '') return undefined;
  return parsePrefer(header).get(name)?.value;
}
