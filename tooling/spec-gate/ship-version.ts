/**
 * `npm run spec:version -- <date>` (docs/design.md#versioning): ships the breaking changes the
 * gate finds between the latest released contract and the working spec as a new dated version.
 * It writes `spec/versions/<date>.ts` from the plan (`version-plan.ts`: request-side changes as
 * document edits only; response, event and webhook changes as the same edits plus `todo`
 * converter stubs the gate refuses until written), registers it in `spec/versions/index.ts`,
 * sets `info.version`, opens the `spec/CHANGELOG.md` section with the module's bullets, and
 * moves every prose mention of the current version (`current-version.ts`), with the text edits
 * that give the older documents their own wording back.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../../contract/version-change.js';
import { deriveDocument } from '../../server/versioning/derive.js';
import { createRegistry } from '../../server/versioning/registry.js';
import type { Change } from '../breaking/types.js';
import { isDatedVersion } from './changelog.js';
import { mentionFiles, moveMentions } from './current-version.js';
import { worktreeReader } from './git-base.js';
import { loadSpec } from './load-spec.js';
import { readReleased, releasedVersions } from './released.js';
import { loadVersionChanges, VERSIONS_INDEX } from './version-coverage.js';
import { type PlannedEdit, planVersion, type VersionPlan } from './version-plan.js';

export interface ShipResult {
  /** The release the changes were measured against. */
  since: string;
  plan: VersionPlan;
  /** Repository-relative files written. */
  written: string[];
  /** What the owner still has to write (the module's TODOs). */
  todos: string[];
}

/**
 * Text edits of the newer string `now` that read `was` before, one per run of differing lines:
 * whole lines, which a person can read and the older text holds once.
 */
function textEdits(now: string, was: string): { textNow: string; textWas: string }[] {
  const a = now.split('\n');
  const b = was.split('\n');
  const edits: { textNow: string; textWas: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    // The nearest pair of equal lines after the difference ends the run.
    let best: [number, number] = [a.length, b.length];
    for (let k = i; k <= a.length && k - i < best[0] - i + best[1] - j; k += 1) {
      for (let l = j; l < b.length && k - i + l - j < best[0] - i + best[1] - j; l += 1) {
        if (a[k] === b[l]) best = [k, l];
      }
    }
    edits.push({
      textNow: a.slice(i, best[0]).join('\n'),
      textWas: b.slice(j, best[1]).join('\n'),
    });
    [i, j] = best;
  }
  return edits.filter((edit) => edit.textNow !== '');
}

const code = (value: unknown) => JSON.stringify(value, null, 2);

function editCode(edit: PlannedEdit): string {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(edit.target)) fields.push(`${key}: ${code(value)}`);
  if (edit.at !== undefined) fields.push(`at: ${code(edit.at)}`);
  fields.push(edit.didNotExist ? 'didNotExist: true' : `was: ${code(edit.was ?? null)}`);
  return `{ ${fields.join(', ')} }`;
}

function bullet(change: Change, since: string): string {
  const ops = change.operations ?? (change.operation ? [change.operation] : []);
  const reach = ops.length === 0 ? '' : ` (${ops.join(', ')})`;
  return `Breaking: \`${change.pointer}\`: ${change.message}${reach}. Clients pinned to ${since} keep the previous contract.`;
}

/** The module's text. */
function moduleText(input: {
  date: string;
  since: string;
  description: string;
  changelog: string[];
  edits: string[];
  plan: VersionPlan;
}): string {
  const { date, since, plan } = input;
  const group = (name: 'objects' | 'events') =>
    `{${plan.converters
      .filter((c) => c.group === name)
      .map((c) => `\n    ${code(c.name)}: todo(${code(`down to ${since}: ${c.note}`)}),`)
      .join('')}\n  }`;
  const errors = plan.converters.find((c) => c.group === 'errors');
  const usesTodo = plan.converters.length > 0;
  return `/**
 * ${date}: written by \`npm run spec:version -- ${date}\` from the breaking
 * changes against the released ${since} (spec/released/${since}.json). The document
 * edits say what ${since}'s document had; a \`todo\` converter passes values through
 * until it is written, and the gate fails while one is left.
 */
import { defineVersion${usesTodo ? ', todo' : ''} } from '../../contract/version-change.js';

export const change = defineVersion({
  date: ${code(date)},
  description: ${code(input.description)},
  changelog: ${code(input.changelog)},
  document: [${input.edits.map((edit) => `\n    ${edit},`).join('')}\n  ],
  requests: {},
  objects: ${group('objects')},
  events: ${group('events')},${errors === undefined ? '' : `\n  errors: todo(${code(`down to ${since}: ${errors.note}`)}),`}${
    plan.manual.length === 0 ? '' : `\n  todo: ${code(plan.manual)},`
  }
});
`;
}

/** The module in the repository's own format, when its formatter is installed (it is in development). */
function formatModule(root: string, file: string): void {
  const biome = join(root, 'node_modules/.bin/biome');
  if (!existsSync(biome)) return;
  spawnSync(biome, ['format', '--write', file], { cwd: root, stdio: 'ignore' });
}

