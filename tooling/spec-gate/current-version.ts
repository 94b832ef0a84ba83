/**
 * "The current version" in prose has one source, `info.version`: wherever the README, the spec's
 * own descriptions or a guide names the current version by date (`the current version is
 * \`2026-12-01\``, `the current one is …`, `` `2026-12-01` (current) ``), the gate checks the
 * date is `info.version`, and `npm run spec:version` rewrites each mention when it moves it.
 * Examples that pin a date (`PatientCare-Version: 2026-12-01`) are not mentions: an older
 * supported date stays a valid example.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The files whose prose may name the current version, repository-relative. */
export function mentionFiles(root: string): string[] {
  const guides = join(root, 'spec/guides');
  return [
    'README.md',
    'spec/openapi.yaml',
    ...(existsSync(guides)
      ? readdirSync(guides)
          .filter((name) => name.endsWith('.md'))
          .sort()
          .map((name) => `spec/guides/${name}`)
      : []),
  ].filter((file) => existsSync(join(root, file)));
}

const DATE = String.raw`(\d{4}-\d{2}-\d{2})`;
const TICK = '`';
/** `current version is `D``, `current one is `D``, `current version, `D`` (across a line break). */
const CURRENT_BEFORE = new RegExp(
  String.raw`\bcurrent(?:\s+(?:version|one))?(?:\s+is|,)?\s+${TICK}${DATE}${TICK}`,
  'g',
);
/** `` `D` (current) `` (a table row of the versioning guide). */
const CURRENT_AFTER = new RegExp(String.raw`${TICK}${DATE}${TICK}\s+\(current\)`, 'g');

export interface Mention {
  /** Repository-relative file. */
  file: string;
  line: number;
  date: string;
  /** The matched text. */
  text: string;
  /** Where the match starts in the text searched. */
  index: number;
}

/** Every mention of a current version in `text`. */
export function mentionsIn(text: string, file = ''): Mention[] {
  const found: Mention[] = [];
  for (const pattern of [CURRENT_BEFORE, CURRENT_AFTER]) {
    for (const match of text.matchAll(pattern)) {
      const index = match.index ?? 0;
      found.push({
        file,
        line: text.slice(0, index).split('\n').length,
        date: match[1] ?? '',
        text: match[0],
        index,
      });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

/** One line per mention whose date is not `current`; empty when the prose agrees. */
export function staleMentions(root: string, current: string): string[] {
  const stale: string[] = [];
  for (const file of mentionFiles(root)) {
    for (const mention of mentionsIn(readFileSync(join(root, file), 'utf8'), file)) {
      if (mention.date !== current)
        stale.push(
          `${file}:${mention.line}: names ${mention.date} as the current version, but info.version is ${current} (npm run spec:version rewrites these mentions)`,
        );
    }
  }
  return stale;
}

/**
 * `text` with every mention of `from` as the current version naming `to`. A guide's version
 * table (`` | `from` (current) | … | ``) keeps its row for `from`, unmarked, under a new row
 * for `to` described by `row`.
 */
export function moveMentions(text: string, from: string, to: string, row: string): string {
  let out = text.replace(CURRENT_BEFORE, (whole, date: string) =>
    date === from ? whole.replace(`\`${from}\``, `\`${to}\``) : whole,
  );
  out = out.replace(
    new RegExp(String.raw`^(\|\s*)${TICK}${from}${TICK}\s+\(current\)`, 'gm'),
    (_whole, lead: string) => `${lead}\`${to}\` (current) | ${row} |\n${lead}\`${from}\``,
  );
  return out.replace(CURRENT_AFTER, (whole, date: string) =>
    date === from ? whole.replace(`\`${from}\``, `\`${to}\``) : whole,
  );
}
