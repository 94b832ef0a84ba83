/**
 * The check Medplum's validator leaves out: every coded value of an element whose binding is
 * `required` is in its value set (gender, statuses, outcome, currencies, …). The resource is
 * walked with the R4 StructureDefinitions, so every required binding it touches is checked,
 * not a list written by hand.
 */
import { inValueSet, type StructureDefinition, structureDefinitions } from './r4-definitions.js';

/** A value outside its required value set. */
export interface BindingProblem {
  path: string;
  code: string;
  valueSet: string;
}

/** What the walk found: the problems and every required binding it checked, by path. */
export interface BindingReport {
  problems: BindingProblem[];
  checked: string[];
}

type Json = unknown;

function elementAt(sd: StructureDefinition, basePath: string, key: string) {
  const exact = sd.snapshot.element.find((e) => e.path === `${basePath}.${key}`);
  if (exact !== undefined) return { element: exact, path: `${basePath}.${key}` };
  // Choice types: `diagnosisCodeableConcept` is `Claim.diagnosis.diagnosis[x]`.
  const choice = sd.snapshot.element.find(
    (e) =>
      e.path.endsWith('[x]') &&
      e.path.startsWith(`${basePath}.`) &&
      key.startsWith(e.path.slice(basePath.length + 1, -3)),
  );
  return choice === undefined ? undefined : { element: choice, path: choice.path };
}

function walk(value: Json, sd: StructureDefinition, basePath: string, report: BindingReport): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, sd, basePath, report);
    return;
  }
  const definitions = structureDefinitions();
  for (const [key, child] of Object.entries(value as Record<string, Json>)) {
    if (key === 'resourceType') continue;
    const found = elementAt(sd, basePath, key);
    if (found === undefined) throw new Error(`${basePath}.${key} is not an element of ${sd.name}`);
    const { element, path } = found;
    const binding = element.binding;
    const items = Array.isArray(child) ? child : [child];
    if (binding?.strength === 'required' && binding.valueSet !== undefined) {
      report.checked.push(path);
      for (const item of items) {
        const codings: { code: string; system?: string }[] =
          typeof item === 'string'
            ? [{ code: item }]
            : ((item as { coding?: { code: string; system?: string }[] }).coding ?? []);
        for (const coding of codings) {
          if (!inValueSet(binding.valueSet, coding.code, coding.system)) {
            report.problems.push({ path, code: coding.code, valueSet: binding.valueSet });
          }
        }
      }
    }
    const type = element.type?.[0]?.code;
    if (type === undefined || typeof child !== 'object' || child === null) continue;
    if (type === 'BackboneElement' || type === 'Element') {
      walk(child, sd, path, report);
    } else if (type === 'Resource') {
      for (const item of items) {
        const name = (item as { resourceType: string }).resourceType;
        walk(item, definitions.get(name)!, name, report);
      }
    } else {
      const typeSd = definitions.get(type);
      if (typeSd !== undefined) walk(child, typeSd, type, report);
    }
  }
}

/** Checks every required binding a resource's values fall under. */
export function checkRequiredBindings(resource: { resourceType: string }): BindingReport {
  const sd = structureDefinitions().get(resource.resourceType);
  if (sd === undefined) throw new Error(`no StructureDefinition for ${resource.resourceType}`);
  const report: BindingReport = { problems: [], checked: [] };
  walk(resource, sd, resource.resourceType, report);
  return report;
}
