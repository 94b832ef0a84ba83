/** Splits a parameter name into lower-case words (snake, kebab, camel case, brackets). */
export function nameWords(name: string): string[];
/** The first word of `name` that looks like PHI, or undefined when the name is clean. */
export function phiWord(name: string): string | undefined;
