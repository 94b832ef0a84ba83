import type { Oas3Rule } from '@redocly/openapi-core';
import { isKeyKind, KEY_KINDS } from '../../../contract/key-kinds.js';
import { pathOperationsVisitor } from '../lib/nodes.js';
import { EPHEMERAL_SCOPES, KNOWN_SCOPES, SCOPELESS_KEY_KINDS } from '../lib/vocabulary.js';

/**
 * `patient-care/operation-scopes`: every operation says, machine-readably, which scopes
 * (`x-scopes`) and which key kinds (`x-key-kinds`) may call it, because the server and the
 * generators read access rules from the spec rather than from a hand-kept table.
 */
export const OperationScopes: Oas3Rule = () => {
  return pathOperationsVisitor(({ operation, ctx, label }) => {
    const scopes = operation['x-scopes'];
    const kinds = operation['x-key-kinds'];
    const report: Report = (message, key) =>
      ctx.report({ message, location: key ? ctx.location.child([key]) : ctx.location.key() });

    const scopesOk = checkScopes(scopes, label, report);
    const kindsOk = checkKeyKinds(kinds, label, report);
    if (!scopesOk || !kindsOk) return;

    if (scopes.length === 0) {
      const others = kinds.filter((kind) => !SCOPELESS_KEY_KINDS.includes(kind));
      if (others.length > 0) {
        report(
          `${label} has empty x-scopes but x-key-kinds also allows ${others.join(', ')}. An operation without scopes is gated by key kind alone, so x-key-kinds must contain only ${SCOPELESS_KEY_KINDS.join(' or ')}: remove ${others.join(', ')}, or give the operation a scope.`,
          'x-key-kinds',
        );
      }
      return;
    }
    if (kinds.includes('publishable')) {
      report(
        `${label} lets publishable keys call an operation that needs scopes [${scopes.join(', ')}]. Publishable keys carry no scopes (they may only create intake tokens): remove publishable from x-key-kinds.`,
        'x-key-kinds',
      );
    }
    const unreachable = scopes.filter((scope) => !EPHEMERAL_SCOPES.includes(scope));
    if (kinds.includes('ephemeral') && unreachable.length > 0) {
      report(
        `${label} allows ephemeral keys but needs ${unreachable.join(', ')}, which an ephemeral key can never carry (only ${EPHEMERAL_SCOPES.join(', ')}): remove ephemeral from x-key-kinds or fix x-scopes.`,
        'x-key-kinds',
      );
    }
  });
};

type Report = (message: string, key?: string) => void;

function checkScopes(scopes: unknown, label: string, report: Report): scopes is string[] {
  if (scopes === undefined) {
    report(
      `${label} does not declare x-scopes. Add "x-scopes: [<scope>]" with the scope that allows it (one of ${KNOWN_SCOPES.join(', ')}), or "x-scopes: []" for an operation gated by key kind alone.`,
    );
    return false;
  }
  if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string')) {
    report(
      `${label} has an x-scopes that is not a list of strings. Write it as a YAML list, e.g. "x-scopes: [patients:read]".`,
      'x-scopes',
    );
    return false;
  }
  const unknown = scopes.filter((scope) => !KNOWN_SCOPES.includes(scope));
  if (unknown.length > 0) {
    report(
      `${label} lists unknown scope(s) ${unknown.map((s) => `"${s}"`).join(', ')} in x-scopes. Use only ${KNOWN_SCOPES.join(', ')}.`,
      'x-scopes',
    );
    return false;
  }
  if (new Set(scopes).size !== scopes.length) {
    report(`${label} lists a scope twice in x-scopes. Remove the duplicate.`, 'x-scopes');
    return false;
  }
  return true;
}

function checkKeyKinds(kinds: unknown, label: string, report: Report): kinds is string[] {
  if (kinds === undefined) {
    report(
      `${label} does not declare x-key-kinds. Add "x-key-kinds: [...]" listing which keys may call it, from ${KEY_KINDS.join(', ')} (normally [secret, restricted]).`,
    );
    return false;
  }
  if (!Array.isArray(kinds) || kinds.length === 0 || kinds.some((k) => typeof k !== 'string')) {
    report(
      `${label} has an empty or malformed x-key-kinds. It must be a non-empty list from ${KEY_KINDS.join(', ')}, e.g. "x-key-kinds: [secret, restricted]".`,
      'x-key-kinds',
    );
    return false;
  }
  const unknown = kinds.filter((kind) => !isKeyKind(kind));
  if (unknown.length > 0) {
    report(
      `${label} lists unknown key kind(s) ${unknown.map((k) => `"${k}"`).join(', ')} in x-key-kinds. Use only ${KEY_KINDS.join(', ')}.`,
      'x-key-kinds',
    );
    return false;
  }
  if (new Set(kinds).size !== kinds.length) {
    report(`${label} lists a key kind twice in x-key-kinds. Remove the duplicate.`, 'x-key-kinds');
    return false;
  }
  return true;
}
