/**
 * Naming an operation: the one rule every consumer uses (route table, handler map, client
 * methods, the spec gate's reports), so an operation without an `operationId` has the same name
 * everywhere.
 */

/**
 * `repos/list-for-org` → `reposListForOrg`, `GetCustomers` → `getCustomers`, `HTTPGet` →
 * `httpGet`; empty when nothing identifier-like is left. A leading digit gets an `op` prefix.
 */
export function camelCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words
    .map((word, i) => {
      if (i > 0) return word[0]?.toUpperCase() + word.slice(1);
      const lead = /^[A-Z]+(?=[A-Z][a-z]|$|\d)/.exec(word)?.[0] ?? word[0] ?? '';
      return lead.toLowerCase() + word.slice(lead.length);
    })
    .join('');
  return /^\d/.test(name) ? `op${name}` : name;
}

/**
 * The id of an operation the spec left unnamed: method, then the path's segments, a template
 * segment read as `by-<name>` so `/patients/{id}` and `/patients/id` stay apart.
 *
 * @example derivedOperationId('get', '/v1/patients/{id}') // 'getV1PatientsById'
 */
export function derivedOperationId(method: string, path: string): string {
  const words = [method.toLowerCase()];
  for (const segment of path.split('/')) {
    const param = /^\{(.+)\}$/.exec(segment);
    words.push(param ? `by-${param[1]}` : segment);
  }
  return camelCase(words.join('-'));
}

/**
 * Gives every wanted name a unique one that is not in `reserved`: names wanted once keep it;
 * clashing ones get `2`, `3`, … in claiming order, skipping names already taken.
 *
 * @example uniqueNames(['a', 'a', 'b']) // ['a', 'a2', 'b']
 */
export function uniqueNames(
  wanted: readonly string[],
  reserved: ReadonlySet<string> = new Set(),
): string[] {
  const counts = new Map<string, number>();
  for (const name of wanted) counts.set(name, (counts.get(name) ?? 0) + 1);
  const free = (name: string) => counts.get(name) === 1 && !reserved.has(name);
  const taken = new Set(wanted.filter(free));
  return wanted.map((name) => {
    if (free(name)) return name;
    if (!reserved.has(name) && !taken.has(name)) {
      taken.add(name);
      return name;
    }
    let n = 2;
    while (taken.has(`${name}${n}`)) n++;
    taken.add(`${name}${n}`);
    return `${name}${n}`;
  });
}
