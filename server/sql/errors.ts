/** Why a write was refused by a uniqueness rule the repository enforces. */
export type ConflictReason = 'mrn_duplicate' | 'id_duplicate';

/**
 * A write that would break a uniqueness rule. The message names the rule, never the
 * conflicting values (they are PHI), so handlers can pass it into a 409 as is.
 */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  constructor(
    readonly reason: ConflictReason,
    message: string,
    /** The request field at fault, for the error envelope's `param`. */
    readonly param?: string,
  ) {
    super(message);
  }
}
