/**
 * The placeholders of a list of `count` values bound from `$first` on, for `IN (…)`: the one way
 * every query builds such a list. `count` must be at least 1 (`IN ()` is not SQL).
 * @example placeholderList(3) // '$1, $2, $3'; placeholderList(2, 4) // '$4, $5'
 */
export function placeholderList(count: number, first = 1): string {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`a placeholder list needs at least one value, got ${String(count)}`);
  }
  return Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ');
}

/**
 * `sql` with every `$n` moved up by `offset`, so several statements' parameter lists can be
 * concatenated into one statement's: how combined PostgreSQL statements number their
 * parts. Every `$` followed by digits is taken for a placeholder, so text whose literals could
 * hold one is not combined (callers check).
 * @example shiftPlaceholders('a = $1 AND b = $2', 2) // 'a = $3 AND b = $4'
 */
export function shiftPlaceholders(sql: string, offset: number): string {
  return offset === 0 ? sql : sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/** A `$n` statement rewritten for SQLite's anonymous `?` placeholders. */
export interface TranslatedSql {
  /** The SQL with every `$n` outside quotes and comments replaced by `?`. */
  sql: string;
  /** For each `?` in order, the zero-based index into the caller's params. */
  order: number[];
}

/**
 * Rewrites `$1..$n` to `?` and records which parameter each `?` takes, so one SQL text serves
 * both dialects and a parameter may appear several times. Quoted strings, quoted identifiers
 * and comments are copied untouched. Done once per distinct statement (callers cache it).
 * @example translatePlaceholders('SELECT $2, $1, $2') // { sql: 'SELECT ?, ?, ?', order: [1, 0, 1] }
 */
export function translatePlaceholders(input: string): TranslatedSql {
  const order: number[] = [];
  let out = '';
  let i = 0;
  while (i < input.length) {
    const ch = input.charAt(i);
    if (ch === "'" || ch === '"') {
      const end = closingQuote(input, i, ch);
      out += input.slice(i, end);
      i = end;
    } else if (ch === '-' && input[i + 1] === '-') {
      const nl = input.indexOf('\n', i);
      const end = nl === -1 ? input.length : nl;
      out += input.slice(i, end);
      i = end;
    } else if (ch === '/' && input[i + 1] === '*') {
      const close = input.indexOf('*/', i + 2);
      const end = close === -1 ? input.length : close + 2;
      out += input.slice(i, end);
      i = end;
    } else if (ch === '$' && isDigit(input[i + 1])) {
      let j = i + 1;
      while (isDigit(input[j])) j++;
      order.push(Number(input.slice(i + 1, j)) - 1);
      out += '?';
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  return { sql: out, order };
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

/** Index just past the quote that closes the one at `start` (a doubled quote escapes it). */
function closingQuote(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return text.length;
}
