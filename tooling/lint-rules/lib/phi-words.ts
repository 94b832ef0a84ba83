/**
 * Decides whether a parameter name looks like PHI (names, birth dates, contact details,
 * identifiers). Names are split into words (snake_case, kebab-case, camelCase, deepObject
 * brackets) and each word is matched whole, so `limit`, `starting_after`, `created[gt]` or `id`
 * pass while `family_name`, `birthDate`, `identifier[value]` or `zipcode` do not.
 */

/** A word that is PHI on its own (also in plural). */
const PHI_WORD =
  /^(?:name|family|given|birth|dob|email|phone|identifier|mrn|ssn|address|postal|zip)(?:e?s)?$/;

/** Run-together words, as in `birthdate`, `lastname`, `emailaddress`, `zipcode`. */
const PHI_COMPOUND =
  /^(?:(?:first|last|full|family|given|middle|maiden|legal|patient|display|sur)names?|birth\w+|dob\w+|email\w+|phone\w+|postal\w+|postcode|zip(?:code)?s?|ssn\w+|mrn\w+|\w+address(?:es)?|\w*identifiers?)$/;

/** Splits a parameter name into lower-case words: `birthDate` → `birth`, `date`. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** The first word of `name` that looks like PHI, or undefined when the name is clean. */
export function phiWord(name: string): string | undefined {
  return nameWords(name).find((word) => PHI_WORD.test(word) || PHI_COMPOUND.test(word));
}