/** `spec/versions/index.ts` with `date`'s module imported and listed (by date). */
function registerModule(text: string, date: string): string {
  const name = `v${date.replaceAll('-', '_')}`;
  const imports = [...text.matchAll(/^import \{ change as (v[\d_]+) \} from '\.\/[\d-]+\.js';$/gm)];
  const last = imports.at(-1);
  if (last === undefined || !/export const versionChanges = \[[^\]]*\];/.test(text))
    throw new Error(`${VERSIONS_INDEX}: cannot find the module imports and the list`);
  const at = (last.index ?? 0) + last[0].length;
  const withImport = `${text.slice(0, at)}\nimport { change as ${name} } from './${date}.js';${text.slice(at)}`;
  return withImport.replace(
    /export const versionChanges = \[([^\]]*)\];/,
    (_whole, list: string) =>
      `export const versionChanges = [${[...list.split(',').map((s) => s.trim()), name]
        .filter((s) => s !== '')
        .join(', ')}];`,
  );
}

/**
 * Writes the version `date` in the repository at `root`.
 * @throws Error with a one-line reason (nothing written) when the date is not newer than every
 *   module, the latest module is not released yet, or nothing is breaking.
 */
export async function shipVersion(
  root: string,
  date: string,
  spec = 'spec/openapi.yaml',
): Promise<ShipResult> {
  if (!isDatedVersion(date)) throw new Error(`${date} is not a version date (YYYY-MM-DD)`);
  const modules = await loadVersionChanges(root);
  if (modules === undefined) throw new Error(`${VERSIONS_INDEX} not found`);
  const registry = createRegistry(modules);
  if (date <= registry.latest)
    throw new Error(`${date} is not after the newest version, ${registry.latest}`);
  const since = releasedVersions(root).at(-1);
  if (since === undefined)
    throw new Error('no released contract in spec/released/ to compare with');
  if (since !== registry.latest)
    throw new Error(
      `${registry.latest} is not released yet: changes go into spec/versions/${registry.latest}.ts until npm run spec:release -- ${registry.latest}`,
    );
  const head = await loadSpec(spec, { root, read: worktreeReader(root) });
  const derived = deriveDocument(head.document, registry, since);
  const plan = planVersion(readReleased(root, since), derived as never);
  if (plan.changes.length === 0)
    throw new Error(
      `nothing breaking against the released ${since}: additive changes need no new version`,
    );

  const description = `Breaking changes since ${since}: ${plan.changes
    .map((c) => `\`${c.pointer}\` (${c.message.split(':')[0]})`)
    .join('; ')}.`;
  const row = description.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const changelog = plan.changes.map((c) => bullet(c, since));

  // The prose of the bundled document that names the current version, and what it said.
  const edits = plan.edits.map(editCode);
  const bundled = head.document as JsonObject;
  const info = bundled.info as JsonObject | undefined;
  const proseEdits: string[] = [];
  const prose: [string, unknown][] = [['info: true', info?.description]];
  for (const tag of Array.isArray(bundled.tags) ? (bundled.tags as JsonObject[]) : [])
    if (typeof tag.name === 'string') prose.push([`tag: ${code(tag.name)}`, tag.description]);
  for (const [target, text] of prose) {
    if (typeof text !== 'string') continue;
    for (const edit of textEdits(moveMentions(text, since, date, row), text))
      proseEdits.push(
        `{ ${target}, at: '/description', textNow: ${code(edit.textNow)}, textWas: ${code(edit.textWas)} }`,
      );
  }

  const written: string[] = [];
  const write = (file: string, text: string) => {
    writeFileSync(join(root, file), text);
    written.push(file);
  };
  const moduleFile = `spec/versions/${date}.ts`;
  if (existsSync(join(root, moduleFile))) throw new Error(`${moduleFile} exists already`);
  write(
    moduleFile,
    moduleText({ date, since, description, changelog, edits: [...edits, ...proseEdits], plan }),
  );
  formatModule(root, moduleFile);
  write(VERSIONS_INDEX, registerModule(readFileSync(join(root, VERSIONS_INDEX), 'utf8'), date));

  const specText = readFileSync(join(root, spec), 'utf8');
  const versioned = specText.replace(
    /^(info:\n(?:[ \t]+.*\n)*?[ \t]+version:[ \t]*)(['"]?)[^'"\n]*\2[ \t]*$/m,
    (_whole, lead: string, quote: string) => `${lead}${quote}${date}${quote}`,
  );
  if (versioned === specText) throw new Error(`${spec}: cannot find info.version`);
  write(spec, versioned);

  const changelogFile = 'spec/CHANGELOG.md';
  const changelogText = readFileSync(join(root, changelogFile), 'utf8');
  const section = [`## ${date}`, '', ...changelog.map((line) => `- ${line}`), '', ''].join('\n');
  const first = changelogText.search(/^## \d{4}-\d{2}-\d{2}\s*$/m);
  write(
    changelogFile,
    first < 0
      ? `${changelogText.trimEnd()}\n\n${section}`
      : `${changelogText.slice(0, first)}${section}${changelogText.slice(first)}`,
  );

  for (const file of mentionFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const moved = moveMentions(text, since, date, row);
    if (moved !== text && !written.includes(file)) write(file, moved);
    else if (moved !== text) writeFileSync(join(root, file), moved);
  }
  const todos = [
    ...plan.converters.map((c) => `${c.group}${c.name === '' ? '' : `.${c.name}`}: ${c.note}`),
    ...plan.manual,
  ];
  return { since, plan, written, todos };
}
