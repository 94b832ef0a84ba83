/**
 * The one error the OpenAPI model (and the generators built on it) throws for a document it
 * cannot handle. It carries the JSON pointer of the offending node so a command line can turn it
 * into `file:line` (never a stack trace).
 */
export class DocumentError extends Error {
  override readonly name = 'DocumentError';
  /** JSON pointer (`#/paths/~1v1~1patients/get`) of the node the message is about. */
  readonly pointer: string;

  constructor(pointer: string, message: string) {
    super(message);
    this.pointer = pointer;
  }
}
